//! Semantic analysis: the syntax tree becomes the checked rule IR through
//! small passes, in this order:
//!
//! 1. `types`: the type environment from `.type` declarations;
//! 2. `decls`: relations, their column types and I/O directives; `hints`:
//!    pragmas, `.limitsize`, `inline` restrictions;
//! 3. per clause, `scope` (aggregate-local variables renamed apart), `infer`
//!    (variable types) and `lower` (to the rule IR);
//! 4. `stratify`: strata in evaluation order, and the relations outputs need;
//! 5. `ground`: every variable is bound (safety).

mod decls;
mod generators;
mod ground;
mod hints;
mod infer;
mod lower;
mod scope;
mod stratify;
mod types;

use anyhow::Result;

use crate::engine::ast::Source;
use crate::engine::ir::Checked;
use crate::engine::storage::Symbols;

pub fn check(src: &Source) -> Result<Checked> {
    let types = types::Types::build(src)?;
    let mut decls = decls::declare(src, &types)?;
    hints::check(src, &mut decls)?;
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
    let strata = stratify::stratify(&decls.rels, &rules, &edges)?;
    let needed = stratify::needed_relations(&decls.rels, &edges);
    let checked = Checked {
        rels: decls.rels,
        rel_index: decls.rel_index,
        rules,
        strata,
        symbols,
        record_types: types.records.clone(),
        needed,
    };
    ground::check(&checked)?;
    Ok(checked)
}
