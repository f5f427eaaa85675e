//! The two evaluators of rule programs, and how a program is run on a fact set by either.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, anyhow, bail};

use crate::engine::{Database, EvalStats, OutTarget, Program};
use crate::facts::FactSet;
use crate::facts::writer::{FactDir, cause};

use super::programs::{self, RuleSource};

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

/// Evaluate a program file with the chosen backend: inputs from `fact_dir`,
/// outputs to `out` (a directory, or stdout). Soufflé's warnings about the
/// program go to stderr unless `!warn` (Soufflé's `-w`). Returns
/// builtin-engine stats.
pub fn run_file(
    backend: &Backend,
    program: &Path,
    fact_dir: &Path,
    out: &OutTarget,
    jobs: usize,
    warn: bool,
) -> Result<Option<EvalStats>> {
    let run = |out: &OutTarget| -> Result<Option<EvalStats>> {
        match backend {
            Backend::Souffle(exe) => {
                run_souffle(exe, program, fact_dir, out, jobs, warn)?;
                Ok(None)
            }
            Backend::Builtin => {
                let prog = Program::from_file(program)?;
                if warn {
                    for w in prog.warnings() {
                        eprint!("{w}");
                    }
                }
                let mut db = Database::new(&prog);
                db.keep_outputs_only();
                db.load_inputs(fact_dir)?;
                let stats = db.run(jobs)?;
                db.write_outputs(out)?;
                Ok(Some(stats))
            }
        }
    };
    let OutTarget::Dir(dir) = out else {
        return run(out);
    };
    // Outputs are written into a temporary inside `dir` and moved in once all are complete,
    // so that a failure (say, a full disk) leaves no file half-written.
    let staged = FactDir::staging(dir)?;
    let tmp = staged.path().to_path_buf();
    let stats = run(&OutTarget::Dir(tmp.clone())).map_err(|e| {
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
        cmd.arg("-w");
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

/// Output relations by name, each as rows of (escaped) fields.
pub type Outputs = BTreeMap<String, Vec<Vec<String>>>;

/// Runs rule programs over one fact set. With Soufflé, the facts and the built-in rules
/// are written to a scratch directory once, on first use.
pub struct Runner<'a> {
    facts: &'a FactSet,
    backend: Backend,
    jobs: usize,
    scratch: Option<tempfile::TempDir>,
    runs: usize,
}

impl<'a> Runner<'a> {
    pub fn new(facts: &'a FactSet, backend: Backend, jobs: usize) -> Runner<'a> {
        Runner {
            facts,
            backend,
            jobs,
            scratch: None,
            runs: 0,
        }
    }

    pub fn facts(&self) -> &'a FactSet {
        self.facts
    }

    /// Parses and checks a program (with the builtin engine's front end, for either backend).
    pub fn parse(&self, source: &RuleSource) -> Result<Program> {
        programs::parse(source)
    }

    /// Evaluates `program` (parsed from `source`) and returns the `wanted` output relations.
    pub fn outputs(
        &mut self,
        source: &RuleSource,
        program: &Program,
        wanted: &[&str],
    ) -> Result<Outputs> {
        for w in wanted {
            if !program.outputs().contains(w) {
                bail!("{source}: the program does not output `{w}`");
            }
        }
        match self.backend.clone() {
            Backend::Builtin => {
                let mut db = Database::new(program);
                db.keep_outputs_only();
                self.load(&mut db, program)?;
                db.run(self.jobs)?;
                wanted
                    .iter()
                    .map(|w| Ok((w.to_string(), db.rows_as_strings(w)?)))
                    .collect()
            }
            Backend::Souffle(exe) => {
                let scratch = self.scratch()?.to_path_buf();
                let fact_dir = self.facts.on_disk(&scratch.join("facts"))?;
                let program_path = programs::on_disk(source, &scratch)?;
                self.runs += 1;
                let out = scratch.join(format!("out{}", self.runs));
                run_souffle(
                    &exe,
                    &program_path,
                    &fact_dir,
                    &OutTarget::Dir(out.clone()),
                    self.jobs,
                    false, // rule programs run by commands stay silent
                )?;
                wanted
                    .iter()
                    .map(|w| {
                        let csv = out.join(format!("{w}.csv"));
                        let text = std::fs::read_to_string(&csv)
                            .map_err(|e| anyhow!("{}: {}", csv.display(), cause(&e)))?;
                        Ok((w.to_string(), crate::facts::set::split_rows(&text)))
                    })
                    .collect()
            }
        }
    }

    fn scratch(&mut self) -> Result<&Path> {
        if self.scratch.is_none() {
            let dir = tempfile::Builder::new()
                .prefix("llfacts-")
                .tempdir()
                .context("creating a scratch directory")?;
            self.scratch = Some(dir);
        }
        Ok(self.scratch.as_ref().expect("just set").path())
    }

    fn load(&self, db: &mut Database, program: &Program) -> Result<()> {
        match self.facts {
            FactSet::Dir(dir) => db.load_inputs(dir),
            FactSet::Memory(_) => {
                for name in program.inputs() {
                    self.facts
                        .for_each_row(name, |fields| db.insert(name, fields))?;
                }
                Ok(())
            }
        }
    }
}

/// Peak resident set size in KiB (Linux `VmHWM`), if available.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
