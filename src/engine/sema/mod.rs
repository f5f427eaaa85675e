//! Semantic analysis: the syntax tree becomes the checked rule IR through
//! small passes, in this order:
//!
//! 0. `components`: `.comp`/`.init` expanded into a flat program;
//! 1. `types`: the type environment from `.type` declarations;
//! 2. `decls`: relations, their column types and I/O directives; `hints`:
//!    pragmas, `.limitsize`, `inline` restrictions;
//! 3. per clause, `scope` (aggregate-local variables renamed apart), `infer`
//!    (variable types) and `lower` (to the rule IR); `subsume` lowers the
//!    subsumptive rules the same way;
//! 4. `stratify`: strata in evaluation order, and the relations outputs need;
//!    `autoinc`: where `autoinc()` may not be used; `plans`: `.plan` fits
//!    its rule;
//! 5. `ground`: every variable is bound (safety);
//! 6. `warnings`: Soufflé's warnings (computed after `hints`, kept in
//!    `Checked::warnings` for the caller to print).

mod autoinc;
mod components;
mod decls;
mod generators;
mod ground;
mod hints;
mod infer;
mod lower;
mod plans;
mod scope;
mod stratify;
mod subsume;
mod types;
mod warnings;

use anyhow::Result;

use crate::engine::ast::Source;
use crate::engine::ir::Checked;
use crate::engine::storage::Symbols;

pub fn check(src: &Source) -> Result<Checked> {
    let src = &*components::expand(src)?;
    let types = types::Types::build(src)?;
    let mut decls = decls::declare(src, &types)?;
    hints::check(src, &mut decls)?;
    let warnings = warnings::collect(src, &decls);
    let mut symbols = Symbols::default();
    let mut rules = Vec::new();
    let mut edges: Vec<stratify::Edge> = Vec::new();
    for clause in &src.clauses {
        for head in &clause.heads {
            let (rule, deps) = lower::lower_clause(
                &decls,
                &types,
                &mut symbols,
                head,
                &clause.body,
                &clause.loc,
            )?;
            for (r, neg, loc) in deps {
                edges.push((r, rule.head_rel, neg, loc));
            }
            rules.push(rule);
        }
    }
    let mut subsumptions = Vec::new();
    for s in &src.subsumptions {
        let (rule, deps) = subsume::lower(src, &decls, &types, &mut symbols, s)?;
        for (r, neg, loc) in deps {
            edges.push((r, rule.head_rel, neg, loc));
        }
        subsumptions.push(rule);
    }
    let strata = stratify::stratify(&decls.rels, &rules, &edges)?;
    autoinc::check(src, &decls, &rules, &strata)?;
    plans::check(src, &decls, &strata)?;
    let needed = stratify::needed_relations(&decls.rels, &edges);
    let last_use = stratify::last_use(decls.rels.len(), &strata, &edges);
    let checked = Checked {
        rels: decls.rels,
        rel_index: decls.rel_index,
        rules,
        subsumptions,
        strata,
        symbols,
        record_types: types.records.clone(),
        needed,
        warnings,
        last_use,
    };
    ground::check(&checked)?;
    Ok(checked)
}
