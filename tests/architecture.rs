//! The dependency rules of docs/architecture.md that a grep can check.

mod common;

use std::path::{Path, PathBuf};

/// Every `.rs` file under `src/`, with its path relative to `src/`.
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let src = common::repo().join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    files.sort();
    let files: Vec<_> = files
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    assert!(files.len() > 20, "src/ not found");
    files
}

/// Files outside the allowed prefixes that contain `needle`.
fn offenders(needle: &str, allowed: &[&str]) -> Vec<String> {
    sources()
        .into_iter()
        .filter(|(path, text)| {
            !allowed.iter().any(|a| path.starts_with(a)) && text.contains(needle)
        })
        .map(|(path, _)| path)
        .collect()
}

#[test]
fn only_the_cli_uses_clap() {
    assert_eq!(
        offenders("clap::", &["main.rs", "cli/"]),
        Vec::<String>::new()
    );
}

#[test]
fn only_extract_uses_llvm() {
    assert_eq!(offenders("llvm_sys", &["extract/"]), Vec::<String>::new());
    // The llvm-ir crate is the benchmark baseline only.
    assert_eq!(offenders("llvm_ir", &["bin/"]), Vec::<String>::new());
}

#[test]
fn the_engine_imports_nothing_from_the_crate() {
    for (path, text) in sources() {
        if path.starts_with("engine/") {
            for layer in [
                "crate::facts",
                "crate::extract",
                "crate::analysis",
                "crate::fact!",
            ] {
                assert!(!text.contains(layer), "{path} uses {layer}");
            }
        }
    }
}

#[test]
fn layers_depend_one_way() {
    // (layer, what it must not use)
    let rules: &[(&str, &[&str])] = &[
        (
            "facts/",
            &["crate::extract", "crate::analysis", "crate::engine"],
        ),
        ("extract/", &["crate::analysis", "crate::engine"]),
        ("analysis/", &["crate::extract"]),
    ];
    for (path, text) in sources() {
        for (layer, banned) in rules {
            if path.starts_with(layer) {
                for b in *banned {
                    assert!(!text.contains(b), "{path} uses {b}");
                }
            }
        }
    }
}

#[test]
fn only_facts_knows_the_file_format() {
    // The engine reads and writes Soufflé's format on its own: it is Soufflé's reader.
    assert_eq!(
        offenders(".facts\"", &["facts/", "engine/"]),
        Vec::<String>::new()
    );
    assert_eq!(
        offenders("split('\\t')", &["facts/", "engine/"]),
        Vec::<String>::new()
    );
}
