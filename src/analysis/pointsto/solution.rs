//! A points-to solution held as interned symbols and shared points-to sets: on real
//! programs most nodes point to one of a few large sets (SQLite: 73,000 nodes, 111 million
//! `var_points_to_field` rows), so each set is stored once, as a bitmap of location ids,
//! and rows are spelled only when written. Both solvers (the rule engine's rows, the native
//! fixpoint's sets) fill a `Builder`.

use std::collections::HashMap;
use std::hash::Hasher;
use std::io::Write;
use std::path::Path;

use anyhow::Result;
use roaring::RoaringBitmap;

use crate::analysis::unit::Context;
use crate::analysis::rows::andersen;
use crate::analysis::session::Tables;
use crate::engine::Symbols;
use crate::facts::row::write_tuple;
use crate::facts::writer::write_relations;

/// A location: object symbol and offset (-1: unknown).
type Loc = (u32, i32);

/// Interned symbols and locations, in first-seen order until `Builder::finish` sorts them.
#[derive(Default)]
pub struct Builder {
    /// The one symbol table of the run: the rule engine's, then the native solver's (see
    /// `Builder::with_symbols`), spelled only when a solution is written.
    syms: Symbols,
    loc_ids: HashMap<Loc, u32>,
    locs: Vec<Loc>,
    /// Points-to sets over location ids.
    sets: Vec<RoaringBitmap>,
    /// (node, set) and (object, offset, set): what each node and memory cell points to.
    var_sets: Vec<(u32, u32)>,
    cell_sets: Vec<(u32, i32, u32)>,
    pub call_edges: Vec<(u32, u32)>,
    pub reachable: Vec<u32>,
    pub objects: Vec<(u32, u32)>,
    /// Sets by a hash of their content, for `shared_set`.
    by_content: HashMap<u64, Vec<u32>>,
    /// The context sensitivity, and with contexts the contextual relations: locations
    /// (heap context, object, offset) and sets over them, by (context, node) and by cell
    /// (heap context, object, offset); call edges (context, call, callee context,
    /// function) and function instances (function, context). Contexts are symbols.
    pub context: Context,
    cs_loc_ids: HashMap<CsLoc, u32>,
    cs_locs: Vec<CsLoc>,
    cs_sets: Vec<RoaringBitmap>,
    cs_by_content: HashMap<u64, Vec<u32>>,
    cs_var_sets: Vec<(u32, u32, u32)>,
    cs_cell_sets: Vec<(u32, u32, i32, u32)>,
    pub cs_call_edges: Vec<(u32, u32, u32, u32)>,
    pub reachable_contexts: Vec<(u32, u32)>,
    /// `--explain`'s answer, one line each (empty when not asked).
    pub explanation: Vec<String>,
}

/// A location in a context: (heap context, object, offset).
type CsLoc = (u32, u32, i32);

/// The id of `locs` in `sets`, added unless an equal set is there (found by a hash of its
/// content in `by_content`).
fn shared(sets: &mut Vec<RoaringBitmap>, by_content: &mut HashMap<u64, Vec<u32>>, locs: RoaringBitmap) -> u32 {
    let mut h = crate::fasthash::FastHasher::default();
    locs.iter().for_each(|l| h.write_u32(l));
    let same = by_content.entry(h.finish()).or_default();
    if let Some(&id) = same.iter().find(|&&id| sets[id as usize] == locs) {
        return id;
    }
    sets.push(locs);
    let id = (sets.len() - 1) as u32;
    same.push(id);
    id
}

impl Builder {
    /// A builder whose symbols are ids of `syms` (a solver's table, moved in).
    pub fn with_symbols(syms: Symbols) -> Builder {
        Builder {
            syms,
            ..Builder::default()
        }
    }

    pub fn sym(&mut self, s: &str) -> u32 {
        self.syms.intern(s)
    }

    pub fn loc(&mut self, obj: u32, offset: i32) -> u32 {
        let next = self.locs.len() as u32;
        let id = *self.loc_ids.entry((obj, offset)).or_insert(next);
        if id == next {
            self.locs.push((obj, offset));
        }
        id
    }

