//! Components: `.comp`, `.init`, `.override`, expanded into a flat program
//! before any other pass, as Soufflé does (its documentation's
//! "Components"; its instantiation transform is the reference for the
//! details below).
//!
//! `.init inst = C<args>` copies the elements of `C` and of its bases (base
//! elements first, nested `.init`s before the component's own elements),
//! with the type parameters replaced by the arguments in type positions
//! (attribute types, type definitions) and in component names (`.init`,
//! bases); clause bodies are copied unchanged. Then every type and relation
//! declared in the copy is renamed `inst.name`, and so is every reference to
//! it. A clause whose head relation is not declared in the copy is an
//! orphan: it moves up to the first enclosing instance that declares it (or
//! to the program). `.override R` drops the clauses for `R` inherited from
//! the bases, which must declare `R` `overridable`.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use anyhow::Result;

use crate::engine::ast::{
    Atom, Clause, CompInit, CompType, Component, Literal, Loc, Source, Subsumption, Term, TypeDef,
    err_at,
};

use super::scope::lit_terms_mut;

/// Nesting deeper than this is taken for an endless instantiation.
const MAX_DEPTH: usize = 100;

/// The program with every component instantiated and every `.comp`/`.init`
/// removed; `src` itself when it has none.
pub fn expand(src: &Source) -> Result<Cow<'_, Source>> {
    if src.comps.is_empty() && src.inits.is_empty() {
        return Ok(Cow::Borrowed(src));
    }
    let lookup = Lookup::new(&src.comps);
    lookup.check(src)?;
    let mut out = Source {
        comps: vec![],
        inits: vec![],
        ..src.clone()
    };
    for init in &src.inits {
        let mut orphans = Orphans::default();
        let content = lookup.instantiate(
            init,
            None,
            &mut orphans,
            &HashSet::new(),
            &Binding::new(),
            MAX_DEPTH,
        )?;
        append(&mut out, content);
        out.clauses.extend(orphans.clauses);
        out.subsumptions.extend(orphans.subs);
    }
    Ok(Cow::Owned(out))
}

/// Formal type parameter → actual name.
type Binding = HashMap<String, String>;

/// `formals` bound to `actuals`, the actuals read through `outer` (only the
/// new parameters are visible, as in Soufflé). A wrong count keeps `outer`:
/// the checker has reported it already.
fn extend(outer: &Binding, formals: &[String], actuals: &[String]) -> Binding {
    if formals.len() != actuals.len() {
        return outer.clone();
    }
    formals
        .iter()
        .zip(actuals)
        .map(|(f, a)| (f.clone(), outer.get(a).unwrap_or(a).clone()))
        .collect()
}

fn bound(b: &Binding, name: &str) -> String {
    b.get(name).cloned().unwrap_or_else(|| name.to_string())
}

/// Clauses whose head relation is not declared where they are written.
#[derive(Default)]
struct Orphans {
    clauses: Vec<Clause>,
    subs: Vec<Subsumption>,
}

fn append(out: &mut Source, content: Source) {
    out.types.extend(content.types);
    out.decls.extend(content.decls);
    out.ios.extend(content.ios);
    out.clauses.extend(content.clauses);
    out.subsumptions.extend(content.subsumptions);
    out.pragmas.extend(content.pragmas);
    out.limits.extend(content.limits);
    out.deprecated.extend(content.deprecated);
}

/// The first part of a (possibly qualified) name: what `.override` names.
fn first_part(name: &str) -> &str {
    name.split('.').next().unwrap_or(name)
}

/// Component declarations and their lexical nesting.
struct Lookup<'a> {
    global: &'a [Component],
    /// Each component's enclosing component (none at the top level).
    parent: HashMap<*const Component, Option<&'a Component>>,
}

