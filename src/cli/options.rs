//! The options the commands share, defined once: `-j`, `--engine`, `-q`, the reading
//! options, the input frame of every command that analyses, report formats.

use clap::{Args, ValueEnum};

use std::path::PathBuf;

use llfacts::analysis::report::Format;
use llfacts::analysis::{Backend, Context, EngineChoice, Options, OutOfBounds, Session};
use llfacts::extract::{ReadOptions, skipped_message};
use llfacts::facts::FactSet;

/// A usage error found after parsing (a value valid for one choice but not another): it
/// ends the command with exit code 2, as clap's own do.
#[derive(Debug)]
pub struct Usage(pub String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// `-j/--jobs`: worker threads.
#[derive(Args, Clone, Copy, Debug)]
pub struct Jobs {
    /// Worker threads: a number, or `auto` for all cores [default: all cores]. With 1, the
    /// work runs on one thread (`extract` writes its output on it too). Results do not
    /// depend on it.
    #[arg(short = 'j', long = flags::JOBS, value_name = "N", value_parser = parse_jobs)]
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
    /// `run`: Soufflé when `souffle` is on PATH, else the builtin engine. The analysing
    /// commands: the builtin engine, which is faster on their rules.
    Auto,
    Builtin,
    Souffle,
}

impl Engine {
    /// For a user's program (`run`), in Soufflé's whole language: `auto` takes Soufflé.
    pub fn backend(self) -> anyhow::Result<Backend> {
        Backend::select(match self.engine {
            EngineArg::Auto => EngineChoice::Auto,
            EngineArg::Builtin => EngineChoice::Builtin,
            EngineArg::Souffle => EngineChoice::Souffle,
        })
    }

    /// For the shipped rules of the analysing commands: `auto` is the builtin engine
    /// (Soufflé's interpreter took 2 to 15 times as long on them: docs/engine.md).
    fn analysis_backend(self) -> anyhow::Result<Backend> {
        match self.engine {
            EngineArg::Auto => Ok(Backend::Builtin),
            _ => self.backend(),
        }
    }
}

/// `--format` of reports: every command that reports findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Text,
    Json,
    Sarif,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Text => Format::Text,
            FormatArg::Json => Format::Json,
            FormatArg::Sarif => Format::Sarif,
        }
    }
}

/// `-q/--quiet`.
#[derive(Args, Clone, Copy, Debug)]
pub struct Quiet {
    /// Print no summary and no progress: only results (findings, reports) and errors.
    #[arg(short, long = flags::QUIET)]
    pub quiet: bool,
}

/// The long names of the flags that the reader's command lines (`read::COMMAND_LINES`) pass
/// on: defined here once, for both.
pub mod flags {
    pub const JOBS: &str = "jobs";
    pub const QUIET: &str = "quiet";
    pub const KEEP_GOING: &str = "keep-going";
    pub const NO_ISOLATE: &str = "no-isolate";
    pub const SKIP_INPUT: &str = "skip-input";
}

/// How modules are read: every command that reads them has these.
#[derive(Args, Clone, Debug)]
pub struct Reading {
    /// Skip inputs that cannot be read (each reported on one line), use the others, and
    /// exit 1 listing the skipped ones.
    #[arg(long = flags::KEEP_GOING)]
    pub keep_going: bool,
    /// Read modules in this process instead of a supervised child process: a crash of LLVM's
    /// reader on a corrupt file then kills llfacts. For trusted inputs.
    #[arg(long = flags::NO_ISOLATE)]
    pub no_isolate: bool,
    /// Inputs (by index) a crashed reader process was given: set by the supervisor.
    #[arg(long = flags::SKIP_INPUT, value_name = "N", hide = true)]
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

/// What every command that analyses takes besides its inputs: where the facts come from,
/// and how they are read and evaluated.
#[derive(Args, Clone, Debug)]
pub struct Frame {
    /// Analyse an existing fact directory (from `llfacts extract`, or another producer)
    /// instead of extracting modules: extract once, analyse many times.
    #[arg(long, value_name = "DIR")]
    pub facts: Option<PathBuf>,
    #[command(flatten)]
    pub jobs: Jobs,
    #[command(flatten)]
    pub engine: Engine,
    #[command(flatten)]
    pub reading: Reading,
}

/// Modules to analyse as one program, or `--facts DIR`.
#[derive(Args, Clone, Debug)]
pub struct Input {
    /// Input modules (.bc or .ll), analysed together as one program.
    #[arg(
        value_name = "INPUT",
        required_unless_present = "facts",
        conflicts_with = "facts"
    )]
    pub inputs: Vec<PathBuf>,
    #[command(flatten)]
    pub frame: Frame,
}

