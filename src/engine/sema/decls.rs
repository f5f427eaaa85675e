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
        rel_index.insert(d.name.clone(), rels.len());
        rels.push(RelInfo {
            name: d.name.clone(),
            attr_names: d.attrs.iter().map(|a| a.name.clone()).collect(),
            types: tys.iter().map(|t| types.info[*t].base).collect(),
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
