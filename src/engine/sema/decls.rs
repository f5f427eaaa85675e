//! Declarations: relations, their attributes and column types, and the
//! `.input`/`.output`/`.printsize` directives attached to them.

use std::collections::{HashMap, HashSet};

use anyhow::Result;

use super::types::Types;
use crate::engine::ast::{IoKind, Source, err_at};
use crate::engine::io::validate_params;
use crate::engine::ir::RelInfo;

/// The declared relations.
pub struct Decls {
    pub rels: Vec<RelInfo>,
    pub rel_index: HashMap<String, usize>,
    /// Per relation: the declared type of each column (ids into `Types`).
    pub rel_types: Vec<Vec<usize>>,
}

pub fn declare(src: &Source, types: &Types) -> Result<Decls> {
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
        let has = |q: &str| d.qualifiers.iter().any(|(n, _)| n == q);
        let eqrel = has("eqrel");
        if eqrel && d.attrs.len() != 2 {
            return Err(err_at(
                &d.loc,
                format!("Equivalence relation {} is not binary", d.name),
            ));
        }
        if eqrel && d.attrs[0].ty != d.attrs[1].ty {
            return Err(err_at(
                &d.loc,
                format!("Domains of equivalence relation {} are different", d.name),
            ));
        }
        let reps = d
            .qualifiers
            .iter()
            .filter(|(q, _)| matches!(q.as_str(), "eqrel" | "brie" | "btree" | "btree_delete"));
        if let Some((q, l)) = reps.clone().nth(1) {
            return Err(err_at(
                l,
                format!(
                    "Multiple representation qualifiers for relation {} ({q})",
                    d.name
                ),
            ));
        }
        if let (true, Some((_, l))) = (eqrel, d.choice.first()) {
            return Err(err_at(
                l,
                "choice-domain on an eqrel relation is not supported",
            ));
        }
        let attr_names: Vec<String> = d.attrs.iter().map(|a| a.name.clone()).collect();
        let mut choice = Vec::new();
        for (key, l) in &d.choice {
            let mut cols = Vec::new();
            for k in key {
                let c = attr_names.iter().position(|a| a == k).ok_or_else(|| {
                    err_at(
                        l,
                        format!("{k} in choice-domain is not an attribute of {}", d.name),
                    )
                })?;
                cols.push(c);
            }
            choice.push(cols);
        }
        rel_index.insert(d.name.clone(), rels.len());
        rels.push(RelInfo {
            name: d.name.clone(),
            attr_names,
            types: tys.iter().map(|t| types.info[*t].base).collect(),
            loc: d.loc.clone(),
            inputs: vec![],
            outputs: vec![],
            printsize: false,
            eqrel,
            inline: has("inline"),
            choice,
            limit: None,
        });
        rel_types.push(tys);
    }
    for io in &src.ios {
        let r = *rel_index
            .get(&io.rel)
            .ok_or_else(|| err_at(&io.loc, format!("Undefined relation {}", io.rel)))?;
        validate_params(io)?;
        match io.kind {
            IoKind::Input => rels[r].inputs.push(io.clone()),
            IoKind::Output => rels[r].outputs.push(io.clone()),
            IoKind::PrintSize => rels[r].printsize = true,
        }
    }
    Ok(Decls {
        rels,
        rel_index,
        rel_types,
    })
}