impl<'a> Lookup<'a> {
    fn new(global: &'a [Component]) -> Self {
        fn walk<'a>(
            comps: &'a [Component],
            up: Option<&'a Component>,
            out: &mut HashMap<*const Component, Option<&'a Component>>,
        ) {
            for c in comps {
                out.insert(c as *const _, up);
                walk(&c.body.comps, Some(c), out);
            }
        }
        let mut parent = HashMap::new();
        walk(global, None, &mut parent);
        Lookup { global, parent }
    }

    fn enclosing(&self, c: &Component) -> Option<&'a Component> {
        self.parent.get(&(c as *const _)).copied().flatten()
    }

    /// The component `name` (read through the binding) seen from `scope`:
    /// the components nested in the scope, then those of its bases, then the
    /// enclosing scopes, then the top level.
    fn find(&self, scope: Option<&'a Component>, name: &str, b: &Binding) -> Option<&'a Component> {
        self.find_in(scope, name, b, MAX_DEPTH)
    }

    fn find_in(
        &self,
        scope: Option<&'a Component>,
        name: &str,
        b: &Binding,
        depth: usize,
    ) -> Option<&'a Component> {
        if depth == 0 {
            return None; // inheritance cycle: reported by `check`
        }
        let target = bound(b, name);
        let mut cur = scope;
        while let Some(s) = cur {
            if let Some(c) = s.body.comps.iter().find(|c| c.ty.name == target) {
                return Some(c);
            }
            for base in &s.bases {
                let Some(bc) = self.find_in(self.enclosing(s), &base.name, b, depth - 1) else {
                    continue;
                };
                if std::ptr::eq(bc, s) {
                    return None;
                }
                if let Some(c) = self.find_in(Some(bc), name, b, depth - 1) {
                    return Some(c);
                }
            }
            cur = self.enclosing(s);
        }
        self.global.iter().find(|c| c.ty.name == target)
    }

    // ---- checks, before instantiating anything ----

    fn check(&self, src: &Source) -> Result<()> {
        for c in &src.comps {
            self.check_comp(None, c, &Binding::new())?;
        }
        for i in &src.inits {
            self.check_ref(None, &i.ty, &i.loc, &Binding::new())?;
        }
        let mut names: HashSet<&str> = src.types.iter().map(|t| t.name.as_str()).collect();
        names.extend(src.decls.iter().map(|d| d.name.as_str()));
        for c in &src.comps {
            if !names.insert(&c.ty.name) {
                return Err(err_at(
                    &c.loc,
                    format!("Name clash on component {}", c.ty.name),
                ));
            }
        }
        for i in &src.inits {
            if !names.insert(&i.name) {
                return Err(err_at(
                    &i.loc,
                    format!("Name clash on instantiation {}", i.name),
                ));
            }
        }
        Ok(())
    }

    /// A reference to a component: it exists and gets as many type arguments
    /// as it has parameters. A name bound to a type parameter is not known yet.
    fn check_ref(
        &self,
        scope: Option<&'a Component>,
        ty: &CompType,
        loc: &Loc,
        b: &Binding,
    ) -> Result<()> {
        if b.contains_key(&ty.name) {
            return Ok(());
        }
        let c = self
            .find(scope, &ty.name, b)
            .ok_or_else(|| err_at(loc, format!("Referencing undefined component {}", ty.name)))?;
        if c.ty.args.len() != ty.args.len() {
            return Err(err_at(
                loc,
                format!(
                    "Invalid number of type parameters for component {}",
                    ty.name
                ),
            ));
        }
        Ok(())
    }

    fn check_comp(
        &self,
        scope: Option<&'a Component>,
        comp: &'a Component,
        b: &Binding,
    ) -> Result<()> {
        let unknown = vec!["<type parameter>".to_string(); comp.ty.args.len()];
        let active = extend(b, &comp.ty.args, &unknown);
        for base in &comp.bases {
            self.check_ref(scope, base, &comp.loc, &active)?;
        }
        let mut parents: Vec<&Component> = Vec::new();
        let mut work = vec![comp];
        while let Some(c) = work.pop() {
            for base in &c.bases {
                if let Some(p) = self.find(scope, &base.name, b)
                    && !parents.iter().any(|q| std::ptr::eq(*q, p))
                {
                    parents.push(p);
                    work.push(p);
                }
            }
        }
        let name = &comp.ty.name;
        for d in &comp.body.decls {
            if comp.body.overrides.iter().any(|(o, _)| *o == d.name) {
                return Err(err_at(
                    &comp.loc,
                    format!(
                        "Override of non-inherited relation {} in component {name}",
                        d.name
                    ),
                ));
            }
        }
        for p in &parents {
            for d in &p.body.decls {
                let overridable = d.qualifiers.iter().any(|(q, _)| q == "overridable");
                if !overridable && comp.body.overrides.iter().any(|(o, _)| *o == d.name) {
                    return Err(err_at(
                        &comp.loc,
                        format!(
                            "Override of non-overridable relation {} in component {name}",
                            d.name
                        ),
                    ));
                }
            }
        }
        if parents.iter().any(|p| std::ptr::eq(*p, comp)) {
            return Err(err_at(
                &comp.loc,
                format!("Invalid cycle in inheritance for component {name}"),
            ));
        }
        for c in &comp.body.comps {
            self.check_comp(Some(comp), c, &active)?;
        }
        for i in &comp.body.inits {
            self.check_ref(Some(comp), &i.ty, &i.loc, &active)?;
        }
        Ok(())
    }

    // ---- instantiation ----

    /// The elements `init` creates, named `init.name.…`, seen from `scope`.
    fn instantiate(
        &self,
        init: &CompInit,
        scope: Option<&'a Component>,
        orphans: &mut Orphans,
        overridden: &HashSet<String>,
        b: &Binding,
        depth: usize,
    ) -> Result<Source> {
        if depth == 0 {
            return Err(err_at(&init.loc, "Component instantiation limit reached"));
        }
        let comp = self.find(scope, &init.ty.name, b).ok_or_else(|| {
            err_at(
                &init.ty.loc,
                format!("Component {} not found", init.ty.name),
            )
        })?;
        let active = extend(b, &comp.ty.args, &init.ty.args);
        let mut res = Source::default();
        for nested in &comp.body.inits {
            let content =
                self.instantiate(nested, Some(comp), orphans, overridden, &active, depth - 1)?;
            append(&mut res, content);
        }
        self.collect(comp, &active, &mut res, orphans, overridden, depth)?;
        let prefix = |n: &str| format!("{}.{n}", init.name);
        let types: HashMap<String, String> = res
            .types
            .iter()
            .map(|t| (t.name.clone(), prefix(&t.name)))
            .collect();
        let rels: HashMap<String, String> = res
            .decls
            .iter()
            .map(|d| (d.name.clone(), prefix(&d.name)))
            .collect();
        let branches: HashMap<String, String> = res
            .types
            .iter()
            .filter_map(|t| match &t.def {
                TypeDef::Adt(bs) => Some(bs),
                _ => None,
            })
            .flatten()
            .map(|(name, _, _)| (name.clone(), prefix(name)))
            .collect();
        let names = Names {
            types: &types,
            rels: &rels,
            branches: &branches,
        };
        names.source(&mut res);
        orphans.clauses.iter_mut().for_each(|c| names.clause(c));
        orphans.subs.iter_mut().for_each(|s| names.subsumption(s));
        Ok(res)
    }

    /// The elements of `comp` and its bases, with `b` applied to type names.
    fn collect(
        &self,
        comp: &'a Component,
        b: &Binding,
        res: &mut Source,
        orphans: &mut Orphans,
        overridden: &HashSet<String>,
        depth: usize,
    ) -> Result<()> {
        let mut super_overridden = overridden.clone();
        super_overridden.extend(comp.body.overrides.iter().map(|(o, _)| o.clone()));
        for base in &comp.bases {
            let Some(bc) = self.find(self.enclosing(comp), &base.name, b) else {
                continue; // reported by `check`
            };
            let active = extend(b, &bc.ty.args, &base.args);
            for nested in &bc.body.inits {
                let content = self.instantiate(
                    nested,
                    Some(bc),
                    orphans,
                    &HashSet::new(),
                    &active,
                    depth - 1,
                )?;
                append(res, content);
            }
            self.collect(bc, &active, res, orphans, &super_overridden, depth)?;
        }
        let body = &comp.body;
        for t in &body.types {
            let mut t = t.clone();
            t.name = bound(b, &t.name);
            match &mut t.def {
                TypeDef::Subset(base) => *base = bound(b, base),
                TypeDef::Union(members) => members.iter_mut().for_each(|m| *m = bound(b, m)),
                TypeDef::Record(fields) => fields.iter_mut().for_each(|f| f.ty = bound(b, &f.ty)),
                TypeDef::Adt(branches) => {
                    // Soufflé binds a branch name that is a parameter too
                    for (name, fields, _) in branches {
                        *name = bound(b, name);
                        fields.iter_mut().for_each(|f| f.ty = bound(b, &f.ty));
                    }
                }
            }
            res.types.push(t);
        }
        for d in &body.decls {
            let mut d = d.clone();
            d.attrs.iter_mut().for_each(|a| a.ty = bound(b, &a.ty));
            res.decls.push(d);
        }
        res.ios.extend(body.ios.iter().cloned());
        res.limits.extend(body.limits.iter().cloned());
        let declared: HashSet<String> = res.decls.iter().map(|d| d.name.clone()).collect();
        let keep = |head: &Atom| !overridden.contains(first_part(&head.name));
        for c in &body.clauses {
            for h in c.heads.iter().filter(|h| keep(h)) {
                let single = Clause {
                    heads: vec![h.clone()],
                    body: c.body.clone(),
                    loc: c.loc.clone(),
                    plan: c.plan.clone(),
                };
                if declared.contains(&h.name) {
                    res.clauses.push(single);
                } else {
                    orphans.clauses.push(single);
                }
            }
        }
        for s in body.subsumptions.iter().filter(|s| keep(&s.dominated)) {
            if declared.contains(&s.dominated.name) {
                res.subsumptions.push(s.clone());
            } else {
                orphans.subs.push(s.clone());
            }
        }
        // orphans from nested instances that this level declares are adopted
        let (adopt, keep_c): (Vec<_>, Vec<_>) = std::mem::take(&mut orphans.clauses)
            .into_iter()
            .partition(|c| declared.contains(&c.heads[0].name));
        res.clauses.extend(adopt);
        orphans.clauses = keep_c;
        let (adopt, keep_s): (Vec<_>, Vec<_>) = std::mem::take(&mut orphans.subs)
            .into_iter()
            .partition(|s| declared.contains(&s.dominated.name));
        res.subsumptions.extend(adopt);
        orphans.subs = keep_s;
        Ok(())
    }
}

