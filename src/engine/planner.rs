//! Join planning: orders a rule body and picks an index for every atom.
//!
//! Greedy: after each atom, every filter, negation and equality binding whose
//! variables are bound is placed immediately; the next atom is one that joins
//! a bound variable (the delta atom of a semi-naive version first, then the
//! most bound columns, then the smaller relation), or, when none does, one
//! that lets another atom join next (no cross product) with the fewest rows to
//! scan (a delta counts 8 times fewer than it has): a delta atom scans only
//! the delta, so a recursive stratum is planned again each iteration with the
//! delta's size. An atom with bound columns is read through a hash index on
//! its joined columns (constants beside them are checked on each row, unless
//! another plan of the stratum needs the index on both anyway); a fully bound
//! atom is a membership test.
//! An atom that would bind nothing (only `_` and bound arguments) is placed
//! like a filter and tested once for a matching row, never joined.
//!
//! The planner never touches storage: it reads relation sizes, and its plans
//! list the indexes they need (`StratumPlan::indexes`), which the evaluator
//! creates. Every body can be ordered: `sema::ground` checked that.

use anyhow::Result;

use super::ast::{AggOp, CmpOp, Loc, err_at};
use super::ir::{
    AggIr, Arg, Base, Checked, Expr, Lit, Rule, atom_ready, display_var, expr_vars, lit_loc,
    lit_vars, ready, uses_autoinc,
};

/// A planned expression: aggregates carry their planned bodies.
pub type PlanExpr = Expr<Box<AggPlan>>;

/// A planned aggregate: the rule IR's `AggIr` with its body ordered into steps.
#[derive(Clone, Debug)]
pub struct AggPlan {
    pub op: AggOp,
    /// Base of the target (Num for count).
    pub base: Base,
    pub target: Option<PlanExpr>,
    pub steps: Vec<Step>,
    /// See `AggIr::single_atom`.
    pub single_atom: bool,
    pub distinct: Vec<usize>,
}

/// An index a plan reads: relation `rel`, keyed on columns `cols`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexSpec {
    pub rel: usize,
    pub cols: Vec<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    Full,
    Delta,
    Old,
}

#[derive(Clone, Debug)]
pub enum Step {
    /// Iterate rows (all, or through index `index`, a position in
    /// `StratumPlan::indexes`, with key values `key`).
    Atom {
        rel: usize,
        version: Version,
        index: Option<usize>,
        key: Vec<PlanExpr>,
        binds: Vec<(usize, usize)>,
        /// Columns that must equal a column bound earlier in the same atom (`R(x, x)`).
        same: Vec<(usize, usize)>,
        /// Columns that must equal an expression over variables the atom binds
        /// (`R(x, x + 1)`), checked after the binds.
        checks: Vec<(usize, PlanExpr)>,
    },
    /// All columns bound: membership test.
    Member {
        rel: usize,
        version: Version,
        row: Vec<PlanExpr>,
    },
    /// An atom that binds nothing (only `_` and bound arguments): a test that
    /// some row matches, run once rather than once per matching row.
    Exists {
        rel: usize,
        version: Version,
        index: Option<usize>,
        key: Vec<PlanExpr>,
    },
    /// Negation; `index` (as in `Atom`) is used when some columns are `_`.
    Neg {
        rel: usize,
        index: Option<usize>,
        key: Vec<PlanExpr>,
    },
    Cmp {
        op: CmpOp,
        base: Base,
        lhs: PlanExpr,
        rhs: PlanExpr,
    },
    Contains {
        neg: bool,
        sub: PlanExpr,
        s: PlanExpr,
    },
    Match {
        neg: bool,
        re: PlanExpr,
        s: PlanExpr,
    },
    Bind {
        slot: usize,
        expr: PlanExpr,
    },
    /// The fields of the record in `slot` (`Lit::Unpack`), read like an
    /// atom's row; `nil`, or a row of another length (another ADT branch),
    /// matches nothing.
    Unpack {
        slot: usize,
        arity: usize,
        binds: Vec<(usize, usize)>,
        same: Vec<(usize, usize)>,
        checks: Vec<(usize, PlanExpr)>,
    },
    /// `range(from, to[, step])`: binds `slot` to each value, or, when
    /// `test`, checks that its value is one of them.
    Range {
        slot: usize,
        base: Base,
        args: Vec<PlanExpr>,
        test: bool,
    },
}

