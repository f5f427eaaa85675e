//! Semantic checks and lowering: name resolution, arity, types, aggregate
//! scoping, stratification. Produces the typed rule IR that the planner uses.
//! Groundedness (safety) is checked by the planner, which must order the body anyway.

use std::collections::{BTreeSet, HashMap, HashSet};

use anyhow::{Result, anyhow};

use super::ast::{
    self, AggOp, BinOp, CmpOp, IoDirective, IoKind, Literal, Loc, Source, Term, TypeDef, UnOp,
    err_at,
};
use super::storage::Symbols;

/// The four primitive value domains; every user type has one of them as base.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    Sym,
    Num,
    Uns,
    Flt,
}

impl Base {
    pub fn name(self) -> &'static str {
        match self {
            Base::Sym => "symbol",
            Base::Num => "number",
            Base::Uns => "unsigned",
            Base::Flt => "float",
        }
    }
}

#[derive(Clone, Debug)]
pub struct RelInfo {
    pub name: String,
    pub attr_names: Vec<String>,
    pub types: Vec<Base>,
    pub type_names: Vec<String>,
    pub loc: Loc,
    pub inputs: Vec<IoDirective>,
    pub outputs: Vec<IoDirective>,
    pub printsize: bool,
}

#[derive(Clone, Debug)]
pub enum Expr {
    Var(usize),
    Const(u32),
    Bin(BinOp, Base, Box<Expr>, Box<Expr>),
    Un(UnOp, Base, Box<Expr>),
    Cat(Vec<Expr>),
    Strlen(Box<Expr>),
    Substr(Box<Expr>, Box<Expr>, Box<Expr>),
    /// Conversion between bases (`to_number`, `to_string`, `to_float`, `to_unsigned`).
    Conv(Base, Base, Box<Expr>),
    /// `ord(x)`: the raw value.
    Ord(Box<Expr>),
    /// n-ary `min`/`max` functor (`true` = max).
    MinMax(bool, Base, Vec<Expr>),
    Agg(Box<AggIr>),
}

#[derive(Clone, Debug)]
pub struct AggIr {
    pub op: AggOp,
    /// Base of the target (Num for count).
    pub base: Base,
    pub target: Option<Expr>,
    pub body: Vec<Lit>,
    /// Aggregate over the tuples of its single atom (true) or over distinct
    /// bindings of `local_vars` (false), as Soufflé does.
    pub single_atom: bool,
    pub local_vars: Vec<usize>,
    pub loc: Loc,
    /// Filled in by the planner: the ordered body.
    pub plan: Vec<super::planner::Step>,
}

#[derive(Clone, Debug)]
pub enum Arg {
    Var(usize),
    Anon,
    Expr(Expr),
}

#[derive(Clone, Debug)]
pub enum Lit {
    Atom {
        rel: usize,
        args: Vec<Arg>,
        loc: Loc,
    },
    Neg {
        rel: usize,
        args: Vec<Arg>,
        loc: Loc,
    },
    Cmp {
        op: CmpOp,
        base: Base,
        lhs: Expr,
        rhs: Expr,
        loc: Loc,
    },
    Contains {
        neg: bool,
        sub: Expr,
        s: Expr,
        loc: Loc,
    },
    Match {
        neg: bool,
        re: Expr,
        s: Expr,
        loc: Loc,
    },
}

#[derive(Clone, Debug)]
pub struct Rule {
    pub head_rel: usize,
    pub head: Vec<Expr>,
    pub body: Vec<Lit>,
    pub var_names: Vec<String>,
    /// Location of each variable's first occurrence (for error messages).
    pub var_locs: Vec<Loc>,
    /// Variables that must be bound by the body (those used in the head).
    pub head_vars: Vec<usize>,
    pub loc: Loc,
}

#[derive(Clone, Debug)]
pub struct Stratum {
    pub rels: Vec<usize>,
    pub rules: Vec<usize>,
    pub recursive: bool,
}

#[derive(Clone, Debug)]
pub struct Checked {
    pub rels: Vec<RelInfo>,
    pub rel_index: HashMap<String, usize>,
    pub rules: Vec<Rule>,
    pub strata: Vec<Stratum>,
    pub symbols: Symbols,
    /// Per relation: whether an output depends on it (see `needed_relations`).
    pub needed: Vec<bool>,
}

// ---------------------------------------------------------------- types

#[derive(Clone, Debug)]
struct TypeInfo {
    base: Base,
    den: BTreeSet<usize>,
}

