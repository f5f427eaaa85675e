//! `autoinc()`, Soufflé's counter: where it may not be used. Each call gives
//! the next number of one counter shared by the run, so a fact using it
//! would not be a constant, and a recursive rule using it would derive a new
//! tuple in every iteration, forever; inlining would change how often it is
//! called. Soufflé rejects these, with these words.

use anyhow::Result;

use super::decls::Decls;
use super::scope::lit_terms;
use crate::engine::ast::{Literal, Loc, Source, Term, err_at};
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
