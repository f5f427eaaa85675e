//! Types: the type environment built from `.type` declarations (subset
//! types, unions, aliases), and the type of an expression during checking.

use std::collections::{BTreeSet, HashMap};

use anyhow::Result;

use crate::engine::ast::{Attr, Loc, Source, TypeDef, err_at};
use crate::engine::ir::{Base, RecordType};

/// A type: its base and its denotation, the set of type atoms it covers (a
/// primitive or subset type is an atom; a union covers its members' atoms).
/// Subtyping is inclusion of denotations.
#[derive(Clone, Debug)]
pub struct TypeInfo {
    pub base: Base,
    pub den: BTreeSet<usize>,
}

/// The type environment: the four primitives (ids 0..4), then the declared types.
pub struct Types {
    pub names: HashMap<String, usize>,
    pub info: Vec<TypeInfo>,
    pub display: Vec<String>,
    /// Record and ADT types, numbered as in `Base::Rec`.
    pub records: Vec<RecordType>,
    /// Per record type, per branch: the type id of each field.
    pub record_fields: Vec<Vec<Vec<usize>>>,
    /// ADT branch name → (record type number, branch number).
    pub branches: HashMap<String, (u32, usize)>,
    /// The type id of each record type.
    pub record_tids: Vec<usize>,
}

impl Types {
    pub fn build(src: &Source) -> Result<Types> {
        let (names, display) = type_names(src)?;
        let defs = Defs::resolve(src, &names)?;
        let n = display.len();
        let cyclic = |t: usize| {
            err_at(
                &src.types[t - 4].loc,
                format!("cyclic type definition of {}", display[t]),
            )
        };
        // denotation: own atom (for primitives and subset types) + subsets below + union members
        let mut den: Vec<Option<BTreeSet<usize>>> = vec![None; n];
        for t in 0..n {
            let mut visiting = vec![false; n];
            if defs.denotation(t, &mut den, &mut visiting).is_none() {
                return Err(cyclic(t));
            }
        }
        let mut base: Vec<Option<Base>> = vec![None; n];
        for (i, b) in PRIMITIVES.iter().enumerate() {
            base[i] = Some(b.1);
        }
        // record types are nominal: each is its own base
        let rec_ids: Vec<usize> = (4..n)
            .filter(|t| matches!(src.types[t - 4].def, TypeDef::Record(_) | TypeDef::Adt(_)))
            .collect();
        for (k, t) in rec_ids.iter().enumerate() {
            base[*t] = Some(Base::Rec(k as u32));
        }
        for t in 4..n {
            let Some(b) = defs.base(t, &mut base, 0) else {
                return Err(cyclic(t));
            };
            for m in &defs.members[t] {
                if defs.base(*m, &mut base, 0) != Some(b) {
                    return Err(err_at(
                        &src.types[t - 4].loc,
                        format!(
                            "Union type {} mixes base types ({} and {})",
                            display[t], display[defs.members[t][0]], display[*m]
                        ),
                    ));
                }
            }
            let parent = defs.subset_of[t].or(defs.members[t].first().copied());
            if let Some(p) = parent
                && let Some(Base::Rec(_)) = base[p]
            {
                return Err(err_at(
                    &src.types[t - 4].loc,
                    format!(
                        "{} is a subtype or union of record type {}: not supported (as in Soufflé)",
                        display[t], display[p]
                    ),
                ));
            }
        }
        let mut records = Vec::new();
        let mut record_fields = Vec::new();
        let mut branches = HashMap::new();
        for (k, t) in rec_ids.iter().enumerate() {
            let decl = &src.types[t - 4];
            let mut shape: Vec<(String, &[Attr], &Loc)> = match &decl.def {
                TypeDef::Record(fields) => vec![(String::new(), fields, &decl.loc)],
                TypeDef::Adt(bs) => bs
                    .iter()
                    .map(|(b, fs, l)| (b.clone(), &fs[..], l))
                    .collect(),
                _ => unreachable!(),
            };
            // branches are numbered in name order, as Soufflé numbers them
            shape.sort_by(|a, b| a.0.cmp(&b.0));
            let mut rec = RecordType {
                name: decl.name.clone(),
                adt: matches!(decl.def, TypeDef::Adt(_)),
                branches: vec![],
            };
            let mut tids = Vec::new();
            for (b, (name, fields, l)) in shape.into_iter().enumerate() {
                if rec.adt && branches.insert(name.clone(), (k as u32, b)).is_some() {
                    return Err(err_at(l, format!("Redefinition of branch {name}")));
                }
                let mut ids = Vec::new();
                for f in fields {
                    let id = *names.get(&f.ty).ok_or_else(|| {
                        err_at(
                            &f.loc,
                            format!("Undefined type in attribute {}:{}", f.name, f.ty),
                        )
                    })?;
                    ids.push(id);
                }
                rec.branches
                    .push((name, ids.iter().map(|i| base[*i].unwrap()).collect()));
                tids.push(ids);
            }
            records.push(rec);
            record_fields.push(tids);
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
            records,
            record_fields,
            branches,
            record_tids: rec_ids,
        })
    }

    /// A base's name; a record type's own name.
    pub fn base_name(&self, b: Base) -> String {
        match b {
            Base::Rec(k) => self.records[k as usize].name.clone(),
            b => b.name().to_string(),
        }
    }

    /// The name of a denotation: the declared type with exactly these atoms, if
    /// any, else the atoms' names joined by ` | `.
    pub fn show_den(&self, d: &BTreeSet<usize>) -> String {
        for (i, t) in self.info.iter().enumerate() {
            if &t.den == d {
                return self.display[i].clone();
            }
        }
        let names: Vec<_> = d.iter().map(|i| self.display[*i].clone()).collect();
        names.join(" | ")
    }
}