struct Types {
    names: HashMap<String, usize>,
    info: Vec<TypeInfo>,
    display: Vec<String>,
}

impl Types {
    fn build(src: &Source) -> Result<Types> {
        let prims = [
            ("symbol", Base::Sym),
            ("number", Base::Num),
            ("unsigned", Base::Uns),
            ("float", Base::Flt),
        ];
        let mut names = HashMap::new();
        let mut display = Vec::new();
        for (i, (n, _)) in prims.iter().enumerate() {
            names.insert(n.to_string(), i);
            display.push(n.to_string());
        }
        for t in &src.types {
            if names.contains_key(&t.name) {
                return Err(err_at(&t.loc, format!("Redefinition of type {}", t.name)));
            }
            names.insert(t.name.clone(), display.len());
            display.push(t.name.clone());
        }
        let n = display.len();
        // parent edges: child -> what it is a subset of / union members
        let mut subset_of: Vec<Option<usize>> = vec![None; n];
        let mut members: Vec<Vec<usize>> = vec![vec![]; n];
        for (k, t) in src.types.iter().enumerate() {
            let id = 4 + k;
            let look = |name: &str| {
                names
                    .get(name)
                    .copied()
                    .ok_or_else(|| err_at(&t.loc, format!("Undefined type {name}")))
            };
            match &t.def {
                TypeDef::Subset(p) => subset_of[id] = Some(look(p)?),
                TypeDef::Union(ms) => {
                    for m in ms {
                        members[id].push(look(m)?);
                    }
                }
            }
        }
        // denotation: own atom (for primitives and subset types) + subsets below + union members
        let mut den: Vec<Option<BTreeSet<usize>>> = vec![None; n];
        let mut base: Vec<Option<Base>> = vec![None; n];
        for (i, (_, b)) in prims.iter().enumerate() {
            base[i] = Some(*b);
        }
        fn compute(
            t: usize,
            subset_of: &[Option<usize>],
            members: &[Vec<usize>],
            den: &mut Vec<Option<BTreeSet<usize>>>,
            visiting: &mut Vec<bool>,
        ) -> Option<BTreeSet<usize>> {
            if let Some(d) = &den[t] {
                return Some(d.clone());
            }
            if visiting[t] {
                return None;
            }
            visiting[t] = true;
            let mut d = BTreeSet::new();
            if members[t].is_empty() {
                d.insert(t);
            }
            for m in &members[t] {
                d.extend(compute(*m, subset_of, members, den, visiting)?);
            }
            for (c, p) in subset_of.iter().enumerate() {
                if *p == Some(t) {
                    d.extend(compute(c, subset_of, members, den, visiting)?);
                }
            }
            visiting[t] = false;
            den[t] = Some(d.clone());
            Some(d)
        }
        #[allow(clippy::needless_range_loop)]
        for t in 0..n {
            let mut visiting = vec![false; n];
            if compute(t, &subset_of, &members, &mut den, &mut visiting).is_none() {
                return Err(err_at(
                    &src.types[t - 4].loc,
                    format!("cyclic type definition of {}", display[t]),
                ));
            }
        }
        fn base_of(
            t: usize,
            subset_of: &[Option<usize>],
            members: &[Vec<usize>],
            base: &mut Vec<Option<Base>>,
            depth: usize,
        ) -> Option<Base> {
            if let Some(b) = base[t] {
                return Some(b);
            }
            if depth > 1000 {
                return None;
            }
            let b = if let Some(p) = subset_of[t] {
                base_of(p, subset_of, members, base, depth + 1)
            } else {
                base_of(members[t][0], subset_of, members, base, depth + 1)
            };
            base[t] = b;
            b
        }
        for t in 4..n {
            let b = base_of(t, &subset_of, &members, &mut base, 0);
            let decl = &src.types[t - 4];
            let Some(b) = b else {
                return Err(err_at(
                    &decl.loc,
                    format!("cyclic type definition of {}", display[t]),
                ));
            };
            for m in &members[t] {
                if base_of(*m, &subset_of, &members, &mut base, 0) != Some(b) {
                    return Err(err_at(
                        &decl.loc,
                        format!(
                            "Union type {} mixes base types ({} and {})",
                            display[t], display[members[t][0]], display[*m]
                        ),
                    ));
                }
            }
        }
        let info = (0..n)
            .map(|t| TypeInfo {
                base: base[t].unwrap(),
                den: den[t].clone().unwrap(),
            })
            .collect();
        Ok(Types {
            names,
            info,
            display,
        })
    }
}

