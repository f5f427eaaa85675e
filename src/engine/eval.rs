//! Semi-naive, stratified evaluation of planned rules.
//!
//! Strata (SCCs of the precedence graph) run in topological order. A
//! non-recursive stratum evaluates each rule once. A recursive one evaluates
//! its base rules once, then iterates the delta versions of its recursive
//! rules until no new tuple appears. Within a round, rule versions (and chunks
//! of a large first scan) run as parallel tasks; their outputs are merged in
//! task order, so the result never depends on the number of threads.
//!
//! A stratum with subsumptive rules deletes the tuples they dominate after
//! its base rules and after each iteration (`subsume`), so that the next
//! delta holds only tuples that survived.
//!
//! Each stratum is planned once, when evaluation reaches it (the planner sees
//! the sizes of the relations below); evaluation then creates the indexes the
//! plan lists, in storage, and runs it.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{RwLock, RwLockReadGuard};
use std::time::Instant;

use anyhow::{Result, anyhow};
use rayon::prelude::*;
use regex::bytes::{Regex, RegexBuilder};

use super::ast::{AggOp, BinOp, CmpOp, Loc};
use super::eqrel::Part;
use super::functors;
use super::ir::{Base, Checked};
use super::planner::{
    AggPlan, Plan, PlanExpr as Expr, Sizes, Step, StratumPlan, Version, plan_stratum,
};
use super::storage::{Relation, Symbols, hash_vals, rows_eq};
use super::subsume;

/// Rows of a first scan are split into tasks of at most this many rows, and
/// into at least `TASKS_PER_THREAD` tasks per thread when there are enough
/// rows: a delta of a few hundred rows can fan out into millions of
/// derivations, and one task would leave the other threads idle.
const CHUNK: u32 = 4096;
const TASKS_PER_THREAD: u32 = 16;
/// An index of a recursive relation goes after this many iterations whose
/// plans do not read it (and comes back, rebuilt, if a later plan does).
const INDEX_PATIENCE: u32 = 4;

struct Runtime<'a> {
    rels: &'a [Relation],
    /// Per relation: first row of the current delta.
    delta_start: &'a [u32],
    /// The storage number of each index of the stratum's plan (`StratumPlan::indexes`).
    indexes: &'a [usize],
    syms: &'a RwLock<Symbols>,
    regexes: &'a RwLock<HashMap<String, Option<Regex>>>,
    /// `autoinc()`'s counter, shared by the whole run.
    counter: &'a AtomicU32,
}

/// A key buffer on the stack for the usual short keys.
fn key_buf<'b>(stack: &'b mut [u32; 8], heap: &'b mut Vec<u32>, n: usize) -> &'b mut [u32] {
    if n <= 8 {
        &mut stack[..n]
    } else {
        heap.resize(n, 0);
        heap
    }
}

/// What an atom step does with each row (see `Step::Atom`).
struct RowStep<'p> {
    binds: &'p [(usize, usize)],
    same: &'p [(usize, usize)],
    checks: &'p [(usize, Expr)],
}

/// The pairs of an `eqrel` relation a version reads.
fn part(v: Version) -> Part {
    match v {
        Version::Full => Part::All,
        Version::Delta => Part::New,
        Version::Old => Part::Old,
    }
}

/// Evaluate the key expressions `$key` into `$kv` (on the stack when short);
/// a key with no value (an empty aggregate) means no match: return.
macro_rules! key_values {
    ($self:ident, $key:expr, $env:expr, $kv:ident) => {
        let mut stack = [0u32; 8];
        let mut heap = Vec::new();
        let buf = key_buf(&mut stack, &mut heap, $key.len());
        if !$self.eval_key($key, $env, buf)? {
            return Ok(());
        }
        let $kv: &[u32] = buf;
    };
}

type Sink<'s> = dyn FnMut(&mut [u32]) -> Result<()> + 's;

