//! `llfacts run`: evaluate a Datalog program with Soufflé's flags.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use llfacts::analysis::backend::{self, peak_rss_kib};
use llfacts::analysis::programs;
use llfacts::engine::OutTarget;

use super::options::{Engine, Jobs, Usage};

/// Evaluate a Datalog program (Soufflé flags: -F facts, -D output dir, -j threads, -M macros).
#[derive(Args)]
pub struct RunArgs {
    /// Datalog program (Soufflé syntax, the subset in docs/engine.md).
    program: PathBuf,
    /// Directory of input facts (`R.facts`).
    #[arg(
        short = 'F',
        long = "fact-dir",
        value_name = "FACTS_DIR",
        default_value = "."
    )]
    fact_dir: PathBuf,
    /// Directory for output relations (`R.csv`); `-` prints them to stdout.
    #[arg(
        short = 'D',
        long = "output-dir",
        value_name = "OUT_DIR",
        default_value = "."
    )]
    output_dir: String,
    #[command(flatten)]
    jobs: Jobs,
    #[command(flatten)]
    engine: Engine,
    /// Print elapsed time, derived tuples, peak memory and the most expensive rules to stderr (builtin engine).
    #[arg(long)]
    stats: bool,
    /// Do not print Soufflé's warnings about the program (as Soufflé's `-w`/`--no-warn`).
    #[arg(short = 'w', long = "no-warn")]
    no_warn: bool,
    /// Preprocessor definitions, as Soufflé's `-M`: space-separated `NAME=VALUE` (a name
    /// alone is 1), made before the program's text (`-M "CONTEXT_DEPTH=2 CONTEXT_CALLER=0"`).
    #[arg(short = 'M', long = "macro", value_name = "MACROS")]
    macros: Vec<String>,
}

/// How many of the most expensive rules `--stats` lists.
const STATS_RULES: usize = 10;

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    llfacts::oom::set_subject(&[&args.program]);
    let start = Instant::now();
    let backend = args.engine.backend()?;
    let jobs = args.jobs.count();
    let out = if args.output_dir == "-" {
        OutTarget::Stdout
    } else {
        OutTarget::Dir(PathBuf::from(&args.output_dir))
    };
    let mut defines = Vec::new();
    for m in &args.macros {
        defines.extend(programs::parse_macros(m).map_err(|e| Usage(e.to_string()))?);
    }
    // With definitions, the program is read through a file that makes them first.
    let scratch = match defines.is_empty() {
        true => None,
        false => Some(tempfile::Builder::new().prefix("llfacts-").tempdir()?),
    };
    let program = match &scratch {
        None => args.program.clone(),
        Some(dir) => programs::defining(&args.program, &defines, dir.path())?,
    };
    let stats = backend::run_file(
        &backend,
        &program,
        &args.fact_dir,
        &out,
        jobs,
        !args.no_warn,
    )?;
    if args.stats {
        let secs = start.elapsed().as_secs_f64();
        let derived = stats.as_ref().map_or(0, |s| s.derived);
        eprintln!(
            "stats: engine={} jobs={jobs} elapsed={secs:.3}s derived={derived} tuples/s={:.0} iterations={} peak_rss={}KiB",
            backend.name(),
            derived as f64 / secs.max(1e-9),
            stats.as_ref().map_or(0, |s| s.iterations),
            peak_rss_kib().map_or("?".to_string(), |k| k.to_string()),
        );
        for r in stats.iter().flat_map(|s| &s.rules).take(STATS_RULES) {
            eprintln!(
                "stats: rule {} time={:.3}s new={}",
                r.rule, r.secs, r.new_rows
            );
        }
    }
    Ok(())
}
