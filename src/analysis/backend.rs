//! The two evaluators of rule programs, and how a program is run on a fact set by either.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, anyhow, bail};

use crate::engine::{Database, EvalStats, OutTarget, Program, Symbols};
use crate::facts::FactSet;
use crate::facts::row::split_fields;
use crate::facts::writer::{FactDir, cause};

/// What the user asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

impl Backend {
    /// Resolve `auto` to a concrete backend; `souffle` fails if it is not on PATH.
    pub fn select(choice: EngineChoice) -> Result<Backend> {
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

    pub fn name(&self) -> &'static str {
        match self {
            Backend::Builtin => "builtin",
            Backend::Souffle(_) => "souffle",
        }
    }
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Where a program reads its inputs.
pub enum Inputs<'a> {
    /// A directory of `.facts` files (any relations: `llfacts run` reads other tools' too).
    Dir(&'a Path),
    Facts(&'a FactSet),
    /// Facts, and relations that are not facts (a native solver's results, read by a rule
    /// program as inputs), each as the text of its fact file.
    FactsAnd(&'a FactSet, &'a BTreeMap<String, String>),
}

/// Where its outputs go.
pub enum Outputs<'a> {
    /// Files or stdout, as the program's `.output` directives say.
    Target(&'a OutTarget),
    /// Returned, as output files' text, for the named relations.
    Memory(&'a [&'a str]),
}

/// The one way a program is evaluated, by either backend. `program` is the program parsed
/// with the builtin engine's front end, if it was; `on_disk` gives its file (for Soufflé,
/// and for the builtin engine when it was not parsed), `scratch` a
/// directory Soufflé may use for facts held in memory and for outputs kept in memory.
/// Soufflé's warnings about the program go to stderr when `warn` (else Soufflé's `-w`).
pub struct Evaluation<'a> {
    pub backend: &'a Backend,
    pub program: Option<&'a Program>,
    pub on_disk: &'a dyn Fn() -> Result<PathBuf>,
    pub scratch: &'a dyn Fn() -> Result<PathBuf>,
    pub jobs: usize,
    pub warn: bool,
}

/// What an evaluation returns.
#[derive(Default)]
pub struct Evaluated {
    /// The builtin engine's stats.
    pub stats: Option<EvalStats>,
    /// The texts of `Outputs::Memory`'s relations.
    pub texts: BTreeMap<String, String>,
    /// For `Outputs::Memory` on the builtin engine: its symbol table, which holds every
    /// symbol of the outputs, so that a native solver interns into it rather than anew.
    pub symbols: Option<Symbols>,
}

impl Evaluation<'_> {
    pub fn run(&self, inputs: Inputs, outputs: Outputs) -> Result<Evaluated> {
        match self.backend {
            Backend::Builtin => {
                let parsed;
                let program = match self.program {
                    Some(program) => program,
                    None => {
                        parsed = Program::from_file((self.on_disk)()?)?;
                        &parsed
                    }
                };
                if self.warn {
                    for w in program.warnings() {
                        eprint!("{w}");
                    }
                }
                let mut db = Database::new(program);
                db.keep_outputs_only();
                match inputs {
                    Inputs::Dir(dir) => db.load_inputs(dir)?,
                    Inputs::Facts(FactSet::Dir(dir, _)) => db.load_inputs(dir)?,
                    Inputs::Facts(facts) => {
                        for name in program.inputs() {
                            facts.for_each_row(name, |fields| db.insert(name, fields))?;
                        }
                    }
                    Inputs::FactsAnd(facts, extra) => {
                        for name in program.inputs() {
                            match extra.get(name) {
                                Some(text) => {
                                    for line in text.lines() {
                                        let fields: Vec<&str> = split_fields(line).collect();
                                        db.insert(name, &fields)?;
                                    }
                                }
                                None => facts.for_each_row(name, |f| db.insert(name, f))?,
                            }
                        }
                    }
                }
                let stats = Some(db.run(self.jobs)?);
                match outputs {
                    Outputs::Target(target) => {
                        db.write_outputs(target)?;
                        Ok(Evaluated { stats, ..Evaluated::default() })
                    }
                    Outputs::Memory(wanted) => {
                        let texts = wanted
                            .iter()
                            .map(|w| Ok((w.to_string(), db.output_text(w)?)))
                            .collect::<Result<_>>()?;
                        let symbols = Some(db.into_symbols());
                        Ok(Evaluated { stats, texts, symbols })
                    }
                }
            }
            Backend::Souffle(exe) => {
                let fact_dir = match inputs {
                    Inputs::Dir(dir) => dir.to_path_buf(),
                    Inputs::Facts(facts) => facts.on_disk(&(self.scratch)()?.join("facts"))?,
                    Inputs::FactsAnd(facts, extra) => {
                        let scratch = (self.scratch)()?;
                        facts.on_disk_with(&scratch.join("facts"), extra, &scratch)?
                    }
                };
                let program = (self.on_disk)()?;
                let run = |target: &OutTarget| {
                    run_souffle(exe, &program, &fact_dir, target, self.jobs, self.warn)
                };
                match outputs {
                    Outputs::Target(target) => {
                        run(target)?;
                        Ok(Evaluated::default())
                    }
                    Outputs::Memory(wanted) => {
                        let out = tempfile::Builder::new()
                            .prefix("out")
                            .tempdir_in((self.scratch)()?)
                            .context("creating a scratch directory")?;
                        run(&OutTarget::Dir(out.path().to_path_buf()))?;
                        let texts = wanted
                            .iter()
                            .map(|w| {
                                let csv = out.path().join(format!("{w}.csv"));
                                let text = std::fs::read_to_string(&csv)
                                    .map_err(|e| anyhow!("{}: {}", csv.display(), cause(&e)))?;
                                Ok((w.to_string(), text))
                            })
                            .collect::<Result<_>>()?;
                        Ok(Evaluated { texts, ..Evaluated::default() })
                    }
                }
            }
        }
    }
}

