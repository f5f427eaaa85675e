//! What an analysis is to the commands that run it: a name, its outputs, and a run that
//! gives results with a summary, findings and relations to write.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::finding::Finding;
use super::session::Session;

/// What a command may pass to any analysis.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// More Datalog files, included after the analysis' own program (models, rules).
    pub rules: Vec<PathBuf>,
    /// Evaluate everything on the rule engine, even where the analysis has native code.
    pub rules_only: bool,
}

/// An analysis as commands see it: declared once, in [`ANALYSES`].
pub trait Analysis: Sync {
    /// `analyze --analysis NAME`.
    fn name(&self) -> &'static str;
    /// One line, for `--help`.
    fn summary(&self) -> &'static str;
    /// The relations it can write with `-o`, in writing order.
    fn outputs(&self) -> &'static [&'static str];
    fn run(&self, session: &Session, options: &Options) -> Result<Box<dyn Results>>;
}

/// What an analysis found.
pub trait Results {
    /// A line for people (no trailing newline).
    fn summary(&self, session: &Session) -> Result<String>;
    /// The same figures for scripts.
    fn summary_json(&self, session: &Session) -> Result<serde_json::Value>;
    /// What a pipeline gates on (none for analyses that only compute facts).
    fn findings(&self, session: &Session) -> Result<Vec<Finding>>;
    /// Writes `relations` (some of the analysis' outputs) into `dir`, replaced whole.
    fn write(&self, dir: &Path, relations: &[&str]) -> Result<()>;
    /// For what only one analysis offers (`--callgraph-dot`): its own type.
    fn as_any(&self) -> &dyn std::any::Any;
}

