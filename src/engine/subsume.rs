//! Deleting the tuples that subsumptive rules dominate. Relations are
//! append-only (a delta is a suffix of rows), so a relation that loses rows
//! is rebuilt: the surviving rows keep their order, and the indexes are
//! created again in the same order, so that plans keep their index numbers.

use std::collections::HashSet;

use super::storage::Relation;

/// Remove the rows of `dead` from `rel`. `new_from` is the first row of the
/// current delta; returns where the delta starts after the removal.
pub fn remove(rel: &mut Relation, dead: &HashSet<Vec<u32>>, new_from: u32) -> u32 {
    if dead.is_empty() {
        return new_from;
    }
    let mut kept = Relation::new(rel.arity);
    for ix in &rel.indexes {
        kept.ensure_index(&ix.cols);
    }
    let mut start = 0;
    for id in 0..rel.row_count() as u32 {
        if id == new_from {
            start = kept.row_count() as u32;
        }
        let row = rel.row(id);
        if !dead.contains(row) {
            kept.insert_row(row);
        }
    }
    if new_from as usize >= rel.row_count() {
        start = kept.row_count() as u32;
    }
    *rel = kept;
    start
}
