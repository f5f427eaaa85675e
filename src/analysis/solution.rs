//! A points-to solution held as interned, sorted tuples: on real programs the output
//! relations have millions of rows, so they are spelled only when written. Both solvers
//! (the rule engine's rows, the native fixpoint's sets) fill a `Builder`.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use anyhow::{Result, anyhow, bail};

use super::backend::Outputs;
use crate::facts::writer::write_relations;

/// Interned symbols, in first-seen order until `Builder::finish` sorts them.
#[derive(Default)]
pub struct Builder {
    ids: HashMap<String, u32>,
    names: Vec<String>,
    pub var_field: Vec<(u32, u32, i32)>,
    pub field: Vec<(u32, i32, u32, i32)>,
    pub call_edges: Vec<(u32, u32)>,
    pub reachable: Vec<u32>,
    pub objects: Vec<(u32, u32)>,
}

impl Builder {
    pub fn sym(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(s.to_string());
        self.ids.insert(s.to_string(), i);
        i
    }

    /// The output relations `from_outputs` reads (`var_points_to` and `obj_points_to`
    /// follow from the per-field ones).
    pub const READS: &[&str] = &[
        "var_points_to_field",
        "field_points_to",
        "call_graph_edge",
        "reachable_function",
        "object",
    ];

    /// Reads the rows of `READS` from a rule engine's outputs.
    pub fn from_outputs(outputs: &Outputs, program: &str) -> Result<Builder> {
        let mut b = Builder::default();
        let rows = |rel: &str| outputs.get(rel).map_or(&[][..], Vec::as_slice);
        let num = |rel: &str, s: &str| -> Result<i32> {
            s.parse()
                .map_err(|_| anyhow!("{program}: {rel}: `{s}` is not a number"))
        };
        for r in rows("var_points_to_field") {
            let [v, o, f] = &r[..] else {
                bail!("{program}: var_points_to_field: {r:?}")
            };
            let t = (b.sym(v), b.sym(o), num("var_points_to_field", f)?);
            b.var_field.push(t);
        }
        for r in rows("field_points_to") {
            let [o, f, t, tf] = &r[..] else {
                bail!("{program}: field_points_to: {r:?}")
            };
            let (o, f) = (b.sym(o), num("field_points_to", f)?);
            let (t, tf) = (b.sym(t), num("field_points_to", tf)?);
            b.field.push((o, f, t, tf));
        }
        for r in rows("call_graph_edge") {
            let [c, f] = &r[..] else {
                bail!("{program}: call_graph_edge: {r:?}")
            };
            let e = (b.sym(c), b.sym(f));
            b.call_edges.push(e);
        }
        for r in rows("reachable_function") {
            let [f] = &r[..] else {
                bail!("{program}: reachable_function: {r:?}")
            };
            let f = b.sym(f);
            b.reachable.push(f);
        }
        for r in rows("object") {
            let [o, k] = &r[..] else {
                bail!("{program}: object: {r:?}")
            };
            let o = (b.sym(o), b.sym(k));
            b.objects.push(o);
        }
        Ok(b)
    }

    /// Renumbers the symbols in name order (ids are never numbers, so sorting ids then
    /// sorts rows as the engine writes them) and sorts and deduplicates every relation.
    pub fn finish(self) -> Solution {
        let mut order: Vec<u32> = (0..self.names.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| self.names[a as usize].cmp(&self.names[b as usize]));
        let mut rank = vec![0u32; order.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        let mut names = self.names;
        let mut sorted_names = Vec::with_capacity(names.len());
        for &i in &order {
            sorted_names.push(std::mem::take(&mut names[i as usize]));
        }
        let r = |i: u32| rank[i as usize];
        fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
            v.sort_unstable();
            v.dedup();
            v
        }
        let var_field = sorted(
            self.var_field
                .into_iter()
                .map(|(v, o, f)| (r(v), r(o), f))
                .collect(),
        );
        Solution {
            names: sorted_names,
            var_field,
            field: sorted(
                self.field
                    .into_iter()
                    .map(|(o, f, t, tf)| (r(o), f, r(t), tf))
                    .collect(),
            ),
            call_edges: sorted(
                self.call_edges
                    .into_iter()
                    .map(|(c, f)| (r(c), r(f)))
                    .collect(),
            ),
            reachable: sorted(self.reachable.into_iter().map(r).collect()),
            objects: sorted(
                self.objects
                    .into_iter()
                    .map(|(o, k)| (r(o), r(k)))
                    .collect(),
            ),
        }
    }
}

