//! The one path from a fact set to results. The bottom layer is shared: `programs` (rule
//! programs built into the binary), `backend` (the builtin engine or `souffle`), `session`
//! (a fact set and the evaluator, with typed access to output rows), `rows` (row types of
//! the rule files' relations), `locate` (entity → source location), `finding` and `report`
//! (findings as text, JSON, SARIF), `unit` (what an analysis is to a command). Each
//! analysis is a folder on top of it that imports no other analysis, and is listed once in
//! [`ANALYSES`]: commands derive their choices from the list.

pub mod backend;
pub mod finding;
pub mod locate;
pub mod programs;
pub mod report;
pub mod rows;
pub mod session;
pub mod unit;

pub mod callgraph;
pub mod check;
pub mod dataflow;
pub mod dtrans;
pub mod pointsto;

pub use backend::{Backend, EngineChoice};
pub use finding::{Finding, Severity};
pub use session::Session;
pub use unit::{Analysis, Context, Explain, Options, OutOfBounds, Results};

/// Every analysis `analyze` runs; the first is the default.
pub static ANALYSES: &[&dyn Analysis] = &[
    &pointsto::ANDERSEN,
    &callgraph::CALLGRAPH,
    &dataflow::CONSTPROP,
    &dataflow::RANGE,
    &dataflow::AVAILEXPR,
    &dataflow::MUSTPOINT,
    &pointsto::DEFUSE,
    &dtrans::DTRANS,
];

/// The analysis called `name`.
pub fn find(name: &str) -> Option<&'static dyn Analysis> {
    ANALYSES.iter().copied().find(|a| a.name() == name)
}
