//! The differential test set (`fixtures/engine/`): every program runs through the real
//! binary (`llfacts run --engine builtin`), and every file it writes, and its stdout, must
//! equal the expected ones, which were reasoned by hand from Soufflé 2.5's documented
//! semantics (the reasoning is the comment at the top of each program). `just
//! test-souffle` runs the same set against `souffle` where it is installed.
//!
//! Layout of one program `NAME`: `fixtures/engine/NAME/NAME.dl`, its input files in
//! `NAME/facts/` (optional), and in `NAME/expected/` every file the run writes into the
//! output directory, plus `stdout` when it prints anything (`-D -`, `.printsize`). A
//! `// args: …` line in the program's leading comment adds command-line options; with
//! `-D` among them the harness passes no output directory of its own.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn set_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/engine")
}

/// The programs of a set directory: each subdirectory `NAME` holding `NAME.dl`, by name.
fn programs(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| dir.join(n).join(format!("{n}.dl")).is_file())
        .collect();
    names.sort();
    names
}

/// The options of a `// args: …` line in the program's leading comment.
fn extra_args(program: &str) -> Vec<String> {
    program
        .lines()
        .take_while(|l| l.starts_with("//"))
        .find_map(|l| l.strip_prefix("// args:"))
        .map(|a| a.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// Every file under `dir`, by path relative to it (empty if `dir` does not exist).
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The differences between an expected and an actual file, one line each.
fn compare_text(name: &str, expected: &[u8], actual: &[u8], out: &mut Vec<String>) {
    if expected == actual {
        return;
    }
    let e = String::from_utf8_lossy(expected);
    let a = String::from_utf8_lossy(actual);
    let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
    for l in e.lines() {
        *counts.entry(l).or_default() += 1;
    }
    for l in a.lines() {
        *counts.entry(l).or_default() -= 1;
    }
    let mut any = false;
    for (line, n) in counts.iter().filter(|(_, n)| **n != 0) {
        any = true;
        let what = if *n > 0 { "missing" } else { "extra" };
        out.push(format!("{name}: {what} row {line:?}"));
    }
    if !any {
        out.push(format!(
            "{name}: same rows, different order or line ends\n  expected {e:?}\n  actual   {a:?}"
        ));
    }
}

/// Runs program `name` of the set in `dir` and returns every difference from its
/// expected files (empty when it passes).
fn check_program(dir: &Path, name: &str) -> Vec<String> {
    let pdir = dir.join(name);
    let prog = pdir.join(format!("{name}.dl"));
    let text = std::fs::read_to_string(&prog).unwrap();
    let args = extra_args(&text);
    let tmp = tempfile::tempdir().unwrap();
    let facts = pdir.join("facts");
    let facts = if facts.is_dir() {
        facts
    } else {
        tmp.path().join("no-facts")
    };
    let out_dir = tmp.path().join("out");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_llfacts"));
    cmd.arg("run").arg(&prog).arg("-F").arg(&facts);
    if !args.iter().any(|a| a == "-D") {
        cmd.arg("-D").arg(&out_dir);
    }
    cmd.args(&args).args(["--engine", "builtin"]);
    let o = cmd.output().expect("run llfacts");
    let mut diffs = Vec::new();
    if !o.status.success() {
        diffs.push(format!(
            "exit {:?}: {}",
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).trim_end()
        ));
        return diffs;
    }
    let mut expected = files(&pdir.join("expected"));
    let expected_stdout = expected.remove("stdout").unwrap_or_default();
    compare_text("stdout", &expected_stdout, &o.stdout, &mut diffs);
    let actual = files(&out_dir);
    for (file, want) in &expected {
        match actual.get(file) {
            Some(got) => compare_text(file, want, got, &mut diffs),
            None => diffs.push(format!("{file}: not written")),
        }
    }
    for file in actual.keys().filter(|f| !expected.contains_key(*f)) {
        diffs.push(format!("{file}: written but not expected"));
    }
    diffs
}

#[test]
fn every_program_gives_its_expected_outputs() {
    let dir = set_dir();
    let names = programs(&dir);
    assert!(names.len() >= 30, "only {} programs found", names.len());
    let mut failures = Vec::new();
    for name in &names {
        for d in check_program(&dir, name) {
            failures.push(format!("{name}: {d}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} difference(s) in the engine test set:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_program_documents_its_expected_outputs() {
    let dir = set_dir();
    for name in programs(&dir) {
        let pdir = dir.join(&name);
        let text = std::fs::read_to_string(pdir.join(format!("{name}.dl"))).unwrap();
        assert!(
            text.lines()
                .take_while(|l| l.starts_with("//"))
                .any(|l| l.contains("Expected")),
            "{name}: the leading comment must give the reasoning behind the expected outputs"
        );
        assert!(
            pdir.join("expected").is_dir(),
            "{name}: no expected/ directory"
        );
    }
}

/// The harness must notice a wrong expected file: a copy of a program with one expected
/// row changed, one removed and one added reports each of them.
#[test]
fn a_wrong_expected_file_is_reported() {
    let t = tempfile::tempdir().unwrap();
    let src = set_dir().join("scc_reach");
    let dst = t.path().join("scc_reach");
    for (rel, bytes) in files(&src) {
        let p = dst.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    assert!(check_program(t.path(), "scc_reach").is_empty());
    std::fs::write(dst.join("expected/acyclic.csv"), "g\nz\n").unwrap();
    std::fs::write(dst.join("expected/extra.csv"), "1\n").unwrap();
    std::fs::remove_file(dst.join("expected/reach_count.csv")).unwrap();
    let diffs = check_program(t.path(), "scc_reach");
    let joined = diffs.join("\n");
    for part in [
        "acyclic.csv: missing row \"z\"",
        "acyclic.csv: extra row \"h\"",
        "extra.csv: not written",
        "reach_count.csv: written but not expected",
    ] {
        assert!(joined.contains(part), "missing {part:?} in:\n{joined}");
    }
    assert_eq!(diffs.len(), 4, "{joined}");
}
