//! Aggregate scoping: variables local to an aggregate (those of its target,
//! and those not used outside it) are renamed apart (`x` becomes `x@k`), so
//! that two aggregates, or an aggregate and the rest of the clause, never
//! share a variable by accident. Also the variable walks
//! over the syntax tree that the other passes use.

use std::collections::HashSet;

use crate::engine::ast::{Atom, Literal, Term};

/// Rename the aggregate-local variables of one clause (one head and its body).
/// A variable is local to an aggregate when it does not occur outside it.
pub fn scope_clause(head: &mut Atom, body: &mut [Literal]) {
    let mut outer_names = Vec::new();
    for t in &head.args {
        term_vars_outer(t, &mut outer_names);
    }
    for l in body.iter() {
        for t in lit_terms(l) {
            term_vars_outer(t, &mut outer_names);
        }
    }
    let outer: HashSet<String> = outer_names.into_iter().collect();
    let mut fresh = 0;
    for t in &mut head.args {
        scope_term(t, &outer, &mut fresh);
    }
    for l in body.iter_mut() {
        for t in lit_terms_mut(l) {
            scope_term(t, &outer, &mut fresh);
        }
    }
}

fn scope_term(t: &mut Term, outer: &HashSet<String>, fresh: &mut usize) {
    match t {
        Term::Agg(agg) => {
            *fresh += 1;
            let k = *fresh;
            // as in Soufflé, the target's variables are the aggregate's own even
            // when the rule uses the name too (`sum z : { f(z) }` sums every z)
            let mut target = Vec::new();
            if let Some(tg) = &agg.target {
                all_vars(tg, &mut target);
            }
            let outer2 = outer.clone();
            let f = move |v: &str| {
                if outer2.contains(v) && !target.iter().any(|t| t == v) {
                    None
                } else {
                    Some(format!("{v}@{k}"))
                }
            };
            // rename this level's locals (nested aggregates are renamed too; they get their own suffix below)
            let mut tmp = Term::Agg(agg.clone());
            rename_term(&mut tmp, &f);
            let Term::Agg(mut renamed) = tmp else {
                unreachable!()
            };
            // locals visible in this aggregate's body become "outer" for nested ones
            let mut inner_outer = outer.clone();
            let mut names = Vec::new();
            if let Some(tg) = &renamed.target {
                term_vars_outer(tg, &mut names);
            }
            for l in &renamed.body {
                for t in lit_terms(l) {
                    term_vars_outer(t, &mut names);
                }
            }
            inner_outer.extend(names);
            if let Some(tg) = &mut renamed.target {
                scope_term(tg, &inner_outer, fresh);
            }
            for l in &mut renamed.body {
                for t in lit_terms_mut(l) {
                    scope_term(t, &inner_outer, fresh);
                }
            }
            *agg = renamed;
        }
        Term::Bin(_, a, b, _) => {
            scope_term(a, outer, fresh);
            scope_term(b, outer, fresh);
        }
        Term::Un(_, a, _) | Term::As(a, _, _) => scope_term(a, outer, fresh),
        Term::Call(_, args, _) | Term::Record(args, _) | Term::Branch(_, args, _) => {
            args.iter_mut().for_each(|a| scope_term(a, outer, fresh))
        }
        _ => {}
    }
}

pub fn term_vars_outer(t: &Term, out: &mut Vec<String>) {
    match t {
        Term::Var(v, _) => out.push(v.clone()),
        Term::Bin(_, a, b, _) => {
            term_vars_outer(a, out);
            term_vars_outer(b, out);
        }
        Term::Un(_, a, _) | Term::As(a, _, _) => term_vars_outer(a, out),
        Term::Call(_, args, _) | Term::Record(args, _) | Term::Branch(_, args, _) => {
            args.iter().for_each(|a| term_vars_outer(a, out))
        }
        _ => {}
    }
}

pub fn lit_terms(l: &Literal) -> Vec<&Term> {
    match l {
        Literal::Pos(a) | Literal::Neg(a) => a.args.iter().collect(),
        Literal::Cmp(_, a, b, _) | Literal::Contains(_, a, b, _) | Literal::Match(_, a, b, _) => {
            vec![a, b]
        }
    }
}

pub fn lit_terms_mut(l: &mut Literal) -> Vec<&mut Term> {
    match l {
        Literal::Pos(a) | Literal::Neg(a) => a.args.iter_mut().collect(),
        Literal::Cmp(_, a, b, _) | Literal::Contains(_, a, b, _) | Literal::Match(_, a, b, _) => {
            vec![a, b]
        }
    }
}

/// Rename every variable in a term (aggregates included) via `f`.
pub fn rename_term(t: &mut Term, f: &dyn Fn(&str) -> Option<String>) {
    match t {
        Term::Var(v, _) => {
            if let Some(n) = f(v) {
                *v = n;
            }
        }
        Term::Bin(_, a, b, _) => {
            rename_term(a, f);
            rename_term(b, f);
        }
        Term::Un(_, a, _) | Term::As(a, _, _) => rename_term(a, f),
        Term::Call(_, args, _) | Term::Record(args, _) | Term::Branch(_, args, _) => {
            args.iter_mut().for_each(|a| rename_term(a, f))
        }
        Term::Agg(agg) => {
            if let Some(tg) = &mut agg.target {
                rename_term(tg, f);
            }
            for l in &mut agg.body {
                for t in lit_terms_mut(l) {
                    rename_term(t, f);
                }
            }
        }
        _ => {}
    }
}

pub fn all_vars(t: &Term, out: &mut Vec<String>) {
    match t {
        Term::Var(v, _) => out.push(v.clone()),
        Term::Bin(_, a, b, _) => {
            all_vars(a, out);
            all_vars(b, out);
        }
        Term::Un(_, a, _) | Term::As(a, _, _) => all_vars(a, out),
        Term::Call(_, args, _) | Term::Record(args, _) | Term::Branch(_, args, _) => {
            args.iter().for_each(|a| all_vars(a, out))
        }
        Term::Agg(agg) => {
            if let Some(tg) = &agg.target {
                all_vars(tg, out);
            }
            for l in &agg.body {
                for t in lit_terms(l) {
                    all_vars(t, out);
                }
            }
        }
        _ => {}
    }
}

pub fn visit_aggs(t: &Term, found: &mut bool) {
    match t {
        Term::Agg(_) => *found = true,
        Term::Bin(_, a, b, _) => {
            visit_aggs(a, found);
            visit_aggs(b, found);
        }
        Term::Un(_, a, _) | Term::As(a, _, _) => visit_aggs(a, found),
        Term::Call(_, args, _) | Term::Record(args, _) | Term::Branch(_, args, _) => {
            args.iter().for_each(|a| visit_aggs(a, found))
        }
        _ => {}
    }
}