#[derive(Clone, Debug)]
pub struct Plan {
    pub steps: Vec<Step>,
    pub head_rel: usize,
    pub head: Vec<PlanExpr>,
    pub nvars: usize,
    pub loc: Loc,
    /// The rule calls `autoinc()`: its rows are numbered in task order, so
    /// its round runs sequentially.
    pub counter: bool,
}

/// The plans of one stratum: base rules (run once) and the semi-naive
/// versions of recursive rules, and the indexes their steps refer to.
#[derive(Clone, Debug, Default)]
pub struct StratumPlan {
    pub base: Vec<Plan>,
    pub rec: Vec<Plan>,
    /// The subsumptive rules of the stratum's relations, over full relations;
    /// a plan's head is the dominated tuple followed by the dominating one.
    pub subsume: Vec<Plan>,
    /// The same for the iterations of a recursive stratum: when a rule's body
    /// reads no relation of the stratum, the tuples that survived the last
    /// iteration dominate none of each other, so only pairs with a new tuple
    /// are read (one version with each of the two atoms on the delta).
    pub subsume_rec: Vec<Plan>,
    pub indexes: Vec<IndexSpec>,
    /// Relations whose rows the steps look up by value (`Member`, `Neg` without index).
    pub row_sets: Vec<usize>,
}

/// Atom choice: (joins a bound variable, is the delta atom and joins, number of bound columns
/// if it joins, lets another atom join, fewer rows to read, number of bound columns, is the
/// delta atom).
type Score = (
    bool,
    bool,
    usize,
    bool,
    std::cmp::Reverse<usize>,
    usize,
    bool,
);

/// How many times larger than another relation the delta may be and still be scanned first:
/// a scan from the delta reads the stratum's relations through the indexes the other rules
/// need anyway, a scan from elsewhere may need one more on a growing relation (a word per
/// row), as `path(x, z) :- path(x, y), edge(y, z)` would on `path`'s second column.
const DELTA_BIAS: usize = 8;
/// Below this many rows a sample tells too little to call a lookup unselective.
const UNSELECTIVE_ROWS: usize = 256;

/// The number of rows of each relation, and of its delta (the rows a delta atom reads).
#[derive(Clone, Copy)]
pub struct Sizes<'a> {
    pub full: &'a [usize],
    pub delta: &'a [usize],
    /// How many distinct keys columns `cols` of relation `rel` hold among a sample of its
    /// rows (at least 1), when the evaluator can tell: a lookup on a column that holds one
    /// value in every row (a context `"[]"`) joins nothing, however bound it is.
    pub distinct: Option<&'a dyn Fn(usize, &[usize]) -> usize>,
}

struct Planner<'a> {
    sizes: Sizes<'a>,
    rule: &'a Rule,
    indexes: &'a mut Vec<IndexSpec>,
    row_sets: &'a mut Vec<usize>,
    /// The indexes a first planning of the stratum asked for (see `plan_stratum`).
    shared: &'a [IndexSpec],
    /// Whether each matching row counts (the body of a single-atom aggregate,
    /// which ranges over tuples): then an atom is never a mere test.
    per_row: bool,
}

