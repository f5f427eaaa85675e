//! `llfacts check`: IR constraint checks for CI, reported as text, JSON or SARIF.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use llfacts::analysis::{check, report};

use super::options::{FormatArg, Input};

/// Check modules against LLVM's IR constraints; exit 1 if any is violated.
///
/// Extracts the inputs in memory (or reads --facts) and runs the built-in rules
/// (rules/checks.dl, rules/wellformed.dl) plus any --checks programs, each of which
/// outputs `violation(check, entity, message)`. Each violation is reported with the source
/// location of its entity when the module has debug info.
#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten)]
    input: Input,
    /// More check programs, each run on its own beside the built-in ones; each must output
    /// `violation(check, entity, message)`. (`analyze --rules` differs: it adds files to
    /// the analysis' own program.)
    #[arg(long = "checks", value_name = "FILE")]
    checks: Vec<PathBuf>,
    /// Report format.
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// Write the report to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let (violations, skipped) = (args.input.frame).run(&args.input.inputs, false, |session| {
        check::run(session, &args.checks)
    })?;
    let text = report::render(&violations, check::REPORTER, args.format.into());
    match &args.output {
        Some(path) => llfacts::facts::writer::write_file(path, text.as_bytes())?,
        None => print!("{text}"),
    }
    if violations.is_empty() {
        skipped.into_result()?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Err(e) = skipped.into_result() {
        eprintln!("llfacts: {e}");
    }
    let checks: BTreeSet<&str> = violations.iter().map(|v| v.rule.as_str()).collect();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    eprintln!(
        "llfacts: {} of {}",
        plural(violations.len(), "violation"),
        plural(checks.len(), "check")
    );
    Ok(ExitCode::from(1))
}
