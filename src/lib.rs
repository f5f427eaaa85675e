//! llfacts: LLVM IR to Datalog facts, plus an embedded evaluator for the Soufflé subset
//! that `rules/` uses. See docs/architecture.md for the map.

pub mod check;
pub mod engine;
pub mod extract;
pub mod input;
pub mod pipeline;
pub mod relations;
pub mod schema;
pub mod sink;
pub mod writer;