impl Planner<'_> {
    /// The position of the index on `rel`'s columns `cols` in `indexes`, added if new.
    fn index(&mut self, rel: usize, cols: Vec<usize>) -> usize {
        let spec = IndexSpec { rel, cols };
        match self.indexes.iter().position(|ix| *ix == spec) {
            Some(i) => i,
            None => {
                self.indexes.push(spec);
                self.indexes.len() - 1
            }
        }
    }

    /// Plan the body `lits` given already-bound variables. `versions[i]` is the
    /// version of the i-th literal if it is an atom. Returns the steps and the
    /// variables bound afterwards.
    fn plan_body(
        &mut self,
        lits: &[Lit],
        versions: &[Version],
        bound: &mut [bool],
    ) -> Result<Vec<Step>> {
        let mut done = vec![false; lits.len()];
        let mut steps = Vec::new();
        let delta_atom = versions.iter().position(|v| *v == Version::Delta);
        loop {
            // 1. everything that is ready and does not enumerate
            self.place_filters(lits, versions, &mut done, bound, &mut steps, false)?;
            // 2. next atom
            let mut best: Option<(usize, Score)> = None;
            for (i, l) in lits.iter().enumerate() {
                if done[i] {
                    continue;
                }
                let Lit::Atom { rel, args, .. } = l else {
                    continue;
                };
                let nb = args
                    .iter()
                    .filter(|a| match a {
                        Arg::Var(v) => bound[*v],
                        Arg::Anon => false,
                        Arg::Expr(e) => ready(e, bound),
                    })
                    .count();
                // A lookup on columns that hold one value in every sampled row (a context
                // `"[]"`) finds every row: it counts as no join.
                let unselective = || {
                    let cols: Vec<usize> = (0..args.len())
                        .filter(|&c| joins(&args[c..=c], bound))
                        .collect();
                    self.sizes.distinct.is_some_and(|d| {
                        self.sizes.full[*rel] >= UNSELECTIVE_ROWS && d(*rel, &cols) == 1
                    })
                };
                let joined = joins(args, bound) && !unselective();
                // atoms whose expression arguments are not ready cannot be used yet
                if !atom_ready(args, bound) {
                    continue;
                }
                // an atom that joins nothing should at least lead to one that does, or
                // the next step is a cross product
                let leads_on = joined || {
                    let mut after = bound.to_vec();
                    let mut vs = Vec::new();
                    lit_vars(l, &mut vs);
                    for v in vs {
                        after[v] = true;
                    }
                    lits.iter().enumerate().any(|(j, m)| {
                        j != i
                            && !done[j]
                            && matches!(m, Lit::Atom { args, .. }
                                if atom_ready(args, &after) && joins(args, &after))
                    })
                };
                let is_delta = delta_atom == Some(i);
                let rows = if is_delta {
                    self.sizes.delta[*rel] / DELTA_BIAS
                } else {
                    self.sizes.full[*rel]
                };
                let score = (
                    joined,
                    joined && is_delta,
                    if joined { nb } else { 0 },
                    leads_on,
                    std::cmp::Reverse(rows),
                    nb,
                    is_delta,
                );
                if best.as_ref().is_none_or(|(_, s)| score > *s) {
                    best = Some((i, score));
                }
            }
            let Some((i, _)) = best else {
                // 3. no atom: a float equality may bind a variable yet
                if self.place_filters(lits, versions, &mut done, bound, &mut steps, true)? {
                    continue;
                }
                break;
            };
            done[i] = true;
            let Lit::Atom { rel, args, .. } = &lits[i] else {
                unreachable!()
            };
            let step = self.atom_step(*rel, args, versions[i], bound)?;
            steps.push(step);
        }
        if let Some(i) = (0..lits.len()).find(|i| !done[*i]) {
            let mut vs = Vec::new();
            lit_vars(&lits[i], &mut vs);
            let v = vs.into_iter().find(|v| !bound[*v]);
            return Err(match v {
                Some(v) => err_at(
                    &self.rule.var_locs[v],
                    format!(
                        "Ungrounded variable {}",
                        display_var(&self.rule.var_names[v])
                    ),
                ),
                None => err_at(lit_loc(&lits[i]), "cannot order this literal (ungrounded)"),
            });
        }
        Ok(steps)
    }

    fn atom_step(
        &mut self,
        rel: usize,
        args: &[Arg],
        version: Version,
        bound: &mut [bool],
    ) -> Result<Step> {
        let RowArgs {
            mut known,
            binds,
            same,
            mut checks,
        } = self.row_args(args, bound)?;
        if known.len() < args.len() {
            // Constant columns beside joined ones are checked on the rows the join finds,
            // so that `R(x, _, -1)` and `R(x, y, _)` share the index on `x`: an index costs
            // a word per row. But where another plan needs an index on the joined and the
            // constant columns anyway, the constants join too: `R(_, y, -1)` beside
            // `R(_, y, z)` reads only the rows at -1. A delta is scanned and checked, not
            // indexed by constants.
            let joined = |c: &usize| !matches!(&args[*c], Arg::Expr(e) if !has_var(e));
            let all = IndexSpec {
                rel,
                cols: known.iter().map(|(c, _)| *c).collect(),
            };
            let shared = self.shared.contains(&all);
            if (known.iter().any(|(c, _)| joined(c)) && !shared) || version == Version::Delta {
                let (keep, consts): (Vec<_>, Vec<_>) =
                    known.into_iter().partition(|(c, _)| joined(c));
                known = keep;
                checks.extend(consts);
            }
        }
        let (key_cols, key): (Vec<usize>, Vec<PlanExpr>) = known.into_iter().unzip();
        if key_cols.len() == args.len() {
            self.row_sets.push(rel);
            return Ok(Step::Member {
                rel,
                version,
                row: key,
            });
        }
        let index = if key_cols.is_empty() {
            None
        } else {
            Some(self.index(rel, key_cols))
        };
        Ok(Step::Atom {
            rel,
            version,
            index,
            key,
            binds,
            same,
            checks,
        })
    }

    /// How a row's columns meet the variables: columns known before the row
    /// (bound variables, ready expressions), variables the row binds, columns
    /// equal to an earlier column of the row, and columns checked against
    /// expressions over what the row binds (`R(x, x + 1)`). Marks the new
    /// variables bound.
    fn row_args(&mut self, args: &[Arg], bound: &mut [bool]) -> Result<RowArgs> {
        let mut out = RowArgs::default();
        let mut later = Vec::new();
        for (c, a) in args.iter().enumerate() {
            match a {
                Arg::Var(v) if bound[*v] => out.known.push((c, Expr::Var(*v))),
                Arg::Var(v) => {
                    if let Some((c0, _)) = out.binds.iter().find(|(_, w)| w == v) {
                        out.same.push((c, *c0));
                    } else {
                        out.binds.push((c, *v));
                    }
                }
                Arg::Anon => {}
                Arg::Expr(e) if ready(e, bound) => out.known.push((c, self.plan_expr(e, bound)?)),
                Arg::Expr(e) => later.push((c, e)),
            }
        }
        for (_, v) in &out.binds {
            bound[*v] = true;
        }
        for (c, e) in later {
            out.checks.push((c, self.plan_expr(e, bound)?));
        }
        Ok(out)
    }

    /// Place every literal that is ready and does not enumerate, until none is
    /// left; returns whether any was placed. A float equality `x = e` binds `x`
    /// only with `float_binds`: when an atom can bind `x`, the equality must be
    /// a filter, which compares floats as numbers (`-0.0 = 0.0`), not a key,
    /// which compares bit patterns (as in Soufflé).
    fn place_filters(
        &mut self,
        lits: &[Lit],
        versions: &[Version],
        done: &mut [bool],
        bound: &mut [bool],
        steps: &mut Vec<Step>,
        float_binds: bool,
    ) -> Result<bool> {
        let mut placed = false;
        let mut progress = true;
        while progress {
            progress = false;
            for (i, l) in lits.iter().enumerate() {
                if done[i] {
                    continue;
                }
                if let Some(step) = self.try_filter(l, versions[i], bound, float_binds)? {
                    steps.push(step);
                    done[i] = true;
                    progress = true;
                    placed = true;
                }
            }
        }
        Ok(placed)
    }

    fn try_filter(
        &mut self,
        l: &Lit,
        version: Version,
        bound: &mut [bool],
        float_binds: bool,
    ) -> Result<Option<Step>> {
        Ok(match l {
            // An atom that would bind nothing is a test: placed as early as its
            // keys allow, it runs once per binding instead of once per row.
            Lit::Atom { rel, args, .. } if !self.per_row && binds_nothing(args, bound) => {
                let (index, key) = self.test_key(*rel, args, bound)?;
                if index.is_none() && !key.is_empty() {
                    self.row_sets.push(*rel);
                }
                Some(match index {
                    None if !key.is_empty() => Step::Member {
                        rel: *rel,
                        version,
                        row: key,
                    },
                    index => Step::Exists {
                        rel: *rel,
                        version,
                        index,
                        key,
                    },
                })
            }
            Lit::Atom { .. } => None,
            Lit::Neg { rel, args, .. } => {
                if !binds_nothing(args, bound) {
                    return Ok(None);
                }
                let (index, key) = self.test_key(*rel, args, bound)?;
                if index.is_none() && !key.is_empty() {
                    self.row_sets.push(*rel);
                }
                Some(Step::Neg {
                    rel: *rel,
                    index,
                    key,
                })
            }
            Lit::Cmp {
                op, base, lhs, rhs, ..
            } => {
                let (lr, rr) = (ready(lhs, bound), ready(rhs, bound));
                if lr && rr {
                    Some(Step::Cmp {
                        op: *op,
                        base: *base,
                        lhs: self.plan_expr(lhs, bound)?,
                        rhs: self.plan_expr(rhs, bound)?,
                    })
                } else if *op == CmpOp::Eq && (*base != Base::Flt || float_binds) {
                    match (lhs, rhs) {
                        (Expr::Var(v), e) | (e, Expr::Var(v)) if !bound[*v] && ready(e, bound) => {
                            let pe = self.plan_expr(e, bound)?;
                            bound[*v] = true;
                            Some(Step::Bind { slot: *v, expr: pe })
                        }
                        _ => None,
                    }
                } else {
                    None
                }
            }
            Lit::Contains { neg, sub, s, .. } => {
                if ready(sub, bound) && ready(s, bound) {
                    Some(Step::Contains {
                        neg: *neg,
                        sub: self.plan_expr(sub, bound)?,
                        s: self.plan_expr(s, bound)?,
                    })
                } else {
                    None
                }
            }
            Lit::Range {
                var, base, args, ..
            } => {
                if !args.iter().all(|a| ready(a, bound)) {
                    return Ok(None);
                }
                let args = args
                    .iter()
                    .map(|a| self.plan_expr(a, bound))
                    .collect::<Result<_>>()?;
                let test = bound[*var];
                bound[*var] = true;
                Some(Step::Range {
                    slot: *var,
                    base: *base,
                    args,
                    test,
                })
            }
            Lit::Unpack { var, fields, .. } if bound[*var] => {
                if !atom_ready(fields, bound) {
                    return Ok(None);
                }
                let RowArgs {
                    known,
                    binds,
                    same,
                    mut checks,
                } = self.row_args(fields, bound)?;
                checks.extend(known);
                Some(Step::Unpack {
                    slot: *var,
                    arity: fields.len(),
                    binds,
                    same,
                    checks,
                })
            }
            Lit::Unpack { var, fields, .. } => {
                if !binds_nothing(fields, bound) || fields.iter().any(|f| matches!(f, Arg::Anon)) {
                    return Ok(None);
                }
                let mut xs = Vec::new();
                for f in fields {
                    xs.push(match f {
                        Arg::Var(v) => Expr::Var(*v),
                        Arg::Expr(e) => self.plan_expr(e, bound)?,
                        Arg::Anon => unreachable!(),
                    });
                }
                bound[*var] = true;
                Some(Step::Bind {
                    slot: *var,
                    expr: Expr::Rec(xs),
                })
            }
            Lit::Match { neg, re, s, .. } => {
                if ready(re, bound) && ready(s, bound) {
                    Some(Step::Match {
                        neg: *neg,
                        re: self.plan_expr(re, bound)?,
                        s: self.plan_expr(s, bound)?,
                    })
                } else {
                    None
                }
            }
        })
    }

    /// The key of a test on an atom whose arguments are all bound or `_`: the
    /// index on its bound columns (`None` when all or none are bound).
    fn test_key(
        &mut self,
        rel: usize,
        args: &[Arg],
        bound: &[bool],
    ) -> Result<(Option<usize>, Vec<PlanExpr>)> {
        let mut cols = Vec::new();
        let mut key = Vec::new();
        for (c, a) in args.iter().enumerate() {
            match a {
                Arg::Var(v) => {
                    cols.push(c);
                    key.push(Expr::Var(*v));
                }
                Arg::Expr(e) => {
                    cols.push(c);
                    key.push(self.plan_expr(e, bound)?);
                }
                Arg::Anon => {}
            }
        }
        let index = if cols.len() == args.len() || cols.is_empty() {
            None
        } else {
            Some(self.index(rel, cols))
        };
        Ok((index, key))
    }

    /// Plan the aggregates inside an expression (their bodies become step lists).
    fn plan_expr(&mut self, e: &Expr, bound: &[bool]) -> Result<PlanExpr> {
        Ok(match e {
            Expr::Agg(agg) => {
                let mut inner_bound = bound.to_vec();
                let versions = vec![Version::Full; agg.body.len()];
                let outer = std::mem::replace(&mut self.per_row, agg.single_atom);
                let steps = self.plan_body(&agg.body, &versions, &mut inner_bound);
                self.per_row = outer;
                let steps = steps?;
                if let Some(t) = &agg.target
                    && !ready(t, &inner_bound)
                {
                    let mut vs = Vec::new();
                    expr_vars(t, &mut vs);
                    let v = vs.into_iter().find(|v| !inner_bound[*v]).unwrap();
                    return Err(err_at(
                        &self.rule.var_locs[v],
                        format!(
                            "Ungrounded variable {}",
                            display_var(&self.rule.var_names[v])
                        ),
                    ));
                }
                let target = match &agg.target {
                    Some(t) => Some(self.plan_expr(t, &inner_bound)?),
                    None => None,
                };
                let AggIr {
                    op,
                    base,
                    single_atom,
                    ref distinct,
                    ..
                } = **agg;
                Expr::Agg(Box::new(AggPlan {
                    op,
                    base,
                    target,
                    steps,
                    single_atom,
                    distinct: distinct.clone(),
                }))
            }
            Expr::Bin(op, b, x, y) => Expr::Bin(
                *op,
                *b,
                Box::new(self.plan_expr(x, bound)?),
                Box::new(self.plan_expr(y, bound)?),
            ),
            Expr::Un(op, b, x) => Expr::Un(*op, *b, Box::new(self.plan_expr(x, bound)?)),
            Expr::Strlen(x) => Expr::Strlen(Box::new(self.plan_expr(x, bound)?)),
            Expr::Ord(x) => Expr::Ord(Box::new(self.plan_expr(x, bound)?)),
            Expr::Conv(f, t, x) => Expr::Conv(*f, *t, Box::new(self.plan_expr(x, bound)?)),
            Expr::Substr(a, b, c) => Expr::Substr(
                Box::new(self.plan_expr(a, bound)?),
                Box::new(self.plan_expr(b, bound)?),
                Box::new(self.plan_expr(c, bound)?),
            ),
            Expr::Cat(xs) => Expr::Cat(
                xs.iter()
                    .map(|x| self.plan_expr(x, bound))
                    .collect::<Result<_>>()?,
            ),
            Expr::MinMax(m, b, xs) => Expr::MinMax(
                *m,
                *b,
                xs.iter()
                    .map(|x| self.plan_expr(x, bound))
                    .collect::<Result<_>>()?,
            ),
            Expr::Rec(xs) => Expr::Rec(
                xs.iter()
                    .map(|x| self.plan_expr(x, bound))
                    .collect::<Result<_>>()?,
            ),
            Expr::Var(v) => Expr::Var(*v),
            Expr::Const(c) => Expr::Const(*c),
            Expr::AutoInc => Expr::AutoInc,
        })
    }
}

