//! Source locations of entities (instructions, blocks, functions, constants at their use
//! site) through the debug-location facts, and the module an entity belongs to.

use std::collections::HashMap;

use anyhow::Result;

use crate::facts::{FactSet, rows, unescape};

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
        for r in facts.rows::<rows::instr_debug_loc>()? {
            let r = r?;
            let loc = Location {
                file: display(r.file),
                line: r.line.into(),
                column: r.column.into(),
            };
            instr_loc.insert(r.instr.to_string(), loc);
        }
        let mut index: HashMap<&str, i32> = HashMap::new();
        for r in facts.rows::<rows::instr_index>()? {
            let r = r?;
            index.insert(r.instr, r.index);
        }
        // Functions and blocks to their first located instruction.
        let mut best: HashMap<String, (i32, Location)> = HashMap::new();
        let mut owners = Vec::new();
        for r in facts.rows::<rows::instr_function>()? {
            let r = r?;
            owners.push((r.instr, r.func));
        }
        for r in facts.rows::<rows::instr_block>()? {
            let r = r?;
            owners.push((r.instr, r.block));
        }
        for (instr, owner) in owners {
            let (Some(loc), Some(&ix)) = (instr_loc.get(instr), index.get(instr)) else {
                continue;
            };
            let entry = best
                .entry(owner.to_string())
                .or_insert((i32::MAX, loc.clone()));
            if ix < entry.0 {
                *entry = (ix, loc.clone());
            }
        }
        let mut first_loc: HashMap<String, Location> =
            best.into_iter().map(|(k, (_, loc))| (k, loc)).collect();
        // A function's own line (its DISubprogram) beats its first instruction's.
        for r in facts.rows::<rows::function_debug_loc>()? {
            let r = r?;
            first_loc.insert(
                r.func.to_string(),
                Location {
                    file: display(r.file),
                    line: r.line.into(),
                    column: 0,
                },
            );
        }
        let mut result_of = HashMap::new();
        for r in facts.rows::<rows::instr_result>()? {
            let r = r?;
            result_of.insert(r.var.to_string(), r.instr.to_string());
        }
        let mut modules = HashMap::new();
        for r in facts.rows::<rows::module>()? {
            let r = r?;
            modules.insert(r.module.to_string(), r.path.to_string());
        }
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
pub fn display(field: &str) -> String {
    match unescape(field) {
        Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        None => field.to_string(),
    }
}
