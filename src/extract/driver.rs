//! Many inputs → parsed modules (in parallel) → facts, in input order → one output directory
//! or one in-memory fact set.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Result;
use rayon::prelude::*;

use super::input;
use super::{Counts, EmittedTypes, extract_module};
use crate::facts::buf::FactBuf;
use crate::facts::registry::{self, RELATIONS};
use crate::facts::writer::FactDir;

pub struct Summary {
    pub modules: usize,
    pub functions: usize,
    pub instructions: usize,
    pub relations: usize,
    pub nonempty_relations: usize,
    pub tuples: u64,
    pub elapsed: Duration,
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
            enabled: !quiet && std::io::stderr().is_terminal(),
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

    fn finish(&self) {
        if self.enabled {
            eprint!("\r\x1b[2K");
        }
    }
}

/// Extracts every input into `out`. Modules are parsed `jobs` at a time in parallel and
/// emitted in input order, while a writer thread appends finished buffers to the files;
/// on any error nothing is left at `out`.
pub fn to_dir(inputs: &[PathBuf], out: &Path, quiet: bool) -> Result<Summary> {
    let start = Instant::now();
    let ids = module_ids(inputs);
    let dir = FactDir::create(out)?;
    let mut progress = Progress::new(quiet, inputs.len());
    // A few buffers in flight keep both sides busy while bounding memory.
    let (tx, rx) = std::sync::mpsc::sync_channel::<FactBuf>(4);
    let (dir, emitted) = std::thread::scope(|scope| {
        let writer = scope.spawn(move || -> Result<FactDir> {
            let mut dir = dir;
            for facts in rx {
                dir.append(&facts)?;
            }
            Ok(dir)
        });
        let mut send = |facts: FactBuf| {
            tx.send(facts)
                .map_err(|_| anyhow::anyhow!("output writer stopped"))
        };
        let emitted = emit_all(inputs, &ids, &mut send, &mut progress);
        drop(tx);
        // A writer failure (say, a full disk) is the cause of any send failure: report it first.
        let dir = writer.join().expect("writer thread panicked");
        (dir, emitted)
    });
    let dir = dir?;
    let total = emitted?;
    progress.finish();
    let tuples = dir.counts().iter().sum();
    let nonempty_relations = dir.counts().iter().filter(|&&c| c > 0).count();
    dir.commit()?;
    Ok(Summary {
        modules: inputs.len(),
        functions: total.functions,
        instructions: total.instructions,
        relations: RELATIONS.len(),
        nonempty_relations,
        tuples,
        elapsed: start.elapsed(),
    })
}

/// Extracts every input into one in-memory fact set (for the analyses).
pub fn to_memory(inputs: &[PathBuf]) -> Result<FactBuf> {
    let mut all = FactBuf::new();
    let mut keep = |facts: FactBuf| {
        all.append(facts);
        Ok(())
    };
    emit_all(
        inputs,
        &module_ids(inputs),
        &mut keep,
        &mut Progress::new(true, inputs.len()),
    )?;
    Ok(all)
}

/// The opcode table, once per fact set.
fn opcode_classes() -> FactBuf {
    let mut out = FactBuf::new();
    for (opcode, class) in registry::opcodes() {
        crate::fact!(out, opcode_class, opcode, class);
    }
    out
}

fn emit_all(
    inputs: &[PathBuf],
    ids: &[Vec<u8>],
    sink: &mut dyn FnMut(FactBuf) -> Result<()>,
    progress: &mut Progress,
) -> Result<Counts> {
    let mut total = Counts::default();
    sink(opcode_classes())?;
    let mut emitted_types = EmittedTypes::default();
    let window = rayon::current_num_threads().max(1);
    for (paths, ids) in inputs.chunks(window).zip(ids.chunks(window)) {
        let modules: Vec<input::Module> = paths
            .par_iter()
            .map(|p| input::load(p))
            .collect::<Result<_>>()?;
        for ((module, id), path) in modules.iter().zip(ids).zip(paths) {
            let counts = extract_module(
                module,
                id,
                path.as_os_str().as_encoded_bytes(),
                sink,
                &mut |done, of| progress.functions_done(done, of),
                &mut emitted_types,
            )?;
            total.functions += counts.functions;
            total.instructions += counts.instructions;
            progress.module_done();
        }
    }
    Ok(total)
}