/// See `Planner::row_args`.
#[derive(Default)]
struct RowArgs {
    known: Vec<(usize, PlanExpr)>,
    binds: Vec<(usize, usize)>,
    same: Vec<(usize, usize)>,
    checks: Vec<(usize, PlanExpr)>,
}

/// Whether every argument is `_` or bound already.
fn binds_nothing(args: &[Arg], bound: &[bool]) -> bool {
    args.iter().all(|a| match a {
        Arg::Var(v) => bound[*v],
        Arg::Anon => true,
        Arg::Expr(e) => ready(e, bound),
    })
}

/// The rule's body with each variable that occurs once in the whole rule,
/// as a plain atom argument, turned into `_` (Soufflé warns about those): an
/// atom left with nothing to bind becomes a test instead of a loop.
fn single_use_as_anon(rule: &Rule) -> Vec<Lit> {
    let mut count = vec![0usize; rule.var_names.len()];
    let mut vs = Vec::new();
    for l in &rule.body {
        lit_vars(l, &mut vs);
    }
    for e in &rule.head {
        expr_vars(e, &mut vs);
    }
    for v in vs {
        count[v] += 1;
    }
    let mut body = rule.body.clone();
    for l in &mut body {
        if let Lit::Atom { args, .. } = l {
            for a in args.iter_mut() {
                if matches!(a, Arg::Var(v) if count[*v] == 1) {
                    *a = Arg::Anon;
                }
            }
        }
    }
    body
}

