//! Modules from older producers: LLVM 22 reads what every earlier LLVM wrote, and llfacts
//! must make the same facts of it. For each producer, fixtures compiled by it extract, pass
//! `check` without a violation, keep their source variable names (older producers wrote
//! `llvm.dbg.*` calls, which LLVM 22 turns into debug records on reading), and give
//! `analyze` the call graph that clang-22's module of the same source gives.
//!
//! `just test` runs this for clang-19 beside clang-22; `just test-producers` sets
//! `LLFACTS_PRODUCERS="clang-14 clang-16"` after installing them.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

/// The producers under test: `LLFACTS_PRODUCERS` (compiler names, space-separated) or, by
/// default, clang-19 and clang-22.
fn producers() -> Vec<String> {
    let list = std::env::var("LLFACTS_PRODUCERS").unwrap_or_else(|_| "clang-19 clang-22".into());
    list.split_whitespace().map(str::to_string).collect()
}

/// `clang-N`'s binary (Debian installs it as /usr/bin/clang-N and /usr/lib/llvm-N/bin/clang).
fn compiler(name: &str, cpp: bool) -> PathBuf {
    let version = name.trim_start_matches("clang-");
    let base = PathBuf::from(format!("/usr/lib/llvm-{version}/bin"));
    let path = base.join(if cpp { "clang++" } else { "clang" });
    assert!(
        path.exists(),
        "{name} is required by this test: run `apt-get install {name}` (`just setup`)"
    );
    path
}

fn build(producer: &str, src: &str, flags: &[&str], out: &Path) -> PathBuf {
    let cpp = src.ends_with(".cpp");
    let status = Command::new(compiler(producer, cpp))
        .args(["-c", "-emit-llvm", "-Wno-everything"])
        .args(flags)
        .arg(repo().join(src))
        .arg("-o")
        .arg(out)
        .status()
        .unwrap();
    assert!(status.success(), "{producer} failed on {src}");
    out.to_path_buf()
}

/// The call-graph edges of `analyze` on `bc`, as caller and callee names without the module.
fn call_graph(bc: &Path, dir: &Path) -> BTreeSet<(String, String)> {
    let out = dir.join("pts");
    let o = llfacts()
        .args([
            "analyze",
            "--engine",
            "builtin",
            "--format",
            "json",
            "--relations",
        ])
        .arg("call_graph_edge")
        .arg(bc)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "analyze {}: {}",
        bc.display(),
        stderr_text(&o)
    );
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        summary["indirect_calls_unresolved"],
        0,
        "{}: {summary}",
        bc.display()
    );
    let text = std::fs::read_to_string(out.join("call_graph_edge.csv")).unwrap();
    let functions = llfacts()
        .args(["extract", "-q"])
        .arg(bc)
        .arg("-o")
        .arg(dir.join("facts"))
        .status()
        .unwrap();
    assert!(functions.success());
    let f = Facts::open(&dir.join("facts"));
    let function_of = |instr: &str| f.one("instr_function", instr, 1);
    let name = |id: &str| id.split_once(":@").map(|(_, n)| n.to_string()).unwrap();
    text.lines()
        .map(|l| {
            let (instr, callee) = l.split_once('\t').unwrap();
            (name(&function_of(instr)), name(callee))
        })
        .collect()
}

#[test]
fn older_producers_extract_check_and_analyze_like_clang22() {
    let base = scratch("producers");
    let reference = {
        let dir = base.join("reference");
        std::fs::create_dir_all(&dir).unwrap();
        let bc = build(
            "clang-22",
            "fixtures/pointsto/funcptr.c",
            &["-O0"],
            &dir.join("funcptr.bc"),
        );
        call_graph(&bc, &dir)
    };
    assert!(reference.len() >= 6, "{reference:?}");
    for producer in producers() {
        let dir = base.join(&producer);
        std::fs::create_dir_all(&dir).unwrap();
        let modules = [
            build(
                &producer,
                "fixtures/c/realistic.c",
                &["-O0", "-g"],
                &dir.join("realistic0.bc"),
            ),
            build(
                &producer,
                "fixtures/c/realistic.c",
                &["-O2"],
                &dir.join("realistic2.bc"),
            ),
            build(
                &producer,
                "fixtures/cpp/classes.cpp",
                &["-O0", "-g"],
                &dir.join("classes.bc"),
            ),
        ];
        // Extract: every module, and as one fact set.
        let facts = dir.join("facts");
        extract_ok(&modules, &facts, &["-q"]);
        let f = Facts::open(&facts);
        assert!(f.rows("instr").len() > 1000, "{producer}: few instructions");
        // Source variable names from the -g modules' debug-variable calls or records.
        let named = f.rows("variable_source_name");
        for m in ["realistic0", "classes"] {
            assert!(
                named.iter().any(|r| r[0].starts_with(&format!("{m}:@"))),
                "{producer}: no source variable names in {m}"
            );
        }
        // `check`: every typing and structure rule holds.
        for m in &modules {
            let o = llfacts().arg("check").arg(m).output().unwrap();
            assert!(
                o.status.success() && o.stdout.is_empty(),
                "{producer}: check {}: {}{}",
                m.display(),
                String::from_utf8_lossy(&o.stdout),
                stderr_text(&o)
            );
        }
        // `analyze`: the same call graph as clang-22's module gives.
        let bc = build(
            &producer,
            "fixtures/pointsto/funcptr.c",
            &["-O0"],
            &dir.join("funcptr.bc"),
        );
        assert_eq!(call_graph(&bc, &dir), reference, "{producer}: call graph");
    }
}
