//! Immediate dominators of a function's blocks (`block_idom`), by Cooper, Harvey and
//! Kennedy's iterative algorithm ("A Simple, Fast Dominance Algorithm", 2001) over the
//! successor lists. Computed in the rules, dominance is the complement of "reachable
//! avoiding D", quadratic in a function's blocks; from the tree it costs the size of the
//! dominance relation (rules/lib/cfg.dl).

/// `succ[b]`: the successors of block `b` (indices in layout order; 0 is the entry). Returns
/// each block's immediate dominator: `None` for the entry and for blocks the entry does not
/// reach.
pub fn immediate_dominators(succ: &[Vec<usize>]) -> Vec<Option<usize>> {
    let n = succ.len();
    let mut idom: Vec<Option<usize>> = vec![None; n];
    if n == 0 {
        return idom;
    }
    let order = reverse_postorder(succ);
    let mut rank = vec![usize::MAX; n];
    for (r, &b) in order.iter().enumerate() {
        rank[b] = r;
    }
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, ss) in succ.iter().enumerate() {
        if rank[b] != usize::MAX {
            for &s in ss {
                pred[s].push(b);
            }
        }
    }
    idom[0] = Some(0);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &order[1..] {
            let mut new = None;
            for &p in &pred[b] {
                if idom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(q) => intersect(&idom, &rank, p, q),
                });
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom[0] = None;
    idom
}

/// The nearest common dominator of `a` and `b`: walk up the tree from the later in reverse
/// postorder until the two meet.
fn intersect(idom: &[Option<usize>], rank: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while rank[a] > rank[b] {
            a = idom[a].expect("processed blocks have a dominator");
        }
        while rank[b] > rank[a] {
            b = idom[b].expect("processed blocks have a dominator");
        }
    }
    a
}

/// The blocks reachable from the entry, in reverse postorder (iteratively: functions with
/// thousands of blocks would overflow a recursive walk).
fn reverse_postorder(succ: &[Vec<usize>]) -> Vec<usize> {
    let mut seen = vec![false; succ.len()];
    let mut post = Vec::with_capacity(succ.len());
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    while let Some((b, next)) = stack.last_mut() {
        match succ[*b].get(*next) {
            Some(&s) => {
                *next += 1;
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            }
            None => {
                post.push(*b);
                stack.pop();
            }
        }
    }
    post.reverse();
    post
}

#[cfg(test)]
mod tests {
    use super::immediate_dominators;

    /// Dominators by definition: D dominates B when B is unreachable from the entry once D
    /// is removed.
    fn by_paths(succ: &[Vec<usize>], d: usize, b: usize) -> bool {
        let mut seen = vec![false; succ.len()];
        let mut stack = vec![0];
        while let Some(x) = stack.pop() {
            if x == d || seen[x] {
                continue;
            }
            seen[x] = true;
            stack.extend(&succ[x]);
        }
        !seen[b]
    }

    fn reachable(succ: &[Vec<usize>]) -> Vec<bool> {
        let mut seen = vec![false; succ.len()];
        let mut stack = vec![0];
        while let Some(x) = stack.pop() {
            if !seen[x] {
                seen[x] = true;
                stack.extend(&succ[x]);
            }
        }
        seen
    }

    /// The tree's ancestors of each block are exactly its dominators by paths.
    fn check(succ: &[Vec<usize>]) {
        let idom = immediate_dominators(succ);
        let live = reachable(succ);
        for b in 0..succ.len() {
            assert_eq!(idom[b].is_some(), live[b] && b != 0, "{succ:?} block {b}");
            if !live[b] {
                continue;
            }
            let mut ancestors = vec![b];
            let mut x = b;
            while let Some(i) = idom[x] {
                ancestors.push(i);
                x = i;
            }
            for d in 0..succ.len() {
                let expected = live[d] && by_paths(succ, d, b);
                let dominated = ancestors.contains(&d);
                assert_eq!(dominated, expected, "{succ:?}: does {d} dominate {b}?");
            }
        }
    }

    /// On every graph of 4 blocks with up to 2 successors each, an irreducible one, and a
    /// long chain.
    #[test]
    fn the_tree_gives_the_dominators_by_paths() {
        // Every successor list over 4 blocks with at most 2 entries each.
        let n = 4;
        let mut lists: Vec<Vec<usize>> = vec![vec![]];
        for a in 0..n {
            lists.push(vec![a]);
            for b in a + 1..n {
                lists.push(vec![a, b]);
            }
        }
        let k = lists.len();
        for code in 0..k.pow(n as u32) {
            let mut c = code;
            let succ: Vec<Vec<usize>> = (0..n)
                .map(|_| {
                    let l = lists[c % k].clone();
                    c /= k;
                    l
                })
                .collect();
            check(&succ);
        }
        // An irreducible loop entered at two points, a self-loop, an unreachable block.
        check(&[vec![1, 2], vec![2, 3], vec![1, 3], vec![3, 4], vec![0], vec![2]]);
        // A long chain (no recursion depth limit).
        let chain: Vec<Vec<usize>> =
            (0..20_000).map(|i| if i + 1 < 20_000 { vec![i + 1] } else { vec![] }).collect();
        let idom = immediate_dominators(&chain);
        assert!((1..20_000).all(|i| idom[i] == Some(i - 1)));
    }
}