/// Plan one version of a rule. `versions[i]` applies to body literal `i`.
fn plan_rule(
    sizes: Sizes,
    shared: &[IndexSpec],
    indexes: &mut Vec<IndexSpec>,
    row_sets: &mut Vec<usize>,
    rule: &Rule,
    versions: &[Version],
) -> Result<Plan> {
    let mut p = Planner {
        sizes,
        rule,
        indexes,
        row_sets,
        shared,
        per_row: false,
    };
    let mut bound = vec![false; rule.var_names.len()];
    let body = single_use_as_anon(rule);
    let steps = p.plan_body(&body, versions, &mut bound)?;
    for v in &rule.head_vars {
        if !bound[*v] {
            return Err(err_at(
                &rule.var_locs[*v],
                format!("Ungrounded variable {}", display_var(&rule.var_names[*v])),
            ));
        }
    }
    let mut head = Vec::new();
    for e in &rule.head {
        head.push(p.plan_expr(e, &bound)?);
    }
    Ok(Plan {
        steps,
        head_rel: rule.head_rel,
        head,
        nvars: rule.var_names.len(),
        loc: rule.loc.clone(),
        counter: uses_autoinc(rule),
    })
}

/// Plan stratum `s` given the current relation sizes: each rule, or, in a
/// recursive stratum, one semi-naive version per recursive atom. Planned
/// twice: the second time, an atom with constant columns beside joined ones
/// joins on the constants too where the first asked for that index anyway.
pub fn plan_stratum(prog: &Checked, s: usize, sizes: Sizes) -> Result<StratumPlan> {
    let first = plan_stratum_sharing(prog, s, sizes, &[])?;
    plan_stratum_sharing(prog, s, sizes, &first.indexes)
}

