//! `llfacts run`: Soufflé-style command line, and the engine selection that
//! later commands reuse.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use super::{Database, OutTarget, Program};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineChoice {
    /// Soufflé when `souffle` is on PATH, else the builtin engine.
    Auto,
    Builtin,
    Souffle,
}

/// The evaluator actually used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    Builtin,
    Souffle(PathBuf),
}

/// Arguments of `llfacts run` (Soufflé's flags).
#[derive(Clone, Debug, clap::Args)]
pub struct RunArgs {
    /// Datalog program (Soufflé syntax, the subset in docs/engine.md).
    pub program: PathBuf,
    /// Directory of input facts (`R.facts`).
    #[arg(
        short = 'F',
        long = "fact-dir",
        value_name = "FACTS_DIR",
        default_value = "."
    )]
    pub fact_dir: PathBuf,
    /// Directory for output relations (`R.csv`); `-` prints them to stdout.
    #[arg(
        short = 'D',
        long = "output-dir",
        value_name = "OUT_DIR",
        default_value = "."
    )]
    pub output_dir: String,
    /// Number of threads (`auto` or a number; default: all cores).
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = parse_jobs)]
    pub jobs: Option<usize>,
    /// Which evaluator to use.
    #[arg(long, value_enum, default_value_t = EngineChoice::Auto)]
    pub engine: EngineChoice,
    /// Print elapsed time, derived tuples and peak memory to stderr (builtin engine).
    #[arg(long)]
    pub stats: bool,
}

fn parse_jobs(s: &str) -> Result<usize, String> {
    if s == "auto" {
        return Ok(default_jobs());
    }
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("invalid number of jobs `{s}`")),
    }
}

pub fn default_jobs() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Resolve `auto` to a concrete backend; `souffle` fails if it is not on PATH.
pub fn select_backend(choice: EngineChoice) -> Result<Backend> {
    match choice {
        EngineChoice::Builtin => Ok(Backend::Builtin),
        EngineChoice::Souffle => match find_on_path("souffle") {
            Some(p) => Ok(Backend::Souffle(p)),
            None => bail!("--engine souffle: `souffle` was not found on PATH"),
        },
        EngineChoice::Auto => {
            Ok(find_on_path("souffle").map_or(Backend::Builtin, Backend::Souffle))
        }
    }
}

/// Evaluate a program file with the chosen backend: inputs from `fact_dir`,
/// outputs to `out` (a directory, or stdout). Returns builtin-engine stats.
pub fn run_program(
    backend: &Backend,
    program: &Path,
    fact_dir: &Path,
    out: &OutTarget,
    jobs: usize,
) -> Result<Option<super::EvalStats>> {
    match backend {
        Backend::Souffle(exe) => {
            let out_arg = match out {
                OutTarget::Stdout => "-".to_string(),
                OutTarget::Dir(d) => {
                    // Soufflé requires the output directory to exist; the builtin engine
                    // creates it, so both behave alike for users.
                    std::fs::create_dir_all(d).with_context(|| {
                        format!("cannot create output directory {}", d.display())
                    })?;
                    d.display().to_string()
                }
            };
            let status = Command::new(exe)
                .arg("-F")
                .arg(fact_dir)
                .arg("-D")
                .arg(&out_arg)
                .arg("-j")
                .arg(jobs.to_string())
                .arg(program)
                .status()
                .with_context(|| format!("cannot start {}", exe.display()))?;
            if !status.success() {
                bail!("souffle failed ({status})");
            }
            Ok(None)
        }
        Backend::Builtin => {
            let prog = Program::from_file(program)?;
            let mut db = Database::new(&prog);
            db.load_inputs(fact_dir)?;
            let stats = db.run(jobs)?;
            if let OutTarget::Dir(d) = out {
                std::fs::create_dir_all(d)
                    .with_context(|| format!("cannot create output directory {}", d.display()))?;
            }
            db.write_outputs(out)?;
            Ok(Some(stats))
        }
    }
}

/// Peak resident set size in KiB (Linux `VmHWM`), if available.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Entry point of `llfacts run`.
pub fn run(args: RunArgs) -> Result<()> {
    let start = Instant::now();
    let backend = select_backend(args.engine)?;
    let jobs = args.jobs.unwrap_or_else(default_jobs);
    let out = if args.output_dir == "-" {
        OutTarget::Stdout
    } else {
        OutTarget::Dir(PathBuf::from(&args.output_dir))
    };
    let stats = run_program(&backend, &args.program, &args.fact_dir, &out, jobs)?;
    if args.stats {
        let secs = start.elapsed().as_secs_f64();
        let derived = stats.as_ref().map_or(0, |s| s.derived);
        eprintln!(
            "stats: engine={} jobs={jobs} elapsed={secs:.3}s derived={derived} tuples/s={:.0} iterations={} peak_rss={}KiB",
            match backend {
                Backend::Builtin => "builtin",
                Backend::Souffle(_) => "souffle",
            },
            derived as f64 / secs.max(1e-9),
            stats.as_ref().map_or(0, |s| s.iterations),
            peak_rss_kib().map_or("?".to_string(), |k| k.to_string()),
        );
    }
    Ok(())
}
