//! Groundedness (safety): every variable of a rule must be bound by a
//! positive atom, or by `x = expr` with `expr` bound, before a head, a
//! negation, a comparison or a functor uses it.
//!
//! As in Soufflé, `autoinc()` grounds nothing: `x = autoinc()` leaves `x`
//! unbound (a rule numbers tuples through its head).
//!
//! The bound variables of a body are a fixpoint: a literal becomes usable
//! once the variables it needs are bound, and then binds its own. This does not
//! order the body (the planner does, later, and relies on this pass).

use anyhow::Result;

use crate::engine::ast::{CmpOp, err_at};
use crate::engine::ir::{
    Arg, Checked, Expr, Lit, Rule, atom_ready, display_var, expr_autoinc, expr_vars, lit_loc,
    lit_vars, ready,
};

/// Check every rule, in evaluation order (strata, then their rules).
pub fn check(prog: &Checked) -> Result<()> {
    for stratum in &prog.strata {
        for &r in &stratum.rules {
            check_rule(&prog.rules[r])?;
        }
    }
    prog.subsumptions.iter().try_for_each(check_rule)
}

fn check_rule(rule: &Rule) -> Result<()> {
    let mut bound = vec![false; rule.var_names.len()];
    check_body(rule, &rule.body, &mut bound)?;
    for v in &rule.head_vars {
        if !bound[*v] {
            return Err(ungrounded(rule, *v));
        }
    }
    for e in &rule.head {
        check_aggregates(rule, e, &bound)?;
    }
    Ok(())
}

/// Bind what the literals `lits` bind, on top of `bound`. Every literal must
/// become usable; the aggregates inside them must be grounded too.
fn check_body(rule: &Rule, lits: &[Lit], bound: &mut [bool]) -> Result<()> {
    let mut usable = vec![false; lits.len()];
    let mut progress = true;
    while progress {
        progress = false;
        for (i, l) in lits.iter().enumerate() {
            if !usable[i] && bind(l, bound) {
                usable[i] = true;
                progress = true;
            }
        }
    }
    for (l, _) in lits.iter().zip(&usable).filter(|(_, u)| **u) {
        for e in lit_exprs(l) {
            check_aggregates(rule, e, bound)?;
        }
    }
    if let Some(i) = usable.iter().position(|u| !u) {
        let mut vs = Vec::new();
        lit_vars(&lits[i], &mut vs);
        return Err(match vs.into_iter().find(|v| !bound[*v]) {
            Some(v) => ungrounded(rule, v),
            None => err_at(lit_loc(&lits[i]), "cannot order this literal (ungrounded)"),
        });
    }
    Ok(())
}

/// If `l` is usable with the variables of `bound`, mark the variables it binds and return true.
fn bind(l: &Lit, bound: &mut [bool]) -> bool {
    match l {
        // bound fields build a record
        Lit::Unpack { var, fields, .. } if !bound[*var] => {
            let built = fields.iter().all(|f| match f {
                Arg::Var(v) => bound[*v],
                Arg::Anon => false,
                Arg::Expr(e) => grounds(e, bound),
            });
            if built {
                bound[*var] = true;
            }
            built
        }
        // a bound record binds its fields as an atom binds its arguments
        Lit::Atom { args, .. } | Lit::Unpack { fields: args, .. } => {
            if !atom_ready(args, bound) {
                return false;
            }
            for a in args {
                if let Arg::Var(v) = a {
                    bound[*v] = true;
                }
            }
            true
        }
        Lit::Neg { args, .. } => args.iter().all(|a| match a {
            Arg::Var(v) => bound[*v],
            Arg::Anon => true,
            Arg::Expr(e) => ready(e, bound),
        }),
        Lit::Cmp { op, lhs, rhs, .. } => {
            if ready(lhs, bound) && ready(rhs, bound) {
                return true;
            }
            match (lhs, rhs) {
                (Expr::Var(v), e) | (e, Expr::Var(v))
                    if *op == CmpOp::Eq && !bound[*v] && grounds(e, bound) =>
                {
                    bound[*v] = true;
                    true
                }
                _ => false,
            }
        }
        Lit::Contains { sub: a, s: b, .. } | Lit::Match { re: a, s: b, .. } => {
            ready(a, bound) && ready(b, bound)
        }
        Lit::Range { var, args, .. } => {
            let ok = args.iter().all(|a| grounds(a, bound));
            if ok {
                bound[*var] = true;
            }
            ok
        }
    }
}

/// Whether `e` gives a bound value to what it is equated with.
fn grounds(e: &Expr, bound: &[bool]) -> bool {
    ready(e, bound) && !expr_autoinc(e)
}

/// The expressions of a literal, in order.
fn lit_exprs(l: &Lit) -> Vec<&Expr> {
    match l {
        Lit::Atom { args, .. } | Lit::Neg { args, .. } | Lit::Unpack { fields: args, .. } => args
            .iter()
            .filter_map(|a| match a {
                Arg::Expr(e) => Some(e),
                _ => None,
            })
            .collect(),
        Lit::Cmp { lhs: a, rhs: b, .. }
        | Lit::Contains { sub: a, s: b, .. }
        | Lit::Match { re: a, s: b, .. } => vec![a, b],
        Lit::Range { args, .. } => args.iter().collect(),
    }
}

/// Each aggregate in `e` (in evaluation order): its body binds on top of
/// `bound`, and its target must be bound by then.
fn check_aggregates(rule: &Rule, e: &Expr, bound: &[bool]) -> Result<()> {
    match e {
        Expr::Agg(agg) => {
            let mut inner = bound.to_vec();
            check_body(rule, &agg.body, &mut inner)?;
            if let Some(t) = &agg.target {
                let mut vs = Vec::new();
                expr_vars(t, &mut vs);
                if let Some(v) = vs.into_iter().find(|v| !inner[*v]) {
                    return Err(ungrounded(rule, v));
                }
            }
            Ok(())
        }
        Expr::Bin(_, _, a, b) => {
            check_aggregates(rule, a, bound)?;
            check_aggregates(rule, b, bound)
        }
        Expr::Un(_, _, a) | Expr::Strlen(a) | Expr::Conv(_, _, a) | Expr::Ord(a) => {
            check_aggregates(rule, a, bound)
        }
        Expr::Substr(a, b, c) => {
            check_aggregates(rule, a, bound)?;
            check_aggregates(rule, b, bound)?;
            check_aggregates(rule, c, bound)
        }
        Expr::Cat(xs) | Expr::MinMax(_, _, xs) | Expr::Rec(xs) => {
            xs.iter().try_for_each(|x| check_aggregates(rule, x, bound))
        }
        Expr::Var(_) | Expr::Const(_) | Expr::AutoInc => Ok(()),
    }
}

fn ungrounded(rule: &Rule, v: usize) -> anyhow::Error {
    err_at(
        &rule.var_locs[v],
        format!("Ungrounded variable {}", display_var(&rule.var_names[v])),
    )
}
