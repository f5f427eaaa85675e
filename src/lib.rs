//! llfacts: LLVM IR to Datalog facts, the rule programs that analyse them, and an embedded
//! evaluator for the Soufflé subset those programs use. See docs/architecture.md for the map.
//!
//! Dependencies run one way: `extract` → `facts` ← `analysis` → `engine`. The engine imports
//! nothing from the rest of the crate; only `extract` uses llvm-sys; only `facts` knows the
//! fact file format; the command line (clap) lives in the binary's `cli` module.

pub mod analysis;
pub mod engine;
pub mod extract;
pub mod facts;
mod fasthash;
pub mod isolate;
pub mod oom;
