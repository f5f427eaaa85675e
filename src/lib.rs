//! llfacts: LLVM IR to Datalog facts, plus an embedded evaluator for the Soufflé subset
//! that `rules/` uses. See docs/architecture.md for the map.

pub mod engine;