/// The primitive types, ids 0 to 3.
const PRIMITIVES: [(&str, Base); 4] = [
    ("symbol", Base::Sym),
    ("number", Base::Num),
    ("unsigned", Base::Uns),
    ("float", Base::Flt),
];

/// Type ids by name, and names by id: the primitives, then the declared types in order.
fn type_names(src: &Source) -> Result<(HashMap<String, usize>, Vec<String>)> {
    let mut names = HashMap::new();
    let mut display = Vec::new();
    for (i, (n, _)) in PRIMITIVES.iter().enumerate() {
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
    Ok((names, display))
}

/// The type definitions as edges: what each type is a subset of, or its union members.
struct Defs {
    subset_of: Vec<Option<usize>>,
    members: Vec<Vec<usize>>,
}

impl Defs {
    fn resolve(src: &Source, names: &HashMap<String, usize>) -> Result<Defs> {
        let n = names.len();
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
                TypeDef::Record(_) | TypeDef::Adt(_) => {}
            }
        }
        Ok(Defs { subset_of, members })
    }

    /// The denotation of `t`, memoized in `den`; `None` on a cycle.
    fn denotation(
        &self,
        t: usize,
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
        if self.members[t].is_empty() {
            d.insert(t);
        }
        for m in &self.members[t] {
            d.extend(self.denotation(*m, den, visiting)?);
        }
        for (c, p) in self.subset_of.iter().enumerate() {
            if *p == Some(t) {
                d.extend(self.denotation(c, den, visiting)?);
            }
        }
        visiting[t] = false;
        den[t] = Some(d.clone());
        Some(d)
    }

    /// The base of `t` (through its parent or first member), memoized in `base`; `None` on a cycle.
    fn base(&self, t: usize, base: &mut Vec<Option<Base>>, depth: usize) -> Option<Base> {
        if let Some(b) = base[t] {
            return Some(b);
        }
        if depth > 1000 {
            return None;
        }
        let next = match self.subset_of[t] {
            Some(p) => p,
            None => self.members[t][0],
        };
        let b = self.base(next, base, depth + 1);
        base[t] = b;
        b
    }
}

/// Expression type: base plus, when known, the set of type atoms (None = any type of that base).
#[derive(Clone, Debug)]
pub struct ETy {
    pub base: Base,
    pub den: Option<BTreeSet<usize>>,
}
