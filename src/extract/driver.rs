//! Many inputs → parsed modules (in parallel) → facts, in input order → one output directory
//! or one in-memory fact set.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Result;
use rayon::prelude::*;

use super::input;
use super::{Counts, EmittedTypes, Sink, extract_module};
use crate::facts::buf::FactBuf;
use crate::facts::registry::{self, RELATIONS};
use crate::facts::writer::FactDir;
use crate::isolate::{self, Event};

pub struct Summary {
    pub modules: usize,
    pub functions: usize,
    pub instructions: usize,
    pub relations: usize,
    pub nonempty_relations: usize,
    pub tuples: u64,
    pub elapsed: Duration,
    /// Inputs skipped with `keep_going`, by index.
    pub skipped: Vec<usize>,
}

/// How inputs are read.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// No warnings, no progress display.
    pub quiet: bool,
    /// Skip unreadable inputs (each reported on one line) instead of failing.
    pub keep_going: bool,
    /// Inputs, by index, not to read: they crashed an earlier reader process.
    pub skip: Vec<usize>,
    /// The process ends once the facts are out: the last module is left to the OS rather
    /// than freed (tens of milliseconds of LLVM's destructors on a large module; clang's
    /// driver does the same with `-disable-free`).
    pub leak_last_module: bool,
}

/// `skipped N of M inputs: a.bc, b.bc`.
pub fn skipped_message(inputs: &[PathBuf], skipped: &[usize]) -> String {
    let names: Vec<String> = skipped
        .iter()
        .map(|&i| inputs[i].display().to_string())
        .collect();
    format!(
        "skipped {} of {} inputs: {}",
        skipped.len(),
        inputs.len(),
        names.join(", ")
    )
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} module{}, {} functions, {} instructions: {} tuples in {} relations ({} non-empty), {:.2}s",
            self.modules,
            if self.modules == 1 { "" } else { "s" },
            self.functions,
            self.instructions,
            self.tuples,
            self.relations,
            self.nonempty_relations,
            self.elapsed.as_secs_f64()
        )
    }
}

/// Module ids: the file stem, with `~2`, `~3`... for repeated stems, in input order.
fn module_ids(inputs: &[PathBuf]) -> Vec<Vec<u8>> {
    let mut seen: HashMap<Vec<u8>, usize> = HashMap::new();
    inputs
        .iter()
        .map(|p| {
            let stem = p
                .file_stem()
                .map(|s| s.as_encoded_bytes().to_vec())
                .unwrap_or_else(|| b"module".to_vec());
            let n = seen.entry(stem.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                stem
            } else {
                [&stem[..], format!("~{n}").as_bytes()].concat()
            }
        })
        .collect()
}

/// A one-line progress display on stderr, shown only when stderr is a terminal.
struct Progress {
    enabled: bool,
    total_modules: usize,
    modules: usize,
    functions: usize,
    /// Functions done and defined in the module being emitted.
    current: (usize, usize),
    last: Instant,
}

impl Progress {
    fn new(quiet: bool, total_modules: usize) -> Self {
        Progress {
            enabled: !quiet && (std::io::stderr().is_terminal() || isolate::stderr_is_terminal()),
            total_modules,
            modules: 0,
            functions: 0,
            current: (0, 0),
            last: Instant::now(),
        }
    }

    fn functions_done(&mut self, done: usize, of: usize) {
        self.functions += done - self.current.0;
        self.current = (done, of);
        self.draw(false);
    }

    fn module_done(&mut self) {
        self.modules += 1;
        self.current = (0, 0);
        self.draw(true);
    }

