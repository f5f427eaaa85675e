//! `.plan`: Soufflé's join orders for the versions of a recursive rule. The
//! planner here chooses its own orders, so a plan changes nothing; but
//! Soufflé rejects a plan it could not apply, and so does this check, in its
//! words: on a rule that is not recursive, with an order that is not a
//! permutation of the body's atoms, or for a version the rule does not have
//! (one per body atom of the head's own stratum).

use anyhow::Result;

use super::decls::Decls;
use crate::engine::ast::{Atom, Literal, PlanOrder, Source, err_at};
use crate::engine::ir::Stratum;

pub fn check(src: &Source, decls: &Decls, strata: &[Stratum]) -> Result<()> {
    let mut stratum_of = vec![0; decls.rels.len()];
    for (i, s) in strata.iter().enumerate() {
        for &r in &s.rels {
            stratum_of[r] = i;
        }
    }
    let stratum = |a: &Atom| decls.rel_index.get(&a.name).map(|r| stratum_of[*r]);
    for c in src.clauses.iter().filter(|c| !c.plan.is_empty()) {
        for head in &c.heads {
            check_rule(&c.plan, stratum(head), &positive(&c.body), &stratum)?;
        }
    }
    for s in src.subsumptions.iter().filter(|s| !s.plan.is_empty()) {
        // Soufflé's body starts with the dominated and the dominating atom
        let mut atoms = vec![&s.dominated, &s.dominating];
        atoms.extend(positive(&s.body));
        check_rule(&s.plan, stratum(&s.dominated), &atoms, &stratum)?;
    }
    Ok(())
}

fn check_rule(
    plan: &[PlanOrder],
    head: Option<usize>,
    atoms: &[&Atom],
    stratum: &dyn Fn(&Atom) -> Option<usize>,
) -> Result<()> {
    let versions = atoms
        .iter()
        .filter(|a| head.is_some() && stratum(a) == head)
        .count();
    if versions == 0 {
        let first = plan.iter().min_by_key(|o| o.version).unwrap();
        return Err(err_at(
            &first.loc,
            "Ignored execution plan for non-recursive clause",
        ));
    }
    for o in plan {
        if o.order.len() != atoms.len() {
            return Err(err_at(
                &o.loc,
                format!(
                    "Invalid execution order in plan (expected {} atoms, not {})",
                    atoms.len(),
                    o.order.len()
                ),
            ));
        }
        if !(1..=o.order.len()).all(|i| o.order.contains(&i)) {
            return Err(err_at(
                &o.loc,
                "Invalid execution order in plan (incomplete)",
            ));
        }
    }
    if let Some(o) = plan.iter().find(|o| o.version >= versions) {
        return Err(err_at(
            &o.loc,
            format!(
                "execution plan for version {}: only versions 0..{} permitted",
                o.version,
                versions - 1
            ),
        ));
    }
    Ok(())
}

/// The positive atoms of a body (Soufflé's versions and orders count these).
fn positive(body: &[Literal]) -> Vec<&Atom> {
    body.iter()
        .filter_map(|l| match l {
            Literal::Pos(a) => Some(a),
            _ => None,
        })
        .collect()
}
