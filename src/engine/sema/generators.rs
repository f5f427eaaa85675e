//! Generators: `range(a, b[, step])` yields several values. Every call that
//! is not already the right side of `x = range(..)` is lifted out of its
//! term into a fresh variable `range#k` and such an equality, in the body
//! (or the aggregate body) the call belongs to; lowering turns each
//! `x = range(..)` into a generator literal.

use crate::engine::ast::{Atom, CmpOp, Literal, Term};

use super::scope::lit_terms_mut;

/// Lift the `range` calls of one clause.
pub fn lift_ranges(head: &mut Atom, body: &mut Vec<Literal>) {
    let mut k = 0;
    let mut extra = Vec::new();
    for t in &mut head.args {
        lift(t, &mut extra, &mut k);
    }
    lift_body(body, &mut k);
    body.extend(extra);
}

/// Whether `t` is a `range(..)` call.
pub fn is_range(t: &Term) -> bool {
    matches!(t, Term::Call(n, _, _) if n == "range")
}

fn lift_body(body: &mut Vec<Literal>, k: &mut usize) {
    let mut extra = Vec::new();
    for l in body.iter_mut() {
        if let Literal::Cmp(CmpOp::Eq, a, b, _) = l
            && (matches!(a, Term::Var(..)) && is_range(b)
                || matches!(b, Term::Var(..)) && is_range(a))
        {
            let call = if is_range(a) { a } else { b };
            if let Term::Call(_, args, _) = call {
                args.iter_mut().for_each(|x| lift(x, &mut extra, k));
            }
            continue;
        }
        for t in lit_terms_mut(l) {
            lift(t, &mut extra, k);
        }
    }
    body.extend(extra);
}

fn lift(t: &mut Term, out: &mut Vec<Literal>, k: &mut usize) {
    match t {
        Term::Call(name, args, loc) if name == "range" => {
            args.iter_mut().for_each(|x| lift(x, out, k));
            *k += 1;
            let v = Term::Var(format!("range#{k}"), loc.clone());
            let call = std::mem::replace(t, v.clone());
            out.push(Literal::Cmp(CmpOp::Eq, v, call, t.loc().clone()));
        }
        Term::Agg(agg) => {
            let mut inner = Vec::new();
            if let Some(tg) = &mut agg.target {
                lift(tg, &mut inner, k);
            }
            lift_body(&mut agg.body, k);
            agg.body.extend(inner);
        }
        Term::Bin(_, a, b, _) => {
            lift(a, out, k);
            lift(b, out, k);
        }
        Term::Un(_, a, _) | Term::As(a, _, _) => lift(a, out, k),
        Term::Call(_, xs, _) | Term::Record(xs, _) | Term::Branch(_, xs, _) => {
            xs.iter_mut().for_each(|x| lift(x, out, k))
        }
        _ => {}
    }
}