/// `llfacts run`: evaluate a program file over a fact directory into `out`. Outputs into a
/// directory are staged inside it and moved in once all are complete, so that a failure
/// (say, a full disk) leaves no file half-written.
pub fn run_file(
    backend: &Backend,
    program: &Path,
    fact_dir: &Path,
    out: &OutTarget,
    jobs: usize,
    warn: bool,
) -> Result<Option<EvalStats>> {
    let eval = |out: &OutTarget| -> Result<Option<EvalStats>> {
        let on_disk = || Ok(program.to_path_buf());
        let scratch = || -> Result<PathBuf> { unreachable!("facts come from a directory") };
        let e = Evaluation {
            backend,
            program: None,
            on_disk: &on_disk,
            scratch: &scratch,
            jobs,
            warn,
        };
        Ok(e.run(Inputs::Dir(fact_dir), Outputs::Target(out))?.stats)
    };
    let OutTarget::Dir(dir) = out else {
        return eval(out);
    };
    let staged = FactDir::staging(dir)?;
    let tmp = staged.path().to_path_buf();
    let stats = eval(&OutTarget::Dir(tmp.clone())).map_err(|e| {
        // Name the output directory, not the temporary.
        let text = format!("{e:#}");
        anyhow!(
            "{}",
            text.replace(&*tmp.to_string_lossy(), &dir.to_string_lossy())
        )
    })?;
    staged.merge()?;
    Ok(stats)
}

fn create_out_dir(d: &Path) -> Result<()> {
    std::fs::create_dir_all(d)
        .with_context(|| format!("cannot create output directory {}", d.display()))
}

fn run_souffle(
    exe: &Path,
    program: &Path,
    fact_dir: &Path,
    out: &OutTarget,
    jobs: usize,
    warn: bool,
) -> Result<()> {
    let out_arg = match out {
        OutTarget::Stdout => "-".to_string(),
        OutTarget::Dir(d) => {
            // Soufflé requires the output directory to exist; the builtin engine creates
            // it, so both behave alike for users.
            create_out_dir(d)?;
            d.display().to_string()
        }
    };
    let mut cmd = Command::new(exe);
    if !warn {
        // Soufflé 2.5 ignores its documented `-w` (it only skips `--warn`/`--wno`).
        cmd.arg("--wno=all");
    }
    // llfacts ignores SIGXFSZ (see `isolate::handle_signals`); Soufflé does not check its
    // writes, so past the file size limit it must end by the signal, not write short files.
    // SAFETY: only signal(), async-signal-safe, between fork and exec.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            libc::signal(libc::SIGXFSZ, libc::SIG_DFL);
            Ok(())
        });
    }
    let status = cmd
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
    Ok(())
}

/// Peak resident set size in KiB (Linux `VmHWM`), if available.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
