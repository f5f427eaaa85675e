//! A session: one fact set and the evaluator that runs rule programs over it. Every
//! analysis gets one, ready, from the command that runs it.

use std::collections::BTreeMap;
use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};

use super::backend::{Backend, Evaluation, Inputs, Outputs};
use super::programs::{self, RuleSource};
use crate::engine::{Program, Symbols};
use crate::facts::writer::write_relations;
use crate::facts::{FactSet, Row, row};

pub struct Session {
    facts: FactSet,
    backend: Backend,
    jobs: usize,
    /// For Soufflé: the facts and the built-in rules written once, on first use.
    scratch: OnceCell<tempfile::TempDir>,
}

impl Session {
    pub fn new(facts: FactSet, backend: Backend, jobs: usize) -> Session {
        Session {
            facts,
            backend,
            jobs,
            scratch: OnceCell::new(),
        }
    }

    pub fn facts(&self) -> &FactSet {
        &self.facts
    }

    pub fn backend(&self) -> &Backend {
        &self.backend
    }

    /// Parses and checks a program (with the builtin engine's front end, for either backend).
    pub fn parse(&self, source: &RuleSource) -> Result<Program> {
        programs::parse(source)
    }

    /// Evaluates `source` and returns its `wanted` output relations.
    pub fn run(&self, source: &RuleSource, wanted: &[&str]) -> Result<Tables> {
        let program = self.parse(source)?;
        self.run_parsed(source, &program, wanted)
    }

    /// As [`Session::run`], with `inputs`, relations that are not facts (a native solver's
    /// results: relation → the text of its fact file), read by the program as inputs.
    pub fn run_with(
        &self,
        source: &RuleSource,
        wanted: &[&str],
        inputs: &BTreeMap<String, String>,
    ) -> Result<Tables> {
        let program = self.parse(source)?;
        let inputs = Inputs::FactsAnd(&self.facts, inputs);
        self.evaluate(source, &program, wanted, inputs)
    }

    /// As [`Session::run`], for a program parsed already.
    pub fn run_parsed(
        &self,
        source: &RuleSource,
        program: &Program,
        wanted: &[&str],
    ) -> Result<Tables> {
        self.evaluate(source, program, wanted, Inputs::Facts(&self.facts))
    }

    fn evaluate(
        &self,
        source: &RuleSource,
        program: &Program,
        wanted: &[&str],
        inputs: Inputs,
    ) -> Result<Tables> {
        let mut columns = BTreeMap::new();
        for w in wanted {
            if !program.outputs().contains(w) {
                bail!("{source}: the program does not output `{w}`");
            }
            let names = program.column_names(w)?;
            columns.insert(w.to_string(), names.into_iter().map(String::from).collect());
        }
        let on_disk = || programs::on_disk(source, &self.scratch()?);
        let scratch_dir = || self.scratch();
        let evaluation = Evaluation {
            backend: &self.backend,
            program: Some(program),
            on_disk: &on_disk,
            scratch: &scratch_dir,
            jobs: self.jobs,
            warn: false, // rule programs run by commands stay silent
        };
        let evaluated = evaluation.run(inputs, Outputs::Memory(wanted))?;
        let tables = evaluated
            .texts
            .into_iter()
            .map(|(name, text)| {
                let columns = columns.remove(&name).expect("asked for");
                (name, Table { columns, text })
            })
            .collect();
        Ok(Tables {
            source: source.to_string(),
            tables,
            symbols: evaluated.symbols,
        })
    }

    /// The scratch directory, made on first use (only Soufflé needs one).
    fn scratch(&self) -> Result<PathBuf> {
        if let Some(dir) = self.scratch.get() {
            return Ok(dir.path().to_path_buf());
        }
        let dir = tempfile::Builder::new()
            .prefix("llfacts-")
            .tempdir()
            .context("creating a scratch directory")?;
        Ok(self.scratch.get_or_init(|| dir).path().to_path_buf())
    }
}

struct Table {
    columns: Vec<String>,
    text: String,
}

/// A program's output relations, as its output files hold them, with their declared columns.
pub struct Tables {
    source: String,
    tables: BTreeMap<String, Table>,
    /// The builtin engine's symbol table (`None` from Soufflé).
    symbols: Option<Symbols>,
}

impl Tables {
    /// The symbol table the outputs' symbols were interned into by the builtin engine, to
    /// go on interning into (one table from the engine to the written solution); a new one
    /// for Soufflé's outputs, which come as text only.
    pub fn take_symbols(&mut self) -> Symbols {
        self.symbols.take().unwrap_or_default()
    }

    /// A relation's tuples as typed rows (see `analysis::rows`): the columns the row type
    /// was generated from must be the ones the evaluated program declares.
    pub fn rows<'t, R: Row<'t>>(&'t self) -> Result<impl Iterator<Item = Result<R>> + 't> {
        let table = self.table(R::RELATION)?;
        let expected = R::COLUMNS.iter().map(|c| c.trim_start_matches("r#"));
        if !expected.eq(table.columns.iter().map(String::as_str)) {
            bail!(
                "{}: `{}` has columns ({}), not ({})",
                self.source,
                R::RELATION,
                table.columns.join(", "),
                R::COLUMNS.join(", ")
            );
        }
        Ok(row::parse(&table.text))
    }

    /// As [`Tables::rows`], for a relation whose columns a user's file declared: only their
    /// number and types must match.
    pub fn rows_by_position<'t, R: Row<'t>>(
        &'t self,
    ) -> Result<impl Iterator<Item = Result<R>> + 't> {
        let table = self.table(R::RELATION)?;
        if table.columns.len() != R::COLUMNS.len() {
            bail!(
                "{}: `{}` has {} columns, not {} ({})",
                self.source,
                R::RELATION,
                table.columns.len(),
                R::COLUMNS.len(),
                R::COLUMNS.join(", ")
            );
        }
        Ok(row::parse(&table.text))
    }

    /// The declared column names of an output relation.
    pub fn columns(&self, relation: &str) -> Result<&[String]> {
        Ok(&self.table(relation)?.columns)
    }

    /// The text of an output relation, one tuple per line.
    pub fn text(&self, relation: &str) -> Result<&str> {
        Ok(&self.table(relation)?.text)
    }

    /// Writes `relations` into `dir` (replaced whole), one `<relation>.csv` file each.
    pub fn write(&self, dir: &Path, relations: &[&str]) -> Result<()> {
        write_relations(dir, relations, |rel, w| {
            let text = self.text(rel).map_err(std::io::Error::other)?;
            w.write_all(text.as_bytes())
        })
    }

    fn table(&self, relation: &str) -> Result<&Table> {
        self.tables
            .get(relation)
            .ok_or_else(|| anyhow!("{}: `{relation}` was not evaluated", self.source))
    }
}
