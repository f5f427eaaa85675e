//! What an analysis is to the commands that run it: a name, its outputs, and a run that
//! gives results with a summary, findings and relations to write.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow};

use super::finding::{Finding, Severity};
use super::locate::{Locator, display};
use super::programs::RuleSource;
use super::session::{Session, Tables};
use crate::facts::row::split_fields;

/// What a command may pass to any analysis.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// More Datalog files, included after the analysis' own program (models, rules).
    pub rules: Vec<PathBuf>,
    /// Evaluate everything on the rule engine, even where the analysis has native code.
    pub rules_only: bool,
    /// The points-to analysis' context sensitivity (`--context`).
    pub context: Context,
    /// Why a pointer may point to an object (`--explain`; the native points-to solver).
    pub explain: Option<Explain>,
    /// What an `inbounds` offset past its object's end gives (`--out-of-bounds`); `None`:
    /// the analysis' own choice.
    pub out_of_bounds: Option<OutOfBounds>,
}

/// What the points-to analysis makes of an `inbounds` getelementptr whose offset leaves its
/// object, beyond one past the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutOfBounds {
    /// Poison, as LLVM defines it: no location.
    Poison,
    /// Somewhere in the object (-1), as seed 003 asks: wrong programs stay sound.
    Unknown,
}

impl OutOfBounds {
    /// The rules' preprocessor definitions for it.
    pub fn defines(self) -> Vec<(String, String)> {
        match self {
            OutOfBounds::Poison => vec![],
            OutOfBounds::Unknown => vec![("OUT_OF_BOUNDS_UNKNOWN".to_string(), "1".to_string())],
        }
    }
}

/// What `--explain` asks the points-to analysis: a pointer node and an object, as the facts
/// spell them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explain {
    pub pointer: String,
    pub object: String,
}

/// A context-sensitivity mode: contexts of at most `depth` elements (0: insensitive), each
/// a call instruction, or with `caller` the function that holds the call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Context {
    pub depth: u32,
    pub caller: bool,
}

impl Context {
    /// Every mode `--context` accepts, by name.
    pub const NAMES: &[&str] = &[
        "insensitive",
        "1-callsite",
        "2-callsite",
        "3-callsite",
        "1-caller",
        "2-caller",
        "3-caller",
    ];

    /// The mode named `name` (one of `NAMES`).
    pub fn parse(name: &str) -> Option<Context> {
        if name == "insensitive" {
            return Some(Context::default());
        }
        let (depth, kind) = name.split_once('-')?;
        let depth = match depth {
            "1" => 1,
            "2" => 2,
            "3" => 3,
            _ => return None,
        };
        let caller = match kind {
            "callsite" => false,
            "caller" => true,
            _ => return None,
        };
        Some(Context { depth, caller })
    }

    /// The preprocessor definitions that select the mode in a rule program.
    pub fn defines(self) -> Vec<(String, String)> {
        vec![
            ("CONTEXT_DEPTH".to_string(), self.depth.to_string()),
            ("CONTEXT_CALLER".to_string(), u32::from(self.caller).to_string()),
        ]
    }
}

impl std::fmt::Display for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.depth, self.caller) {
            (0, _) => f.write_str("insensitive"),
            (k, false) => write!(f, "{k}-callsite"),
            (k, true) => write!(f, "{k}-caller"),
        }
    }
}

/// An analysis as commands see it: declared once, in `analysis::ANALYSES`.
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


/// An analysis that is one rule program: its outputs are the program's, its findings the
/// rows of some of them. Most analyses are declared as one of these.
pub struct RuleAnalysis {
    pub name: &'static str,
    pub summary: &'static str,
    /// The built-in rule file (`rules/NAME.dl`).
    pub program: &'static str,
    pub outputs: &'static [&'static str],
    pub findings: &'static [FindingRule],
}

/// Which rows of an output are findings, and how they read.
pub struct FindingRule {
    pub relation: &'static str,
    /// The rule id reports carry (`division-by-zero`).
    pub rule: &'static str,
    pub severity: Severity,
    /// The column that names the entity the finding is about (located through the facts).
    pub entity: &'static str,
    /// The message: `{column}` stands for the row's value of that column.
    pub message: &'static str,
}

impl Analysis for RuleAnalysis {
    fn name(&self) -> &'static str {
        self.name
    }

    fn summary(&self) -> &'static str {
        self.summary
    }

    fn outputs(&self) -> &'static [&'static str] {
        self.outputs
    }

    fn run(&self, session: &Session, options: &Options) -> Result<Box<dyn Results>> {
        self.run_with(session, options, &BTreeMap::new())
    }
}

impl RuleAnalysis {
    /// Runs the program with `inputs` as well: relations that are not facts (a native
    /// solver's results), each as the text of its fact file (see [`Session::run_with`]).
    pub fn run_with(
        &self,
        session: &Session,
        options: &Options,
        inputs: &BTreeMap<String, String>,
    ) -> Result<Box<dyn Results>> {
        let source = RuleSource::builtin(self.program).with(&options.rules);
        let tables = match inputs.is_empty() {
            true => session.run(&source, self.outputs)?,
            false => session.run_with(&source, self.outputs, inputs)?,
        };
        Ok(Box::new(RuleResults {
            program: self.program,
            outputs: self.outputs,
            findings: self.findings,
            tables,
        }))
    }
}

struct RuleResults {
    program: &'static str,
    outputs: &'static [&'static str],
    findings: &'static [FindingRule],
    tables: Tables,
}

impl RuleResults {
    fn counts(&self) -> Result<Vec<(&'static str, usize)>> {
        (self.outputs.iter())
            .map(|&rel| Ok((rel, self.tables.text(rel)?.lines().count())))
            .collect()
    }
}

impl Results for RuleResults {
    fn summary(&self, _: &Session) -> Result<String> {
        let counts = self.counts()?;
        let parts: Vec<String> = counts.iter().map(|(r, n)| format!("{n} {r}")).collect();
        Ok(parts.join(", "))
    }

    fn summary_json(&self, _: &Session) -> Result<serde_json::Value> {
        let counts: serde_json::Map<String, serde_json::Value> = (self.counts()?.into_iter())
            .map(|(r, n)| (r.to_string(), n.into()))
            .collect();
        Ok(serde_json::json!({ "relations": counts }))
    }

    fn findings(&self, session: &Session) -> Result<Vec<Finding>> {
        let mut findings = Vec::new();
        if self.findings.is_empty() {
            return Ok(findings);
        }
        let locate = Locator::new(session.facts())?;
        for spec in self.findings {
            let columns = self.tables.columns(spec.relation)?;
            let column = |name: &str| {
                columns.iter().position(|c| c == name).ok_or_else(|| {
                    anyhow!("{}: `{}` has no column `{name}`", self.program, spec.relation)
                })
            };
            let entity = column(spec.entity)?;
            for line in self.tables.text(spec.relation)?.lines() {
                let fields: Vec<&str> = split_fields(line).collect();
                let mut message = spec.message.to_string();
                for (c, value) in columns.iter().zip(&fields) {
                    message = message.replace(&format!("{{{c}}}"), &display(value));
                }
                let entity = fields.get(entity).copied().unwrap_or_default();
                findings.push(Finding {
                    rule: spec.rule.to_string(),
                    entity: entity.to_string(),
                    message,
                    severity: spec.severity,
                    location: locate.location(entity),
                    module: locate.module(entity),
                });
            }
        }
        findings.sort();
        Ok(findings)
    }

    fn write(&self, dir: &Path, relations: &[&str]) -> Result<()> {
        self.tables.write(dir, relations)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
