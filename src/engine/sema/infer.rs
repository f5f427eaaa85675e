//! Type inference for one clause: every variable gets a base type and, when
//! known, a denotation (the intersection of the types of the atom positions it
//! occurs in); `ty` gives the type of a term and reports type errors.

use std::collections::{BTreeSet, HashMap};

use anyhow::Result;

use super::decls::Decls;
use super::scope::{all_vars, lit_terms};
use super::types::{ETy, Types};
use crate::engine::ast::{AggOp, Atom, BinOp, CmpOp, Literal, Loc, Term, UnOp, err_at};
use crate::engine::ir::{Base, RelInfo};

/// The variables of one clause and what is known of their types.
pub struct Infer<'a> {
    pub rels: &'a [RelInfo],
    pub rel_index: &'a HashMap<String, usize>,
    /// Per relation: the declared type of each column.
    pub rel_types: &'a [Vec<usize>],
    pub types: &'a Types,
    pub var_slots: HashMap<String, usize>,
    pub var_names: Vec<String>,
    /// Location of each variable's first occurrence.
    pub var_locs: Vec<Loc>,
    pub var_ty: Vec<Option<ETy>>,
}

impl<'a> Infer<'a> {
    pub fn new(decls: &'a Decls, types: &'a Types) -> Self {
        Infer {
            rels: &decls.rels,
            rel_index: &decls.rel_index,
            rel_types: &decls.rel_types,
            types,
            var_slots: HashMap::new(),
            var_names: vec![],
            var_locs: vec![],
            var_ty: vec![],
        }
    }

    pub fn slot(&mut self, name: &str, loc: &Loc) -> usize {
        if let Some(&s) = self.var_slots.get(name) {
            return s;
        }
        let s = self.var_names.len();
        self.var_slots.insert(name.to_string(), s);
        self.var_names.push(name.to_string());
        self.var_locs.push(loc.clone());
        self.var_ty.push(None);
        s
    }

    pub fn rel(&self, a: &Atom) -> Result<usize> {
        let r = *self
            .rel_index
            .get(&a.name)
            .ok_or_else(|| err_at(&a.loc, format!("Undefined relation {}", a.name)))?;
        let arity = self.rels[r].types.len();
        if a.args.len() != arity {
            return Err(err_at(
                &a.loc,
                format!(
                    "Mismatching arity of relation {} (declared with {arity}, used with {})",
                    a.name,
                    a.args.len()
                ),
            ));
        }
        Ok(r)
    }