impl Runtime<'_> {
    fn view(&self, rel: usize, version: Version) -> (u32, u32) {
        let len = self.rels[rel].row_count() as u32;
        match version {
            Version::Full => (0, len),
            Version::Delta => (self.delta_start[rel], len),
            Version::Old => (0, self.delta_start[rel]),
        }
    }

    /// The symbol table, read-locked: whoever holds it must not intern.
    fn table(&self) -> RwLockReadGuard<'_, Symbols> {
        self.syms.read().unwrap()
    }

    fn intern(&self, s: &str) -> u32 {
        if let Some(id) = self.syms.read().unwrap().get(s) {
            return id;
        }
        self.syms.write().unwrap().intern(s)
    }

    #[inline(always)]
    fn eval_key(&self, key: &[Expr], env: &mut [u32], buf: &mut [u32]) -> Result<bool> {
        for (j, k) in key.iter().enumerate() {
            match self.value(k, env)? {
                Some(v) => buf[j] = v,
                None => return Ok(false),
            }
        }
        Ok(true)
    }

    fn exec(
        &self,
        steps: &[Step],
        i: usize,
        env: &mut [u32],
        range: Option<(u32, u32)>,
        sink: &mut Sink,
    ) -> Result<()> {
        let Some(step) = steps.get(i) else {
            return sink(env);
        };
        match step {
            Step::Atom {
                rel,
                version,
                index,
                key,
                binds,
                same,
                checks,
            } => {
                let r = &self.rels[*rel];
                let row_step = RowStep {
                    binds,
                    same,
                    checks,
                };
                if let Some(eq) = r.eqrel() {
                    key_values!(self, key, env, kv);
                    let key = index.map(|ix| (r.indexes[self.indexes[ix]].cols[0], kv[0]));
                    // `e(x, x)` with `x` free: its two columns are the same variable.
                    if key.is_none() && !same.is_empty() {
                        return eq.scan_diagonal(part(*version), |row| {
                            self.row_step(&row_step, &row, steps, i, env, sink)
                        });
                    }
                    return eq.scan(part(*version), key, |row| {
                        self.row_step(&row_step, &row, steps, i, env, sink)
                    });
                }
                let (mut lo, mut hi) = self.view(*rel, *version);
                if let Some((a, b)) = range {
                    lo = a;
                    hi = b;
                }
                match index {
                    None => {
                        for id in lo..hi {
                            self.row_step(&row_step, r.row(id), steps, i, env, sink)?;
                        }
                        Ok(())
                    }
                    Some(ix) => {
                        key_values!(self, key, env, kv);
                        r.lookup(self.indexes[*ix], kv, lo, hi, |id| {
                            self.row_step(&row_step, r.row(id), steps, i, env, sink)
                        })
                    }
                }
            }
            Step::Member { rel, version, row } => {
                key_values!(self, row, env, kv);
                let r = &self.rels[*rel];
                let (lo, hi) = self.view(*rel, *version);
                let found = match r.eqrel() {
                    Some(eq) => eq.contains(kv[0], kv[1], part(*version)),
                    None => r.find(kv).is_some_and(|id| id >= lo && id < hi),
                };
                if found {
                    self.exec(steps, i + 1, env, None, sink)?;
                }
                Ok(())
            }
            Step::Exists {
                rel,
                version,
                index,
                key,
            } => {
                key_values!(self, key, env, kv);
                let r = &self.rels[*rel];
                let (lo, hi) = self.view(*rel, *version);
                let found = match (index, r.eqrel()) {
                    (None, None) => lo < hi,
                    (Some(ix), None) => r.any_in(self.indexes[*ix], kv, lo, hi),
                    (ix, Some(eq)) => {
                        let key = ix.map(|ix| (r.indexes[self.indexes[ix]].cols[0], kv[0]));
                        eq.any(part(*version), key)
                    }
                };
                if found {
                    self.exec(steps, i + 1, env, None, sink)?;
                }
                Ok(())
            }
            Step::Neg { rel, index, key } => {
                key_values!(self, key, env, kv);
                let r = &self.rels[*rel];
                let present = match (index, r.eqrel()) {
                    // `!r(_, _)`: no column to look up, the relation must be empty
                    (None, None) if kv.is_empty() => r.row_count() > 0,
                    (None, Some(eq)) if kv.is_empty() => eq.any(Part::All, None),
                    (None, _) => r.contains(kv),
                    (Some(ix), None) => r.has_key(self.indexes[*ix], kv),
                    (Some(_), Some(eq)) => eq.any(Part::All, Some((0, kv[0]))),
                };
                if !present {
                    self.exec(steps, i + 1, env, None, sink)?;
                }
                Ok(())
            }
            Step::Cmp { op, base, lhs, rhs } => {
                let (Some(a), Some(b)) = (self.value(lhs, env)?, self.value(rhs, env)?) else {
                    return Ok(());
                };
                let ord = if *base == Base::Sym {
                    // interning is canonical: equal ids iff equal strings
                    if a == b {
                        std::cmp::Ordering::Equal
                    } else if matches!(op, CmpOp::Eq | CmpOp::Ne) {
                        std::cmp::Ordering::Less
                    } else {
                        let t = self.table();
                        t.resolve(a).cmp(t.resolve(b))
                    }
                } else {
                    functors::cmp_num(*base, a, b)
                };
                if functors::cmp_holds(*op, ord) {
                    self.exec(steps, i + 1, env, None, sink)?;
                }
                Ok(())
            }
            Step::Contains { neg, sub, s } => {
                let (Some(a), Some(b)) = (self.eval(sub, env)?, self.eval(s, env)?) else {
                    return Ok(());
                };
                let found = {
                    let t = self.table();
                    t.resolve(b).contains(t.resolve(a))
                };
                if found != *neg {
                    self.exec(steps, i + 1, env, None, sink)?;
                }
                Ok(())
            }
            Step::Match { neg, re, s } => {
                let (Some(a), Some(b)) = (self.eval(re, env)?, self.eval(s, env)?) else {
                    return Ok(());
                };
                let hit = {
                    let t = self.table();
                    self.regex_match(t.resolve(a), t.resolve(b), *neg)
                };
                if hit != *neg {
                    self.exec(steps, i + 1, env, None, sink)?;
                }
                Ok(())
            }
            Step::Range {
                slot,
                base,
                args,
                test,
            } => {
                key_values!(self, args, env, kv);
                let (from, to, step) = (kv[0], kv[1], kv.get(2).copied());
                if *test {
                    let want = env[*slot];
                    let mut hit = false;
                    functors::range(*base, from, to, step, &mut |v| {
                        hit |= functors::cmp_num(*base, v, want).is_eq();
                        Ok(())
                    })?;
                    return if hit {
                        self.exec(steps, i + 1, env, None, sink)
                    } else {
                        Ok(())
                    };
                }
                functors::range(*base, from, to, step, &mut |v| {
                    env[*slot] = v;
                    self.exec(steps, i + 1, env, None, sink)
                })
            }
            Step::Unpack {
                slot,
                arity,
                binds,
                same,
                checks,
            } => {
                // copied out: the steps after may intern, under the write lock
                let mut stack = [0u32; 8];
                let mut heap = Vec::new();
                let fields = key_buf(&mut stack, &mut heap, *arity);
                match self.syms.read().unwrap().record(env[*slot]) {
                    Some(f) if f.len() == *arity => fields.copy_from_slice(f),
                    _ => return Ok(()),
                }
                let rs = RowStep {
                    binds,
                    same,
                    checks,
                };
                self.row_step(&rs, fields, steps, i, env, sink)
            }
            Step::Bind { slot, expr } => {
                if let Some(v) = self.eval(expr, env)? {
                    env[*slot] = v;
                    self.exec(steps, i + 1, env, None, sink)?;
                }
                Ok(())
            }
        }
    }

    /// One row of an atom: the checks within the row, then its bindings, then the next step.
    #[inline(always)]
    fn row_step(
        &self,
        rs: &RowStep,
        row: &[u32],
        steps: &[Step],
        i: usize,
        env: &mut [u32],
        sink: &mut Sink,
    ) -> Result<()> {
        if rs.same.iter().any(|(c, c0)| row[*c] != row[*c0]) {
            return Ok(());
        }
        for (c, v) in rs.binds {
            env[*v] = row[*c];
        }
        if !rs.checks.is_empty() && !self.checks_hold(rs.checks, row, env)? {
            return Ok(());
        }
        self.exec(steps, i + 1, env, None, sink)
    }

    /// Whether each column of `checks` equals its expression (`R(x, x + 1)`).
    fn checks_hold(&self, checks: &[(usize, Expr)], row: &[u32], env: &mut [u32]) -> Result<bool> {
        for (c, e) in checks {
            if self.value(e, env)? != Some(row[*c]) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Full-string regex match (Soufflé uses `std::regex_match`). An invalid
    /// pattern warns and counts as no match, for `!match` too.
    fn regex_match(&self, pat: &str, text: &str, neg: bool) -> bool {
        if let Some(r) = self.regexes.read().unwrap().get(pat) {
            return match r {
                Some(r) => r.is_match(text.as_bytes()),
                None => neg,
            };
        }
        let compiled = RegexBuilder::new(&format!("^(?:{})$", byte_pattern(pat)))
            .unicode(false)
            .build()
            .ok();
        if compiled.is_none() {
            eprintln!("warning: wrong pattern provided for match(\"{pat}\",\"{text}\").");
        }
        let hit = compiled
            .as_ref()
            .map_or(neg, |r| r.is_match(text.as_bytes()));
        self.regexes
            .write()
            .unwrap()
            .insert(pat.to_string(), compiled);
        hit
    }

    /// Evaluates a head into `row`; false when a value is missing (an empty
    /// aggregate), and the head derives nothing.
    fn head_row(&self, head: &[Expr], env: &mut [u32], row: &mut Vec<u32>) -> Result<bool> {
        row.clear();
        for h in head {
            match self.value(h, env)? {
                Some(v) => row.push(v),
                None => return Ok(false),
            }
        }
        Ok(true)
    }

    /// `eval`, with variables and constants (most terms) read in place.
    #[inline(always)]
    fn value(&self, e: &Expr, env: &mut [u32]) -> Result<Option<u32>> {
        match e {
            Expr::Var(v) => Ok(Some(env[*v])),
            Expr::Const(c) => Ok(Some(*c)),
            _ => self.eval(e, env),
        }
    }

    fn eval(&self, e: &Expr, env: &mut [u32]) -> Result<Option<u32>> {
        macro_rules! ev {
            ($x:expr) => {
                match self.eval($x, env)? {
                    Some(v) => v,
                    None => return Ok(None),
                }
            };
        }
        Ok(Some(match e {
            Expr::Var(v) => env[*v],
            Expr::Const(c) => *c,
            Expr::Bin(op, base, a, b) => {
                let (x, y) = (ev!(a), ev!(b));
                functors::bin(*op, *base, x, y)?
            }
            Expr::Un(op, base, a) => functors::un(*op, *base, ev!(a)),
            Expr::Cat(xs) => {
                let mut s = String::new();
                for x in xs {
                    let v = ev!(x);
                    s.push_str(self.table().resolve(v));
                }
                self.intern(&s)
            }
            Expr::Strlen(a) => {
                let v = ev!(a);
                self.table().resolve(v).len() as i32 as u32
            }
            Expr::Substr(a, b, c) => {
                let (s, st, len) = (ev!(a), ev!(b), ev!(c));
                let out = functors::substr(self.table().resolve(s), st as i32, len as i32);
                self.intern(&out)
            }
            Expr::Conv(from, to, a) => {
                let v = ev!(a);
                match (from, to) {
                    (Base::Sym, Base::Sym) => v,
                    (Base::Sym, to) => functors::from_string(*to, self.table().resolve(v))?,
                    (from, Base::Sym) => {
                        let s = functors::to_string(*from, v);
                        self.intern(&s)
                    }
                    (from, to) => functors::convert(*from, *to, v),
                }
            }
            Expr::Ord(a) => ev!(a),
            Expr::MinMax(is_max, base, xs) => {
                let mut best: Option<u32> = None;
                for x in xs {
                    let v = ev!(x);
                    best = Some(match best {
                        None => v,
                        Some(b) => {
                            let o = if *base == Base::Sym {
                                let t = self.table();
                                t.resolve(v).cmp(t.resolve(b))
                            } else {
                                functors::cmp_num(*base, v, b)
                            };
                            if (o == std::cmp::Ordering::Greater) == *is_max
                                && o != std::cmp::Ordering::Equal
                            {
                                v
                            } else {
                                b
                            }
                        }
                    });
                }
                best.unwrap()
            }
            Expr::Rec(xs) => {
                let mut fields = Vec::with_capacity(xs.len());
                for x in xs {
                    fields.push(ev!(x));
                }
                if let Some(id) = self.syms.read().unwrap().find_record(&fields) {
                    return Ok(Some(id));
                }
                self.syms.write().unwrap().pack(&fields)
            }
            Expr::Agg(agg) => return self.aggregate(agg, env),
            Expr::AutoInc => self.counter.fetch_add(1, Ordering::Relaxed),
        }))
    }

    fn aggregate(&self, agg: &AggPlan, env: &mut [u32]) -> Result<Option<u32>> {
        let mut count: u32 = 0;
        let mut acc: Option<u32> = None;
        let mut seen: HashSet<Vec<u32>> = HashSet::new();
        let base = agg.base;
        let mut sink = |env: &mut [u32]| -> Result<()> {
            if !agg.single_atom && !seen.insert(agg.distinct.iter().map(|v| env[*v]).collect()) {
                return Ok(());
            }
            count = count.wrapping_add(1);
            if let Some(t) = &agg.target {
                let Some(v) = self.eval(t, env)? else {
                    return Ok(());
                };
                acc = Some(match (acc, agg.op) {
                    (None, _) => v,
                    (Some(a), AggOp::Sum | AggOp::Mean) => functors::bin(BinOp::Add, base, a, v)?,
                    (Some(a), AggOp::Min) => {
                        if functors::cmp_num(base, v, a).is_lt() {
                            v
                        } else {
                            a
                        }
                    }
                    (Some(a), AggOp::Max) => {
                        if functors::cmp_num(base, v, a).is_gt() {
                            v
                        } else {
                            a
                        }
                    }
                    (Some(a), AggOp::Count) => a,
                });
            }
            Ok(())
        };
        self.exec(&agg.steps, 0, env, None, &mut sink)?;
        Ok(match agg.op {
            AggOp::Count => Some(count),
            AggOp::Sum => Some(acc.unwrap_or(if base == Base::Flt { 0f32.to_bits() } else { 0 })),
            AggOp::Min | AggOp::Max => acc,
            // Soufflé sums the floats, then divides by the count in float
            AggOp::Mean => acc.map(|s| (f32::from_bits(s) / count as f32).to_bits()),
        })
    }
}

/// Counters reported by `--stats`.
#[derive(Clone, Debug, Default)]
pub struct EvalStats {
    pub derived: u64,
    pub iterations: u64,
    /// Per rule (by source position), most expensive first.
    pub rules: Vec<RuleCost>,
}

/// What one rule cost over the whole run, all its semi-naive versions and
/// parallel tasks added up.
#[derive(Clone, Debug, Default)]
pub struct RuleCost {
    /// `FILE:LINE:COL` of the rule.
    pub rule: String,
    /// Thread time spent evaluating it.
    pub secs: f64,
    /// The rows it found that its head relation did not hold yet (before
    /// deduplication among the tasks of a round).
    pub new_rows: u64,
}

/// A relation, and rows for it.
type NewRows = (usize, Relation);

struct Task {
    plan: usize,
    range: Option<(u32, u32)>,
}

/// A task's derived rows on their way to the duplicate check against the
/// head relation. That check is a probe into a large hash table and then
/// into its rows: two cache misses per row, and a rule may derive a billion
/// rows to find a million new ones. So a row goes first through a small
/// direct-mapped table of the rows this task checked recently (a join often
/// derives one row many times in a row: once per object that several
/// pointers share), and the rest wait in a batch that asks for every row's
/// slot, then every slot's row, before comparing any, so that the misses
/// overlap.
#[derive(Default)]
struct Batch {
    rows: Vec<u32>,
    hashes: Vec<u64>,
    /// The recent table: per slot, a tag from the row's hash (0: empty),
    /// then the row, side by side so that a check touches one cache line.
    recent: Vec<u32>,
    pushed: usize,
}

impl Batch {
    const ROWS: usize = 16;
    /// The recent table starts small (a task may derive a handful of rows)
    /// and grows with the rows pushed, up to a size that stays in cache.
    const RECENT_MIN: usize = 1 << 8;
    const RECENT_MAX: usize = 1 << 14;

    /// Queue `row` for `head` unless it was checked recently; full, check
    /// the batch and add what `head` lacks to `out`.
    #[inline]
    fn push(&mut self, head: &Relation, row: &[u32], out: &mut Relation) {
        let h = hash_vals(row.iter().copied());
        let stride = row.len() + 1;
        let slots = self.recent.len() / stride;
        self.pushed += 1;
        if self.pushed > slots * 4 && slots < Self::RECENT_MAX {
            let n = (slots * 4).clamp(Self::RECENT_MIN, Self::RECENT_MAX);
            self.recent = vec![0; n * stride];
        }
        let k = h as usize & (self.recent.len() / stride - 1);
        let slot = &mut self.recent[k * stride..k * stride + stride];
        let tag = (h >> 32) as u32 | 1;
        if slot[0] == tag && rows_eq(&slot[1..], row) {
            return;
        }
        slot[0] = tag;
        slot[1..].copy_from_slice(row);
        head.prefetch_slot(h);
        self.rows.extend_from_slice(row);
        self.hashes.push(h);
        if self.hashes.len() == Self::ROWS {
            self.flush(head, out);
        }
    }

    fn flush(&mut self, head: &Relation, out: &mut Relation) {
        for h in &self.hashes {
            head.prefetch_row(*h);
        }
        let a = out.arity;
        for (k, h) in self.hashes.iter().enumerate() {
            let row = &self.rows[k * a..k * a + a];
            if head.find_hashed(*h, row).is_none() {
                out.insert_row(row);
            }
        }
        self.rows.clear();
        self.hashes.clear();
    }
}

/// Run every plan once against the current state; returns the new rows per
/// plan in task order (deduplicated against the full relations).
fn run_round(
    plans: &[Plan],
    rt: &Runtime,
    pool: &rayon::ThreadPool,
    costs: &mut HashMap<Loc, (f64, u64)>,
) -> Result<Vec<NewRows>> {
    let mut tasks = Vec::new();
    for (p, plan) in plans.iter().enumerate() {
        if let Some(Step::Atom {
            rel,
            version,
            index: None,
            ..
        }) = plan.steps.first()
            && rt.rels[*rel].eqrel().is_none()
        {
            let (lo, hi) = rt.view(*rel, *version);
            if hi <= lo {
                continue; // empty first scan: nothing to derive
            }
            let threads = pool.current_num_threads() as u32;
            let chunk = ((hi - lo) / (threads * TASKS_PER_THREAD)).clamp(1, CHUNK);
            if threads > 1 && hi - lo > chunk {
                let mut a = lo;
                while a < hi {
                    let b = (a + chunk).min(hi);
                    tasks.push(Task {
                        plan: p,
                        range: Some((a, b)),
                    });
                    a = b;
                }
                continue;
            }
        }
        tasks.push(Task {
            plan: p,
            range: None,
        });
    }
    // the new rows, and the thread time it took
    let run = |t: &Task| -> Result<(NewRows, f64)> {
        let started = Instant::now();
        let plan = &plans[t.plan];
        let head_rel = &rt.rels[plan.head_rel];
        let head_eq = head_rel.eqrel();
        let mut env = vec![0u32; plan.nvars];
        // deduplicated here: a round's rows wait for their insertion, and a rule often
        // derives one row many times (every object a loaded pointer shares, say)
        let mut out = Relation::new(plan.head.len());
        let mut row: Vec<u32> = Vec::with_capacity(plan.head.len());
        let mut batch = Batch::default();
        let mut sink = |env: &mut [u32]| -> Result<()> {
            if !rt.head_row(&plan.head, env, &mut row)? {
                return Ok(());
            }
            match head_eq {
                Some(eq) => {
                    if !eq.contains(row[0], row[1], Part::All) {
                        out.insert_row(&row);
                    }
                }
                None => batch.push(head_rel, &row, &mut out),
            }
            Ok(())
        };
        rt.exec(&plan.steps, 0, &mut env, t.range, &mut sink)
            .map_err(|e| anyhow!("{}: {e}", plan.loc))?;
        batch.flush(head_rel, &mut out);
        // the rows wait for the round's other tasks; their duplicate check is done
        out.drop_row_set();
        Ok(((plan.head_rel, out), started.elapsed().as_secs_f64()))
    };
    let counting = plans.iter().any(|p| p.counter);
    let results: Vec<Result<_>> = if tasks.len() > 1 && pool.current_num_threads() > 1 && !counting
    {
        // one job per task: rayon's adaptive splitting would run long runs of tasks
        // in one thread while the other idles, whenever the costly tasks cluster
        pool.install(|| tasks.par_iter().with_max_len(1).map(run).collect())
    } else {
        tasks.iter().map(run).collect()
    };
    let mut outs = Vec::with_capacity(results.len());
    for (t, r) in tasks.iter().zip(results) {
        let (out, secs) = r?;
        let cost = costs.entry(plans[t.plan].loc.clone()).or_default();
        cost.0 += secs;
        cost.1 += out.1.len() as u64;
        outs.push(out);
    }
    Ok(outs)
}

/// The rows the subsumptive rules `plans` dominate, per relation (row
/// numbers, perhaps repeated): a row `a` for which a distinct row `b` makes a
/// body hold (a plan's head is `a`, `b`).
fn dominated(plans: &[Plan], rt: &Runtime) -> Result<HashMap<usize, Vec<u32>>> {
    let mut out: HashMap<usize, Vec<u32>> = HashMap::new();
    for plan in plans {
        let n = plan.head.len() / 2;
        let rel = &rt.rels[plan.head_rel];
        let dead = out.entry(plan.head_rel).or_default();
        let mut env = vec![0u32; plan.nvars];
        let mut row = Vec::with_capacity(plan.head.len());
        let mut sink = |env: &mut [u32]| -> Result<()> {
            if !rt.head_row(&plan.head, env, &mut row)? {
                return Ok(());
            }
            if row[..n] != row[n..] {
                dead.extend(rel.find(&row[..n]));
            }
            Ok(())
        };
        rt.exec(&plan.steps, 0, &mut env, None, &mut sink)
            .map_err(|e| anyhow!("{}: {e}", plan.loc))?;
    }
    Ok(out)
}

/// Insert the rounds' new rows, in task order; a relation under `.limitsize`
/// takes rows until it holds its limit, and one with a `choice-domain` takes
/// a row only if no row has its key yet (the first in task order wins).
fn insert_all(prog: &Checked, rels: &mut [Relation], outs: Vec<NewRows>, stats: &mut EvalStats) {
    for (rel, new) in outs {
        let rows = new.flat();
        let r = &mut rels[rel];
        let (a, before) = (r.arity, r.len());
        let info = &prog.rels[rel];
        if a > 0 && info.limit.is_none() && info.choice.is_empty() && r.eqrel().is_none() {
            r.reserve_rows(new.len());
            r.insert_rows(&rows);
            stats.derived += (r.len() - before) as u64;
            continue;
        }
        let limit = info.limit.unwrap_or(usize::MAX);
        let choice: Vec<usize> = info.choice.iter().map(|k| r.ensure_index(k)).collect();
        let mut key = Vec::new();
        if a == 0 {
            if !new.is_empty() && limit > 0 {
                r.insert(&[]);
            }
        } else {
            for row in rows.chunks_exact(a) {
                if r.len() >= limit {
                    break;
                }
                let taken = choice.iter().zip(&info.choice).any(|(ix, cols)| {
                    key.clear();
                    key.extend(cols.iter().map(|c| row[*c]));
                    r.has_key(*ix, &key)
                });
                if !taken {
                    r.insert(row);
                }
            }
        }
        // an `eqrel` insertion may add many pairs
        stats.derived += (r.len() - before) as u64;
    }
}

/// Soufflé's `std::regex` works on bytes (`char`), not on Unicode scalar
/// values: `.` matches one byte of `é`, and `\w`, `\d`, `\s` are ASCII. Non-ASCII
/// bytes of the pattern become `\xHH` byte escapes for a byte regex without
/// Unicode mode; `\` before a non-ASCII byte is an identity escape and is dropped.
fn byte_pattern(pat: &str) -> String {
    let b = pat.as_bytes();
    let mut out = String::with_capacity(pat.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\\' && i + 1 < b.len() && b[i + 1].is_ascii() {
            out.push('\\');
            out.push(b[i + 1] as char);
            i += 2;
            continue;
        }
        if c == b'\\' && i + 1 < b.len() {
            i += 1;
            continue;
        }
        if c.is_ascii() {
            out.push(c as char);
        } else {
            out.push_str(&format!("\\x{c:02X}"));
        }
        i += 1;
    }
    out
}

