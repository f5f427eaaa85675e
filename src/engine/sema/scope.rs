//! Aggregate scoping, as Soufflé reads it: a variable of an aggregate is the
//! rule's (a group key) when the rest of the rule grounds it (positive atoms,
//! equalities, the bodies of enclosing aggregates; other aggregates' values
//! count as grounded) and the target does not use it; otherwise it is the
//! aggregate's own, renamed apart (`x` becomes `x@k`), so that two
//! aggregates, or an aggregate and the rest of the clause, never share it by
//! accident. Also the variable walks over the syntax tree that the other
//! passes use.

use std::collections::HashSet;

use crate::engine::ast::{Aggregate, Atom, CmpOp, Literal, Loc, Term};

/// Rename the aggregate-local variables of one clause (one head and its body).
pub fn scope_clause(head: &mut Atom, body: &mut [Literal]) {
    let context = body.to_vec();
    let mut fresh = 0;
    for t in &mut head.args {
        scope_term(t, &context, &mut fresh);
    }
    for l in body.iter_mut() {
        for t in lit_terms_mut(l) {
            scope_term(t, &context, &mut fresh);
        }
    }
}

/// `context`: the literals around `t` (the rule's body, and the bodies of the
/// aggregates `t` is nested in).
fn scope_term(t: &mut Term, context: &[Literal], fresh: &mut usize) {
    match t {
        Term::Agg(agg) => {
            *fresh += 1;
            let k = *fresh;
            let outer = grounded(context, &agg.loc);
            let mut target = Vec::new();
            if let Some(tg) = &agg.target {
                all_vars(tg, &mut target);
            }
            let f = move |v: &str| {
                if outer.contains(v) && !target.iter().any(|t| t == v) {
                    None
                } else {
                    Some(format!("{v}@{k}"))
                }
            };
            // this level's locals, nested aggregates' included: they get their own suffix below
            let mut tmp = Term::Agg(agg.clone());
            rename_term(&mut tmp, &f);
            let Term::Agg(mut renamed) = tmp else {
                unreachable!()
            };
            let mut inner = context.to_vec();
            inner.extend(renamed.body.iter().cloned());
            if let Some(tg) = &mut renamed.target {
                scope_term(tg, &inner, fresh);
            }
            for l in &mut renamed.body {
                for t in lit_terms_mut(l) {
                    scope_term(t, &inner, fresh);
                }
            }
            *agg = renamed;
        }
        Term::Bin(_, a, b, _) => {
            scope_term(a, context, fresh);
            scope_term(b, context, fresh);
        }
        Term::Un(_, a, _) | Term::As(a, _, _) => scope_term(a, context, fresh),
        Term::Call(_, args, _) | Term::Record(args, _) | Term::Branch(_, args, _) => {
            args.iter_mut().for_each(|a| scope_term(a, context, fresh))
        }
        _ => {}
    }
}

/// The variables that `literals` ground without the aggregate at `skip`:
/// arguments of positive atoms (and the fields of records there), and
/// either side of an equality whose other side is grounded; an aggregate's
/// value is grounded, `autoinc()`'s is not.
fn grounded(literals: &[Literal], skip: &Loc) -> HashSet<String> {
    let mut g = HashSet::new();
    loop {
        let n = g.len();
        for l in literals {
            match l {
                Literal::Pos(a) => a.args.iter().for_each(|t| bind(t, &mut g)),
                Literal::Cmp(CmpOp::Eq, a, b, _) => {
                    if is_grounded(a, &g, skip) {
                        bind(b, &mut g);
                    }
                    if is_grounded(b, &g, skip) {
                        bind(a, &mut g);
                    }
                }
                _ => {}
            }
        }
        if g.len() == n {
            return g;
        }
    }
}

fn bind(t: &Term, g: &mut HashSet<String>) {
    match t {
        Term::Var(v, _) => {
            g.insert(v.clone());
        }
        Term::Record(xs, _) | Term::Branch(_, xs, _) => xs.iter().for_each(|x| bind(x, g)),
        _ => {}
    }
}

fn is_grounded(t: &Term, g: &HashSet<String>, skip: &Loc) -> bool {
    match t {
        Term::Var(v, _) => g.contains(v),
        Term::Anon(_) => false,
        Term::Number(..) | Term::Unsigned(..) | Term::Float(..) | Term::Str(..) | Term::Nil(_) => {
            true
        }
        Term::Agg(a) => !is_at(a, skip),
        Term::Call(name, _, _) if name == "autoinc" => false,
        Term::Bin(_, a, b, _) => is_grounded(a, g, skip) && is_grounded(b, g, skip),
        Term::Un(_, a, _) | Term::As(a, _, _) => is_grounded(a, g, skip),
        Term::Call(_, xs, _) | Term::Record(xs, _) | Term::Branch(_, xs, _) => {
            xs.iter().all(|x| is_grounded(x, g, skip))
        }
    }
}

fn is_at(a: &Aggregate, loc: &Loc) -> bool {
    a.loc == *loc
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
