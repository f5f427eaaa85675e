//! Source locations of entities (instructions, blocks, functions, constants at their use
//! site) through the debug-location facts, and the module an entity belongs to.

use std::collections::HashMap;

use anyhow::Result;

use crate::facts::{FactSet, unescape};

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Location {
    pub file: String,
    pub line: i64,
    pub column: i64,
}

/// Maps entity ids to source locations through the debug-location facts.
pub struct Locator {
    instr_loc: HashMap<String, Location>,
    /// Functions and blocks to the located instruction that comes first in them.
    first_loc: HashMap<String, Location>,
    result_of: HashMap<String, String>,
    modules: HashMap<String, String>,
}

impl Locator {
    pub fn new(facts: &FactSet) -> Result<Locator> {
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

    pub fn location(&self, entity: &str) -> Option<Location> {
        // Constants are named after the instruction operand they occupy: `instr#k.l`.
        let base = entity.split('#').next().unwrap_or(entity);
        let base = self.result_of.get(base).map(String::as_str).unwrap_or(base);
        self.instr_loc
            .get(base)
            .or_else(|| self.first_loc.get(base))
            .cloned()
    }

    /// The module id is the entity id up to its first `:` (module ids from file stems).
    pub fn module(&self, entity: &str) -> Option<String> {
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
