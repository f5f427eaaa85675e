//! Lowering of one clause to the rule IR: checks relation names, arities and
//! types (through `infer`), numbers the variables, interns constants and
//! records the relations the rule depends on.

use anyhow::Result;

use super::decls::Decls;
use super::generators::{is_range, lift_ranges};
use super::infer::Infer;
use super::scope::{all_vars, lit_terms, scope_clause, term_vars_outer, visit_aggs};
use super::types::{ETy, Types};
use crate::engine::ast::{AggOp, Aggregate, Atom, CmpOp, Literal, Loc, Term, err_at};
use crate::engine::ir::{AggIr, Arg, Base, Expr, Lit, Rule};
use crate::engine::storage::Symbols;

/// A relation the rule's body uses: (relation, under negation or an aggregate, where).
pub type Dep = (usize, bool, Loc);

/// Lower the clause `head :- body` (one head of a possibly multi-head clause).
/// Returns the rule and the relations its body depends on.
pub fn lower_clause(
    decls: &Decls,
    types: &Types,
    symbols: &mut Symbols,
    head: &Atom,
    body: &[Literal],
    loc: &Loc,
) -> Result<(Rule, Vec<Dep>)> {
    let mut cx = Lower {
        inf: Infer::new(decls, types),
        symbols,
        deps: vec![],
        unpacks: vec![],
        enclosing: vec![],
    };
    let rule = cx.clause(head, body, loc)?;
    Ok((rule, cx.deps))
}

struct Lower<'a> {
    inf: Infer<'a>,
    symbols: &'a mut Symbols,
    deps: Vec<Dep>,
    /// The `Lit::Unpack`s of the record patterns in the literal being lowered;
    /// they follow it in the body.
    unpacks: Vec<Lit>,
    /// Variables of the aggregates being lowered, at their own level: an
    /// aggregate nested in them reads these (they are not its locals).
    enclosing: Vec<String>,
}