// ---------------------------------------------------------------- checking

/// Expression type: base plus, when known, the set of type atoms (None = any type of that base).
#[derive(Clone, Debug)]
struct ETy {
    base: Base,
    den: Option<BTreeSet<usize>>,
}

struct ClauseCx<'a> {
    rels: &'a [RelInfo],
    rel_index: &'a HashMap<String, usize>,
    rel_types: &'a [Vec<usize>],
    types: &'a Types,
    symbols: &'a mut Symbols,
    var_slots: HashMap<String, usize>,
    var_names: Vec<String>,
    var_locs: Vec<Loc>,
    var_ty: Vec<Option<ETy>>,
    fresh: usize,
    /// Relations used in the body: (rel, negative-or-aggregate, loc).
    deps: Vec<(usize, bool, Loc)>,
}

pub fn check(src: &Source) -> Result<Checked> {
    let types = Types::build(src)?;
    let mut rels: Vec<RelInfo> = Vec::new();
    let mut rel_index = HashMap::new();
    let mut rel_types: Vec<Vec<usize>> = Vec::new();
    for d in &src.decls {
        if let Some(&prev) = rel_index.get(&d.name) {
            let prev: &RelInfo = &rels[prev];
            return Err(err_at(
                &d.loc,
                format!(
                    "Redefinition of relation {} (first declared at {})",
                    d.name, prev.loc
                ),
            ));
        }
        let mut tys = Vec::new();
        let mut seen = HashSet::new();
        for a in &d.attrs {
            if !seen.insert(a.name.clone()) {
                return Err(err_at(
                    &a.loc,
                    format!(
                        "Doubly defined attribute name {} in relation {}",
                        a.name, d.name
                    ),
                ));
            }
            let t = *types.names.get(&a.ty).ok_or_else(|| {
                err_at(
                    &a.loc,
                    format!("Undefined type in attribute {}:{}", a.name, a.ty),
                )
            })?;
            tys.push(t);
        }
        rel_index.insert(d.name.clone(), rels.len());
        rels.push(RelInfo {
            name: d.name.clone(),
            attr_names: d.attrs.iter().map(|a| a.name.clone()).collect(),
            types: tys.iter().map(|t| types.info[*t].base).collect(),
            type_names: d.attrs.iter().map(|a| a.ty.clone()).collect(),
            loc: d.loc.clone(),
            inputs: vec![],
            outputs: vec![],
            printsize: false,
        });
        rel_types.push(tys);
    }
    for io in &src.ios {
        let r = *rel_index
            .get(&io.rel)
            .ok_or_else(|| err_at(&io.loc, format!("Undefined relation {}", io.rel)))?;
        super::io::validate_params(io)?;
        match io.kind {
            IoKind::Input => rels[r].inputs.push(io.clone()),
            IoKind::Output => rels[r].outputs.push(io.clone()),
            IoKind::PrintSize => rels[r].printsize = true,
        }
    }
    let mut symbols = Symbols::default();
    let mut rules = Vec::new();
    let mut edges: Vec<(usize, usize, bool, Loc)> = Vec::new();
    for clause in &src.clauses {
        for head in &clause.heads {
            let mut cx = ClauseCx {
                rels: &rels,
                rel_index: &rel_index,
                rel_types: &rel_types,
                types: &types,
                symbols: &mut symbols,
                var_slots: HashMap::new(),
                var_names: vec![],
                var_locs: vec![],
                var_ty: vec![],
                fresh: 0,
                deps: vec![],
            };
            let rule = cx.lower_clause(head, &clause.body, &clause.loc)?;
            for (r, neg, loc) in cx.deps {
                edges.push((r, rule.head_rel, neg, loc));
            }
            rules.push(rule);
        }
    }
    let strata = stratify(&rels, &rules, &edges)?;
    let needed = needed_relations(&rels, &edges);
    Ok(Checked {
        rels,
        rel_index,
        rules,
        strata,
        symbols,
        needed,
    })
}

/// Relations some output or `.printsize` relation depends on, directly or through rules.
/// Like Soufflé, inputs outside this set are never read (their files need not exist).
fn needed_relations(rels: &[RelInfo], edges: &[(usize, usize, bool, Loc)]) -> Vec<bool> {
    let mut feeds: Vec<Vec<usize>> = vec![Vec::new(); rels.len()];
    for (from, to, _, _) in edges {
        feeds[*to].push(*from);
    }
    let mut needed = vec![false; rels.len()];
    let mut work: Vec<usize> = (0..rels.len())
        .filter(|&r| !rels[r].outputs.is_empty() || rels[r].printsize)
        .collect();
    while let Some(r) = work.pop() {
        if !std::mem::replace(&mut needed[r], true) {
            work.extend(feeds[r].iter().copied());
        }
    }
    needed
}

