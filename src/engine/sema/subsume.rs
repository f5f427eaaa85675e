//! Subsumptive rules, `R(a) <= R(b) :- body.`: a tuple `a` of `R` is
//! deleted when a distinct tuple `b` of `R` exists and the body holds.
//!
//! Lowered like the rule `R(a) :- R(a), R(b), body.`, with `_` in either
//! atom named apart (so that both tuples can be read back), and the head
//! extended by `b`: evaluation compares the two tuples.

use anyhow::Result;

use super::decls::Decls;
use super::lower::{Dep, lower_clause};
use super::types::Types;
use crate::engine::ast::{Atom, Literal, Source, Subsumption, Term, err_at};
use crate::engine::ir::{Arg, Expr, Lit, Rule};
use crate::engine::storage::Symbols;

pub fn lower(
    src: &Source,
    decls: &Decls,
    types: &Types,
    symbols: &mut Symbols,
    s: &Subsumption,
) -> Result<(Rule, Vec<Dep>)> {
    if s.dominated.name != s.dominating.name {
        return Err(err_at(
            &s.loc,
            "Subsumption must compare tuples from the same relation",
        ));
    }
    if let Some(&r) = decls.rel_index.get(&s.dominated.name) {
        let info = &decls.rels[r];
        if info.types.is_empty() {
            return Err(err_at(
                &info.loc,
                format!(
                    "Subsumptive relation \"{}\" must not be a nullary relation",
                    info.name
                ),
            ));
        }
        // Soufflé stores such a relation as `btree_delete`: no other representation
        let reps = ["eqrel", "btree", "brie"];
        let decl = src.decls.iter().find(|d| d.name == info.name);
        if decl.is_some_and(|d| d.qualifiers.iter().any(|(q, _)| reps.contains(&q.as_str()))) {
            return Err(err_at(
                &info.loc,
                format!(
                    "Relation \"{}\" has one or more subsumptive rules and relational representation \"btree_delete\" is missing",
                    info.name
                ),
            ));
        }
    }
    let mut fresh = 0;
    let dominated = named(&s.dominated, &mut fresh);
    let dominating = named(&s.dominating, &mut fresh);
    let mut body = vec![Literal::Pos(dominated.clone()), Literal::Pos(dominating)];
    body.extend(s.body.iter().cloned());
    let (mut rule, deps) = lower_clause(decls, types, symbols, &dominated, &body, &s.loc)?;
    // the dominating atom is the second atom (record patterns add unpacks
    // after each atom)
    let mut atoms = rule.body.iter().filter_map(|l| match l {
        Lit::Atom { args, .. } => Some(args),
        _ => None,
    });
    let Some(args) = atoms.nth(1) else {
        unreachable!("the dominating atom is lowered second");
    };
    let b: Vec<Expr> = args
        .iter()
        .map(|a| match a {
            Arg::Var(v) => Expr::Var(*v),
            Arg::Expr(e) => e.clone(),
            Arg::Anon => unreachable!("`_` was named apart"),
        })
        .collect();
    rule.head.extend(b);
    // the relation's own atoms are not a dependency: it is complete when
    // its subsumptive rules run
    let head_rel = rule.head_rel;
    let deps = deps
        .into_iter()
        .filter(|(r, _, _)| *r != head_rel)
        .collect();
    Ok((rule, deps))
}

/// `a` with each `_` (also inside record and branch terms) replaced by a
/// fresh variable.
fn named(a: &Atom, fresh: &mut usize) -> Atom {
    fn term(t: &mut Term, fresh: &mut usize) {
        match t {
            Term::Anon(l) => {
                *fresh += 1;
                *t = Term::Var(format!("_@s{fresh}"), l.clone());
            }
            Term::Record(xs, _) | Term::Branch(_, xs, _) => {
                xs.iter_mut().for_each(|x| term(x, fresh))
            }
            _ => {}
        }
    }
    let mut a = a.clone();
    a.args.iter_mut().for_each(|t| term(t, fresh));
    a
}
