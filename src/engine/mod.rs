//! Embedded evaluator for the Soufflé subset that `rules/` uses
//! (the language contract is docs/engine.md).
//!
//! ```no_run
//! use llfacts::engine::{Database, Program};
//! let program = Program::from_source("tc.dl", r#"
//!     .decl edge(x: number, y: number)
//!     .decl path(x: number, y: number)
//!     .output path
//!     path(x, y) :- edge(x, y).
//!     path(x, z) :- path(x, y), edge(y, z).
//! "#)?;
//! let mut db = Database::new(&program);
//! db.insert("edge", &["1", "2"])?;
//! db.insert("edge", &["2", "3"])?;
//! db.run(2)?;
//! assert_eq!(db.rows_as_strings("path")?.len(), 3);
//! # anyhow::Ok(())
//! ```

mod ast;
mod eqrel;
mod eval;
mod functors;
mod io;
mod ir;
mod lexer;
mod parser;
mod planner;
mod preproc;
mod sema;
mod storage;
mod subsume;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::sync::RwLock;

use anyhow::{Result, anyhow, bail};
use rayon::prelude::*;

pub use eval::EvalStats;
pub use io::OutTarget;
pub use ir::Base;
pub use storage::Symbols;

use ast::IoDirective;
use storage::Relation;

/// A parsed and checked program.
#[derive(Clone, Debug)]
pub struct Program {
    checked: ir::Checked,
}

impl Program {
    /// Parse and check a program file (following `#include`s).
    pub fn from_file(path: impl AsRef<Path>) -> Result<Program> {
        Self::from_ast(parser::parse_file(path.as_ref())?)
    }

    /// Parse and check a program held in memory; `name` is used in error messages.
    pub fn from_source(name: &str, text: &str) -> Result<Program> {
        Self::from_ast(parser::parse_source(name, text)?)
    }

    /// Parse and check the program `entry` of `files`, whose `#include`s are
    /// served from `files` too, never from the disk. Keys are `/`-separated
    /// relative paths (`rules/checks.dl`, `schema/llfacts.dl`); an include
    /// resolves against the directory of the including file and is normalized
    /// (`rules/checks.dl` including `"../schema/llfacts.dl"` reads
    /// `schema/llfacts.dl`). Error positions name files by their keys.
    pub fn from_files(entry: &str, files: &BTreeMap<String, String>) -> Result<Program> {
        Self::from_ast(parser::parse_files(entry, files)?)
    }

    fn from_ast(src: ast::Source) -> Result<Program> {
        Ok(Program {
            checked: sema::check(&src)?,
        })
    }

    /// Soufflé's warnings about the program (a variable that occurs only
    /// once, a relation with no rules or facts, deprecated syntax, ...), each
    /// rendered as Soufflé prints it on stderr (several lines, ending in a
    /// newline), in source order. Nothing prints them but the caller.
    pub fn warnings(&self) -> &[String] {
        &self.checked.warnings
    }

    /// Declared relation names, in declaration order.
    pub fn relations(&self) -> Vec<&str> {
        self.checked.rels.iter().map(|r| r.name.as_str()).collect()
    }

    /// Column types of a relation.
    pub fn column_types(&self, relation: &str) -> Result<Vec<Base>> {
        Ok(self.checked.rels[self.rel(relation)?].types.clone())
    }

    /// Column names of a relation, as declared.
    pub fn column_names(&self, relation: &str) -> Result<Vec<&str>> {
        let info = &self.checked.rels[self.rel(relation)?];
        Ok(info.attr_names.iter().map(String::as_str).collect())
    }

    /// Input relations that some output depends on: the ones that are read.
    pub fn inputs(&self) -> Vec<&str> {
        self.checked
            .rels
            .iter()
            .zip(&self.checked.needed)
            .filter(|(r, needed)| !r.inputs.is_empty() && **needed)
            .map(|(r, _)| r.name.as_str())
            .collect()
    }

    /// Relations with an `.output` directive.
    pub fn outputs(&self) -> Vec<&str> {
        self.checked
            .rels
            .iter()
            .filter(|r| !r.outputs.is_empty())
            .map(|r| r.name.as_str())
            .collect()
    }

    fn rel(&self, name: &str) -> Result<usize> {
        self.checked
            .rel_index
            .get(name)
            .copied()
            .ok_or_else(|| anyhow!("unknown relation {name}"))
    }
}