impl Lower<'_> {
    fn clause(&mut self, head: &Atom, body: &[Literal], loc: &Loc) -> Result<Rule> {
        let head_rel = self.inf.rel(head)?;
        let mut head = head.clone();
        let mut body = body.to_vec();
        lift_ranges(&mut head, &mut body);
        scope_clause(&mut head, &mut body);
        for t in &head.args {
            if let Term::Anon(l) = t {
                return Err(err_at(l, "Underscore in head of rule"));
            }
        }
        self.inf.infer_clause(&head, &body)?;
        let lits = self.lower_body(&body)?;
        let head_exprs = self.lower_head(&head, head_rel)?;
        let mut hv = Vec::new();
        for t in &head.args {
            let mut names = Vec::new();
            term_vars_outer(t, &mut names);
            for n in names {
                let s = self.inf.var_slots[&n];
                if !hv.contains(&s) {
                    hv.push(s);
                }
            }
        }
        Ok(Rule {
            head_rel,
            head: head_exprs,
            body: lits,
            var_names: self.inf.var_names.clone(),
            var_locs: self.inf.var_locs.clone(),
            head_vars: hv,
            loc: loc.clone(),
        })
    }

    /// Lower the head's arguments, checking them against the attribute types.
    fn lower_head(&mut self, head: &Atom, head_rel: usize) -> Result<Vec<Expr>> {
        let mut head_exprs = Vec::new();
        let htypes = self.inf.rel_types[head_rel].clone();
        for (i, t) in head.args.iter().enumerate() {
            let want = &self.inf.types.info[htypes[i]];
            let e = self.lower_term(t, Some(want.base))?;
            let et = self.inf.ty(t, Some(want.base))?;
            if et.base != want.base {
                return Err(err_at(
                    t.loc(),
                    format!(
                        "Type mismatch: argument {} of {} has type {}, but the attribute is declared {}",
                        i + 1,
                        head.name,
                        self.inf.types.base_name(et.base),
                        self.inf.types.display[htypes[i]]
                    ),
                ));
            }
            if let (Term::Var(v, l), Some(d)) = (t, &et.den)
                && !d.is_subset(&want.den)
            {
                return Err(err_at(
                    l,
                    format!(
                        "Type mismatch: variable {v} has type {}, which is not a subtype of {} (attribute {} of {})",
                        self.inf.types.show_den(d),
                        self.inf.types.display[htypes[i]],
                        i + 1,
                        head.name
                    ),
                ));
            }
            head_exprs.push(e);
        }
        Ok(head_exprs)
    }

    fn lower_body(&mut self, body: &[Literal]) -> Result<Vec<Lit>> {
        let mut out = Vec::new();
        for l in body {
            out.push(self.lower_lit(l, false)?);
            out.append(&mut self.unpacks);
        }
        Ok(out)
    }

    /// A term matched against a value of base `base`: a record or branch term
    /// becomes a fresh variable whose fields a `Lit::Unpack` binds or checks
    /// (nested patterns nest); other terms are plain arguments.
    fn pattern_arg(&mut self, t: &Term, base: Base) -> Result<Arg> {
        let (Term::Record(args, l) | Term::Branch(_, args, l)) = t else {
            return Ok(match t {
                Term::Var(v, l) => Arg::Var(self.inf.slot(v, l)),
                Term::Anon(_) => Arg::Anon,
                _ => Arg::Expr(self.lower_term(t, Some(base))?),
            });
        };
        let et = self.inf.ty(t, Some(base))?;
        if et.base != base {
            return Err(err_at(
                l,
                format!(
                    "Type mismatch: a value of {} where {} is expected",
                    self.inf.types.base_name(et.base),
                    self.inf.types.base_name(base)
                ),
            ));
        }
        let (tag, field_bases) = self.record_shape(t, base);
        let mut fields: Vec<Arg> = tag.map(|b| Arg::Expr(Expr::Const(b))).into_iter().collect();
        for (a, fb) in args.iter().zip(field_bases) {
            fields.push(self.pattern_arg(a, fb)?);
        }
        let name = format!("record#{}", self.inf.var_names.len());
        let var = self.inf.slot(&name, l);
        self.inf.var_ty[var] = Some(ETy { base, den: None });
        self.unpacks.push(Lit::Unpack {
            var,
            fields,
            loc: l.clone(),
        });
        Ok(Arg::Var(var))
    }

    /// A type-checked record or branch term of record base `base`: the
    /// branch number an ADT value starts with, and the bases of the fields.
    fn record_shape(&self, t: &Term, base: Base) -> (Option<u32>, Vec<Base>) {
        let Base::Rec(k) = base else { unreachable!() };
        let b = match t {
            Term::Branch(name, ..) => Some(self.inf.types.branches[name].1),
            _ => None,
        };
        let fields = &self.inf.types.records[k as usize].branches[b.unwrap_or(0)].1;
        (b.map(|b| b as u32), fields.clone())
    }

    /// An atom's relation and arguments; record terms are patterns in a
    /// positive atom, values (every variable bound) in a negated one.
    fn lower_args(&mut self, a: &Atom, patterns: bool) -> Result<(usize, Vec<Arg>)> {
        let r = self.inf.rel(a)?;
        let mut args = Vec::new();
        for (i, t) in a.args.iter().enumerate() {
            let tid = self.inf.rel_types[r][i];
            let base = self.inf.types.info[tid].base;
            args.push(match t {
                Term::Var(v, l) => Arg::Var(self.inf.slot(v, l)),
                Term::Anon(_) => Arg::Anon,
                Term::Record(..) | Term::Branch(..) if patterns => self.pattern_arg(t, base)?,
                _ => {
                    let et = self.inf.ty(t, Some(base))?;
                    if et.base != base {
                        return Err(err_at(
                            t.loc(),
                            format!(
                                "Type mismatch: argument {} of {} must be {}, found {}",
                                i + 1,
                                a.name,
                                self.inf.types.display[tid],
                                self.inf.types.base_name(et.base)
                            ),
                        ));
                    }
                    Arg::Expr(self.lower_term(t, Some(base))?)
                }
            });
        }
        Ok((r, args))
    }

    fn lower_lit(&mut self, l: &Literal, in_agg: bool) -> Result<Lit> {
        Ok(match l {
            Literal::Pos(a) => {
                let (rel, args) = self.lower_args(a, true)?;
                self.deps.push((rel, in_agg, a.loc.clone()));
                Lit::Atom {
                    rel,
                    args,
                    loc: a.loc.clone(),
                }
            }
            Literal::Neg(a) => {
                let (rel, args) = self.lower_args(a, false)?;
                for (i, t) in a.args.iter().enumerate() {
                    let want = self.inf.rels[rel].types[i];
                    if let Term::Var(v, vl) = t
                        && let Some(ty) = &self.inf.var_ty[self.inf.var_slots[v]]
                        && ty.base != want
                    {
                        return Err(err_at(
                            vl,
                            format!(
                                "Type mismatch: variable {v} is {} but argument {} of {} is {}",
                                ty.base.name(),
                                i + 1,
                                a.name,
                                want.name()
                            ),
                        ));
                    }
                }
                self.deps.push((rel, true, a.loc.clone()));
                Lit::Neg {
                    rel,
                    args,
                    loc: a.loc.clone(),
                }
            }
            Literal::Cmp(CmpOp::Eq, Term::Var(v, vl), call, loc)
            | Literal::Cmp(CmpOp::Eq, call, Term::Var(v, vl), loc)
                if is_range(call) =>
            {
                let base = self.inf.ty(call, None)?.base;
                let var = self.inf.slot(v, vl);
                if self.inf.var_ty[var]
                    .as_ref()
                    .is_some_and(|t| t.base != base)
                {
                    return Err(err_at(
                        loc,
                        "Type mismatch: cannot compare with the range's type",
                    ));
                }
                let Term::Call(_, args, _) = call else {
                    unreachable!()
                };
                let args = args
                    .iter()
                    .map(|a| self.lower_term(a, Some(base)))
                    .collect::<Result<_>>()?;
                Lit::Range {
                    var,
                    base,
                    args,
                    loc: loc.clone(),
                }
            }
            Literal::Cmp(op, a, b, loc) => {
                let base = self.inf.definite(a).or(self.inf.definite(b));
                let untyped = |t: &Term| matches!(t, Term::Record(..) | Term::Nil(_));
                if base.is_none() && (untyped(a) || untyped(b)) {
                    return Err(err_at(
                        loc,
                        "Unable to deduce the record type of this comparison",
                    ));
                }
                let base = base.unwrap_or(Base::Num);
                let record = matches!(base, Base::Rec(_));
                if record && !matches!(op, CmpOp::Eq | CmpOp::Ne) {
                    return Err(err_at(
                        loc,
                        format!(
                            "Type mismatch: records of {} are only compared with `=` and `!=`",
                            self.inf.types.base_name(base)
                        ),
                    ));
                }
                let ta = self.inf.ty(a, Some(base))?;
                let tb = self.inf.ty(b, Some(base))?;
                if ta.base != tb.base {
                    return Err(err_at(
                        loc,
                        format!(
                            "Type mismatch: cannot compare {} with {}",
                            self.inf.types.base_name(ta.base),
                            self.inf.types.base_name(tb.base)
                        ),
                    ));
                }
                if record && *op == CmpOp::Eq {
                    // unification: each side a variable, a value, or a pattern
                    let side = |cx: &mut Self, t: &Term| -> Result<Expr> {
                        Ok(match cx.pattern_arg(t, base)? {
                            Arg::Var(v) => Expr::Var(v),
                            Arg::Expr(e) => e,
                            Arg::Anon => {
                                return Err(err_at(t.loc(), "Underscore in an expression"));
                            }
                        })
                    };
                    return Ok(Lit::Cmp {
                        op: CmpOp::Eq,
                        base,
                        lhs: side(self, a)?,
                        rhs: side(self, b)?,
                        loc: loc.clone(),
                    });
                }
                Lit::Cmp {
                    op: *op,
                    base,
                    lhs: self.lower_term(a, Some(base))?,
                    rhs: self.lower_term(b, Some(base))?,
                    loc: loc.clone(),
                }
            }
            Literal::Contains(neg, a, b, loc) | Literal::Match(neg, a, b, loc) => {
                for t in [a, b] {
                    let tt = self.inf.ty(t, Some(Base::Sym))?;
                    if tt.base != Base::Sym {
                        return Err(err_at(
                            t.loc(),
                            format!("Type mismatch: expected symbol, found {}", tt.base.name()),
                        ));
                    }
                }
                let (x, y) = (
                    self.lower_term(a, Some(Base::Sym))?,
                    self.lower_term(b, Some(Base::Sym))?,
                );
                if matches!(l, Literal::Contains(..)) {
                    Lit::Contains {
                        neg: *neg,
                        sub: x,
                        s: y,
                        loc: loc.clone(),
                    }
                } else {
                    Lit::Match {
                        neg: *neg,
                        re: x,
                        s: y,
                        loc: loc.clone(),
                    }
                }
            }
        })
    }

    fn lower_term(&mut self, t: &Term, expect: Option<Base>) -> Result<Expr> {
        Ok(match t {
            Term::Var(v, l) => {
                let s = self.inf.slot(v, l);
                if self.inf.var_ty[s].is_none() {
                    return Err(err_at(l, format!("Ungrounded variable {v}")));
                }
                Expr::Var(s)
            }
            Term::Anon(l) => return Err(err_at(l, "Underscore in an expression")),
            Term::Number(n, l) => number_const(*n, l, expect)?,
            Term::Unsigned(n, _) => Expr::Const(*n),
            Term::Float(f, _) => Expr::Const(f.to_bits()),
            Term::Str(s, _) => Expr::Const(self.symbols.intern(s)),
            Term::Bin(op, a, b, _) => {
                let base = self.inf.ty(t, expect)?.base;
                if base == Base::Sym {
                    // `+` on symbols, the only operator they have
                    let a = self.lower_term(a, Some(base))?;
                    return Ok(Expr::Cat(vec![a, self.lower_term(b, Some(base))?]));
                }
                Expr::Bin(
                    *op,
                    base,
                    Box::new(self.lower_term(a, Some(base))?),
                    Box::new(self.lower_term(b, Some(base))?),
                )
            }
            Term::Un(op, a, _) => {
                let base = self.inf.ty(t, expect)?.base;
                Expr::Un(*op, base, Box::new(self.lower_term(a, Some(base))?))
            }
            Term::As(a, _, _) => {
                let base = self.inf.ty(t, expect)?.base;
                self.lower_term(a, Some(base))?
            }
            Term::Call(name, args, _) => {
                self.inf.ty(t, expect)?;
                self.lower_call(t, name, args, expect)?
            }
            Term::Agg(agg) => {
                let base = self.inf.ty(t, expect)?.base;
                Expr::Agg(Box::new(self.lower_aggregate(agg, base)?))
            }
            Term::Nil(_) => {
                self.inf.ty(t, expect)?;
                Expr::Const(0)
            }
            Term::Record(args, _) | Term::Branch(_, args, _) => {
                let base = self.inf.ty(t, expect)?.base;
                let (tag, field_bases) = self.record_shape(t, base);
                let mut fields: Vec<Expr> = tag.map(Expr::Const).into_iter().collect();
                for (a, fb) in args.iter().zip(field_bases) {
                    fields.push(self.lower_term(a, Some(fb))?);
                }
                Expr::Rec(fields)
            }
        })
    }

    /// A functor call whose types were checked: `t` is the call itself.
    fn lower_call(
        &mut self,
        t: &Term,
        name: &str,
        args: &[Term],
        expect: Option<Base>,
    ) -> Result<Expr> {
        let mut lowered = Vec::new();
        Ok(match name {
            "cat" => {
                for a in args {
                    lowered.push(self.lower_term(a, Some(Base::Sym))?);
                }
                Expr::Cat(lowered)
            }
            "strlen" => Expr::Strlen(Box::new(self.lower_term(&args[0], Some(Base::Sym))?)),
            "substr" => Expr::Substr(
                Box::new(self.lower_term(&args[0], Some(Base::Sym))?),
                Box::new(self.lower_term(&args[1], Some(Base::Num))?),
                Box::new(self.lower_term(&args[2], Some(Base::Num))?),
            ),
            "ord" => Expr::Ord(Box::new(self.lower_term(&args[0], None)?)),
            "autoinc" => Expr::AutoInc,
            "to_number" | "to_string" | "to_unsigned" | "to_float" => {
                let from = self.inf.ty(&args[0], None)?.base;
                let to = match name {
                    "to_number" => Base::Num,
                    "to_string" => Base::Sym,
                    "to_unsigned" => Base::Uns,
                    _ => Base::Flt,
                };
                let inner = self.lower_term(&args[0], Some(from))?;
                if from == to {
                    inner
                } else {
                    Expr::Conv(from, to, Box::new(inner))
                }
            }
            "range" => {
                return Err(err_at(t.loc(), "`range` outside `x = range(..)`"));
            }
            "min" | "max" => {
                let base = self.inf.ty(t, expect)?.base;
                for a in args {
                    lowered.push(self.lower_term(a, Some(base))?);
                }
                Expr::MinMax(name == "max", base, lowered)
            }
            _ => unreachable!(),
        })
    }

    /// An aggregate whose target has base `base`: its body, target, and local variables.
    fn lower_aggregate(&mut self, agg: &Aggregate, base: Base) -> Result<AggIr> {
        let mut local_vars = self.local_vars(agg, all_vars);
        let distinct = self.local_vars(agg, term_vars_outer);
        let mark = self.enclosing.len();
        for l in &agg.body {
            lit_terms(l)
                .iter()
                .for_each(|t| term_vars_outer(t, &mut self.enclosing));
        }
        // the enclosing literal's record patterns are not this body's (an
        // error ends the whole lowering, so nothing is restored on one)
        let outer_unpacks = std::mem::take(&mut self.unpacks);
        let mut body = Vec::new();
        let mut records = Vec::new();
        for l in &agg.body {
            body.push(self.lower_lit(l, true)?);
            for u in self.unpacks.drain(..) {
                if let Lit::Unpack { var, loc, .. } = &u {
                    records.push((*var, loc.clone()));
                }
                body.push(u);
            }
        }
        let target = match &agg.target {
            Some(tg) => Some(self.lower_term(tg, Some(base))?),
            None => None,
        };
        self.unpacks = outer_unpacks;
        self.enclosing.truncate(mark);
        let atoms: Vec<&Atom> = agg
            .body
            .iter()
            .filter_map(|l| match l {
                Literal::Pos(a) => Some(a),
                _ => None,
            })
            .collect();
        let generates = body.iter().any(|l| matches!(l, Lit::Range { .. }));
        let single_atom = !materialised(agg, &atoms, generates);
        local_vars.extend(records.iter().map(|(v, _)| *v));
        Ok(AggIr {
            op: agg.op,
            base: if agg.op == AggOp::Count {
                Base::Num
            } else {
                base
            },
            target,
            body,
            single_atom,
            local_vars,
            distinct,
        })
    }

    /// The aggregate's local variables that `walk` finds in it: the
    /// names scoping renamed (`x@k`) that no enclosing aggregate shares.
    /// `all_vars` also finds those of nested aggregates; `term_vars_outer`
    /// only this level's, which Soufflé's materialised body keeps (a record
    /// pattern's own variable is not among them).
    fn local_vars(&self, agg: &Aggregate, walk: fn(&Term, &mut Vec<String>)) -> Vec<usize> {
        let mut names = Vec::new();
        for l in &agg.body {
            for t in lit_terms(l) {
                walk(t, &mut names);
            }
        }
        if let Some(tg) = &agg.target {
            walk(tg, &mut names);
        }
        let mut locals = Vec::new();
        for n in names {
            if n.contains('@') && !self.enclosing.contains(&n) {
                let s = self.inf.var_slots[&n];
                if !locals.contains(&s) {
                    locals.push(s);
                }
            }
        }
        locals
    }
}

