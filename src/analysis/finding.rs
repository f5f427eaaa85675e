//! Findings: what an analysis reports to a person or a pipeline, one generic shape for every
//! analysis, rendered by `report`.

use super::locate::Location;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    /// SARIF's `level`, and the word text reports use.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    /// The rule that found it (`check-id`, `division-by-zero`).
    pub rule: String,
    /// The entity it is about, as a fact id.
    pub entity: String,
    pub message: String,
    pub severity: Severity,
    pub location: Option<Location>,
    /// The input the entity belongs to (the module's path), when known.
    pub module: Option<String>,
}
