//! `llfacts check`: extract in memory, run the constraint rules (`rules/checks.dl`,
//! `rules/wellformed.dl`, plus any `--rules`), and report each `violation` row with the
//! source location of the entity it names.
//!
//! Every rule file is a standalone Soufflé program that includes `../schema/llfacts.dl` and
//! outputs `violation(check: symbol, entity: symbol, message: symbol)`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::json;

use crate::engine::{self, Backend, Database, OutTarget, Program};
use crate::relations;
use crate::sink::{FactBuf, unescape};
use crate::{pipeline, schema, writer};

/// The rule files built into the binary, as (file name, text).
pub const BUILTIN_RULES: &[(&str, &str)] = &[
    ("checks.dl", include_str!("../rules/checks.dl")),
    ("wellformed.dl", include_str!("../rules/wellformed.dl")),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Sarif,
}

/// Where the facts come from.
pub enum Source<'a> {
    /// LLVM modules, extracted in memory.
    Modules(&'a [PathBuf]),
    /// An existing fact directory (from `llfacts extract`, or another producer).
    FactDir(&'a Path),
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Violation {
    pub check: String,
    pub entity: String,
    pub message: String,
    pub location: Option<Location>,
    /// The input the entity belongs to (the module's path), when known.
    pub module: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Location {
    pub file: String,
    pub line: i64,
    pub column: i64,
}

/// The fact set, in memory or on disk.
enum Facts {
    Memory(FactBuf),
    Dir(PathBuf),
}

impl Facts {
    /// A relation's tuples as written (escaped fields).
    fn rows(&self, name: &str) -> Result<Vec<Vec<String>>> {
        match self {
            Facts::Memory(buf) => {
                let i = relations::index_of(name).expect("registered relation");
                Ok(split_rows(
                    std::str::from_utf8(buf.buffer(i)).expect("escaped facts are UTF-8"),
                ))
            }
            Facts::Dir(dir) => {
                let path = dir.join(format!("{name}.facts"));
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| anyhow!("{}: {}", path.display(), writer::cause(&e)))?;
                Ok(split_rows(&text))
            }
        }
    }

    fn load(&self, db: &mut Database, program: &Program) -> Result<()> {
        match self {
            Facts::Dir(dir) => db.load_inputs(dir),
            Facts::Memory(buf) => {
                for name in program.inputs() {
                    let i = relations::index_of(name).ok_or_else(|| {
                        anyhow!("rules read relation `{name}`, which llfacts does not produce")
                    })?;
                    let text = std::str::from_utf8(buf.buffer(i)).expect("escaped facts are UTF-8");
                    for line in text.lines() {
                        let fields: Vec<&str> = line.split('\t').collect();
                        db.insert(name, &fields)?;
                    }
                }
                Ok(())
            }
        }
    }
}

/// Tab-separated lines as rows of fields.
fn split_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// Runs every rule file over the facts and returns the violations, sorted.
pub fn run(
    source: Source,
    extra_rules: &[PathBuf],
    backend: &Backend,
    jobs: usize,
) -> Result<Vec<Violation>> {
    let facts = match source {
        Source::Modules(inputs) => Facts::Memory(pipeline::extract_to_memory(inputs)?),
        Source::FactDir(dir) => {
            if !dir.is_dir() {
                bail!("{}: not a fact directory", dir.display());
            }
            Facts::Dir(dir.to_path_buf())
        }
    };
    // The built-in rules include `../schema/llfacts.dl`: lay both out in a scratch directory.
    let scratch = tempfile::Builder::new()
        .prefix("llfacts-check-")
        .tempdir()
        .context("creating a scratch directory")?;
    std::fs::create_dir_all(scratch.path().join("schema"))?;
    std::fs::create_dir_all(scratch.path().join("rules"))?;
    for (name, text) in schema::files() {
        std::fs::write(scratch.path().join("schema").join(name), text)?;
    }
    let mut programs = Vec::new();
    for (name, text) in BUILTIN_RULES {
        let path = scratch.path().join("rules").join(name);
        std::fs::write(&path, text)?;
        programs.push(path);
    }
    programs.extend(extra_rules.iter().cloned());

    let mut rows: BTreeSet<(String, String, String)> = BTreeSet::new();
    for program in &programs {
        rows.extend(violations_of(
            program,
            &facts,
            backend,
            jobs,
            scratch.path(),
        )?);
    }
    let locate = Locator::new(&facts)?;
    Ok(rows
        .into_iter()
        .map(|(check, entity, message)| {
            let location = locate.location(&entity);
            let module = locate.module(&entity);
            Violation {
                check,
                entity,
                message,
                location,
                module,
            }
        })
        .collect())
}

fn violations_of(
    program_path: &Path,
    facts: &Facts,
    backend: &Backend,
    jobs: usize,
    scratch: &Path,
) -> Result<Vec<(String, String, String)>> {
    let program = Program::from_file(program_path)?;
    if !program.outputs().contains(&"violation") {
        bail!(
            "{}: rules for `llfacts check` must output `violation(check, entity, message)`",
            program_path.display()
        );
    }
    let rows: Vec<Vec<String>> = match backend {
        Backend::Builtin => {
            let mut db = Database::new(&program);
            facts.load(&mut db, &program)?;
            db.run(jobs)?;
            db.rows_as_strings("violation")?
        }
        Backend::Souffle(_) => {
            let fact_dir = match facts {
                Facts::Dir(dir) => dir.clone(),
                Facts::Memory(buf) => {
                    let dir = scratch.join("facts");
                    if !dir.exists() {
                        let mut out = writer::FactDir::create(&dir)?;
                        out.append(buf)?;
                        out.commit()?;
                    }
                    dir
                }
            };
            let out = scratch.join("out");
            let _ = std::fs::remove_dir_all(&out);
            engine::run_program(
                backend,
                program_path,
                &fact_dir,
                &OutTarget::Dir(out.clone()),
                jobs,
            )?;
            let csv = out.join("violation.csv");
            let text = std::fs::read_to_string(&csv)
                .map_err(|e| anyhow!("{}: {}", csv.display(), writer::cause(&e)))?;
            split_rows(&text)
        }
    };
    rows.into_iter()
        .map(|r| match <[String; 3]>::try_from(r) {
            Ok([c, e, m]) => Ok((c, e, m)),
            Err(r) => Err(anyhow!(
                "{}: violation rows have 3 columns, got {r:?}",
                program_path.display()
            )),
        })
        .collect()
}

/// Maps entity ids to source locations through the debug-location facts.
struct Locator {
    instr_loc: HashMap<String, Location>,
    /// Functions and blocks to the located instruction that comes first in them.
    first_loc: HashMap<String, Location>,
    result_of: HashMap<String, String>,
    modules: HashMap<String, String>,
}

impl Locator {
    fn new(facts: &Facts) -> Result<Locator> {
        let mut instr_loc = HashMap::new();
        for r in facts.rows("instr_debug_loc")? {
            if let [id, file, line, col] = &r[..] {
                let file = display(file);
                let loc = Location {
                    file,
                    line: line.parse().unwrap_or(0),
                    column: col.parse().unwrap_or(0),
                };
                instr_loc.insert(id.clone(), loc);
            }
        }
        let index: HashMap<String, i64> = facts
            .rows("instr_index")?
            .into_iter()
            .filter_map(|r| Some((r.first()?.clone(), r.get(1)?.parse().ok()?)))
            .collect();
        let mut best: HashMap<String, (i64, Location)> = HashMap::new();
        for rel in ["instr_function", "instr_block"] {
            for r in facts.rows(rel)? {
                let (Some(instr), Some(owner)) = (r.first(), r.get(1)) else {
                    continue;
                };
                let (Some(loc), Some(&ix)) = (instr_loc.get(instr), index.get(instr)) else {
                    continue;
                };
                let entry = best.entry(owner.clone()).or_insert((i64::MAX, loc.clone()));
                if ix < entry.0 {
                    *entry = (ix, loc.clone());
                }
            }
        }
        let mut first_loc: HashMap<String, Location> =
            best.into_iter().map(|(k, (_, loc))| (k, loc)).collect();
        // A function's own line (its DISubprogram) beats its first instruction's.
        for r in facts.rows("function_debug_loc")? {
            if let [func, file, line] = &r[..] {
                let file = display(file);
                first_loc.insert(
                    func.clone(),
                    Location {
                        file,
                        line: line.parse().unwrap_or(0),
                        column: 0,
                    },
                );
            }
        }
        let result_of = facts
            .rows("instr_result")?
            .into_iter()
            .filter_map(|r| Some((r.get(1)?.clone(), r.first()?.clone())))
            .collect();
        let modules = facts
            .rows("module")?
            .into_iter()
            .filter_map(|r| Some((r.first()?.clone(), r.get(1)?.clone())))
            .collect();
        Ok(Locator {
            instr_loc,
            first_loc,
            result_of,
            modules,
        })
    }

    fn location(&self, entity: &str) -> Option<Location> {
        // Constants are named after the instruction operand they occupy: `instr#k.l`.
        let base = entity.split('#').next().unwrap_or(entity);
        let base = self.result_of.get(base).map(String::as_str).unwrap_or(base);
        self.instr_loc
            .get(base)
            .or_else(|| self.first_loc.get(base))
            .cloned()
    }

    /// The module id is the entity id up to its first `:` (module ids from file stems).
    fn module(&self, entity: &str) -> Option<String> {
        let mut candidates: Vec<&String> = self
            .modules
            .keys()
            .filter(|m| entity.starts_with(&format!("{m}:")) || entity == *m)
            .collect();
        candidates.sort_by_key(|m| std::cmp::Reverse(m.len()));
        candidates.first().map(|m| display(&self.modules[*m]))
    }
}

/// A fact field as text for people: unescaped, invalid UTF-8 replaced.
fn display(field: &str) -> String {
    match unescape(field) {
        Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        None => field.to_string(),
    }
}

/// Renders the report.
pub fn render(violations: &[Violation], format: Format) -> String {
    match format {
        Format::Text => violations
            .iter()
            .map(|v| {
                let at = match (&v.location, &v.module) {
                    (Some(l), _) if l.column > 0 => format!("{}:{}:{}", l.file, l.line, l.column),
                    (Some(l), _) => format!("{}:{}", l.file, l.line),
                    (None, Some(m)) => m.clone(),
                    (None, None) => "<facts>".to_string(),
                };
                format!("{at}: {}: {} [{}]\n", v.check, v.message, v.entity)
            })
            .collect(),
        Format::Json => {
            let items: Vec<serde_json::Value> = violations
                .iter()
                .map(|v| {
                    json!({
                        "check": v.check,
                        "entity": v.entity,
                        "message": v.message,
                        "module": v.module,
                        "location": v.location.as_ref().map(|l| json!({"file": l.file, "line": l.line, "column": l.column})),
                    })
                })
                .collect();
            let doc = json!({ "count": violations.len(), "violations": items });
            serde_json::to_string_pretty(&doc).expect("JSON") + "\n"
        }
        Format::Sarif => sarif(violations),
    }
}

/// A SARIF 2.1.0 log with one run: a rule per check id, a result per violation.
fn sarif(violations: &[Violation]) -> String {
    let checks: BTreeMap<&str, usize> = {
        let ids: BTreeSet<&str> = violations.iter().map(|v| v.check.as_str()).collect();
        ids.into_iter().enumerate().map(|(i, c)| (c, i)).collect()
    };
    let rules: Vec<serde_json::Value> = checks
        .keys()
        .map(|id| json!({ "id": id, "name": id, "shortDescription": { "text": format!("llfacts check {id}") } }))
        .collect();
    let results: Vec<serde_json::Value> = violations
        .iter()
        .map(|v| {
            let mut location = json!({ "logicalLocations": [{ "fullyQualifiedName": v.entity }] });
            let physical = match (&v.location, &v.module) {
                (Some(l), _) => {
                    let mut region = json!({ "startLine": l.line.max(1) });
                    if l.column > 0 {
                        region["startColumn"] = json!(l.column);
                    }
                    Some(json!({ "artifactLocation": { "uri": file_uri(&l.file) }, "region": region }))
                }
                (None, Some(m)) => Some(json!({ "artifactLocation": { "uri": file_uri(m) } })),
                (None, None) => None,
            };
            if let Some(p) = physical {
                location["physicalLocation"] = p;
            }
            json!({
                "ruleId": v.check,
                "ruleIndex": checks[v.check.as_str()],
                "level": "error",
                "message": { "text": v.message },
                "locations": [location],
            })
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "llfacts",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&log).expect("JSON") + "\n"
}

/// A URI reference for a path: `file://` for absolute paths, a relative reference otherwise,
/// percent-encoding what a URI cannot hold.
fn file_uri(path: &str) -> String {
    let mut out = String::new();
    if path.starts_with('/') {
        out.push_str("file://");
    }
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::file_uri;

    #[test]
    fn uris_are_escaped() {
        assert_eq!(file_uri("/tmp/a b.c"), "file:///tmp/a%20b.c");
        assert_eq!(file_uri("src/x#1.c"), "src/x%231.c");
    }
}
