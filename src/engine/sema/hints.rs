//! Directives and qualifiers that change no tuple: `.pragma` (ignored;
//! `warnings` reports odd keys), `.limitsize` (attached to its relation), and
//! `inline`, whose restrictions are Soufflé's (it substitutes the relation's rules into
//! their uses, which some uses do not survive).

use std::collections::{HashMap, HashSet};

use anyhow::Result;

use super::decls::Decls;
use super::scope::{all_vars, lit_terms};
use crate::engine::ast::{Atom, Literal, Loc, Source, Term, err_at};

pub fn check(src: &Source, decls: &mut Decls) -> Result<()> {
    for (rel, n, loc) in &src.limits {
        let r = *decls
            .rel_index
            .get(rel)
            .ok_or_else(|| err_at(loc, format!("Undefined relation {rel}")))?;
        decls.rels[r].limit = Some(*n);
    }
    check_inline(src, decls)
}

fn is_inline(decls: &Decls, name: &str) -> bool {
    decls
        .rel_index
        .get(name)
        .is_some_and(|r| decls.rels[*r].inline)
}

fn check_inline(src: &Source, decls: &Decls) -> Result<()> {
    for r in decls.rels.iter().filter(|r| r.inline) {
        if !r.inputs.is_empty() || !r.outputs.is_empty() || r.printsize {
            return Err(err_at(
                &r.loc,
                format!("IO relation {} cannot be inlined", r.name),
            ));
        }
    }
    // inline relations whose rules have body variables outside the head
    let mut widening: HashSet<&str> = HashSet::new();
    let mut edges: HashMap<&str, Vec<&str>> = HashMap::new();
    for c in &src.clauses {
        for h in c.heads.iter().filter(|h| is_inline(decls, &h.name)) {
            let mut head_vars = Vec::new();
            h.args.iter().for_each(|t| all_vars(t, &mut head_vars));
            let mut body_vars = Vec::new();
            for l in &c.body {
                lit_terms(l)
                    .into_iter()
                    .for_each(|t| all_vars(t, &mut body_vars));
            }
            if body_vars.iter().any(|v| !head_vars.contains(v)) {
                widening.insert(&h.name);
            }
            let mut used = Vec::new();
            atoms(&c.body, &mut |a, _, _| used.push(a.name.as_str()));
            edges
                .entry(&h.name)
                .or_default()
                .extend(used.into_iter().filter(|n| is_inline(decls, n)));
        }
    }
    let mut err = None;
    for c in &src.clauses {
        atoms(&c.body, &mut |a, neg, in_agg| {
            if err.is_some() || !is_inline(decls, &a.name) {
                return;
            }
            if in_agg {
                err = Some(err_at(
                    &a.loc,
                    "Cannot inline relations that appear in aggregator",
                ));
            } else if neg && widening.contains(a.name.as_str()) {
                err = Some(err_at(
                    &a.loc,
                    "Cannot inline negated relation which may introduce new variables",
                ));
            } else if let Some(l) = a.args.iter().find_map(underscore).filter(|_| neg) {
                err = Some(err_at(
                    l,
                    "Cannot inline negated atom containing an unnamed variable unless the variable is within an aggregator",
                ));
            }
        });
    }
    if let Some(e) = err {
        return Err(e);
    }
    if let Some(cycle) = inline_cycle(&edges) {
        let r = &decls.rels[decls.rel_index[cycle[0]]];
        return Err(err_at(
            &r.loc,
            format!(
                "Cannot inline cyclically dependent relations {{{}}}",
                cycle.join(", ")
            ),
        ));
    }
    Ok(())
}

/// The position of a `_` outside aggregates, if any.
fn underscore(t: &Term) -> Option<&Loc> {
    match t {
        Term::Anon(l) => Some(l),
        Term::Bin(_, a, b, _) => underscore(a).or_else(|| underscore(b)),
        Term::Un(_, a, _) | Term::As(a, _, _) => underscore(a),
        Term::Call(_, xs, _) | Term::Record(xs, _) | Term::Branch(_, xs, _) => {
            xs.iter().find_map(underscore)
        }
        _ => None,
    }
}

/// Visit every atom of a body: (atom, negated, inside an aggregate).
fn atoms<'a>(body: &'a [Literal], f: &mut dyn FnMut(&'a Atom, bool, bool)) {
    fn in_term<'a>(t: &'a Term, f: &mut dyn FnMut(&'a Atom, bool, bool)) {
        match t {
            Term::Agg(agg) => {
                atoms(&agg.body, &mut |a, neg, _| f(a, neg, true));
                agg.target.iter().for_each(|x| in_term(x, f));
            }
            Term::Bin(_, a, b, _) => {
                in_term(a, f);
                in_term(b, f);
            }
            Term::Un(_, a, _) | Term::As(a, _, _) => in_term(a, f),
            Term::Call(_, xs, _) | Term::Record(xs, _) | Term::Branch(_, xs, _) => {
                xs.iter().for_each(|x| in_term(x, f))
            }
            _ => {}
        }
    }
    for l in body {
        match l {
            Literal::Pos(a) => f(a, false, false),
            Literal::Neg(a) => f(a, true, false),
            _ => {}
        }
        lit_terms(l).into_iter().for_each(|t| in_term(t, f));
    }
}

/// A cycle among inline relations, if any (its members in order).
fn inline_cycle<'a>(edges: &HashMap<&'a str, Vec<&'a str>>) -> Option<Vec<&'a str>> {
    fn dfs<'a>(
        n: &'a str,
        edges: &HashMap<&'a str, Vec<&'a str>>,
        path: &mut Vec<&'a str>,
        done: &mut HashSet<&'a str>,
    ) -> Option<Vec<&'a str>> {
        if let Some(i) = path.iter().position(|p| *p == n) {
            return Some(path[i..].to_vec());
        }
        if !done.insert(n) {
            return None;
        }
        path.push(n);
        for m in edges.get(n).into_iter().flatten() {
            if let Some(c) = dfs(m, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut names: Vec<&str> = edges.keys().copied().collect();
    names.sort_unstable();
    let mut done = HashSet::new();
    names
        .into_iter()
        .find_map(|n| dfs(n, edges, &mut Vec::new(), &mut done))
}