/// Whether Soufflé materialises the aggregate's body into a relation of its
/// named local variables (so that it aggregates over their distinct
/// bindings): unless the body is one atom without a repeated variable, a
/// nested aggregate or `range`. A body without atoms gets a nullary one.
fn materialised(agg: &Aggregate, atoms: &[&Atom], generates: bool) -> bool {
    let mut nested = false;
    for l in &agg.body {
        lit_terms(l).iter().for_each(|t| visit_aggs(t, &mut nested));
    }
    if let Some(tg) = &agg.target {
        visit_aggs(tg, &mut nested);
    }
    let atom = match atoms {
        [] => return nested || generates,
        [atom] => atom,
        _ => return true,
    };
    let mut names = Vec::new();
    atom.args.iter().for_each(|t| all_vars(t, &mut names));
    let n = names.len();
    names.sort();
    names.dedup();
    nested || generates || names.len() != n
}

/// An integer literal, typed by its context: `number` unless `unsigned` or `float` is expected.
fn number_const(n: i64, l: &Loc, expect: Option<Base>) -> Result<Expr> {
    Ok(match expect {
        Some(Base::Uns) => {
            if n < 0 || n > u32::MAX as i64 {
                return Err(err_at(l, format!("unsigned constant {n} is out of range")));
            }
            Expr::Const(n as u32)
        }
        Some(Base::Flt) => Expr::Const((n as f32).to_bits()),
        _ => {
            if n < i32::MIN as i64 || n > i32::MAX as i64 {
                return Err(err_at(
                    l,
                    format!("number constant {n} does not fit in a 32-bit signed number"),
                ));
            }
            Expr::Const(n as i32 as u32)
        }
    })
}
