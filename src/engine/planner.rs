//! Join planning: orders a rule body and picks an index for every atom.
//!
//! Greedy: after each atom, every filter, negation and equality binding whose
//! variables are bound is placed immediately; the next atom is the delta atom
//! (semi-naive versions) or else the one with the most bound columns (ties:
//! the smaller relation). An atom with bound columns is read through a hash
//! index on exactly those columns; a fully bound atom is a membership test.
//! A body that cannot be ordered has an ungrounded variable: that is the
//! safety check.

use anyhow::Result;

use super::ast::{CmpOp, Loc, err_at};
use super::check::{AggIr, Arg, Base, Expr, Lit, Rule};
use super::storage::Relation;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    Full,
    Delta,
    Old,
}

#[derive(Clone, Debug)]
pub enum Step {
    /// Iterate rows (all, or through index `index` with key values `key`).
    Atom {
        rel: usize,
        version: Version,
        index: Option<usize>,
        key: Vec<Expr>,
        binds: Vec<(usize, usize)>,
        /// Columns that must equal a column bound earlier in the same atom (`R(x, x)`).
        same: Vec<(usize, usize)>,
    },
    /// All columns bound: membership test.
    Member {
        rel: usize,
        version: Version,
        row: Vec<Expr>,
    },
    /// Negation; `index` is used when some columns are `_`.
    Neg {
        rel: usize,
        index: Option<usize>,
        key: Vec<Expr>,
    },
    Cmp {
        op: CmpOp,
        base: Base,
        lhs: Expr,
        rhs: Expr,
    },
    Contains {
        neg: bool,
        sub: Expr,
        s: Expr,
    },
    Match {
        neg: bool,
        re: Expr,
        s: Expr,
    },
    Bind {
        slot: usize,
        expr: Expr,
    },
}

#[derive(Clone, Debug)]
pub struct Plan {
    pub rule: usize,
    pub steps: Vec<Step>,
    pub head_rel: usize,
    pub head: Vec<Expr>,
    pub nvars: usize,
    pub loc: Loc,
}

/// Free (injected) variables of an expression; aggregate-local ones excluded.
pub fn expr_vars(e: &Expr, out: &mut Vec<usize>) {
    match e {
        Expr::Var(v) => out.push(*v),
        Expr::Const(_) => {}
        Expr::Bin(_, _, a, b) => {
            expr_vars(a, out);
            expr_vars(b, out);
        }
        Expr::Un(_, _, a) | Expr::Strlen(a) | Expr::Conv(_, _, a) | Expr::Ord(a) => {
            expr_vars(a, out)
        }
        Expr::Substr(a, b, c) => {
            expr_vars(a, out);
            expr_vars(b, out);
            expr_vars(c, out);
        }
        Expr::Cat(xs) | Expr::MinMax(_, _, xs) => xs.iter().for_each(|x| expr_vars(x, out)),
        Expr::Agg(agg) => {
            let mut inner = Vec::new();
            if let Some(t) = &agg.target {
                expr_vars(t, &mut inner);
            }
            for l in &agg.body {
                lit_vars(l, &mut inner);
            }
            out.extend(inner.into_iter().filter(|v| !agg.local_vars.contains(v)));
        }
    }
}

fn lit_vars(l: &Lit, out: &mut Vec<usize>) {
    match l {
        Lit::Atom { args, .. } | Lit::Neg { args, .. } => {
            for a in args {
                match a {
                    Arg::Var(v) => out.push(*v),
                    Arg::Anon => {}
                    Arg::Expr(e) => expr_vars(e, out),
                }
            }
        }
        Lit::Cmp { lhs, rhs, .. } => {
            expr_vars(lhs, out);
            expr_vars(rhs, out);
        }
        Lit::Contains { sub: a, s: b, .. } | Lit::Match { re: a, s: b, .. } => {
            expr_vars(a, out);
            expr_vars(b, out);
        }
    }
}

fn ready(e: &Expr, bound: &[bool]) -> bool {
    let mut vs = Vec::new();
    expr_vars(e, &mut vs);
    vs.iter().all(|v| bound[*v])
}

/// Atom choice: (is the delta atom, has a bound column, number of bound columns, smaller relation).
type Score = (usize, usize, usize, std::cmp::Reverse<usize>);

pub struct Planner<'a> {
    pub rels: &'a mut [Relation],
    pub rule: &'a Rule,
}