/// A typed value of one column.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Number(i32),
    Unsigned(u32),
    Float(f32),
    Symbol(String),
    /// A record or ADT value in its text form (`[1, nil]`, `$A(1)`).
    Record(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Number(v) => write!(f, "{v}"),
            Value::Unsigned(v) => write!(f, "{v}"),
            Value::Float(v) => f.write_str(&functors::format_float(*v)),
            Value::Symbol(s) | Value::Record(s) => f.write_str(s),
        }
    }
}

/// Tuples of one program: fill the inputs, `run`, read the results.
pub struct Database<'p> {
    program: &'p Program,
    rels: Vec<Relation>,
    syms: Symbols,
    stats: Option<EvalStats>,
    /// Relations that stay readable after `run` (others are freed early).
    keep: Vec<bool>,
    /// `run`'s threads, which `write_outputs` uses too.
    jobs: usize,
}

impl<'p> Database<'p> {
    pub fn new(program: &'p Program) -> Self {
        let rels = program
            .checked
            .rels
            .iter()
            .map(|r| {
                if r.eqrel {
                    Relation::new_eqrel()
                } else {
                    Relation::new(r.types.len())
                }
            })
            .collect();
        Database {
            program,
            rels,
            syms: program.checked.symbols.clone(),
            stats: None,
            keep: vec![true; program.checked.rels.len()],
            jobs: 1,
        }
    }

    /// The symbol table, for a caller that goes on interning where the program stopped.
    pub fn into_symbols(self) -> Symbols {
        self.syms
    }

    /// After `run`, only output and `.printsize` relations will be read: the
    /// others are freed as soon as no later rule reads them (less peak memory).
    pub fn keep_outputs_only(&mut self) {
        for (k, r) in self.keep.iter_mut().zip(&self.program.checked.rels) {
            *k = !r.outputs.is_empty() || r.printsize;
        }
    }

    fn rel_for_insert(&self, relation: &str, len: usize) -> Result<usize> {
        if self.stats.is_some() {
            bail!("cannot insert into {relation} after run()");
        }
        let r = self.program.rel(relation)?;
        let arity = self.program.checked.rels[r].types.len();
        if len != arity {
            bail!("relation {relation} has arity {arity}, got a row of {len} values");
        }
        Ok(r)
    }

    /// Insert a row given as text, parsed per column type as a fact file would be.
    pub fn insert(&mut self, relation: &str, row: &[&str]) -> Result<()> {
        let r = self.rel_for_insert(relation, row.len())?;
        let types = &self.program.checked.rels[r].types;
        let recs = &self.program.checked.record_types;
        let mut vals = Vec::with_capacity(row.len());
        for (c, s) in row.iter().enumerate() {
            let v = io::parse_field(types[c], s, &mut self.syms, recs).ok_or_else(|| {
                anyhow!(
                    "{relation}: cannot convert \"{s}\" to {} in column {}",
                    types[c].name(),
                    c + 1
                )
            })?;
            vals.push(v);
        }
        self.rels[r].insert(&vals);
        Ok(())
    }

    /// Insert a row of typed values; each must match its column's type.
    pub fn insert_values(&mut self, relation: &str, row: &[Value]) -> Result<()> {
        let r = self.rel_for_insert(relation, row.len())?;
        let types = &self.program.checked.rels[r].types;
        let mut vals = Vec::with_capacity(row.len());
        for (c, v) in row.iter().enumerate() {
            vals.push(match (types[c], v) {
                (Base::Num, Value::Number(n)) => *n as u32,
                (Base::Uns, Value::Unsigned(n)) => *n,
                (Base::Flt, Value::Float(x)) => x.to_bits(),
                (Base::Sym, Value::Symbol(s)) => self.syms.intern(s),
                (t @ Base::Rec(_), Value::Record(s)) => {
                    let recs = &self.program.checked.record_types;
                    io::parse_field(t, s, &mut self.syms, recs).ok_or_else(|| {
                        anyhow!("{relation}: not a record of column {}: {s}", c + 1)
                    })?
                }
                (t, v) => bail!("{relation}: column {} is {}, got {v:?}", c + 1, t.name()),
            });
        }
        self.rels[r].insert(&vals);
        Ok(())
    }