/// Collect variable names of a term, not descending into aggregates.
fn term_vars_outer(t: &Term, out: &mut Vec<String>) {
    match t {
        Term::Var(v, _) => out.push(v.clone()),
        Term::Bin(_, a, b, _) => {
            term_vars_outer(a, out);
            term_vars_outer(b, out);
        }
        Term::Un(_, a, _) | Term::As(a, _, _) => term_vars_outer(a, out),
        Term::Call(_, args, _) => args.iter().for_each(|a| term_vars_outer(a, out)),
        _ => {}
    }
}

fn lit_terms(l: &Literal) -> Vec<&Term> {
    match l {
        Literal::Pos(a) | Literal::Neg(a) => a.args.iter().collect(),
        Literal::Cmp(_, a, b, _) | Literal::Contains(_, a, b, _) | Literal::Match(_, a, b, _) => {
            vec![a, b]
        }
    }
}

fn lit_terms_mut(l: &mut Literal) -> Vec<&mut Term> {
    match l {
        Literal::Pos(a) | Literal::Neg(a) => a.args.iter_mut().collect(),
        Literal::Cmp(_, a, b, _) | Literal::Contains(_, a, b, _) | Literal::Match(_, a, b, _) => {
            vec![a, b]
        }
    }
}

/// Rename every variable in a term (aggregates included) via `f`.
fn rename_term(t: &mut Term, f: &dyn Fn(&str) -> Option<String>) {
    match t {
        Term::Var(v, _) => {
            if let Some(n) = f(v) {
                *v = n;
            }
        }
        Term::Bin(_, a, b, _) => {
            rename_term(a, f);
            rename_term(b, f);
        }
        Term::Un(_, a, _) | Term::As(a, _, _) => rename_term(a, f),
        Term::Call(_, args, _) => args.iter_mut().for_each(|a| rename_term(a, f)),
        Term::Agg(agg) => {
            if let Some(tg) = &mut agg.target {
                rename_term(tg, f);
            }
            for l in &mut agg.body {
                for t in lit_terms_mut(l) {
                    rename_term(t, f);
                }
            }
        }
        _ => {}
    }
}

fn all_vars(t: &Term, out: &mut Vec<String>) {
    match t {
        Term::Var(v, _) => out.push(v.clone()),
        Term::Bin(_, a, b, _) => {
            all_vars(a, out);
            all_vars(b, out);
        }
        Term::Un(_, a, _) | Term::As(a, _, _) => all_vars(a, out),
        Term::Call(_, args, _) => args.iter().for_each(|a| all_vars(a, out)),
        Term::Agg(agg) => {
            if let Some(tg) = &agg.target {
                all_vars(tg, out);
            }
            for l in &agg.body {
                for t in lit_terms(l) {
                    all_vars(t, out);
                }
            }
        }
        _ => {}
    }
}

