//! `llfacts check`: IR constraint checks for CI, reported as text, JSON or SARIF.

use std::collections::BTreeSet;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use llfacts::analysis::report::{self, Format};
use llfacts::analysis::{Runner, check};
use llfacts::facts::FactSet;

use super::{Engine, Jobs, Reading, skipped_error};

/// Check modules against LLVM's IR constraints; exit 1 if any is violated.
///
/// Extracts the inputs in memory and runs the built-in rules (rules/checks.dl,
/// rules/wellformed.dl) plus any --rules, each of which outputs
/// `violation(check, entity, message)`. Each violation is reported with the source
/// location of its entity when the module has debug info.
#[derive(Args)]
pub struct CheckArgs {
    /// Input modules (.bc or .ll).
    #[arg(
        value_name = "INPUT",
        required_unless_present = "facts",
        conflicts_with = "facts"
    )]
    inputs: Vec<PathBuf>,
    /// Check an existing fact directory instead of extracting modules.
    #[arg(long, value_name = "DIR")]
    facts: Option<PathBuf>,
    /// More rule files to run; each must output `violation(check, entity, message)`.
    #[arg(long = "rules", value_name = "FILE")]
    rules: Vec<PathBuf>,
    /// Report format.
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// Write the report to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    jobs: Jobs,
    #[command(flatten)]
    engine: Engine,
    #[command(flatten)]
    reading: Reading,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    Text,
    Json,
    Sarif,
}

pub fn run(args: CheckArgs) -> anyhow::Result<()> {
    let backend = args.engine.backend()?;
    let pool = args.jobs.pool()?;
    let (violations, skipped) = pool.install(|| -> anyhow::Result<_> {
        let (facts, skipped) = match &args.facts {
            Some(dir) => (FactSet::dir(dir)?, vec![]),
            None => args.reading.to_memory(&args.inputs, false)?,
        };
        let mut runner = Runner::new(&facts, backend, pool.current_num_threads());
        Ok((check::run(&mut runner, &args.rules)?, skipped))
    })?;
    let format = match args.format {
        FormatArg::Text => Format::Text,
        FormatArg::Json => Format::Json,
        FormatArg::Sarif => Format::Sarif,
    };
    let text = report::render(&violations, format);
    match &args.output {
        Some(path) => llfacts::facts::writer::write_file(path, text.as_bytes())?,
        None => print!("{text}"),
    }
    if violations.is_empty() {
        return skipped_error(&args.inputs, &skipped);
    }
    if let Err(e) = skipped_error(&args.inputs, &skipped) {
        eprintln!("llfacts: {e}");
    }
    let checks: BTreeSet<&str> = violations.iter().map(|v| v.check.as_str()).collect();
    eprintln!(
        "llfacts: {} violations of {} checks",
        violations.len(),
        checks.len()
    );
    std::process::exit(1);
}