    /// A points-to set of location ids (from `loc`), to be shared by nodes and cells.
    pub fn set(&mut self, locs: RoaringBitmap) -> u32 {
        self.sets.push(locs);
        (self.sets.len() - 1) as u32
    }

    /// A points-to set like `set`, but an equal set made before is shared.
    pub fn shared_set(&mut self, locs: RoaringBitmap) -> u32 {
        shared(&mut self.sets, &mut self.by_content, locs)
    }

    pub fn cs_loc(&mut self, hctx: u32, obj: u32, offset: i32) -> u32 {
        let next = self.cs_locs.len() as u32;
        let id = *self.cs_loc_ids.entry((hctx, obj, offset)).or_insert(next);
        if id == next {
            self.cs_locs.push((hctx, obj, offset));
        }
        id
    }

    /// A set of contextual locations (from `cs_loc`); an equal one made before is shared.
    pub fn cs_shared_set(&mut self, locs: RoaringBitmap) -> u32 {
        shared(&mut self.cs_sets, &mut self.cs_by_content, locs)
    }

    /// Node `var` in context `ctx` points to contextual set `set` (empty sets dropped).
    pub fn cs_points_to(&mut self, ctx: u32, var: u32, set: u32) {
        if !self.cs_sets[set as usize].is_empty() {
            self.cs_var_sets.push((ctx, var, set));
        }
    }

    /// The memory of `(hctx, obj, offset)` holds contextual set `set`.
    pub fn cs_holds(&mut self, hctx: u32, obj: u32, offset: i32, set: u32) {
        if !self.cs_sets[set as usize].is_empty() {
            self.cs_cell_sets.push((hctx, obj, offset, set));
        }
    }

    /// Node `var` points to set `set` (each node at most once; empty sets are dropped).
    pub fn points_to(&mut self, var: u32, set: u32) {
        if !self.sets[set as usize].is_empty() {
            self.var_sets.push((var, set));
        }
    }

    /// The memory of `(obj, offset)` holds set `set` (each cell at most once).
    pub fn holds(&mut self, obj: u32, offset: i32, set: u32) {
        if !self.sets[set as usize].is_empty() {
            self.cell_sets.push((obj, offset, set));
        }
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

    /// With contexts, the contextual relations too.
    const READS_CS: &[&str] = &[
        "var_points_to_field",
        "field_points_to",
        "call_graph_edge",
        "reachable_function",
        "object",
        "cs_var_points_to_field",
        "cs_field_points_to",
        "cs_call_graph_edge",
        "reachable_context",
    ];

    /// The output relations `from_outputs` reads in mode `context`.
    pub fn reads(context: Context) -> &'static [&'static str] {
        match context.depth {
            0 => Builder::READS,
            _ => Builder::READS_CS,
        }
    }

    /// Reads the rows of `reads(context)` from the outputs of `rules/andersen.dl`.
    pub fn from_outputs(mut outputs: Tables, context: Context) -> Result<Builder> {
        let mut b = Builder::with_symbols(outputs.take_symbols());
        b.context = context;
        let mut vars: HashMap<u32, RoaringBitmap> = HashMap::new();
        for r in outputs.rows::<andersen::var_points_to_field>()? {
            let r = r?;
            let (v, o) = (b.sym(r.var), b.sym(r.obj));
            let l = b.loc(o, r.offset);
            vars.entry(v).or_default().insert(l);
        }
        for (v, locs) in vars {
            let s = b.set(locs);
            b.points_to(v, s);
        }
        let mut cells: HashMap<(u32, i32), RoaringBitmap> = HashMap::new();
        for r in outputs.rows::<andersen::field_points_to>()? {
            let r = r?;
            let o = b.sym(r.obj);
            let t = b.sym(r.target);
            let l = b.loc(t, r.target_offset);
            cells.entry((o, r.offset)).or_default().insert(l);
        }
        for ((o, f), locs) in cells {
            let s = b.set(locs);
            b.holds(o, f, s);
        }
        for r in outputs.rows::<andersen::call_graph_edge>()? {
            let r = r?;
            let e = (b.sym(r.call), b.sym(r.func));
            b.call_edges.push(e);
        }
        for r in outputs.rows::<andersen::reachable_function>()? {
            let f = b.sym(r?.func);
            b.reachable.push(f);
        }
        for r in outputs.rows::<andersen::object>()? {
            let r = r?;
            let o = (b.sym(r.obj), b.sym(r.kind));
            b.objects.push(o);
        }
        if context.depth > 0 {
            b.contextual_outputs(&outputs)?;
        }
        Ok(b)
    }

