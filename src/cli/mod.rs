//! The command line: one file per command, and the options they share, defined once here.
//! This is the only module that uses clap; it turns arguments into library calls.

pub mod alias;
pub mod analyze;
pub mod check;
pub mod extract;
pub mod read;
pub mod run;
pub mod schema;

use clap::{Args, ValueEnum};

use std::path::PathBuf;

use llfacts::analysis::pointsto::{self, Solution, Solver};
use llfacts::analysis::{Backend, EngineChoice, Runner};
use llfacts::extract::{ReadOptions, skipped_message};
use llfacts::facts::FactSet;

/// `-j/--jobs`: worker threads.
#[derive(Args, Clone, Copy, Debug)]
pub struct Jobs {
    /// Worker threads: a number, or `auto` for all cores [default: all cores]. With 1, the
    /// work runs on one thread (`extract` writes its output on it too). Results do not
    /// depend on it.
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = parse_jobs)]
    jobs: Option<usize>,
}

impl Jobs {
    pub fn count(self) -> usize {
        self.jobs.unwrap_or_else(all_cores)
    }

    /// A rayon pool of that many threads, for the library's parallel work.
    pub fn pool(self) -> anyhow::Result<rayon::ThreadPool> {
        Ok(rayon::ThreadPoolBuilder::new()
            .num_threads(self.count())
            .build()?)
    }
}

fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn parse_jobs(s: &str) -> Result<usize, String> {
    if s == "auto" {
        return Ok(all_cores());
    }
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("invalid number of jobs `{s}`")),
    }
}

/// `--engine`: which evaluator runs rule programs.
#[derive(Args, Clone, Copy, Debug)]
pub struct Engine {
    /// Which evaluator runs the rules.
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    engine: EngineArg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum EngineArg {
    /// Soufflé when `souffle` is on PATH, else the builtin engine.
    Auto,
    Builtin,
    Souffle,
}

impl Engine {
    pub fn backend(self) -> anyhow::Result<Backend> {
        Backend::select(match self.engine {
            EngineArg::Auto => EngineChoice::Auto,
            EngineArg::Builtin => EngineChoice::Builtin,
            EngineArg::Souffle => EngineChoice::Souffle,
        })
    }
}

/// `-q/--quiet`.
#[derive(Args, Clone, Copy, Debug)]
pub struct Quiet {
    /// Print nothing but errors.
    #[arg(short, long)]
    pub quiet: bool,
}

/// How modules are read: every command that reads them has these.
#[derive(Args, Clone, Debug)]
pub struct Reading {
    /// Skip inputs that cannot be read (each reported on one line), use the others, and
    /// exit 1 listing the skipped ones.
    #[arg(long)]
    pub keep_going: bool,
    /// Read modules in this process instead of a supervised child process: a crash of LLVM's
    /// reader on a corrupt file then kills llfacts. For trusted inputs.
    #[arg(long)]
    pub no_isolate: bool,
    /// Inputs (by index) a crashed reader process was given: set by the supervisor.
    #[arg(long = "skip-input", value_name = "N", hide = true)]
    pub skip_input: Vec<usize>,
}

impl Reading {
    pub fn options(&self, quiet: bool) -> ReadOptions {
        ReadOptions {
            quiet,
            keep_going: self.keep_going,
            skip: self.skip_input.clone(),
            leak_last_module: false,
        }
    }

    /// Extracts `inputs` into memory, in a supervised child unless `--no-isolate`; call in
    /// the command's thread pool. Also returns the skipped inputs.
    pub fn to_memory(
        &self,
        inputs: &[PathBuf],
        quiet: bool,
    ) -> anyhow::Result<(FactSet, Vec<usize>)> {
        let opts = self.options(quiet);
        let (facts, skipped) = if self.no_isolate {
            llfacts::extract::to_memory(inputs, &opts)?
        } else {
            let jobs = rayon::current_num_threads();
            llfacts::isolate::to_memory(inputs, quiet, self.keep_going, jobs)?
        };
        Ok((FactSet::Memory(facts), skipped))
    }
}

/// The error that ends a `--keep-going` run that skipped inputs.
pub fn skipped_error(inputs: &[PathBuf], skipped: &[usize]) -> anyhow::Result<()> {
    if skipped.is_empty() {
        return Ok(());
    }
    anyhow::bail!("{}", skipped_message(inputs, skipped))
}

/// The points-to options `analyze` and `alias` share.
#[derive(Args, Clone, Debug)]
pub struct PointsTo {
    /// More Datalog files with allocator and library models (see rules/lib/models.dl), or,
    /// with `--solver rules`, more rules.
    #[arg(long = "rules", value_name = "FILE")]
    rules: Vec<PathBuf>,
    /// How the points-to fixpoint is computed: `native` runs the model and wrapper rules on
    /// the rule engine and the fixpoint of rules/andersen.dl in Rust (same tuples, much
    /// faster); `rules` evaluates all of rules/andersen.dl on the rule engine.
    #[arg(long, value_enum, default_value_t = SolverArg::Native)]
    solver: SolverArg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SolverArg {
    Native,
    Rules,
}

impl PointsTo {
    pub fn solve(&self, runner: &mut Runner) -> anyhow::Result<Solution> {
        let solver = match self.solver {
            SolverArg::Native => Solver::Native,
            SolverArg::Rules => Solver::Rules,
        };
        pointsto::solve(runner, &self.rules, solver)
    }
}
