//! The dependency rules of docs/architecture.md that a grep can check.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::modgraph::{Module, find_cycle, graph, read_tree, show};

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
fn commands_never_exit_themselves() {
    // Only the process's edges may: the panic hook, and the supervisor passing on a signal
    // (each `process::exit` there says why).
    assert_eq!(
        offenders("process::exit", &["main.rs", "isolate.rs", "bin/"]),
        Vec::<String>::new()
    );
}

#[test]
fn only_extract_uses_llvm() {
    assert_eq!(offenders("llvm_sys", &["extract/"]), Vec::<String>::new());
    // One LLVM per binary: the llvm-ir crate (its own static LLVM) is gone for good.
    assert_eq!(offenders("llvm_ir", &[]), Vec::<String>::new());
    let manifest = std::fs::read_to_string(common::repo().join("Cargo.toml")).unwrap();
    assert!(
        !manifest
            .lines()
            .any(|l| l.trim_start().starts_with("llvm-ir")),
        "Cargo.toml depends on llvm-ir: a second statically linked LLVM"
    );
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
    // Splitting rows, or writing tab-separated fields by hand.
    for needle in ["split('\\t')", "\"\\t\"", "}\\t", "\\t{"] {
        assert_eq!(
            offenders(needle, &["facts/", "engine/"]),
            Vec::<String>::new(),
            "{needle}"
        );
    }
}

/// The module graph of the library (`lib.rs` and below) or of the binary (`main.rs` and
/// `cli/`), without the edges into the crate root: it holds only module declarations and
/// exported macros (`crate::fact!`).
fn crate_graph(binary: bool) -> BTreeMap<Module, BTreeSet<Module>> {
    let src = common::repo().join("src");
    let mut files = BTreeMap::new();
    read_tree(&src, &src, &mut files);
    let root = if binary { "main" } else { "lib" };
    let in_binary = |m: &Module| m.first().is_some_and(|f| f == "main" || f == "cli");
    let files: BTreeMap<Module, String> = files
        .into_iter()
        .filter(|(m, _)| m.first().is_some_and(|f| f != "bin") && in_binary(m) == binary)
        .map(|(m, text)| (if m == [root] { vec![] } else { m }, text))
        .collect();
    assert!(files.len() > 5, "src/ not found");
    let mut deps = graph(&files, &[]).unwrap();
    for targets in deps.values_mut() {
        targets.remove(&Vec::new());
    }
    deps
}

#[test]
fn no_import_cycle_anywhere() {
    for binary in [false, true] {
        let mut deps = crate_graph(binary);
        // The one exception: `extract/` keeps its `Worker` in `mod.rs` with its methods in the
        // files below it (one per entity kind), which name it back. Only those edges, from
        // `extract/`'s files to its `mod.rs`, are left out.
        let extract_root: Module = vec!["extract".into()];
        for (from, targets) in deps.iter_mut() {
            if from.first() == extract_root.first() {
                targets.remove(&extract_root);
            }
        }
        if let Some(c) = find_cycle(&deps) {
            panic!("import cycle in src/: {}", show(&c));
        }
    }
}

#[test]
fn analyses_do_not_import_each_other() {
    // Every folder of src/analysis/ is an analysis; its files sit below it.
    let analyses: Vec<String> = std::fs::read_dir(common::repo().join("src/analysis"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(analyses.len() >= 2, "{analyses:?}");
    let of = |m: &Module| match &m[..] {
        [a, x, ..] if a == "analysis" && analyses.contains(x) => Some(x.clone()),
        _ => None,
    };
    for (from, targets) in crate_graph(false) {
        for to in targets {
            if let (Some(a), Some(b)) = (of(&from), of(&to)) {
                assert_eq!(a, b, "{} imports {}", from.join("/"), to.join("/"));
            }
        }
    }
}