fn plan_stratum_sharing(
    prog: &Checked,
    s: usize,
    sizes: Sizes,
    shared: &[IndexSpec],
) -> Result<StratumPlan> {
    let stratum = &prog.strata[s];
    let mut out = StratumPlan::default();
    let plan = |out: &mut StratumPlan, rule: &Rule, versions: &[Version]| {
        plan_rule(
            sizes,
            shared,
            &mut out.indexes,
            &mut out.row_sets,
            rule,
            versions,
        )
    };
    for &ri in &stratum.rules {
        let rule = &prog.rules[ri];
        let rec_pos: Vec<usize> = rule
            .body
            .iter()
            .enumerate()
            .filter(|(_, l)| matches!(l, Lit::Atom { rel, .. } if stratum.recursive && stratum.rels.contains(rel)))
            .map(|(i, _)| i)
            .collect();
        if rec_pos.is_empty() {
            let versions = vec![Version::Full; rule.body.len()];
            let p = plan(&mut out, rule, &versions)?;
            out.base.push(p);
        } else {
            for (k, &pos) in rec_pos.iter().enumerate() {
                let mut versions = vec![Version::Full; rule.body.len()];
                for (j, &other) in rec_pos.iter().enumerate() {
                    versions[other] = if j < k { Version::Old } else { Version::Full };
                }
                versions[pos] = Version::Delta;
                let p = plan(&mut out, rule, &versions)?;
                out.rec.push(p);
            }
        }
    }
    for rule in prog.subsumptions.iter() {
        if !stratum.rels.contains(&rule.head_rel) {
            continue;
        }
        let full = vec![Version::Full; rule.body.len()];
        let p = plan(&mut out, rule, &full)?;
        out.subsume.push(p);
        if !stratum.recursive {
            continue;
        }
        // the two compared atoms: the first two (record patterns put their
        // unpack literals after each)
        let pair: Vec<usize> = rule
            .body
            .iter()
            .enumerate()
            .filter(|(_, l)| matches!(l, Lit::Atom { .. }))
            .map(|(i, _)| i)
            .take(2)
            .collect();
        let body_in_stratum = rule.body.iter().enumerate().any(|(i, l)| {
            !pair.contains(&i)
                && matches!(l, Lit::Atom { rel, .. } | Lit::Neg { rel, .. } if stratum.rels.contains(rel))
        });
        if body_in_stratum {
            let p = plan(&mut out, rule, &full)?;
            out.subsume_rec.push(p);
            continue;
        }
        for delta in pair {
            let mut versions = full.clone();
            versions[delta] = Version::Delta;
            let p = plan(&mut out, rule, &versions)?;
            out.subsume_rec.push(p);
        }
    }
    Ok(out)
}

