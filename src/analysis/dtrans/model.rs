//! What the DTrans report holds: per struct type, its conditions, field summaries and the
//! verdict on each transformation.

use std::collections::BTreeSet;

use super::layout::Layout;
use crate::analysis::locate::Location;

/// One condition of a type, with the entity that shows it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Condition {
    pub name: String,
    pub witness: String,
    pub location: Option<Location>,
    /// Seen on an ambiguous pointer (rules/lib/dtrans_types.dl), not on one of this type.
    pub ambiguous: bool,
}

/// A field's summaries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldSummary {
    pub index: i32,
    pub ty: String,
    /// The type as LLVM would spell it (a recovered struct by its name).
    pub text: String,
    /// The source name, where debug info gives it.
    pub name: Option<String>,
    pub offset: i32,
    pub size: i32,
    /// Of `read`, `write`, `complex`.
    pub access: BTreeSet<String>,
    /// `none`, `single` or `multiple`, and the single value.
    pub value: (String, String),
    /// Pointer fields: `top`, `single` or `bottom`, and the allocating function.
    pub alloc: Option<(String, String)>,
}

/// Everything the analysis says about one struct type.
#[derive(Clone, Debug)]
pub struct TypeReport {
    pub ty: String,
    pub layout: Option<Layout>,
    /// Reaches pointers to more than 6 struct types, and has every condition seen there:
    /// the entity that shows how it joined the ambiguous set, and its source location.
    pub ambiguous: Option<(String, Option<Location>)>,
    pub conditions: Vec<Condition>,
    pub fields: Vec<FieldSummary>,
    pub verdict: Verdict,
}

/// The whole program's report.
#[derive(Clone, Debug)]
pub struct Report {
    pub types: Vec<TypeReport>,
    /// Violated whole-program preconditions: (reason, entity, location).
    pub whole_program: Vec<(String, String, Option<Location>)>,
    /// Struct types that TBAA tags name but that have no layout (no debug info): not
    /// analysed. By name (empty for an anonymous one).
    pub unrecovered: Vec<String>,
}

/// What one transformation may do to a type.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// The conditions (and whole-program preconditions) that block reordering and deleting.
    pub blocked_by: Vec<String>,
    /// Further conditions that block splitting.
    pub split_blocked_by: Vec<String>,
    /// Legal reorder: bytes saved per instance (0 when the order is already tight).
    pub reorder_saves: Option<i32>,
    /// Fields a legal deletion removes: never read, and their address never used.
    pub deletable: Vec<i32>,
    pub split: bool,
}

impl Verdict {
    pub fn reorder_legal(&self) -> bool {
        self.blocked_by.is_empty()
    }
}