    /// Reads the relations with contexts (the sets grouped by node and context, by cell).
    fn contextual_outputs(&mut self, outputs: &Tables) -> Result<()> {
        let b = self;
        let mut vars: HashMap<(u32, u32), RoaringBitmap> = HashMap::new();
        for r in outputs.rows::<andersen::cs_var_points_to_field>()? {
            let r = r?;
            let (c, v) = (b.sym(r.ctx), b.sym(r.var));
            let (h, o) = (b.sym(r.hctx), b.sym(r.obj));
            let l = b.cs_loc(h, o, r.offset);
            vars.entry((c, v)).or_default().insert(l);
        }
        for ((c, v), locs) in vars {
            let s = b.cs_shared_set(locs);
            b.cs_points_to(c, v, s);
        }
        let mut cells: HashMap<(u32, u32, i32), RoaringBitmap> = HashMap::new();
        for r in outputs.rows::<andersen::cs_field_points_to>()? {
            let r = r?;
            let (h, o) = (b.sym(r.hctx), b.sym(r.obj));
            let (th, t) = (b.sym(r.target_hctx), b.sym(r.target));
            let l = b.cs_loc(th, t, r.target_offset);
            cells.entry((h, o, r.offset)).or_default().insert(l);
        }
        for ((h, o, f), locs) in cells {
            let s = b.cs_shared_set(locs);
            b.cs_holds(h, o, f, s);
        }
        for r in outputs.rows::<andersen::cs_call_graph_edge>()? {
            let r = r?;
            let e = (b.sym(r.ctx), b.sym(r.call), b.sym(r.callee_ctx), b.sym(r.func));
            b.cs_call_edges.push(e);
        }
        for r in outputs.rows::<andersen::reachable_context>()? {
            let r = r?;
            let i = (b.sym(r.func), b.sym(r.ctx));
            b.reachable_contexts.push(i);
        }
        Ok(())
    }