impl ClauseCx<'_> {
    fn slot(&mut self, name: &str, loc: &Loc) -> usize {
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

    fn rel(&self, a: &ast::Atom) -> Result<usize> {
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

    /// Make aggregate-local variable names unique, so that two aggregates (or an
    /// aggregate and nothing outside) never share a variable by accident.
    fn scope_aggregates(&mut self, terms: Vec<&mut Term>, outer: &HashSet<String>) {
        for t in terms {
            self.scope_term(t, outer);
        }
    }

    fn scope_term(&mut self, t: &mut Term, outer: &HashSet<String>) {
        match t {
            Term::Agg(agg) => {
                self.fresh += 1;
                let k = self.fresh;
                let outer2 = outer.clone();
                let f = move |v: &str| {
                    if outer2.contains(v) {
                        None
                    } else {
                        Some(format!("{v}@{k}"))
                    }
                };
                // rename this level's locals (nested aggregates are renamed too; they get their own suffix below)
                let mut tmp = Term::Agg(agg.clone());
                rename_term(&mut tmp, &f);
                let Term::Agg(mut renamed) = tmp else {
                    unreachable!()
                };
                // locals visible in this aggregate's body become "outer" for nested ones
                let mut inner_outer = outer.clone();
                let mut names = Vec::new();
                if let Some(tg) = &renamed.target {
                    term_vars_outer(tg, &mut names);
                }
                for l in &renamed.body {
                    for t in lit_terms(l) {
                        term_vars_outer(t, &mut names);
                    }
                }
                inner_outer.extend(names);
                if let Some(tg) = &mut renamed.target {
                    self.scope_term(tg, &inner_outer);
                }
                for l in &mut renamed.body {
                    for t in lit_terms_mut(l) {
                        self.scope_term(t, &inner_outer);
                    }
                }
                *agg = renamed;
            }
            Term::Bin(_, a, b, _) => {
                self.scope_term(a, outer);
                self.scope_term(b, outer);
            }
            Term::Un(_, a, _) | Term::As(a, _, _) => self.scope_term(a, outer),
            Term::Call(_, args, _) => args.iter_mut().for_each(|a| self.scope_term(a, outer)),
            _ => {}
        }
    }

    fn lower_clause(&mut self, head: &ast::Atom, body: &[Literal], loc: &Loc) -> Result<Rule> {
        let head_rel = self.rel(head)?;
        let mut head = head.clone();
        let mut body = body.to_vec();
        // 1. aggregate scoping
        let mut outer_names = Vec::new();
        for t in &head.args {
            term_vars_outer(t, &mut outer_names);
        }
        for l in &body {
            for t in lit_terms(l) {
                term_vars_outer(t, &mut outer_names);
            }
        }
        let outer: HashSet<String> = outer_names.into_iter().collect();
        self.scope_aggregates(head.args.iter_mut().collect(), &outer);
        for l in &mut body {
            let ts = lit_terms_mut(l);
            self.scope_aggregates(ts, &outer);
        }
        // 2. variable types from atoms (everywhere, including aggregate bodies)
        for t in &head.args {
            if let Term::Anon(l) = t {
                return Err(err_at(l, "Underscore in head of rule"));
            }
        }
        self.collect_atom_types(&body)?;
        for t in &head.args {
            self.collect_in_term(t)?;
        }
        // 2b. a comparison between two variables gives them one common type
        let mut pairs = Vec::new();
        gather_cmps(&body, &mut pairs);
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
        // 3. types of variables bound by equalities, to a fixpoint
        loop {
            let mut changed = false;
            let mut eqs = Vec::new();
            gather_eqs(&body, &mut eqs);
            for t in &head.args {
                gather_eqs_term(t, &mut eqs);
            }
            for (a, b) in eqs {
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
        // 4. lower
        let lits = self.lower_body(&body)?;
        let mut head_exprs = Vec::new();
        let htypes = self.rel_types[head_rel].clone();
        for (i, t) in head.args.iter().enumerate() {
            let want = &self.types.info[htypes[i]];
            let e = self.lower_term(t, Some(want.base))?;
            let et = self.ty(t, Some(want.base))?;
            if et.base != want.base {
                return Err(err_at(
                    t.loc(),
                    format!(
                        "Type mismatch: argument {} of {} has type {}, but the attribute is declared {}",
                        i + 1,
                        head.name,
                        et.base.name(),
                        self.types.display[htypes[i]]
                    ),
                ));
            }
            if let (Term::Var(v, l), Some(d)) = (t, &et.den)
                && !d.is_subset(&want.den)
            {
                {
                    return Err(err_at(
                        l,
                        format!(
                            "Type mismatch: variable {v} has type {}, which is not a subtype of {} (attribute {} of {})",
                            self.show_den(d),
                            self.types.display[htypes[i]],
                            i + 1,
                            head.name
                        ),
                    ));
                }
            }
            head_exprs.push(e);
        }
        let mut hv = Vec::new();
        for t in &head.args {
            let mut names = Vec::new();
            term_vars_outer(t, &mut names);
            for n in names {
                let s = self.var_slots[&n];
                if !hv.contains(&s) {
                    hv.push(s);
                }
            }
        }
        Ok(Rule {
            head_rel,
            head: head_exprs,
            body: lits,
            var_names: self.var_names.clone(),
            var_locs: self.var_locs.clone(),
            head_vars: hv,
            loc: loc.clone(),
        })
    }

    fn show_den(&self, d: &BTreeSet<usize>) -> String {
        // name the smallest declared type with exactly this denotation, if any
        for (i, t) in self.types.info.iter().enumerate() {
            if &t.den == d {
                return self.types.display[i].clone();
            }
        }
        let names: Vec<_> = d.iter().map(|i| self.types.display[*i].clone()).collect();
        names.join(" | ")
    }

    fn collect_atom_types(&mut self, body: &[Literal]) -> Result<()> {
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
                        let tid = self.rel_types[r][i];
                        if let Term::Var(v, vl) = t {
                            let s = self.slot(v, vl);
                            let info = self.types.info[tid].clone();
                            match &mut self.var_ty[s] {
                                None => {
                                    self.var_ty[s] = Some(ETy {
                                        base: info.base,
                                        den: Some(info.den),
                                    })
                                }
                                Some(cur) => {
                                    if cur.base != info.base {
                                        return Err(err_at(
                                            vl,
                                            format!(
                                                "Type mismatch: variable {v} is used as {} here but as {} elsewhere",
                                                info.base.name(),
                                                cur.base.name()
                                            ),
                                        ));
                                    }
                                    let d: BTreeSet<usize> = cur
                                        .den
                                        .as_ref()
                                        .unwrap()
                                        .intersection(&info.den)
                                        .copied()
                                        .collect();
                                    if d.is_empty() {
                                        return Err(err_at(
                                            vl,
                                            format!(
                                                "Unable to deduce type for variable {v}: its uses have disjoint types"
                                            ),
                                        ));
                                    }
                                    cur.den = Some(d);
                                }
                            }
                        } else {
                            self.collect_in_term(t)?;
                        }
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

    fn collect_in_term(&mut self, t: &Term) -> Result<()> {
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
            Term::Call(_, args, _) => {
                for a in args {
                    self.collect_in_term(a)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The base a term has regardless of context (None for polymorphic numeric literals).
    fn definite(&self, t: &Term) -> Option<Base> {
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
            Term::Anon(_) => None,
            Term::Bin(op, a, b, _) => match op {
                BinOp::Land | BinOp::Lor => self.definite(a).or(self.definite(b)),
                _ => self.definite(a).or(self.definite(b)),
            },
            Term::Un(_, a, _) => self.definite(a),
            Term::Call(name, args, _) => match name.as_str() {
                "cat" | "substr" | "to_string" => Some(Base::Sym),
                "strlen" | "to_number" | "ord" => Some(Base::Num),
                "to_unsigned" => Some(Base::Uns),
                "to_float" => Some(Base::Flt),
                _ => args.iter().find_map(|a| self.definite(a)),
            },
            Term::As(_, ty, _) => self.types.names.get(ty).map(|t| self.types.info[*t].base),
            Term::Agg(a) => match a.op {
                AggOp::Count => Some(Base::Num),
                _ => a.target.as_ref().and_then(|t| self.definite(t)),
            },
        }
    }

    fn ty_quiet(&self, t: &Term) -> Result<ETy> {
        self.ty(t, None)
    }

    fn ty(&self, t: &Term, expect: Option<Base>) -> Result<ETy> {
        let any = |b| ETy { base: b, den: None };
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
            Term::Bin(op, a, b, l) => {
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
                            binop_name(*op),
                            ta.base.name(),
                            tb.base.name()
                        ),
                    ));
                }
                let ok = match op {
                    BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Pow => {
                        base != Base::Sym
                    }
                    _ => matches!(base, Base::Num | Base::Uns),
                };
                if !ok {
                    return Err(err_at(
                        l,
                        format!(
                            "Type mismatch: `{}` is not defined on {}",
                            binop_name(*op),
                            base.name()
                        ),
                    ));
                }
                any(base)
            }
            Term::Un(op, a, l) => {
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
                            "Type mismatch: unary operator is not defined on {}",
                            ta.base.name()
                        ),
                    ));
                }
                any(ta.base)
            }
            Term::Call(name, args, l) => {
                let arity_err = |n: &str| Err(err_at(l, format!("functor `{name}` expects {n}")));
                let want = |i: usize, b: Base| -> Result<()> {
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
                };
                match name.as_str() {
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
                        self.ty(&args[0], None)?;
                        any(match name.as_str() {
                            "ord" | "to_number" => Base::Num,
                            "to_string" => Base::Sym,
                            "to_unsigned" => Base::Uns,
                            _ => Base::Flt,
                        })
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
                        for i in 0..args.len() {
                            want(i, base)?;
                        }
                        any(base)
                    }
                    _ => return Err(err_at(l, format!("unknown functor `{name}`"))),
                }
            }
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
                _ => {
                    let tg = agg.target.as_ref().unwrap();
                    let t = self.ty(tg, expect)?;
                    if t.base == Base::Sym {
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

    fn lower_body(&mut self, body: &[Literal]) -> Result<Vec<Lit>> {
        let mut out = Vec::new();
        for l in body {
            out.push(self.lower_lit(l, false)?);
        }
        Ok(out)
    }

    fn lower_args(&mut self, a: &ast::Atom) -> Result<(usize, Vec<Arg>)> {
        let r = self.rel(a)?;
        let mut args = Vec::new();
        for (i, t) in a.args.iter().enumerate() {
            let tid = self.rel_types[r][i];
            let base = self.types.info[tid].base;
            args.push(match t {
                Term::Var(v, l) => Arg::Var(self.slot(v, l)),
                Term::Anon(_) => Arg::Anon,
                _ => {
                    let et = self.ty(t, Some(base))?;
                    if et.base != base {
                        return Err(err_at(
                            t.loc(),
                            format!(
                                "Type mismatch: argument {} of {} must be {}, found {}",
                                i + 1,
                                a.name,
                                self.types.display[tid],
                                et.base.name()
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
                let (rel, args) = self.lower_args(a)?;
                self.deps.push((rel, in_agg, a.loc.clone()));
                Lit::Atom {
                    rel,
                    args,
                    loc: a.loc.clone(),
                }
            }
            Literal::Neg(a) => {
                let (rel, args) = self.lower_args(a)?;
                for (i, t) in a.args.iter().enumerate() {
                    let want = self.rels[rel].types[i];
                    if let Term::Var(v, vl) = t
                        && let Some(ty) = &self.var_ty[self.var_slots[v]]
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
            Literal::Cmp(op, a, b, loc) => {
                let base = self.definite(a).or(self.definite(b)).unwrap_or(Base::Num);
                let ta = self.ty(a, Some(base))?;
                let tb = self.ty(b, Some(base))?;
                if ta.base != tb.base {
                    return Err(err_at(
                        loc,
                        format!(
                            "Type mismatch: cannot compare {} with {}",
                            ta.base.name(),
                            tb.base.name()
                        ),
                    ));
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
                    let tt = self.ty(t, Some(Base::Sym))?;
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
                let s = self.slot(v, l);
                if self.var_ty[s].is_none() {
                    return Err(err_at(l, format!("Ungrounded variable {v}")));
                }
                Expr::Var(s)
            }
            Term::Anon(l) => return Err(err_at(l, "Underscore in an expression")),
            Term::Number(n, l) => match expect {
                Some(Base::Uns) => {
                    if *n < 0 || *n > u32::MAX as i64 {
                        return Err(err_at(l, format!("unsigned constant {n} is out of range")));
                    }
                    Expr::Const(*n as u32)
                }
                Some(Base::Flt) => Expr::Const((*n as f32).to_bits()),
                _ => {
                    if *n < i32::MIN as i64 || *n > i32::MAX as i64 {
                        return Err(err_at(
                            l,
                            format!("number constant {n} does not fit in a 32-bit signed number"),
                        ));
                    }
                    Expr::Const(*n as i32 as u32)
                }
            },
            Term::Unsigned(n, _) => Expr::Const(*n),
            Term::Float(f, _) => Expr::Const(f.to_bits()),
            Term::Str(s, _) => Expr::Const(self.symbols.intern(s)),
            Term::Bin(op, a, b, _) => {
                let base = self.ty(t, expect)?.base;
                Expr::Bin(
                    *op,
                    base,
                    Box::new(self.lower_term(a, Some(base))?),
                    Box::new(self.lower_term(b, Some(base))?),
                )
            }
            Term::Un(op, a, _) => {
                let base = self.ty(t, expect)?.base;
                Expr::Un(*op, base, Box::new(self.lower_term(a, Some(base))?))
            }
            Term::As(a, _, _) => {
                let base = self.ty(t, expect)?.base;
                self.lower_term(a, Some(base))?
            }
            Term::Call(name, args, _) => {
                self.ty(t, expect)?;
                let mut lowered = Vec::new();
                match name.as_str() {
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
                    "to_number" | "to_string" | "to_unsigned" | "to_float" => {
                        let from = self.ty(&args[0], None)?.base;
                        let to = match name.as_str() {
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
                    "min" | "max" => {
                        let base = self.ty(t, expect)?.base;
                        for a in args {
                            lowered.push(self.lower_term(a, Some(base))?);
                        }
                        Expr::MinMax(name == "max", base, lowered)
                    }
                    _ => unreachable!(),
                }
            }
            Term::Agg(agg) => {
                let base = self.ty(t, expect)?.base;
                let mut body = Vec::new();
                for l in &agg.body {
                    body.push(self.lower_lit(l, true)?);
                }
                let target = match &agg.target {
                    Some(tg) => Some(self.lower_term(tg, Some(base))?),
                    None => None,
                };
                for l in &agg.body {
                    for t in lit_terms(l) {
                        let mut nested = false;
                        visit_aggs(t, &mut nested);
                        if nested {
                            return Err(err_at(t.loc(), "nested aggregates are not supported"));
                        }
                    }
                }
                if let Some(tg) = &agg.target {
                    let mut nested = false;
                    visit_aggs(tg, &mut nested);
                    if nested {
                        return Err(err_at(tg.loc(), "nested aggregates are not supported"));
                    }
                }
                let atoms = agg
                    .body
                    .iter()
                    .filter(|l| matches!(l, Literal::Pos(_)))
                    .count();
                if atoms == 0 {
                    return Err(err_at(
                        &agg.loc,
                        "aggregate body must contain at least one relation atom",
                    ));
                }
                // local variables: named ones that were renamed with this aggregate's scope suffix
                let mut names = Vec::new();
                for l in &agg.body {
                    for t in lit_terms(l) {
                        all_vars(t, &mut names);
                    }
                }
                let mut locals = Vec::new();
                for n in names {
                    if n.contains('@') {
                        let s = self.var_slots[&n];
                        if !locals.contains(&s) {
                            locals.push(s);
                        }
                    }
                }
                Expr::Agg(Box::new(AggIr {
                    op: agg.op,
                    base: if agg.op == AggOp::Count {
                        Base::Num
                    } else {
                        base
                    },
                    target,
                    body,
                    single_atom: atoms == 1,
                    local_vars: locals,
                    loc: agg.loc.clone(),
                    plan: Vec::new(),
                }))
            }
        })
    }
}

fn visit_aggs(t: &Term, found: &mut bool) {
    match t {
        Term::Agg(_) => *found = true,
        Term::Bin(_, a, b, _) => {
            visit_aggs(a, found);
            visit_aggs(b, found);
        }
        Term::Un(_, a, _) | Term::As(a, _, _) => visit_aggs(a, found),
        Term::Call(_, args, _) => args.iter().for_each(|a| visit_aggs(a, found)),
        _ => {}
    }
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

fn binop_name(op: BinOp) -> &'static str {
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
    }
}

// ---------------------------------------------------------------- stratification

fn stratify(
    rels: &[RelInfo],
    rules: &[Rule],
    edges: &[(usize, usize, bool, Loc)],
) -> Result<Vec<Stratum>> {
    let n = rels.len();
    let mut adj: Vec<Vec<usize>> = vec![vec![]; n];
    for (from, to, _, _) in edges {
        if !adj[*from].contains(to) {
            adj[*from].push(*to);
        }
    }
    // Tarjan's SCC, iterative; yields SCCs in reverse topological order.
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on = vec![false; n];
    let mut stack = Vec::new();
    let mut sccs: Vec<Vec<usize>> = Vec::new();
    let mut next = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on[root] = true;
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if *i < adj[v].len() {
                let w = adj[v][*i];
                *i += 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on[w] = true;
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                work.pop();
                if let Some(&(p, _)) = work.last() {
                    low[p] = low[p].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    loop {
                        let w = stack.pop().unwrap();
                        on[w] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    comp.sort();
                    sccs.push(comp);
                }
            }
        }
    }
    sccs.reverse();
    let mut comp_of = vec![0; n];
    for (c, comp) in sccs.iter().enumerate() {
        for r in comp {
            comp_of[*r] = c;
        }
    }
    for (from, to, neg, loc) in edges {
        if *neg && comp_of[*from] == comp_of[*to] {
            let names: Vec<_> = sccs[comp_of[*from]]
                .iter()
                .map(|r| rels[*r].name.as_str())
                .collect();
            return Err(anyhow!(
                "{loc}: Unable to stratify relation(s) {{{}}}: {} is negated or aggregated inside its own recursion",
                names.join(","),
                rels[*from].name
            ));
        }
    }
    let mut strata = Vec::new();
    for comp in &sccs {
        let recursive = comp.len() > 1
            || edges
                .iter()
                .any(|(f, t, _, _)| *f == comp[0] && *t == comp[0]);
        let rules_of: Vec<usize> = (0..rules.len())
            .filter(|i| comp.contains(&rules[*i].head_rel))
            .collect();
        strata.push(Stratum {
            rels: comp.clone(),
            rules: rules_of,
            recursive,
        });
    }
    Ok(strata)
}
