//! Which conditions block which layout transformation (docs/dtrans.md, "What a type is good
//! for"), and the verdict for one type.

use super::model::{TypeReport, Verdict};

/// Conditions that block every transformation: the type's layout is observed or its
/// pointers are not all understood.
const BLOCKS_ALL: &[&str] = &[
    "BadCasting",
    "BadPtrManipulation",
    "AmbiguousGEP",
    "VolatileData",
    "MismatchedElementAccess",
    "WholeStructureReference",
    "UnsafePointerStore",
    "FieldAddressTaken",
    "HasInitializerList",
    "BadMemFuncSize",
    "MemFuncPartialWrite",
    "BadMemFuncManipulation",
    "AmbiguousPointerTarget",
    "UnsafePtrMerge",
    "AddressTaken",
    "NoFieldsInStruct",
    "NestedStruct",
    "SystemObject",
    "MismatchedArgUse",
    "HasVTable",
    "HasZeroSizedArray",
    "UnhandledUse",
];

/// Further conditions that block splitting a type into a hot and a cold part, which needs
/// every instance to be a heap object that the program allocates and frees itself.
const BLOCKS_SPLIT: &[&str] = &[
    "GlobalInstance",
    "GlobalArray",
    "LocalInstance",
    "ContainsNestedStruct",
    "HasCppHandling",
];

/// What blocks every type when a whole-program precondition fails.
pub const WHOLE_PROGRAM: &str = "whole-program preconditions";

pub fn verdict(t: &TypeReport, whole_program_ok: bool) -> Verdict {
    let has = |list: &[&str]| -> Vec<String> {
        (t.conditions.iter())
            .filter(|c| list.contains(&c.name.as_str()))
            .map(|c| c.name.clone())
            .collect()
    };
    let mut blocked_by = has(BLOCKS_ALL);
    if !whole_program_ok {
        blocked_by.push(WHOLE_PROGRAM.into());
    }
    if t.layout.is_none() {
        blocked_by.push("no layout".into());
    }
    let split_blocked_by = has(BLOCKS_SPLIT);
    let legal = blocked_by.is_empty();
    let reorder_saves = (legal).then(|| t.layout.as_ref().map_or(0, |l| l.reorder_saves()));
    let deletable = if legal {
        (t.fields.iter())
            .filter(|f| !f.access.contains("read") && !f.access.contains("complex"))
            .map(|f| f.index)
            .collect()
    } else {
        vec![]
    };
    // Splitting needs at least two fields to part.
    let split = legal && split_blocked_by.is_empty() && t.fields.len() >= 2;
    Verdict {
        blocked_by,
        split_blocked_by,
        reorder_saves,
        deletable,
        split,
    }
}

/// How useful a type is to a performance engineer, for sorting: legal types first, those
/// whose reorder saves most, then those with deletable fields, then fewest conditions.
pub fn usefulness(t: &TypeReport) -> (bool, i32, usize, std::cmp::Reverse<usize>) {
    let v = &t.verdict;
    (
        v.reorder_legal(),
        v.reorder_saves.unwrap_or(0),
        v.deletable.len(),
        std::cmp::Reverse(t.conditions.len()),
    )
}