    /// Load every `.input` relation from `fact_dir` (Soufflé's `-F`).
    pub fn load_inputs(&mut self, fact_dir: &Path) -> Result<()> {
        for (r, info) in self.program.checked.rels.iter().enumerate() {
            if !self.program.checked.needed[r] {
                continue;
            }
            for ioo in &info.inputs {
                let recs = &self.program.checked.record_types;
                io::read_input(info, ioo, fact_dir, &mut self.rels[r], &mut self.syms, recs)?;
            }
            // built again if a rule adds to the relation or looks rows up
            self.rels[r].drop_row_set();
        }
        Ok(())
    }

    /// Evaluate the program with `jobs` threads. Results do not depend on `jobs`.
    pub fn run(&mut self, jobs: usize) -> Result<EvalStats> {
        if self.stats.is_some() {
            bail!("run() was already called");
        }
        self.jobs = jobs;
        let syms = RwLock::new(std::mem::take(&mut self.syms));
        let res = eval::evaluate(
            &self.program.checked,
            &mut self.rels,
            &syms,
            jobs,
            &self.keep,
        );
        self.syms = syms.into_inner().unwrap();
        let stats = res?;
        self.stats = Some(stats.clone());
        Ok(stats)
    }

    /// Number of tuples in a relation.
    pub fn len(&self, relation: &str) -> Result<usize> {
        Ok(self.rels[self.program.rel(relation)?].len())
    }

    /// Rows of a relation as typed values, sorted (numbers numerically, symbols by string).
    pub fn rows(&self, relation: &str) -> Result<Vec<Vec<Value>>> {
        let r = self.program.rel(relation)?;
        let info = &self.program.checked.rels[r];
        if info.types.is_empty() {
            return Ok(vec![vec![]; self.rels[r].len()]);
        }
        let flat = self.rels[r].flat();
        let recs = &self.program.checked.record_types;
        Ok(io::RowOrder::new(&self.syms, recs)
            .sorted_rows(info, &flat)
            .into_iter()
            .map(|row| {
                row.iter()
                    .zip(&info.types)
                    .map(|(v, t)| match t {
                        Base::Num => Value::Number(*v as i32),
                        Base::Uns => Value::Unsigned(*v),
                        Base::Flt => Value::Float(f32::from_bits(*v)),
                        Base::Sym => Value::Symbol(self.syms.resolve(*v).to_string()),
                        t @ Base::Rec(_) => {
                            let mut s = String::new();
                            io::show_value(&mut s, *t, *v, &self.syms, recs);
                            Value::Record(s)
                        }
                    })
                    .collect()
            })
            .collect())
    }

    /// Rows of a relation rendered as in output files, sorted.
    pub fn rows_as_strings(&self, relation: &str) -> Result<Vec<Vec<String>>> {
        Ok(self
            .rows(relation)?
            .into_iter()
            .map(|r| r.into_iter().map(|v| v.to_string()).collect())
            .collect())
    }

    /// A relation's rows as an output file holds them (tab-separated, sorted).
    pub fn output_text(&self, relation: &str) -> Result<String> {
        let r = self.program.rel(relation)?;
        let prog = &self.program.checked;
        let order = io::RowOrder::new(&self.syms, &prog.record_types);
        let mut text = Vec::new();
        io::write_rows(&mut text, &prog.rels[r], &self.rels[r], &order, "\t", false)?;
        Ok(String::from_utf8(text).expect("symbols are UTF-8"))
    }

    /// Write every `.output` relation (and `.printsize` line). Files are
    /// written in parallel (with `run`'s threads); what goes to stdout comes
    /// in evaluation order.
    pub fn write_outputs(&self, target: &OutTarget) -> Result<()> {
        let prog = &self.program.checked;
        let order = io::RowOrder::new(&self.syms, &prog.record_types);
        let write = |r: usize, o: &IoDirective| {
            io::write_output(&prog.rels[r], o, &self.rels[r], &order, target)
        };
        let mut files = Vec::new();
        for stratum in &prog.strata {
            for &r in &stratum.rels {
                let info = &prog.rels[r];
                for o in &info.outputs {
                    if io::goes_to_stdout(o, target) {
                        write(r, o)?;
                    } else {
                        files.push((r, o));
                    }
                }
                if info.printsize {
                    io::print_size(info, &self.rels[r])?;
                }
            }
        }
        eval::thread_pool(self.jobs)?
            .install(|| files.par_iter().try_for_each(|(r, o)| write(*r, o)))
    }
}