/// The renaming of one instance: its types, relations and ADT branches.
struct Names<'m> {
    types: &'m HashMap<String, String>,
    rels: &'m HashMap<String, String>,
    branches: &'m HashMap<String, String>,
}

impl Names<'_> {
    fn ty(&self, n: &mut String) {
        if let Some(m) = self.types.get(n) {
            *n = m.clone();
        }
    }

    fn branch(&self, n: &mut String) {
        if let Some(m) = self.branches.get(n) {
            *n = m.clone();
        }
    }

    fn rel(&self, n: &mut String) {
        if let Some(m) = self.rels.get(n) {
            *n = m.clone();
        }
    }

    fn source(&self, s: &mut Source) {
        for t in &mut s.types {
            self.ty(&mut t.name);
            match &mut t.def {
                TypeDef::Subset(base) => self.ty(base),
                TypeDef::Union(members) => members.iter_mut().for_each(|m| self.ty(m)),
                TypeDef::Record(fields) => fields.iter_mut().for_each(|f| self.ty(&mut f.ty)),
                TypeDef::Adt(branches) => {
                    for (name, fields, _) in branches {
                        self.branch(name);
                        fields.iter_mut().for_each(|f| self.ty(&mut f.ty));
                    }
                }
            }
        }
        for d in &mut s.decls {
            self.rel(&mut d.name);
            d.attrs.iter_mut().for_each(|a| self.ty(&mut a.ty));
        }
        s.ios.iter_mut().for_each(|io| self.rel(&mut io.rel));
        s.limits.iter_mut().for_each(|(r, _, _)| self.rel(r));
        s.clauses.iter_mut().for_each(|c| self.clause(c));
        s.subsumptions.iter_mut().for_each(|x| self.subsumption(x));
    }

    fn clause(&self, c: &mut Clause) {
        c.heads.iter_mut().for_each(|a| self.atom(a));
        self.body(&mut c.body);
    }

    fn subsumption(&self, s: &mut Subsumption) {
        self.atom(&mut s.dominated);
        self.atom(&mut s.dominating);
        self.body(&mut s.body);
    }

    fn body(&self, body: &mut [Literal]) {
        for l in body {
            if let Literal::Pos(a) | Literal::Neg(a) = l {
                self.rel(&mut a.name);
            }
            lit_terms_mut(l).into_iter().for_each(|t| self.term(t));
        }
    }

    fn atom(&self, a: &mut Atom) {
        self.rel(&mut a.name);
        a.args.iter_mut().for_each(|t| self.term(t));
    }

    fn term(&self, t: &mut Term) {
        match t {
            Term::As(x, ty, _) => {
                self.ty(ty);
                self.term(x);
            }
            Term::Bin(_, a, b, _) => {
                self.term(a);
                self.term(b);
            }
            Term::Un(_, a, _) => self.term(a),
            Term::Call(_, xs, _) | Term::Record(xs, _) => xs.iter_mut().for_each(|x| self.term(x)),
            Term::Branch(name, xs, _) => {
                self.branch(name);
                xs.iter_mut().for_each(|x| self.term(x));
            }
            Term::Agg(agg) => {
                if let Some(x) = &mut agg.target {
                    self.term(x);
                }
                self.body(&mut agg.body);
            }
            Term::Var(..)
            | Term::Anon(_)
            | Term::Number(..)
            | Term::Unsigned(..)
            | Term::Float(..)
            | Term::Str(..)
            | Term::Nil(_) => {}
        }
    }
}