    fn draw(&mut self, force: bool) {
        if !self.enabled || (!force && self.last.elapsed() < Duration::from_millis(100)) {
            return;
        }
        self.last = Instant::now();
        let width = 30;
        let within = if self.current.1 == 0 {
            0.0
        } else {
            self.current.0 as f64 / self.current.1 as f64
        };
        let fraction = (self.modules as f64 + within) / self.total_modules.max(1) as f64;
        let filled = ((width as f64 * fraction) as usize).min(width);
        eprint!(
            "\r[{}{}] {}/{} modules, {} functions",
            "#".repeat(filled),
            "-".repeat(width - filled),
            self.modules,
            self.total_modules,
            self.functions
        );
        let _ = std::io::stderr().flush();
    }

    /// A whole line, printed over the progress display.
    fn line(&mut self, text: &str) {
        if self.enabled {
            eprint!("\r\x1b[2K");
        }
        eprintln!("llfacts: {text}");
        self.draw(true);
    }

    fn finish(&self) {
        if self.enabled {
            eprint!("\r\x1b[2K");
        }
    }
}

/// Extracts every input into `out`. Modules are parsed `jobs` at a time in parallel and
/// emitted in input order; the extraction threads append finished buffers to the files
/// themselves, one at a time and in order (see `extract_module`), so that `--jobs N` keeps
/// to N cores. On any error nothing is left at `out`.
pub fn to_dir(inputs: &[PathBuf], out: &Path, opts: &ReadOptions) -> Result<Summary> {
    let start = Instant::now();
    let ids = module_ids(inputs);
    let mut dir = FactDir::begin(out)?;
    let mut progress = Progress::new(opts.quiet, inputs.len());
    std::thread::scope(|scope| {
        // With several jobs, the output files are created while the first input is read.
        let mut files = if rayon::current_num_threads() == 1 {
            dir.create_files()?;
            Files::Ready(dir)
        } else {
            Files::Creating(scope.spawn(move || dir.create_files().map(|()| dir)))
        };
        let mut send = |facts: FactBuf| write(files.ready()?, facts);
        let emitted = emit_all(inputs, &ids, opts, &mut send, &mut progress, scope);
        let (total, skipped) = emitted?;
        files.ready()?;
        let Files::Ready(dir) = files else {
            unreachable!("ready() leaves the files ready")
        };
        progress.finish();
        let tuples = dir.counts().iter().sum();
        let nonempty_relations = dir.counts().iter().filter(|&&c| c > 0).count();
        // Inside the scope: the last module is freed on its own thread meanwhile.
        dir.commit()?;
        Ok(Summary {
            modules: inputs.len() - skipped.len(),
            functions: total.functions,
            instructions: total.instructions,
            relations: RELATIONS.len(),
            nonempty_relations,
            tuples,
            elapsed: start.elapsed(),
            skipped,
        })
    })
}

/// The output directory, whose files a thread of their own may still be creating.
enum Files<'s> {
    Creating(std::thread::ScopedJoinHandle<'s, Result<FactDir>>),
    Ready(FactDir),
    /// Their creation failed (the error went to the first writer).
    Failed,
}

impl Files<'_> {
    fn ready(&mut self) -> Result<&mut FactDir> {
        if let Files::Creating(_) = self
            && let Files::Creating(files) = std::mem::replace(self, Files::Failed)
        {
            *self = Files::Ready(files.join().expect("file creation panicked")?);
        }
        match self {
            Files::Ready(dir) => Ok(dir),
            _ => anyhow::bail!("the output files could not be created"),
        }
    }
}

/// Appends `facts` to the output files; the buffer goes back to the pool.
fn write(dir: &mut FactDir, facts: FactBuf) -> Result<()> {
    dir.append(&facts)?;
    facts.recycle();
    Ok(())
}

/// Extracts every input into one in-memory fact set (for the analyses); also returns the
/// inputs skipped.
pub fn to_memory(inputs: &[PathBuf], opts: &ReadOptions) -> Result<(FactBuf, Vec<usize>)> {
    let mut all = FactBuf::new();
    let skipped = to_sink(inputs, opts, &mut |facts: FactBuf| {
        all.append(facts);
        Ok(())
    })?;
    Ok((all, skipped))
}