pub struct Solution {
    /// Sorted: a symbol's id is its index, found by binary search.
    names: Vec<String>,
    var_field: Vec<(u32, u32, i32)>,
    field: Vec<(u32, i32, u32, i32)>,
    call_edges: Vec<(u32, u32)>,
    reachable: Vec<u32>,
    objects: Vec<(u32, u32)>,
}

impl Solution {
    fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    /// The locations (object, offset) node `var` may point to.
    pub fn locations(&self, var: &str) -> impl Iterator<Item = (&str, i32)> {
        let rows = match self.names.binary_search_by(|n| n.as_str().cmp(var)) {
            // `var_field` is sorted by node: its rows are one run.
            Ok(v) => {
                let v = v as u32;
                let start = self.var_field.partition_point(|t| t.0 < v);
                &self.var_field[start..self.var_field.partition_point(|t| t.0 <= v)]
            }
            Err(_) => &[][..],
        };
        rows.iter().map(|&(_, o, f)| (self.name(o), f))
    }

    /// The size of every non-empty points-to set, in objects.
    pub fn set_sizes(&self) -> Vec<usize> {
        let mut sizes = Vec::new();
        let mut last = None;
        for &(v, o, _) in &self.var_field {
            match last {
                Some((lv, lo)) if lv == v => {
                    if lo != o {
                        *sizes.last_mut().expect("a set") += 1;
                    }
                }
                _ => sizes.push(1),
            }
            last = Some((v, o));
        }
        sizes
    }

    /// The objects some node points to.
    pub fn pointed_objects(&self) -> std::collections::BTreeSet<&str> {
        let mut ids: Vec<u32> = self.var_field.iter().map(|&(_, o, _)| o).collect();
        ids.sort_unstable();
        ids.dedup();
        ids.into_iter().map(|o| self.name(o)).collect()
    }

    pub fn call_edges(&self) -> impl Iterator<Item = (&str, &str)> {
        self.call_edges
            .iter()
            .map(|&(c, f)| (self.name(c), self.name(f)))
    }

    pub fn reachable_functions(&self) -> usize {
        self.reachable.len()
    }

    /// Writes the output relations into `dir`, one `<relation>.csv` file each, as the
    /// engine writes them.
    pub fn write(&self, dir: &Path, relations: &[&str]) -> Result<()> {
        write_relations(dir, relations, |rel, w| self.write_relation(rel, w))
    }

    fn write_relation(&self, rel: &str, w: &mut dyn Write) -> std::io::Result<()> {
        let n = |id: u32| self.name(id);
        match rel {
            "var_points_to_field" => {
                for &(v, o, f) in &self.var_field {
                    writeln!(w, "{}\t{}\t{f}", n(v), n(o))?;
                }
            }
            "var_points_to" => {
                let mut last = None;
                for &(v, o, _) in &self.var_field {
                    if last != Some((v, o)) {
                        writeln!(w, "{}\t{}", n(v), n(o))?;
                        last = Some((v, o));
                    }
                }
            }
            "field_points_to" => {
                for &(o, f, t, tf) in &self.field {
                    writeln!(w, "{}\t{f}\t{}\t{tf}", n(o), n(t))?;
                }
            }
            "obj_points_to" => {
                let mut pairs: Vec<(u32, u32)> =
                    self.field.iter().map(|&(o, _, t, _)| (o, t)).collect();
                pairs.sort_unstable();
                pairs.dedup();
                for (o, t) in pairs {
                    writeln!(w, "{}\t{}", n(o), n(t))?;
                }
            }
            "call_graph_edge" => {
                for (c, f) in self.call_edges() {
                    writeln!(w, "{c}\t{f}")?;
                }
            }
            "reachable_function" => {
                for &f in &self.reachable {
                    writeln!(w, "{}", n(f))?;
                }
            }
            "object" => {
                for &(o, k) in &self.objects {
                    writeln!(w, "{}\t{}", n(o), n(k))?;
                }
            }
            other => unreachable!("not a points-to output: {other}"),
        }
        Ok(())
    }
}
