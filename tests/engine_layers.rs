//! The engine's files depend on each other one way only, and the engine
//! imports nothing from the rest of the crate (docs/engine.md, "Internal map").
//!
//! Reads every `src/engine/**/*.rs`, takes its `mod` declarations, its `use`
//! declarations and any other `super::`/`crate::`/`self::` path, resolves them
//! to engine files, and fails on a cycle or on a path that leaves the engine.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::modgraph::*;

fn engine_files() -> BTreeMap<Module, String> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine");
    let mut files = BTreeMap::new();
    read_tree(&base, &base, &mut files);
    files
}

#[test]
fn engine_files_depend_one_way_and_only_on_the_engine() {
    let files = engine_files();
    assert!(files.len() > 10, "engine files not found");
    let deps = graph(&files, &["engine"]).unwrap_or_else(|e| panic!("paths leave the engine: {e}"));
    if let Some(c) = find_cycle(&deps) {
        panic!("import cycle in src/engine: {}", show(&c));
    }
    // the planner only describes plans; evaluation owns storage
    let planner = &deps[&module("planner")];
    assert!(
        !planner.contains(&module("storage")),
        "planner imports storage"
    );
    assert!(!planner.contains(&module("eval")), "planner imports eval");
}

#[test]
fn the_layer_check_sees_cycles_and_escapes() {
    let files = |v: &[(&str, &str)]| -> BTreeMap<Module, String> {
        v.iter().map(|(m, t)| (module(m), t.to_string())).collect()
    };
    // a use tree through a parent, and a plain path in code, make a cycle
    let fs = files(&[
        ("", "mod a;\nmod b;\n"),
        (
            "a",
            "use super::{b::{self, X as Y}};\n#[cfg(test)]\nmod tests {\n    use super::super::a;\n}\n",
        ),
        ("b", "fn f() { let s = \"super::a\"; super::a::g() }\n"),
    ]);
    let c = find_cycle(&graph(&fs, &["engine"]).unwrap()).expect("cycle");
    assert_eq!(show(&c), "a -> b -> a");
    // nested modules, `crate::engine::` and comments
    let fs = files(&[
        ("", "mod s;\nmod ir;\n"),
        ("s", "mod p;\n// use super::s::p;\n"),
        ("s/p", "use crate::engine::ir::Rule;\nuse std::fmt;\n"),
        ("ir", "use crate::engine::s::p;\n"),
    ]);
    let c = find_cycle(&graph(&fs, &["engine"]).unwrap()).expect("cycle");
    assert_eq!(show(&c), "ir -> s/p -> ir");
    let fs = files(&[("", "mod ir;\n"), ("ir", "use crate::relations::Rel;\n")]);
    assert_eq!(graph(&fs, &["engine"]).unwrap_err(), "ir: crate::relations::Rel");
    let fs = files(&[
        ("", "mod a;\nmod b;\n"),
        ("a", "use super::b;\n"),
        ("b", ""),
    ]);
    assert!(find_cycle(&graph(&fs, &["engine"]).unwrap()).is_none());
}