/// Extracts every input, handing each finished buffer to `sink` in order; returns the
/// inputs skipped.
pub fn to_sink(inputs: &[PathBuf], opts: &ReadOptions, sink: &mut Sink) -> Result<Vec<usize>> {
    let mut progress = Progress::new(true, inputs.len());
    let ids = module_ids(inputs);
    let (_, skipped) =
        std::thread::scope(|scope| emit_all(inputs, &ids, opts, sink, &mut progress, scope))?;
    Ok(skipped)
}

/// The opcode table, once per fact set.
fn opcode_classes() -> FactBuf {
    let mut out = FactBuf::new();
    for (opcode, class) in registry::opcodes() {
        crate::fact!(out, opcode_class, opcode, class);
    }
    out
}

/// Reads one input, in `shards` contexts when it can be (see `input::Input::shards`).
fn load(path: &Path, shards: usize) -> Result<input::Read> {
    let input = input::read(path)?;
    if shards > 1
        && let Some(read) = input.shards(shards)
    {
        return Ok(read);
    }
    Ok(input::Read {
        shards: vec![input.parse()?],
        owner: Vec::new(),
    })
}

/// `scope` takes each module once extracted: freeing it overlaps the rest of the work.
fn emit_all<'s>(
    inputs: &[PathBuf],
    ids: &[Vec<u8>],
    opts: &ReadOptions,
    sink: &mut Sink,
    progress: &mut Progress,
    scope: &'s std::thread::Scope<'s, '_>,
) -> Result<(Counts, Vec<usize>)> {
    let mut total = Counts::default();
    let mut skipped = Vec::new();
    let mut opcodes = Some(opcode_classes());
    let mut emitted_types = EmittedTypes::default();
    let window = rayon::current_num_threads().max(1);
    let indices: Vec<usize> = (0..inputs.len()).collect();
    for (first, chunk) in indices.chunks(window).enumerate() {
        let first = first * window;
        // Modules are read in parallel; one alone is read in a context per thread (shards).
        let shards = if chunk.len() == 1 { window } else { 1 };
        let modules: Vec<Option<Result<input::Read>>> = chunk
            .par_iter()
            .map(|&i| {
                if opts.skip.contains(&i) {
                    return None;
                }
                isolate::note(Event::Reading, i);
                let module = load(&inputs[i], shards);
                isolate::note(Event::Read, i);
                Some(module)
            })
            .collect();
        // After the first read: meanwhile, the output files are being created.
        if let Some(opcodes) = opcodes.take() {
            sink(opcodes)?;
        }
        for (k, module) in modules.into_iter().enumerate() {
            let i = first + k;
            let module = match module {
                None => {
                    skipped.push(i);
                    continue;
                }
                Some(Err(e)) if opts.keep_going => {
                    progress.line(&format!("{e:#}"));
                    skipped.push(i);
                    continue;
                }
                Some(module) => module?,
            };
            if !opts.quiet {
                for w in &module.shards[0].warnings {
                    progress.line(&format!("warning: {w}"));
                }
            }
            let (id, path) = (&ids[i], &inputs[i]);
            let counts = extract_module(
                &module,
                id,
                path.as_os_str().as_encoded_bytes(),
                sink,
                &mut |done, of| progress.functions_done(done, of),
                &mut emitted_types,
            )?;
            isolate::note(Event::Done, i);
            if opts.leak_last_module && i + 1 == inputs.len() {
                std::mem::forget(module);
            } else {
                // Each shard on its own thread.
                for shard in module.shards {
                    scope.spawn(move || drop(shard));
                }
            }
            total.functions += counts.functions;
            total.instructions += counts.instructions;
            progress.module_done();
        }
    }
    if let Some(opcodes) = opcodes.take() {
        sink(opcodes)?;
    }
    Ok((total, skipped))
}