    /// Renumbers the symbols the solution uses in name order and the locations in (object,
    /// offset) order (ids are never numbers, so sorting ids then sorts rows as the engine
    /// writes them), and sorts and deduplicates every relation.
    pub fn finish(self) -> Solution {
        let mut used = vec![false; self.syms.count()];
        let syms_of_locs = self.locs.iter().map(|&(o, _)| o);
        let syms_of_vars = self.var_sets.iter().map(|&(v, _)| v);
        let syms_of_cells = self.cell_sets.iter().map(|&(o, _, _)| o);
        let pairs = self.call_edges.iter().chain(&self.objects);
        for i in syms_of_locs
            .chain(syms_of_vars)
            .chain(syms_of_cells)
            .chain(pairs.flat_map(|&(a, b)| [a, b]))
            .chain(self.reachable.iter().copied())
        {
            used[i as usize] = true;
        }
        let cs_syms = (self.cs_locs.iter().flat_map(|&(h, o, _)| [h, o]))
            .chain(self.cs_var_sets.iter().flat_map(|&(c, v, _)| [c, v]))
            .chain(self.cs_cell_sets.iter().flat_map(|&(h, o, _, _)| [h, o]))
            .chain(self.cs_call_edges.iter().flat_map(|&(a, b, c, d)| [a, b, c, d]))
            .chain(self.reachable_contexts.iter().flat_map(|&(f, c)| [f, c]));
        for i in cs_syms {
            used[i as usize] = true;
        }
        let mut order: Vec<u32> = (0..used.len() as u32).filter(|&i| used[i as usize]).collect();
        order.sort_unstable_by(|&a, &b| self.syms.resolve(a).cmp(self.syms.resolve(b)));
        let mut rank = vec![0u32; used.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        let r = |i: u32| rank[i as usize];
        let mut loc_order: Vec<u32> = (0..self.locs.len() as u32).collect();
        let ranked = |i: u32| {
            let (o, f) = self.locs[i as usize];
            (r(o), f)
        };
        loc_order.sort_unstable_by_key(|&i| ranked(i));
        let mut new_id = vec![0u32; loc_order.len()];
        for (n, &i) in loc_order.iter().enumerate() {
            new_id[i as usize] = n as u32;
        }
        let locs = loc_order.iter().map(|&i| ranked(i)).collect();
        let sets = self
            .sets
            .into_iter()
            .map(|set| {
                let mut ids: Vec<u32> = set.iter().map(|i| new_id[i as usize]).collect();
                ids.sort_unstable();
                RoaringBitmap::from_sorted_iter(ids).expect("sorted")
            })
            .collect();
        fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
            v.sort_unstable();
            v.dedup();
            v
        }
        // The contextual locations and sets, renumbered the same way.
        let cs_ranked = |i: u32| {
            let (h, o, f) = self.cs_locs[i as usize];
            (r(h), r(o), f)
        };
        let mut cs_order: Vec<u32> = (0..self.cs_locs.len() as u32).collect();
        cs_order.sort_unstable_by_key(|&i| cs_ranked(i));
        let mut cs_new_id = vec![0u32; cs_order.len()];
        for (n, &i) in cs_order.iter().enumerate() {
            cs_new_id[i as usize] = n as u32;
        }
        let cs_locs = cs_order.iter().map(|&i| cs_ranked(i)).collect();
        let cs_sets = (self.cs_sets.into_iter())
            .map(|set| {
                let mut ids: Vec<u32> = set.iter().map(|i| cs_new_id[i as usize]).collect();
                ids.sort_unstable();
                RoaringBitmap::from_sorted_iter(ids).expect("sorted")
            })
            .collect();
        Solution {
            context: self.context,
            cs_locs,
            cs_sets,
            cs_var_sets: sorted(
                (self.cs_var_sets.into_iter())
                    .map(|(c, v, s)| (r(c), r(v), s))
                    .collect(),
            ),
            cs_cell_sets: sorted(
                (self.cs_cell_sets.into_iter())
                    .map(|(h, o, f, s)| (r(h), r(o), f, s))
                    .collect(),
            ),
            cs_call_edges: sorted(
                (self.cs_call_edges.into_iter())
                    .map(|(a, b, c, d)| (r(a), r(b), r(c), r(d)))
                    .collect(),
            ),
            reachable_contexts: sorted(
                (self.reachable_contexts.into_iter())
                    .map(|(f, c)| (r(f), r(c)))
                    .collect(),
            ),
            explanation: self.explanation,
            syms: self.syms,
            names: order,
            locs,
            sets,
            var_sets: sorted(self.var_sets.into_iter().map(|(v, s)| (r(v), s)).collect()),
            cell_sets: sorted(
                self.cell_sets
                    .into_iter()
                    .map(|(o, f, s)| (r(o), f, s))
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
    syms: Symbols,
    /// The table's ids of the symbols used, sorted by name: a symbol's id here is its index,
    /// found by binary search.
    names: Vec<u32>,
    /// Sorted: iterating a set yields its locations in row order.
    locs: Vec<Loc>,
    sets: Vec<RoaringBitmap>,
    /// Sorted by node, one set each; and by cell.
    var_sets: Vec<(u32, u32)>,
    cell_sets: Vec<(u32, i32, u32)>,
    call_edges: Vec<(u32, u32)>,
    reachable: Vec<u32>,
    objects: Vec<(u32, u32)>,
    context: Context,
    /// With contexts: locations (heap context, object, offset), sorted; sets over them;
    /// (context, node, set), (heap context, object, offset, set), call edges and function
    /// instances, sorted.
    cs_locs: Vec<(u32, u32, i32)>,
    cs_sets: Vec<RoaringBitmap>,
    cs_var_sets: Vec<(u32, u32, u32)>,
    cs_cell_sets: Vec<(u32, u32, i32, u32)>,
    cs_call_edges: Vec<(u32, u32, u32, u32)>,
    reachable_contexts: Vec<(u32, u32)>,
    explanation: Vec<String>,
}

impl Solution {
    /// The context sensitivity it was computed with.
    pub fn context(&self) -> Context {
        self.context
    }

    /// Why the pointer `--explain` names may point to its object, one line each.
    pub fn explanation(&self) -> &[String] {
        &self.explanation
    }

    /// The function instances (function, context) of a context-sensitive solution.
    pub fn function_instances(&self) -> usize {
        self.reachable_contexts.len()
    }

    fn name(&self, id: u32) -> &str {
        self.syms.resolve(self.names[id as usize])
    }

    fn set_locs(&self, set: u32) -> impl Iterator<Item = Loc> + '_ {
        self.sets[set as usize]
            .iter()
            .map(|i| self.locs[i as usize])
    }

    /// The locations (object, offset) node `var` may point to.
    pub fn locations(&self, var: &str) -> impl Iterator<Item = (&str, i32)> {
        let set = self
            .names
            .binary_search_by(|&n| self.syms.resolve(n).cmp(var))
            .ok()
            .and_then(|v| {
                let i = self
                    .var_sets
                    .binary_search_by_key(&(v as u32), |t| t.0)
                    .ok()?;
                Some(self.var_sets[i].1)
            });
        set.into_iter()
            .flat_map(|s| self.set_locs(s))
            .map(|(o, f)| (self.name(o), f))
    }

    /// The number of distinct objects in a set (locations are sorted by object), and the
    /// same with the objects `merged` names counting as one together.
    fn set_objects(&self, set: u32, merged: &dyn Fn(&str) -> bool) -> (usize, usize) {
        let mut last = None;
        let (mut all, mut kept, mut any_merged) = (0, 0, false);
        for (o, _) in self.set_locs(set) {
            if last.replace(o) == Some(o) {
                continue;
            }
            all += 1;
            match merged(self.name(o)) {
                true => any_merged = true,
                false => kept += 1,
            }
        }
        (all, kept + usize::from(any_merged))
    }

    /// The size of every non-empty points-to set of a node, in objects, and the same with
    /// the objects that `merged` names counting as one.
    pub fn set_sizes(&self, merged: &dyn Fn(&str) -> bool) -> Vec<(usize, usize)> {
        let mut per_set: HashMap<u32, (usize, usize)> = HashMap::new();
        self.var_sets
            .iter()
            .map(|&(_, s)| *per_set.entry(s).or_insert_with(|| self.set_objects(s, merged)))
            .collect()
    }

    /// The objects some node points to.
    pub fn pointed_objects(&self) -> std::collections::BTreeSet<&str> {
        let mut all = RoaringBitmap::new();
        let mut seen = vec![false; self.sets.len()];
        for &(_, s) in &self.var_sets {
            if !std::mem::replace(&mut seen[s as usize], true) {
                all |= &self.sets[s as usize];
            }
        }
        all.iter()
            .map(|i| self.name(self.locs[i as usize].0))
            .collect()
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

    /// An output relation as the text of its file, as `write` writes it.
    pub fn text(&self, rel: &str) -> Result<String> {
        let mut out = Vec::new();
        self.write_relation(rel, &mut out)?;
        Ok(String::from_utf8(out)?)
    }

    /// `obj_points_to` with one row per target (the first holder of each), as the text of
    /// its file: for programs that read which objects memory holds, not where.
    pub fn held_objects_text(&self) -> Result<String> {
        let mut holder: Vec<Option<u32>> = vec![None; self.names.len()];
        let mut seen = vec![false; self.sets.len()];
        for &(o, _, s) in &self.cell_sets {
            if !std::mem::replace(&mut seen[s as usize], true) {
                for (t, _) in self.set_locs(s) {
                    holder[t as usize].get_or_insert(o);
                }
            }
        }
        let mut out = Vec::new();
        for (t, h) in holder.iter().enumerate() {
            if let Some(h) = h {
                write_tuple(&mut out, &[&self.name(*h), &self.name(t as u32)])?;
            }
        }
        Ok(String::from_utf8(out)?)
    }

    /// The points-to sets of the nodes `keep` chooses, each distinct set once: the texts of
    /// `points_to_class(var, class)` and `class_points_to(class, obj, offset)`, a class
    /// being `#set:N` (what `var_points_to_field` holds, shared).
    pub fn points_to_classes(&self, keep: impl Fn(&str) -> bool) -> Result<(String, String)> {
        let (mut nodes, mut sets) = (Vec::new(), Vec::new());
        let mut used = vec![false; self.sets.len()];
        for &(v, s) in &self.var_sets {
            if keep(self.name(v)) {
                write_tuple(&mut nodes, &[&self.name(v), &format_args!("#set:{s}")])?;
                used[s as usize] = true;
            }
        }
        for (s, _) in used.iter().enumerate().filter(|(_, u)| **u) {
            for (o, f) in self.set_locs(s as u32) {
                write_tuple(&mut sets, &[&format_args!("#set:{s}"), &self.name(o), &f])?;
            }
        }
        Ok((String::from_utf8(nodes)?, String::from_utf8(sets)?))
    }

    fn write_relation(&self, rel: &str, w: &mut dyn Write) -> std::io::Result<()> {
        let n = |id: u32| self.name(id);
        match rel {
            "var_points_to_field" => {
                for &(v, s) in &self.var_sets {
                    for (o, f) in self.set_locs(s) {
                        write_tuple(w, &[&n(v), &n(o), &f])?;
                    }
                }
            }
            "var_points_to" => {
                for &(v, s) in &self.var_sets {
                    let mut last = None;
                    for (o, _) in self.set_locs(s) {
                        if last.replace(o) != Some(o) {
                            write_tuple(w, &[&n(v), &n(o)])?;
                        }
                    }
                }
            }
            "field_points_to" => {
                for &(o, f, s) in &self.cell_sets {
                    for (t, tf) in self.set_locs(s) {
                        write_tuple(w, &[&n(o), &f, &n(t), &tf])?;
                    }
                }
            }
            "obj_points_to" => {
                // The cells of an object are one run; their sets' union, by object.
                for run in self.cell_sets.chunk_by(|a, b| a.0 == b.0) {
                    let mut all = RoaringBitmap::new();
                    for &(_, _, s) in run {
                        all |= &self.sets[s as usize];
                    }
                    let mut last = None;
                    for i in &all {
                        let t = self.locs[i as usize].0;
                        if last.replace(t) != Some(t) {
                            write_tuple(w, &[&n(run[0].0), &n(t)])?;
                        }
                    }
                }
            }
            "call_graph_edge" => {
                for (c, f) in self.call_edges() {
                    write_tuple(w, &[&c, &f])?;
                }
            }
            "reachable_function" => {
                for &f in &self.reachable {
                    write_tuple(w, &[&n(f)])?;
                }
            }
            "object" => {
                for &(o, k) in &self.objects {
                    write_tuple(w, &[&n(o), &n(k)])?;
                }
            }
            "cs_var_points_to_field" => {
                for &(c, v, s) in &self.cs_var_sets {
                    for i in &self.cs_sets[s as usize] {
                        let (h, o, f) = self.cs_locs[i as usize];
                        write_tuple(w, &[&n(c), &n(v), &n(h), &n(o), &f])?;
                    }
                }
            }
            "cs_field_points_to" => {
                for &(h, o, f, s) in &self.cs_cell_sets {
                    for i in &self.cs_sets[s as usize] {
                        let (th, t, tf) = self.cs_locs[i as usize];
                        write_tuple(w, &[&n(h), &n(o), &f, &n(th), &n(t), &tf])?;
                    }
                }
            }
            "cs_call_graph_edge" => {
                for &(c, i, y, f) in &self.cs_call_edges {
                    write_tuple(w, &[&n(c), &n(i), &n(y), &n(f)])?;
                }
            }
            "reachable_context" => {
                for &(f, c) in &self.reachable_contexts {
                    write_tuple(w, &[&n(f), &n(c)])?;
                }
            }
            other => unreachable!("not a points-to output: {other}"),
        }
        Ok(())
    }
}
