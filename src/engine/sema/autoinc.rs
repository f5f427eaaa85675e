//! `autoinc()`, Soufflé's counter: where it may not be used. Each call gives
//! the next number of one counter shared by the run, so a fact using it
//! would not be a constant, and a recursive rule using it would derive a new
//! tuple in every iteration, forever; inlining would change how often it is
//! called. Soufflé rejects these, with these words; and as it never counts
//! the counter as grounded, a record holding it must get its value elsewhere
//! (`Ungrounded record`).

use anyhow::Result;

use super::decls::Decls;
use super::scope::lit_terms;
use crate::engine::ast::{CmpOp, Literal, Loc, Source, Term, err_at};
use crate::engine::ir::{Lit, Rule, Stratum};

/// Check each clause; `rules` are the lowered rules, one per head of each
/// clause, in the same order.
pub fn check(src: &Source, decls: &Decls, rules: &[Rule], strata: &[Stratum]) -> Result<()> {
    let inline = |name: &str| {
        decls
            .rel_index
            .get(name)
            .is_some_and(|r| decls.rels[*r].inline)
    };
    let mut stratum_of = vec![0; strata.iter().map(|s| s.rels.len()).sum()];
    for (i, s) in strata.iter().enumerate() {
        for &r in &s.rels {
            stratum_of[r] = i;
        }
    }
    let heads = src
        .clauses
        .iter()
        .flat_map(|c| c.heads.iter().map(move |h| (c, h)));
    for ((clause, head), rule) in heads.zip(rules) {
        for l in &clause.body {
            if let Literal::Pos(a) | Literal::Neg(a) = l
                && inline(&a.name)
                && let Some(loc) = a.args.iter().find_map(autoinc_call)
            {
                return Err(err_at(
                    loc,
                    "Cannot inline literal containing a counter argument '$'",
                ));
            }
        }
        let mut terms: Vec<&Term> = head.args.iter().collect();
        terms.extend(clause.body.iter().flat_map(lit_terms));
        let Some(loc) = terms.into_iter().find_map(autoinc_call) else {
            continue;
        };
        if inline(&head.name) {
            return Err(err_at(
                loc,
                "Cannot inline clause containing a counter argument '$'",
            ));
        }
        if clause.body.is_empty() {
            return Err(err_at(loc, "Argument in fact is not constant"));
        }
        // the counter grounds nothing, so neither does a record holding it
        // where no atom or equality gives the record a value
        let mut open: Vec<&Term> = head.args.iter().collect();
        for l in &clause.body {
            match l {
                Literal::Neg(a) => open.extend(&a.args),
                Literal::Cmp(op, a, b, _) if *op != CmpOp::Eq => open.extend([a, b]),
                _ => {}
            }
        }
        if let Some((loc, what)) = open.into_iter().find_map(counted_record) {
            return Err(err_at(loc, format!("Ungrounded {what}")));
        }
        let s = &strata[stratum_of[rule.head_rel]];
        let recursive = s.recursive
            && rule.body.iter().any(|l| match l {
                Lit::Atom { rel, .. } | Lit::Neg { rel, .. } => s.rels.contains(rel),
                _ => false,
            });
        if recursive {
            return Err(err_at(loc, "Auto-increment functor in a recursive rule"));
        }
    }
    Ok(())
}

/// The first record or ADT term in `t` that holds an `autoinc()` call: its
/// position and Soufflé's name for it.
fn counted_record(t: &Term) -> Option<(&Loc, &'static str)> {
    match t {
        Term::Record(xs, l) if xs.iter().any(|x| autoinc_call(x).is_some()) => Some((l, "record")),
        Term::Branch(_, xs, l) if xs.iter().any(|x| autoinc_call(x).is_some()) => {
            Some((l, "ADT branch"))
        }
        Term::Call(_, xs, _) => xs.iter().find_map(counted_record),
        Term::Bin(_, a, b, _) => counted_record(a).or_else(|| counted_record(b)),
        Term::Un(_, a, _) | Term::As(a, _, _) => counted_record(a),
        _ => None,
    }
}

/// The position of an `autoinc()` call in `t`, if any.
fn autoinc_call(t: &Term) -> Option<&Loc> {
    match t {
        Term::Call(name, _, l) if name == "autoinc" => Some(l),
        Term::Call(_, xs, _) | Term::Record(xs, _) | Term::Branch(_, xs, _) => {
            xs.iter().find_map(autoinc_call)
        }
        Term::Bin(_, a, b, _) => autoinc_call(a).or_else(|| autoinc_call(b)),
        Term::Un(_, a, _) | Term::As(a, _, _) => autoinc_call(a),
        Term::Agg(agg) => agg.target.as_ref().and_then(autoinc_call).or_else(|| {
            agg.body
                .iter()
                .flat_map(|l: &Literal| lit_terms(l))
                .find_map(autoinc_call)
        }),
        _ => None,
    }
}