    /// Infer the types of a clause's variables: from the positive atoms they
    /// occur in (aggregate bodies included), then from comparisons between two
    /// variables, then from equalities `x = expr`, to a fixpoint.
    pub fn infer_clause(&mut self, head: &Atom, body: &[Literal]) -> Result<()> {
        // variable types from atoms (everywhere, including aggregate bodies)
        self.collect_atom_types(body)?;
        for t in &head.args {
            self.collect_in_term(t)?;
        }
        // A record-typed head attribute types the variables nothing else has
        // typed yet (`r(c) :- c = [s, nil], site(s)`), as Soufflé infers it.
        let hr = self.rel(head)?;
        for (t, tid) in head.args.iter().zip(self.rel_types[hr].clone()) {
            let fresh = match t {
                Term::Var(v, _) => self
                    .var_slots
                    .get(v)
                    .is_none_or(|s| self.var_ty[*s].is_none()),
                Term::Record(..) | Term::Branch(..) => true,
                _ => false,
            };
            if fresh && matches!(self.types.info[tid].base, Base::Rec(_)) {
                self.collect_pattern(t, tid)?;
            }
        }
        // a comparison between two variables gives them one common type
        let mut pairs = Vec::new();
        gather_cmps(body, &mut pairs);
        for (a, b, l) in pairs {
            let (Some(&sa), Some(&sb)) = (self.var_slots.get(a), self.var_slots.get(b)) else {
                continue;
            };
            if let (Some(ta), Some(tb)) = (&self.var_ty[sa], &self.var_ty[sb])
                && ta.base == tb.base
                && let (Some(da), Some(db)) = (&ta.den, &tb.den)
            {
                let d: BTreeSet<usize> = da.intersection(db).copied().collect();
                if d.is_empty() {
                    return Err(err_at(
                        l,
                        format!(
                            "Unable to deduce type for variable {a}: compared with {b} of a disjoint type"
                        ),
                    ));
                }
                self.var_ty[sa].as_mut().unwrap().den = Some(d.clone());
                self.var_ty[sb].as_mut().unwrap().den = Some(d);
            }
        }
        // types of variables bound by equalities, to a fixpoint
        loop {
            let mut changed = false;
            let mut eqs = Vec::new();
            gather_eqs(body, &mut eqs);
            for t in &head.args {
                gather_eqs_term(t, &mut eqs);
            }
            for (a, b) in eqs {
                // `x = [a, b]`, `$C(y) = x`: both sides take the record type
                if let Some(tid) = self.pattern_tid(a).or(self.pattern_tid(b)) {
                    let typed = self.var_ty.iter().flatten().count();
                    self.collect_pattern(a, tid)?;
                    self.collect_pattern(b, tid)?;
                    changed |= self.var_ty.iter().flatten().count() > typed;
                    continue;
                }
                for (v, e) in [(a, b), (b, a)] {
                    if let Term::Var(name, l) = v {
                        let s = self.slot(name, l);
                        if self.var_ty[s].is_none()
                            && let Ok(t) = self.ty_quiet(e)
                        {
                            self.var_ty[s] = Some(ETy {
                                base: t.base,
                                den: t.den,
                            });
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        // An equality whose expression has typed variables but no type is a
        // type error in that expression, not an ungrounded variable.
        let mut eqs = Vec::new();
        gather_eqs(body, &mut eqs);
        for (a, b) in eqs {
            for (v, e) in [(a, b), (b, a)] {
                if let Term::Var(name, _) = v
                    && self
                        .var_slots
                        .get(name)
                        .is_none_or(|s| self.var_ty[*s].is_none())
                {
                    let mut vs = Vec::new();
                    all_vars(e, &mut vs);
                    let typed = |n: &String| {
                        self.var_slots
                            .get(n)
                            .is_some_and(|s| self.var_ty[*s].is_some())
                    };
                    if vs.iter().all(typed) {
                        self.ty_quiet(e)?;
                    }
                }
            }
        }
        Ok(())
    }

    pub fn collect_atom_types(&mut self, body: &[Literal]) -> Result<()> {
        for l in body {
            match l {
                // Negated atoms are sinks, as in Soufflé: they do not narrow
                // variable types (their kind is checked when lowering).
                Literal::Neg(a) => {
                    self.rel(a)?;
                    for t in &a.args {
                        if !matches!(t, Term::Var(..)) {
                            self.collect_in_term(t)?;
                        }
                    }
                }
                Literal::Pos(a) => {
                    let r = self.rel(a)?;
                    for (i, t) in a.args.iter().enumerate() {
                        self.collect_pattern(t, self.rel_types[r][i])?;
                    }
                }
                other => {
                    for t in lit_terms(other) {
                        self.collect_in_term(t)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Variable `v` occurs where a value of type `tid` is: its type narrows
    /// to the intersection.
    fn narrow(&mut self, v: &str, vl: &Loc, tid: usize) -> Result<()> {
        let s = self.slot(v, vl);
        let info = self.types.info[tid].clone();
        let Some(cur) = &mut self.var_ty[s] else {
            self.var_ty[s] = Some(ETy {
                base: info.base,
                den: Some(info.den),
            });
            return Ok(());
        };
        if cur.base != info.base {
            return Err(err_at(
                vl,
                format!(
                    "Type mismatch: variable {v} is used as {} here but as {} elsewhere",
                    self.types.base_name(info.base),
                    self.types.base_name(cur.base)
                ),
            ));
        }
        let d: BTreeSet<usize> = match &cur.den {
            Some(d) => d.intersection(&info.den).copied().collect(),
            None => info.den,
        };
        if d.is_empty() {
            return Err(err_at(
                vl,
                format!("Unable to deduce type for variable {v}: its uses have disjoint types"),
            ));
        }
        cur.den = Some(d);
        Ok(())
    }

    /// A term where a value of type `tid` is (an atom argument, a record
    /// field): variables take that type, the fields of a record or branch
    /// term their field types. Shape errors are reported when lowering.
    fn collect_pattern(&mut self, t: &Term, tid: usize) -> Result<()> {
        let fields = match (t, self.types.info[tid].base) {
            (Term::Var(v, vl), _) => return self.narrow(v, vl, tid),
            (Term::Record(args, _), Base::Rec(k)) if !self.types.records[k as usize].adt => {
                Some((args, &self.types.record_fields[k as usize][0]))
            }
            (Term::Branch(name, args, _), Base::Rec(k)) => match self.types.branches.get(name) {
                Some((k2, b)) if *k2 == k => {
                    Some((args, &self.types.record_fields[k as usize][*b]))
                }
                _ => None,
            },
            _ => None,
        };
        match fields {
            Some((args, tids)) if args.len() == tids.len() => {
                for (a, f) in args.iter().zip(tids.clone()) {
                    self.collect_pattern(a, f)?;
                }
                Ok(())
            }
            _ => self.collect_in_term(t),
        }
    }

    /// The record type a term has by itself: a typed variable's, a branch's.
    fn pattern_tid(&self, t: &Term) -> Option<usize> {
        match self.definite(t)? {
            Base::Rec(k) => Some(self.types.record_tids[k as usize]),
            _ => None,
        }
    }

    pub fn collect_in_term(&mut self, t: &Term) -> Result<()> {
        match t {
            Term::Agg(agg) => {
                self.collect_atom_types(&agg.body)?;
                if let Some(tg) = &agg.target {
                    self.collect_in_term(tg)?;
                }
            }
            Term::Bin(_, a, b, _) => {
                self.collect_in_term(a)?;
                self.collect_in_term(b)?;
            }
            Term::Un(_, a, _) | Term::As(a, _, _) => self.collect_in_term(a)?,
            Term::Call(_, args, _) | Term::Record(args, _) | Term::Branch(_, args, _) => {
                for a in args {
                    self.collect_in_term(a)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The base a term has regardless of context (None for polymorphic numeric literals).
    pub fn definite(&self, t: &Term) -> Option<Base> {
        match t {
            Term::Var(v, _) => self
                .var_slots
                .get(v)
                .and_then(|s| self.var_ty[*s].as_ref())
                .map(|t| t.base),
            Term::Number(..) => None,
            Term::Unsigned(..) => Some(Base::Uns),
            Term::Float(..) => Some(Base::Flt),
            Term::Str(..) => Some(Base::Sym),
            Term::Anon(_) | Term::Record(..) | Term::Nil(_) => None,
            Term::Branch(name, _, _) => self.types.branches.get(name).map(|(k, _)| Base::Rec(*k)),
            Term::Bin(op, a, b, _) => match op {
                BinOp::Land | BinOp::Lor => self.definite(a).or(self.definite(b)),
                _ => self.definite(a).or(self.definite(b)),
            },
            Term::Un(_, a, _) => self.definite(a),
            Term::Call(name, args, _) => match name.as_str() {
                "cat" | "substr" | "to_string" => Some(Base::Sym),
                "strlen" | "to_number" | "ord" | "autoinc" => Some(Base::Num),
                "to_unsigned" => Some(Base::Uns),
                "to_float" => Some(Base::Flt),
                _ => args.iter().find_map(|a| self.definite(a)),
            },
            Term::As(_, ty, _) => self.types.names.get(ty).map(|t| self.types.info[*t].base),
            Term::Agg(a) => match a.op {
                AggOp::Count => Some(Base::Num),
                AggOp::Mean => Some(Base::Flt),
                _ => a.target.as_ref().and_then(|t| self.definite(t)),
            },
        }
    }

    fn ty_quiet(&self, t: &Term) -> Result<ETy> {
        self.ty(t, None)
    }

    /// The type of a term in a context that expects `expect` (integer literals
    /// adapt to it); reports type errors and unknown variables.
    pub fn ty(&self, t: &Term, expect: Option<Base>) -> Result<ETy> {
        Ok(match t {
            Term::Var(v, l) => {
                let s = self.var_slots.get(v);
                match s.and_then(|s| self.var_ty[*s].clone()) {
                    Some(t) => t,
                    None => return Err(err_at(l, format!("Ungrounded variable {v}"))),
                }
            }
            Term::Anon(l) => return Err(err_at(l, "Underscore in an expression")),
            Term::Number(..) => any(match expect {
                Some(b @ (Base::Num | Base::Uns | Base::Flt)) => b,
                _ => Base::Num,
            }),
            Term::Unsigned(..) => any(Base::Uns),
            Term::Float(..) => any(Base::Flt),
            Term::Str(..) => any(Base::Sym),
            Term::Nil(l) => match expect {
                Some(Base::Rec(k)) if !self.types.records[k as usize].adt => any(Base::Rec(k)),
                Some(b) => {
                    return Err(err_at(
                        l,
                        format!(
                            "Type mismatch: `nil` where {} is expected",
                            self.types.base_name(b)
                        ),
                    ));
                }
                None => return Err(err_at(l, "Unable to deduce the record type of `nil`")),
            },
            Term::Record(args, l) => {
                let k = match expect {
                    Some(Base::Rec(k)) if !self.types.records[k as usize].adt => k,
                    Some(b) => {
                        return Err(err_at(
                            l,
                            format!(
                                "Type mismatch: a record where {} is expected",
                                self.types.base_name(b)
                            ),
                        ));
                    }
                    None => {
                        return Err(err_at(l, "Unable to deduce the record type of this record"));
                    }
                };
                self.ty_fields(k, 0, args, l)?
            }
            Term::Branch(name, args, l) => {
                let (k, b) = *self
                    .types
                    .branches
                    .get(name)
                    .ok_or_else(|| err_at(l, format!("Undefined ADT branch {name}")))?;
                self.ty_fields(k, b, args, l)?
            }
            Term::Bin(op, a, b, l) => self.ty_binary(*op, a, b, l, expect)?,
            Term::Un(op, a, l) => self.ty_unary(*op, a, l, expect)?,
            Term::Call(name, args, l) => self.ty_call(name, args, l, expect)?,
            Term::As(a, ty, l) => {
                let tid = *self
                    .types
                    .names
                    .get(ty)
                    .ok_or_else(|| err_at(l, format!("Undefined type {ty}")))?;
                let info = &self.types.info[tid];
                let ta = self.ty(a, Some(info.base))?;
                if ta.base != info.base {
                    return Err(err_at(
                        l,
                        format!(
                            "`as` cannot convert {} to {} (use to_number/to_string/...)",
                            ta.base.name(),
                            ty
                        ),
                    ));
                }
                ETy {
                    base: info.base,
                    den: Some(info.den.clone()),
                }
            }
            Term::Agg(agg) => match agg.op {
                AggOp::Count => any(Base::Num),
                AggOp::Mean => {
                    let t = self.ty(agg.target.as_ref().unwrap(), Some(Base::Flt))?;
                    if t.base != Base::Flt {
                        return Err(err_at(
                            &agg.loc,
                            format!(
                                "Type mismatch: `mean` needs a float target, found {}",
                                t.base.name()
                            ),
                        ));
                    }
                    any(Base::Flt)
                }
                _ => {
                    let tg = agg.target.as_ref().unwrap();
                    let t = self.ty(tg, expect)?;
                    if matches!(t.base, Base::Sym | Base::Rec(_)) {
                        return Err(err_at(
                            &agg.loc,
                            "Type mismatch: aggregate target must be numeric",
                        ));
                    }
                    any(t.base)
                }
            },
        })
    }

    /// The fields of a record (or of ADT branch `b`) of record type `k`: their
    /// number and types (`_` fits any field: patterns allow it).
    fn ty_fields(&self, k: u32, b: usize, args: &[Term], l: &Loc) -> Result<ETy> {
        let rt = &self.types.records[k as usize];
        let (branch, fields) = &rt.branches[b];
        let what = if rt.adt {
            format!("branch {branch} of {}", rt.name)
        } else {
            format!("record type {}", rt.name)
        };
        if args.len() != fields.len() {
            return Err(err_at(
                l,
                format!(
                    "Wrong number of arguments for {what}: expected {}, found {}",
                    fields.len(),
                    args.len()
                ),
            ));
        }
        for (i, (a, fb)) in args.iter().zip(fields).enumerate() {
            if matches!(a, Term::Anon(_)) {
                continue;
            }
            let t = self.ty(a, Some(*fb))?;
            if t.base != *fb {
                return Err(err_at(
                    a.loc(),
                    format!(
                        "Type mismatch: field {} of {what} is {}, found {}",
                        i + 1,
                        self.types.base_name(*fb),
                        self.types.base_name(t.base)
                    ),
                ));
            }
        }
        Ok(any(Base::Rec(k)))
    }

    /// A binary operator: both operands have one base, on which the operator is defined.
    fn ty_binary(
        &self,
        op: BinOp,
        a: &Term,
        b: &Term,
        l: &Loc,
        expect: Option<Base>,
    ) -> Result<ETy> {
        let base = self
            .definite(a)
            .or(self.definite(b))
            .or(expect.filter(|b| *b != Base::Sym))
            .unwrap_or(Base::Num);
        let ta = self.ty(a, Some(base))?;
        let tb = self.ty(b, Some(base))?;
        if ta.base != tb.base {
            return Err(err_at(
                l,
                format!(
                    "Type mismatch: operands of `{}` are {} and {}",
                    binop_name(op),
                    self.types.base_name(ta.base),
                    self.types.base_name(tb.base)
                ),
            ));
        }
        let ok = match op {
            // Soufflé overloads `+` on symbols as concatenation
            BinOp::Add => matches!(base, Base::Num | Base::Uns | Base::Flt | Base::Sym),
            BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Pow => {
                matches!(base, Base::Num | Base::Uns | Base::Flt)
            }
            _ => matches!(base, Base::Num | Base::Uns),
        };
        if !ok {
            // Soufflé's words, then which operator and type
            return Err(err_at(
                l,
                format!(
                    "no valid overloads: `{}` is not defined on {}",
                    binop_name(op),
                    base.name()
                ),
            ));
        }
        Ok(any(base))
    }

    fn ty_unary(&self, op: UnOp, a: &Term, l: &Loc, expect: Option<Base>) -> Result<ETy> {
        let base = self
            .definite(a)
            .or(expect.filter(|b| *b != Base::Sym))
            .unwrap_or(Base::Num);
        let ta = self.ty(a, Some(base))?;
        let ok = match op {
            UnOp::Neg => matches!(ta.base, Base::Num | Base::Flt),
            _ => matches!(ta.base, Base::Num | Base::Uns),
        };
        if !ok {
            return Err(err_at(
                l,
                format!(
                    "Type mismatch: unary operator `{}` is not defined on {}",
                    match op {
                        UnOp::Neg => "-",
                        UnOp::Bnot => "bnot",
                        UnOp::Lnot => "lnot",
                    },
                    ta.base.name()
                ),
            ));
        }
        Ok(any(ta.base))
    }

    /// A functor call: its arity and the base of each argument.
    fn ty_call(&self, name: &str, args: &[Term], l: &Loc, expect: Option<Base>) -> Result<ETy> {
        let arity_err = |n: &str| Err(err_at(l, format!("functor `{name}` expects {n}")));
        let want = |i: usize, b: Base| self.want_arg(name, args, i, b);
        Ok(match name {
            "cat" => {
                if args.is_empty() {
                    return arity_err("at least one argument");
                }
                for i in 0..args.len() {
                    want(i, Base::Sym)?;
                }
                any(Base::Sym)
            }
            "strlen" => {
                if args.len() != 1 {
                    return arity_err("one argument");
                }
                want(0, Base::Sym)?;
                any(Base::Num)
            }
            "substr" => {
                if args.len() != 3 {
                    return arity_err("three arguments (string, start, length)");
                }
                want(0, Base::Sym)?;
                want(1, Base::Num)?;
                want(2, Base::Num)?;
                any(Base::Sym)
            }
            "ord" | "to_number" | "to_string" | "to_unsigned" | "to_float" => {
                if args.len() != 1 {
                    return arity_err("one argument");
                }
                let from = self.ty(&args[0], None)?.base;
                if matches!(from, Base::Rec(_)) && name != "ord" {
                    return Err(err_at(l, format!("Type mismatch: `{name}` of a record")));
                }
                any(match name {
                    "ord" | "to_number" => Base::Num,
                    "to_string" => Base::Sym,
                    "to_unsigned" => Base::Uns,
                    _ => Base::Flt,
                })
            }
            "autoinc" => {
                if !args.is_empty() {
                    return arity_err("no arguments");
                }
                any(Base::Num)
            }
            "range" => {
                if !(2..=3).contains(&args.len()) {
                    return arity_err("two or three arguments (from, to[, step])");
                }
                let base = args
                    .iter()
                    .find_map(|a| self.definite(a))
                    .or(expect.filter(|b| *b != Base::Sym))
                    .unwrap_or(Base::Num);
                if matches!(base, Base::Sym | Base::Rec(_)) {
                    return Err(err_at(
                        l,
                        format!("Type mismatch: `range` is not defined on {}", base.name()),
                    ));
                }
                for i in 0..args.len() {
                    want(i, base)?;
                }
                any(base)
            }
            "min" | "max" => {
                if args.is_empty() {
                    return arity_err("at least one argument");
                }
                let base = args
                    .iter()
                    .find_map(|a| self.definite(a))
                    .or(expect)
                    .unwrap_or(Base::Num);
                if matches!(base, Base::Rec(_)) {
                    return Err(err_at(l, format!("Type mismatch: `{name}` of records")));
                }
                for i in 0..args.len() {
                    want(i, base)?;
                }
                any(base)
            }
            _ => return Err(err_at(l, format!("unknown functor `{name}`"))),
        })
    }

    /// Argument `i` of functor `name` must have base `b`.
    fn want_arg(&self, name: &str, args: &[Term], i: usize, b: Base) -> Result<()> {
        let t = self.ty(&args[i], Some(b))?;
        if t.base != b {
            return Err(err_at(
                args[i].loc(),
                format!(
                    "Type mismatch: argument {} of `{name}` must be {}, found {}",
                    i + 1,
                    b.name(),
                    t.base.name()
                ),
            ));
        }
        Ok(())
    }
}

/// Any type of base `b`.
fn any(b: Base) -> ETy {
    ETy { base: b, den: None }
}

/// Comparisons between two plain variables (any operator), aggregates included.
fn gather_cmps<'a>(body: &'a [Literal], out: &mut Vec<(&'a str, &'a str, &'a Loc)>) {
    for l in body {
        if let Literal::Cmp(_, Term::Var(a, la), Term::Var(b, _), _) = l {
            out.push((a, b, la));
        }
        for t in lit_terms(l) {
            if let Term::Agg(agg) = t {
                gather_cmps(&agg.body, out);
            }
        }
    }
}

fn gather_eqs<'a>(body: &'a [Literal], out: &mut Vec<(&'a Term, &'a Term)>) {
    for l in body {
        match l {
            Literal::Cmp(CmpOp::Eq, a, b, _) => {
                out.push((a, b));
                gather_eqs_term(a, out);
                gather_eqs_term(b, out);
            }
            other => {
                for t in lit_terms(other) {
                    gather_eqs_term(t, out);
                }
            }
        }
    }
}

fn gather_eqs_term<'a>(t: &'a Term, out: &mut Vec<(&'a Term, &'a Term)>) {
    if let Term::Agg(a) = t {
        gather_eqs(&a.body, out);
    }
}

pub fn binop_name(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Mod => "%",
        BinOp::Pow => "^",
        BinOp::Band => "band",
        BinOp::Bor => "bor",
        BinOp::Bxor => "bxor",
        BinOp::Bshl => "bshl",
        BinOp::Bshr => "bshr",
        BinOp::Land => "land",
        BinOp::Lor => "lor",
        BinOp::Lxor => "lxor",
        BinOp::Bshru => "bshru",
    }
}
