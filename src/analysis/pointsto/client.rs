//! Rule analyses that read the points-to solution: the native solver runs first, and its
//! results are the rule program's input relations. Points-to sets come only for the nodes
//! the program asks about, and each distinct set once (on SQLite `var_points_to_field` has
//! over 100 million rows, and most nodes share a few sets). Each is one declaration, listed
//! in `analysis::ANALYSES`; `pointsto/mod.rs` runs them (`impl Analysis for OnPointsTo`).

use std::collections::{BTreeMap, HashSet};

use anyhow::Result;

use super::solution::Solution;
use crate::analysis::unit::{OutOfBounds, RuleAnalysis};
use crate::facts::FactSet;
use crate::facts::row::split_fields;

/// A rule analysis on top of the points-to solution.
pub struct OnPointsTo {
    pub rules: RuleAnalysis,
    /// The solution's relations the program reads whole, as inputs.
    pub reads: &'static [&'static str],
    /// Whether it reads `obj_points_to` only for which objects memory holds: one row per
    /// target then (SQLite's whole relation has 5 million rows).
    pub held_objects: bool,
    /// Where the nodes whose points-to sets it reads are named: (fact relation, column).
    /// Their sets come as `points_to_class` and `class_points_to` (each distinct set once),
    /// and `var_points_to_field` is empty.
    pub nodes: &'static [(&'static str, usize)],
    /// What offsets past an object's end give, unless `--out-of-bounds` says.
    pub out_of_bounds: OutOfBounds,
}

impl OnPointsTo {
    /// The program's inputs that are not facts, from `solution` (relation → its text).
    pub fn inputs(&self, facts: &FactSet, solution: &Solution) -> Result<BTreeMap<String, String>> {
        let mut nodes = HashSet::new();
        for &(rel, column) in self.nodes {
            for line in facts.text(rel)?.lines() {
                if let Some(node) = split_fields(line).nth(column) {
                    nodes.insert(node);
                }
            }
        }
        let mut inputs = BTreeMap::new();
        for &rel in self.reads {
            inputs.insert(rel.to_string(), solution.text(rel)?);
        }
        if self.held_objects {
            inputs.insert("obj_points_to".into(), solution.held_objects_text()?);
        }
        let (classes, sets) = solution.points_to_classes(|n| nodes.contains(n))?;
        inputs.insert("points_to_class".into(), classes);
        inputs.insert("class_points_to".into(), sets);
        inputs.insert("var_points_to_field".into(), String::new());
        Ok(inputs)
    }
}

/// Reaching definitions over memory and def-use edges (`rules/defuse.dl`).
pub static DEFUSE: OnPointsTo = OnPointsTo {
    rules: RuleAnalysis {
        name: "defuse",
        summary: "reaching definitions over memory (DefSites from the points-to solution) and def-use edges (rules/defuse.dl)",
        program: "rules/defuse.dl",
        outputs: crate::analysis::rows::defuse::OUTPUTS,
        findings: &[],
    },
    reads: &["object", "call_graph_edge"],
    held_objects: true,
    // The addresses of loads, stores, atomics and va_arg, call arguments, and pointers
    // turned into integers: every node whose set rules/defuse.dl reads.
    nodes: &[
        ("load_addr", 1),
        ("store_addr", 1),
        ("atomicrmw_addr", 1),
        ("cmpxchg_addr", 1),
        ("va_arg_list", 1),
        ("call_arg", 2),
        ("pt_call_arg", 2),
        ("pt_ptr_to_int", 1),
    ],
    // Seed 003: an offset beyond its object is UNKNOWN_OFFSET, so that wrong programs
    // stay sound.
    out_of_bounds: OutOfBounds::Unknown,
};
