//! Deleting the tuples that subsumptive rules dominate. Relations are
//! append-only (a delta is a suffix of rows), so a relation that loses rows
//! is rebuilt: the surviving rows keep their order, and the indexes are
//! created again in the same order, so that plans keep their index numbers.

use super::storage::Relation;

/// Remove the rows numbered in `dead` (repeats allowed) from `rel`.
/// `new_from` is the first row of the current delta; returns where the delta
/// starts after the removal.
pub fn remove(rel: &mut Relation, dead: &[u32], new_from: u32) -> u32 {
    if dead.is_empty() {
        return new_from;
    }
    let mut gone = vec![false; rel.row_count()];
    dead.iter().for_each(|id| gone[*id as usize] = true);
    let mut kept = Relation::new(rel.arity);
    kept.reserve(gone.iter().filter(|g| !**g).count());
    for ix in &rel.indexes {
        kept.ensure_index(&ix.cols);
    }
    let mut start = 0;
    for id in 0..rel.row_count() as u32 {
        if id == new_from {
            start = kept.row_count() as u32;
        }
        if !gone[id as usize] {
            kept.insert_row(rel.row(id));
        }
    }
    if new_from as usize >= rel.row_count() {
        start = kept.row_count() as u32;
    }
    *rel = kept;
    start
}
