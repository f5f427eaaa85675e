//! The IR checks: run the constraint rules (`rules/checks.dl`, `rules/wellformed.dl`, plus
//! any user check programs) over a fact set and return each `violation` row as a finding, with
//! the source location of the entity it names.
//!
//! Every rule file is a standalone Soufflé program that includes `../schema/llfacts.dl` and
//! outputs `violation(check: symbol, entity: symbol, message: symbol)`.

use std::collections::BTreeSet;
use std::path::PathBuf;

use anyhow::{Result, bail};

use super::finding::{Finding, Severity};
use super::locate::Locator;
use super::programs::RuleSource;
use super::report::Reporter;
use super::rows::checks::violation;
use super::session::Session;

/// The built-in check programs, run in this order.
const BUILTIN: &[&str] = &["rules/checks.dl", "rules/wellformed.dl"];

pub const REPORTER: Reporter = Reporter {
    tool: "check",
    items: "violations",
    rule: "check",
};

/// Runs the built-in check programs and `extra` (each a program of its own) over the facts
/// and returns the violations, sorted.
pub fn run(session: &Session, extra: &[PathBuf]) -> Result<Vec<Finding>> {
    let programs = BUILTIN
        .iter()
        .map(|p| RuleSource::builtin(p))
        .chain(extra.iter().cloned().map(RuleSource::file));
    let mut rows: BTreeSet<(String, String, String)> = BTreeSet::new();
    for source in programs {
        let program = session.parse(&source)?;
        if !program.outputs().contains(&"violation") {
            bail!(
                "{source}: a check program must output `violation(check, entity, message)`"
            );
        }
        let tables = session.run_parsed(&source, &program, &["violation"])?;
        // A user's file may name the columns its own way: they are taken by position.
        for v in tables.rows_by_position::<violation>()? {
            let v = v?;
            rows.insert((v.check.into(), v.entity.into(), v.message.into()));
        }
    }
    let locate = Locator::new(session.facts())?;
    Ok(rows
        .into_iter()
        .map(|(check, entity, message)| Finding {
            location: locate.location(&entity),
            module: locate.module(&entity),
            rule: check,
            entity,
            message,
            severity: Severity::Error,
        })
        .collect())
}