impl Planner<'_> {
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
        let delta_first = versions.iter().position(|v| *v == Version::Delta);
        loop {
            // 1. everything that is ready and does not enumerate
            let mut progress = true;
            while progress {
                progress = false;
                for (i, l) in lits.iter().enumerate() {
                    if done[i] {
                        continue;
                    }
                    if let Some(step) = self.try_filter(l, bound)? {
                        steps.push(step);
                        done[i] = true;
                        progress = true;
                    }
                }
            }
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
                // atoms whose expression arguments are not ready cannot be used yet
                if args
                    .iter()
                    .any(|a| matches!(a, Arg::Expr(e) if !ready(e, bound)))
                {
                    continue;
                }
                // The delta atom goes first whenever it can be evaluated.
                let is_delta = (delta_first == Some(i)) as usize;
                let score = (
                    is_delta,
                    (nb > 0) as usize,
                    nb,
                    std::cmp::Reverse(self.rels[*rel].len()),
                );
                if best.as_ref().is_none_or(|(_, s)| score > *s) {
                    best = Some((i, score));
                }
            }
            let Some((i, _)) = best else { break };
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
        let mut key_cols = Vec::new();
        let mut key = Vec::new();
        let mut binds = Vec::new();
        let mut same = Vec::new();
        let mut newly: Vec<(usize, usize)> = Vec::new();
        for (c, a) in args.iter().enumerate() {
            match a {
                Arg::Var(v) if bound[*v] => {
                    key_cols.push(c);
                    key.push(Expr::Var(*v));
                }
                Arg::Var(v) => {
                    if let Some((c0, _)) = newly.iter().find(|(_, w)| w == v) {
                        same.push((c, *c0));
                    } else {
                        newly.push((c, *v));
                        binds.push((c, *v));
                    }
                }
                Arg::Anon => {}
                Arg::Expr(e) => {
                    key_cols.push(c);
                    key.push(self.plan_expr(e, bound)?);
                }
            }
        }
        for (_, v) in &newly {
            bound[*v] = true;
        }
        if key_cols.len() == args.len() {
            return Ok(Step::Member {
                rel,
                version,
                row: key,
            });
        }
        let index = if key_cols.is_empty() {
            None
        } else {
            Some(self.rels[rel].ensure_index(&key_cols))
        };
        Ok(Step::Atom {
            rel,
            version,
            index,
            key,
            binds,
            same,
        })
    }

    fn try_filter(&mut self, l: &Lit, bound: &mut [bool]) -> Result<Option<Step>> {
        Ok(match l {
            Lit::Atom { .. } => None,
            Lit::Neg { rel, args, .. } => {
                let all_ready = args.iter().all(|a| match a {
                    Arg::Var(v) => bound[*v],
                    Arg::Anon => true,
                    Arg::Expr(e) => ready(e, bound),
                });
                if !all_ready {
                    return Ok(None);
                }
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
                let index = if cols.len() == args.len() {
                    None
                } else {
                    Some(self.rels[*rel].ensure_index(&cols))
                };
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
                } else if *op == CmpOp::Eq {
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

    /// Plan the aggregates inside an expression (their bodies become step lists).
    fn plan_expr(&mut self, e: &Expr, bound: &[bool]) -> Result<Expr> {
        Ok(match e {
            Expr::Agg(agg) => {
                let mut inner_bound = bound.to_vec();
                let versions = vec![Version::Full; agg.body.len()];
                let steps = self.plan_body(&agg.body, &versions, &mut inner_bound)?;
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
                Expr::Agg(Box::new(AggIr {
                    target,
                    plan: steps,
                    ..(**agg).clone()
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
            Expr::Var(_) | Expr::Const(_) => e.clone(),
        })
    }
}

fn lit_loc(l: &Lit) -> &Loc {
    match l {
        Lit::Atom { loc, .. }
        | Lit::Neg { loc, .. }
        | Lit::Cmp { loc, .. }
        | Lit::Contains { loc, .. }
        | Lit::Match { loc, .. } => loc,
    }
}

/// Aggregate-local variables carry an internal `@k` suffix; hide it.
pub fn display_var(name: &str) -> &str {
    name.split('@').next().unwrap_or(name)
}

/// Plan one version of a rule. `versions[i]` applies to body literal `i`.
pub fn plan_rule(
    rels: &mut [Relation],
    rule: &Rule,
    rule_id: usize,
    versions: &[Version],
) -> Result<Plan> {
    let mut p = Planner { rels, rule };
    let mut bound = vec![false; rule.var_names.len()];
    let steps = p.plan_body(&rule.body, versions, &mut bound)?;
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
        rule: rule_id,
        steps,
        head_rel: rule.head_rel,
        head,
        nvars: rule.var_names.len(),
        loc: rule.loc.clone(),
    })
}
