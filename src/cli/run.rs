//! `llfacts run`: evaluate a Datalog program with Soufflé's flags.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use llfacts::analysis::backend::{self, peak_rss_kib};
use llfacts::engine::OutTarget;

use super::options::{Engine, Jobs};

/// Evaluate a Datalog program (Soufflé flags: -F facts, -D output dir, -j threads).
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
}

/// How many of the most expensive rules `--stats` lists.
const STATS_RULES: usize = 10;

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let start = Instant::now();
    let backend = args.engine.backend()?;
    let jobs = args.jobs.count();
    let out = if args.output_dir == "-" {
        OutTarget::Stdout
    } else {
        OutTarget::Dir(PathBuf::from(&args.output_dir))
    };
    let stats = backend::run_file(
        &backend,
        &args.program,
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