/// Create the indexes and row sets that `plan` reads; returns the storage
/// number of each of its indexes.
fn prepare(plan: &StratumPlan, rels: &mut [Relation]) -> Vec<usize> {
    for r in &plan.row_sets {
        rels[*r].ensure_row_set();
    }
    plan.indexes
        .iter()
        .map(|ix| rels[ix.rel].ensure_index(&ix.cols))
        .collect()
}

/// A pool of `jobs` threads (at least one).
pub fn thread_pool(jobs: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| anyhow!("cannot start threads: {e}"))
}

/// Evaluate every stratum of `prog` over `rels`, with `jobs` threads. A
/// relation's indexes are freed after the last stratum that reads it, and so
/// are its rows unless `keep` says otherwise.
pub fn evaluate(
    prog: &Checked,
    rels: &mut [Relation],
    syms: &RwLock<Symbols>,
    jobs: usize,
    keep: &[bool],
) -> Result<EvalStats> {
    let pool = thread_pool(jobs)?;
    let regexes = RwLock::new(HashMap::new());
    let counter = AtomicU32::new(0);
    let mut stats = EvalStats::default();
    let mut costs: HashMap<Loc, (f64, u64)> = HashMap::new();
    let mut delta_start = vec![0u32; rels.len()];
    for s in 0..prog.strata.len() {
        let sizes: Vec<usize> = rels.iter().map(Relation::len).collect();
        let distinct = |r: usize, cols: &[usize]| rels[r].sampled_keys(cols);
        let full = Sizes {
            full: &sizes,
            delta: &sizes,
            distinct: Some(&distinct),
        };
        let mut plan = plan_stratum(prog, s, full)?;
        // A stratum no output needs and nobody will read changes no output: skip it, as
        // Soufflé drops such relations (unless it numbers rows, which would shift the
        // numbers of later strata).
        let unread = prog.strata[s]
            .rels
            .iter()
            .all(|r| !prog.needed[*r] && !keep[*r]);
        if unread && !plan.base.iter().chain(&plan.rec).any(|p| p.counter) {
            continue;
        }
        let mut indexes = prepare(&plan, rels);
        if !prog.strata[s].rules.is_empty() || !plan.subsume.is_empty() {
            for r in &prog.strata[s].rels {
                rels[*r].ensure_row_set();
            }
        }
        let stratum = &prog.strata[s];
        // Rows numbered in derivation order (`autoinc()`, `choice-domain`) keep the one plan,
        // so that their numbering does not change with the sizes.
        let replan = !plan.rec.iter().any(|p| p.counter)
            && stratum.rels.iter().all(|r| prog.rels[*r].choice.is_empty());
        macro_rules! runtime {
            () => {
                Runtime {
                    rels,
                    delta_start: &delta_start,
                    indexes: &indexes,
                    syms,
                    regexes: &regexes,
                    counter: &counter,
                }
            };
        }
        // Delete what the subsumptive rules dominate; `before[k]`, the first
        // new row of the stratum's `k`-th relation, moves with the deletions.
        macro_rules! prune {
            ($plans:expr, $before:expr) => {
                if !$plans.is_empty() {
                    let dead = dominated($plans, &runtime!())?;
                    for (k, r) in stratum.rels.iter().enumerate() {
                        if let Some(d) = dead.get(r) {
                            $before[k] = subsume::remove(&mut rels[*r], d, $before[k]);
                        }
                    }
                }
            };
        }
        let outs = run_round(&plan.base, &runtime!(), &pool, &mut costs)?;
        insert_all(prog, rels, outs, &mut stats);
        let mut base_new = vec![0; stratum.rels.len()];
        prune!(&plan.subsume, base_new);
        if !plan.rec.is_empty() {
            for r in &stratum.rels {
                delta_start[*r] = 0;
                rels[*r].mark_delta(true);
            }
        }
        while !plan.rec.is_empty() {
            stats.iterations += 1;
            if replan && stats.iterations > 1 {
                let sizes: Vec<usize> = rels.iter().map(Relation::len).collect();
                let delta: Vec<usize> = sizes
                    .iter()
                    .zip(&delta_start)
                    .map(|(n, d)| n.saturating_sub(*d as usize))
                    .collect();
                let distinct = |r: usize, cols: &[usize]| rels[r].sampled_keys(cols);
                let now = Sizes {
                    full: &sizes,
                    delta: &delta,
                    distinct: Some(&distinct),
                };
                plan = plan_stratum(prog, s, now)?;
                for r in &stratum.rels {
                    let used = |cols: &[usize]| {
                        plan.indexes
                            .iter()
                            .any(|ix| ix.rel == *r && ix.cols == cols)
                    };
                    rels[*r].retire_indexes(used, INDEX_PATIENCE);
                }
                indexes = prepare(&plan, rels);
            }
            let mut before: Vec<u32> = stratum.rels.iter().map(|r| rels[*r].len() as u32).collect();
            let outs = run_round(&plan.rec, &runtime!(), &pool, &mut costs)?;
            for r in &stratum.rels {
                rels[*r].mark_delta(false);
            }
            insert_all(prog, rels, outs, &mut stats);
            // the rows just added are the delta the dominance check reads
            for (k, r) in stratum.rels.iter().enumerate() {
                delta_start[*r] = before[k];
            }
            prune!(&plan.subsume_rec, before);
            let mut grew = false;
            for (k, r) in stratum.rels.iter().enumerate() {
                delta_start[*r] = before[k];
                if rels[*r].len() as u32 > before[k] {
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        // After the stratum, its relations are complete: everything is "old",
        // and no rule adds to them, so their row sets go (`row_sets` brings
        // one back where a later step needs it).
        for r in &stratum.rels {
            delta_start[*r] = rels[*r].len() as u32;
            rels[*r].mark_delta(false);
            rels[*r].drop_row_set();
        }
        for (r, rel) in rels.iter_mut().enumerate() {
            if prog.last_use[r] == s {
                if keep[r] {
                    rel.drop_lookups();
                } else {
                    rel.clear();
                }
            }
        }
    }
    stats.rules = costs
        .into_iter()
        .map(|(loc, (secs, new_rows))| RuleCost {
            rule: loc.to_string(),
            secs,
            new_rows,
        })
        .collect();
    stats
        .rules
        .sort_by(|a, b| b.secs.total_cmp(&a.secs).then_with(|| a.rule.cmp(&b.rule)));
    Ok(stats)
}
