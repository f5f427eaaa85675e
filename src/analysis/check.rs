//! The IR checks: run the constraint rules (`rules/checks.dl`, `rules/wellformed.dl`, plus
//! any user rule files) over a fact set and return each `violation` row with the source
//! location of the entity it names.
//!
//! Every rule file is a standalone Soufflé program that includes `../schema/llfacts.dl` and
//! outputs `violation(check: symbol, entity: symbol, message: symbol)`.

use std::collections::BTreeSet;
use std::path::PathBuf;

use anyhow::{Result, anyhow, bail};

use super::backend::Runner;
use super::locate::{Location, Locator};
use super::programs::RuleSource;

/// The built-in check programs, run in this order.
const BUILTIN: &[&str] = &["rules/checks.dl", "rules/wellformed.dl"];

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Violation {
    pub check: String,
    pub entity: String,
    pub message: String,
    pub location: Option<Location>,
    /// The input the entity belongs to (the module's path), when known.
    pub module: Option<String>,
}

/// Runs every rule file over the facts and returns the violations, sorted.
pub fn run(runner: &mut Runner, extra_rules: &[PathBuf]) -> Result<Vec<Violation>> {
    let programs = BUILTIN
        .iter()
        .map(|p| RuleSource::Builtin(p))
        .chain(extra_rules.iter().cloned().map(RuleSource::File));
    let mut rows: BTreeSet<(String, String, String)> = BTreeSet::new();
    for source in programs {
        rows.extend(violations_of(runner, &source)?);
    }
    let locate = Locator::new(runner.facts())?;
    Ok(rows
        .into_iter()
        .map(|(check, entity, message)| Violation {
            location: locate.location(&entity),
            module: locate.module(&entity),
            check,
            entity,
            message,
        })
        .collect())
}

fn violations_of(
    runner: &mut Runner,
    source: &RuleSource,
) -> Result<Vec<(String, String, String)>> {
    let program = runner.parse(source)?;
    if !program.outputs().contains(&"violation") {
        bail!(
            "{source}: rules for `llfacts check` must output `violation(check, entity, message)`"
        );
    }
    let mut outputs = runner.outputs(source, &program, &["violation"])?;
    let rows = outputs.remove("violation").unwrap_or_default();
    rows.into_iter()
        .map(|r| match <[String; 3]>::try_from(r) {
            Ok([c, e, m]) => Ok((c, e, m)),
            Err(r) => Err(anyhow!(
                "{source}: violation rows have 3 columns, got {r:?}"
            )),
        })
        .collect()
}