/// Whether an atom has a column that joins with what is bound (a constant alone says little
/// about how many rows match).
fn joins(args: &[Arg], bound: &[bool]) -> bool {
    args.iter().any(|a| match a {
        Arg::Var(v) => bound[*v],
        Arg::Anon => false,
        Arg::Expr(e) => ready(e, bound) && has_var(e),
    })
}

/// Whether `e` reads a variable.
fn has_var(e: &Expr) -> bool {
    let mut vs = Vec::new();
    expr_vars(e, &mut vs);
    !vs.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{parser, sema};

    /// The indexes the stratum deriving `head` asks for, as (relation, columns).
    fn indexes(src: &str, head: &str) -> Vec<(String, Vec<usize>)> {
        indexes_with(src, head, None)
    }

    fn indexes_with(
        src: &str,
        head: &str,
        distinct: Option<&dyn Fn(usize, &[usize]) -> usize>,
    ) -> Vec<(String, Vec<usize>)> {
        let prog = sema::check(&parser::parse_source("t.dl", src).unwrap()).unwrap();
        let h = prog.rel_index[head];
        let s = prog
            .strata
            .iter()
            .position(|s| s.rels.contains(&h))
            .unwrap();
        // `r` large, the others small: the small ones are scanned, `r` is looked up
        let sizes: Vec<usize> = prog
            .rels
            .iter()
            .map(|r| if r.name == "r" { 1000 } else { 10 })
            .collect();
        let sizes = Sizes {
            full: &sizes,
            delta: &sizes,
            distinct,
        };
        let plan = plan_stratum(&prog, s, sizes).unwrap();
        let mut out: Vec<_> = plan
            .indexes
            .iter()
            .map(|ix| (prog.rels[ix.rel].name.clone(), ix.cols.clone()))
            .collect();
        out.sort();
        out
    }

    const DECLS: &str = "
        .decl r(a: number, b: number, c: number)
        .input r
        .decl q(b: number, c: number)
        .input q
        .decl s(b: number)
        .input s
        .decl x(a: number)
        .output x
    ";

    #[test]
    fn a_constant_beside_a_join_is_checked_when_no_plan_shares_its_index() {
        let src = format!("{DECLS} x(A) :- s(B), r(A, B, -1).");
        assert_eq!(indexes(&src, "x"), [("r".to_string(), vec![1])]);
    }

    #[test]
    fn a_constant_beside_a_join_joins_when_another_plan_needs_that_index() {
        let src = format!("{DECLS} x(A) :- s(B), r(A, B, -1). x(A) :- q(B, C), r(A, B, C).");
        // one index serves both: `r(A, B, -1)` reads only the rows at -1
        assert_eq!(indexes(&src, "x"), [("r".to_string(), vec![1, 2])]);
    }

    #[test]
    fn a_lookup_on_a_column_of_one_value_counts_as_no_join() {
        // After the small `s`, both `r` atoms join on one column; the first column of `r`
        // holds one value, so the second atom is looked up first (the first is then a
        // membership test).
        let src = format!("{DECLS} x(A) :- s(C), r(C, A, B), r(B, A, C).");
        let prog = sema::check(&parser::parse_source("t.dl", &src).unwrap()).unwrap();
        let r = prog.rel_index["r"];
        let one_value = move |rel: usize, cols: &[usize]| if rel == r && cols == [0] { 1 } else { 64 };
        assert_eq!(indexes_with(&src, "x", Some(&one_value)), [("r".to_string(), vec![2])]);
        assert_eq!(indexes_with(&src, "x", None), [("r".to_string(), vec![0])]);
    }

}