impl Frame {
    /// Reads the facts (extracting `inputs` in memory, or from `--facts`), opens a session
    /// on them and runs `work` in the command's thread pool. Also returns what a
    /// `--keep-going` run skipped: the command fails on it once it has reported.
    pub fn run<T: Send>(
        &self,
        inputs: &[PathBuf],
        quiet: bool,
        work: impl FnOnce(&Session) -> anyhow::Result<T> + Send,
    ) -> anyhow::Result<(T, Skipped)> {
        if self.facts.is_some() && !inputs.is_empty() {
            anyhow::bail!("give input modules or --facts DIR, not both");
        }
        match &self.facts {
            Some(dir) => llfacts::oom::set_subject(&[dir]),
            None => llfacts::oom::set_subject(inputs),
        }
        let backend = self.engine.analysis_backend()?;
        let pool = self.jobs.pool()?;
        let (result, skipped) = pool.install(|| -> anyhow::Result<_> {
            let (facts, skipped) = match &self.facts {
                Some(dir) => (FactSet::dir(dir)?, vec![]),
                None => self.reading.to_memory(inputs, quiet)?,
            };
            let session = Session::new(facts, backend, rayon::current_num_threads());
            Ok((work(&session)?, skipped))
        })?;
        Ok((result, Skipped::of(inputs, &skipped)))
    }
}

/// The inputs a `--keep-going` run skipped, as the message that ends it.
#[must_use]
pub struct Skipped(Option<String>);

impl Skipped {
    pub fn of(inputs: &[PathBuf], skipped: &[usize]) -> Skipped {
        Skipped((!skipped.is_empty()).then(|| skipped_message(inputs, skipped)))
    }

    /// The error that ends a run that skipped inputs.
    pub fn into_result(self) -> anyhow::Result<()> {
        match self.0 {
            Some(message) => anyhow::bail!("{message}"),
            None => Ok(()),
        }
    }
}

/// The options `analyze` and `alias` pass to an analysis.
#[derive(Args, Clone, Debug)]
pub struct AnalysisOptions {
    /// More Datalog files, included after the analysis' own program (one program with
    /// it): for points-to, more allocator and library models (see rules/lib/models.dl).
    /// (`check --checks` differs: each of its files is a program of its own.)
    #[arg(long = "rules", value_name = "FILE")]
    rules: Vec<PathBuf>,
    /// How the points-to fixpoint is computed: `native` runs the model and wrapper rules on
    /// the rule engine and the fixpoint of rules/andersen.dl in Rust (same tuples, much
    /// faster); `rules` evaluates all of rules/andersen.dl on the rule engine.
    #[arg(long, value_enum, default_value_t = SolverArg::Native)]
    solver: SolverArg,
    /// Context sensitivity of the points-to analysis: `insensitive`, or contexts of the
    /// last 1 to 3 call sites (`1-callsite`, `2-callsite`, `3-callsite`) or of the last 1
    /// to 3 calling functions (`1-caller`, `2-caller`, `3-caller`); an indirect call with
    /// more than 32 possible callees by type gives them the empty context. Both solvers;
    /// with `rules`, as `#define CONTEXT_DEPTH k` and `#define CONTEXT_CALLER 0|1`.
    #[arg(long, value_name = "MODE", default_value = "insensitive")]
    context: String,
    /// What the points-to analysis makes of an `inbounds` getelementptr (a field address,
    /// a pointer addition) whose offset leaves its object, beyond one past the end:
    /// `poison`, no location, as LLVM defines it (andersen's default), or `unknown`,
    /// somewhere in the object, so that programs that compute such addresses stay sound
    /// (defuse's default, as seed 003 asks; `#define OUT_OF_BOUNDS_UNKNOWN` in the rules).
    #[arg(long, value_enum, value_name = "HOW")]
    out_of_bounds: Option<OutOfBoundsArg>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum OutOfBoundsArg {
    Poison,
    Unknown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SolverArg {
    Native,
    Rules,
}

impl AnalysisOptions {
    /// The options, or a usage error (one line) for a `--context` that names no mode.
    pub fn options(&self) -> Result<Options, Usage> {
        let context = Context::parse(&self.context).ok_or_else(|| {
            Usage(format!(
                "--context: no mode `{}` (modes: {})",
                self.context,
                Context::NAMES.join(", ")
            ))
        })?;
        Ok(Options {
            rules: self.rules.clone(),
            rules_only: self.solver == SolverArg::Rules,
            context,
            explain: None,
            out_of_bounds: self.out_of_bounds.map(|b| match b {
                OutOfBoundsArg::Poison => OutOfBounds::Poison,
                OutOfBoundsArg::Unknown => OutOfBounds::Unknown,
            }),
        })
    }
}
