//! Stratification: relations grouped into strongly connected components of
//! the dependency graph, in evaluation order; negation or aggregation inside
//! a component is rejected. Also which relations the outputs need.

use anyhow::{Result, anyhow};

use crate::engine::ast::Loc;
use crate::engine::ir::{RelInfo, Rule, Stratum};

/// A dependency `(from, to, negated-or-aggregated, where)`: `to`'s rules read `from`.
pub type Edge = (usize, usize, bool, Loc);

pub fn stratify(rels: &[RelInfo], rules: &[Rule], edges: &[Edge]) -> Result<Vec<Stratum>> {
    let n = rels.len();
    let mut adj: Vec<Vec<usize>> = vec![vec![]; n];
    for (from, to, _, _) in edges {
        if !adj[*from].contains(to) {
            adj[*from].push(*to);
        }
    }
    let sccs = components(&adj);
    let mut comp_of = vec![0; n];
    for (c, comp) in sccs.iter().enumerate() {
        for r in comp {
            comp_of[*r] = c;
        }
    }
    for (from, to, neg, loc) in edges {
        if *neg && comp_of[*from] == comp_of[*to] {
            let names: Vec<_> = sccs[comp_of[*from]]
                .iter()
                .map(|r| rels[*r].name.as_str())
                .collect();
            return Err(anyhow!(
                "{loc}: Unable to stratify relation(s) {{{}}}: {} is negated or aggregated inside its own recursion",
                names.join(","),
                rels[*from].name
            ));
        }
    }
    let mut strata = Vec::new();
    for comp in &sccs {
        let recursive = comp.len() > 1
            || edges
                .iter()
                .any(|(f, t, _, _)| *f == comp[0] && *t == comp[0]);
        let rules_of: Vec<usize> = (0..rules.len())
            .filter(|i| comp.contains(&rules[*i].head_rel))
            .collect();
        strata.push(Stratum {
            rels: comp.clone(),
            rules: rules_of,
            recursive,
        });
    }
    Ok(strata)
}

/// The strongly connected components of the graph `adj`, each sorted, in
/// topological order (Tarjan's algorithm, iterative).
fn components(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = adj.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on = vec![false; n];
    let mut stack = Vec::new();
    let mut sccs: Vec<Vec<usize>> = Vec::new();
    let mut next = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on[root] = true;
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if *i < adj[v].len() {
                let w = adj[v][*i];
                *i += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on[w] = true;
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                work.pop();
                if let Some(&(p, _)) = work.last() {
                    low[p] = low[p].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    loop {
                        let w = stack.pop().unwrap();
                        on[w] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    comp.sort();
                    sccs.push(comp);
                }
            }
        }
    }
    // Tarjan yields components in reverse topological order
    sccs.reverse();
    sccs
}

/// Per relation: the last stratum that reads it or derives it (its rows can
/// be freed after that one).
pub fn last_use(n: usize, strata: &[Stratum], edges: &[Edge]) -> Vec<usize> {
    let mut last = vec![0; n];
    for (s, stratum) in strata.iter().enumerate() {
        for r in &stratum.rels {
            last[*r] = s;
        }
    }
    let of = last.clone();
    for (from, to, _, _) in edges {
        last[*from] = last[*from].max(of[*to]);
    }
    last
}

/// Relations some output or `.printsize` relation depends on, directly or through rules.
/// Like Soufflé, inputs outside this set are never read (their files need not exist).
pub fn needed_relations(rels: &[RelInfo], edges: &[Edge]) -> Vec<bool> {
    let mut feeds: Vec<Vec<usize>> = vec![Vec::new(); rels.len()];
    for (from, to, _, _) in edges {
        feeds[*to].push(*from);
    }
    let mut needed = vec![false; rels.len()];
    let mut work: Vec<usize> = (0..rels.len())
        .filter(|&r| !rels[r].outputs.is_empty() || rels[r].printsize)
        .collect();
    while let Some(r) = work.pop() {
        if !std::mem::replace(&mut needed[r], true) {
            work.extend(feeds[r].iter().copied());
        }
    }
    needed
}
