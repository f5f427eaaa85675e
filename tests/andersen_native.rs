//! The native points-to solver (`--solver native`, the default) against its specification,
//! rules/andersen.dl evaluated by the rule engine (`--solver rules`): every output relation
//! must be byte-identical, on every C and C++ fixture (and a C++ program over the standard
//! library), at -O0, after mem2reg and at -O2, and on a whole real program, Lua 5.4 after
//! mem2reg; and with contexts (1-callsite, 2-callsite, 1-caller) on the C fixtures at -O0
//! and after mem2reg.

mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

use llfacts::analysis::pointsto::OUTPUTS;

fn sources() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in [
        "fixtures/pointsto",
        "fixtures/pointsto/unsound",
        "fixtures/c",
        "fixtures/cpp",
    ] {
        for e in std::fs::read_dir(repo().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "c" || x == "cpp") {
                v.push(p);
            }
        }
    }
    // C++ over the standard library: libstdc++'s string and node-linking models.
    v.push(repo().join("fixtures/pointsto/dynamic/stl_workload.cpp"));
    v.sort();
    assert!(v.len() >= 20, "fixtures not found: {v:?}");
    v
}

fn analyze(bc: &Path, solver: &str, context: &str, out: &Path) {
    let o = llfacts()
        .args(["analyze", "-q", "--engine", "builtin", "--solver", solver])
        .args(["--context", context])
        .arg(bc)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{} --solver {solver} --context {context}: {}",
        bc.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Both solvers in mode `context`; the number of tuples of the relations with contexts.
fn same_outputs(bc: &Path, dir: &Path, context: &str) -> usize {
    let (native, rules) = (dir.join("native"), dir.join("rules"));
    analyze(bc, "native", context, &native);
    analyze(bc, "rules", context, &rules);
    let (mut tuples, mut contextual) = (0, 0);
    assert!(OUTPUTS.contains(&"object"));
    for rel in OUTPUTS {
        let a = std::fs::read_to_string(native.join(format!("{rel}.csv"))).unwrap();
        let b = std::fs::read_to_string(rules.join(format!("{rel}.csv"))).unwrap();
        if a != b {
            let (la, lb): (HashSet<&str>, HashSet<&str>) =
                (a.lines().collect(), b.lines().collect());
            let only_a: Vec<&&str> = la.difference(&lb).take(5).collect();
            let only_b: Vec<&&str> = lb.difference(&la).take(5).collect();
            panic!(
                "{} --context {context}: {rel} differs: native only {only_a:?}, rules only {only_b:?}",
                bc.display()
            );
        }
        tuples += a.lines().count();
        if rel.starts_with("cs_") || *rel == "reachable_context" {
            contextual += a.lines().count();
        }
    }
    assert!(tuples > 0, "{}: nothing derived", bc.display());
    contextual
}

/// The fixture compiled at -O0 without optnone, then mem2reg.
fn mem2reg(src: &Path, case: &Path) -> PathBuf {
    let (pre, bc) = (case.join("a.bc"), case.join("m2r.bc"));
    compile_mem2reg(src, &pre, &bc);
    bc
}

#[test]
fn native_solver_equals_the_rules_on_every_fixture() {
    let dir = scratch("andersen-native");
    for src in sources() {
        let stem = src.file_stem().unwrap().to_string_lossy().to_string();
        for (mode, flags) in [
            ("O0", &["-O0"][..]),
            ("O2", &["-O2"][..]),
            ("m2r", &["-O0", "-Xclang", "-disable-O0-optnone"][..]),
        ] {
            let case = dir.join(format!("{stem}-{mode}"));
            std::fs::create_dir_all(&case).unwrap();
            let mut bc = case.join("a.bc");
            compile(&src, &bc, flags);
            if mode == "m2r" {
                let out = case.join("m2r.bc");
                let ok = Command::new(clang().with_file_name("opt"))
                    .args(["-passes=mem2reg"])
                    .arg(&bc)
                    .arg("-o")
                    .arg(&out)
                    .status()
                    .unwrap()
                    .success();
                assert!(ok);
                bc = out;
            }
            let contextual = same_outputs(&bc, &case, "insensitive");
            assert_eq!(contextual, 0, "{}: contexts when insensitive", bc.display());
        }
    }
}

/// The same with contexts, in three modes, on the C fixtures after mem2reg and at -O0
/// (where locals are stack objects, cloned per instance).
#[test]
fn native_solver_equals_the_rules_with_contexts() {
    let dir = scratch("andersen-native-contexts");
    let mut contextual = 0;
    for src in sources() {
        if src.extension().is_some_and(|x| x != "c") {
            continue;
        }
        let stem = src.file_stem().unwrap().to_string_lossy().to_string();
        let case = dir.join(&stem);
        std::fs::create_dir_all(&case).unwrap();
        let m2r = mem2reg(&src, &case);
        let o0 = case.join("o0.bc");
        compile(&src, &o0, &["-O0"]);
        // realistic.c in 2-callsite: 6.9 million cs_var_points_to_field tuples (its heap
        // objects cloned per pair of call sites), 137 s on the rule engine; one-element
        // modes only.
        let modes: &[&str] = match stem.as_str() {
            "realistic" => &["1-callsite", "1-caller"],
            _ => &["1-callsite", "2-callsite", "1-caller"],
        };
        for &context in modes {
            for (form, bc) in [("m2r", &m2r), ("O0", &o0)] {
                let out = case.join(format!("{form}-{context}"));
                contextual += same_outputs(bc, &out, context);
            }
        }
    }
    assert!(contextual > 0, "no contextual tuples");
}

/// Lua (every source file, linked, mem2reg: ~9.5M `var_points_to` rows), built by the
/// benchmarks' fixtures/bench/programs.py from crates.io's `lua-src`.
#[test]
fn native_solver_equals_the_rules_on_lua() {
    let o = Command::new("python3")
        .arg(repo().join("fixtures/bench/programs.py"))
        .args(["lua", "mem2reg"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bc = PathBuf::from(String::from_utf8(o.stdout).unwrap().trim());
    same_outputs(&bc, &scratch("andersen-native-lua"), "insensitive");
}

/// C `source` compiled to `<stem>.bc` after mem2reg, in a scratch directory named `dir`.
fn mem2reg_module(dir: &str, stem: &str, source: &str) -> PathBuf {
    let dir = scratch(&format!("andersen-native-{dir}"));
    let src = dir.join(format!("{stem}.c"));
    std::fs::write(&src, source).unwrap();
    let bc = dir.join(format!("{stem}.bc"));
    compile_mem2reg(&src, &dir.join(format!("{stem}.pre.bc")), &bc);
    bc
}

/// `analyze --explain P O`: the chain from a pointer back to the constraint that names the
/// object, each node holding the object because the next one does.
#[test]
fn explain_traces_a_pointer_back_to_its_object() {
    let bc = mem2reg_module(
        "explain",
        "explain",
        "int x, y;\nint *g;\n\
         void set(int **pp) { *pp = &x; }\n\
         int *get(void) { return g; }\n\
         int main(void) { set(&g); int *p = get(); return *p + y; }\n",
    );
    let explain = |pointer: &str, object: &str| {
        llfacts()
            .args(["analyze", "-q", "--engine", "builtin", "--explain", pointer, object])
            .arg(&bc)
            .output()
            .unwrap()
    };
    let o = explain("explain:@main:%call", "explain:@x");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines: Vec<&str> = text.lines().collect();
    // p is get's result, which get loaded from @g, where set stored &x through pp.
    assert_eq!(
        lines[0],
        "`explain:@main:%call` may point to `explain:@x`; each line holds it because the next \
         one does:"
    );
    assert_eq!(lines[1], "  explain:@main:%call");
    assert_eq!(lines[2], "  explain:@get:%0");
    assert!(lines[3].starts_with("  what loads through explain:@get:"), "{text}");
    assert_eq!(lines[4], "  memory of explain:@g at offset 0");
    assert_eq!(lines[5], "  what stores through explain:@set:%pp");
    assert!(lines[6].starts_with("  explain:@set:"), "{text}");
    assert!(lines[6].ends_with(" (by a constraint that names the object)"), "{text}");
    assert_eq!(lines.len(), 7, "{text}");

    // With contexts, nodes of function instances name their context (globals have none).
    let o = llfacts()
        .args(["analyze", "-q", "--engine", "builtin", "--context", "1-callsite"])
        .args(["--explain", "explain:@main:%call", "explain:@x"])
        .arg(&bc)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7, "{text}");
    assert_eq!(lines[1], "  explain:@main:%call");
    assert!(lines[2].starts_with("  explain:@get:%0 in context [explain:@main:"), "{text}");
    assert_eq!(lines[4], "  memory of explain:@g at offset 0");
    assert!(lines[5].starts_with("  what stores through explain:@set:%pp in context ["), "{text}");

    // A pointer that does not point to the object, and names that are not in the facts:
    // one line each, and a failing exit.
    for (pointer, object, says) in [
        (
            "explain:@main:%call",
            "explain:@g",
            "`explain:@main:%call` does not point to `explain:@g`",
        ),
        ("explain:@main:%nothing", "explain:@x", "no pointer `explain:@main:%nothing`"),
        ("explain:@main:%call", "explain:@y", "nothing points to `explain:@y`"),
    ] {
        let o = explain(pointer, object);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.lines().count() == 1, "{err}");
        assert!(err.contains(says), "{err}");
    }
    let o = llfacts()
        .args(["analyze", "-q", "--solver", "rules", "--explain"])
        .args(["explain:@main:%call", "explain:@x"])
        .arg(&bc)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("only the native solver"));
}

/// A memory copy in the chain is named by its instruction.
#[test]
fn explain_names_memory_copies() {
    let bc = mem2reg_module(
        "explain-copy",
        "copy",
        "struct box { int *p; };\nint x;\n\
         int main(void) { struct box a, b; a.p = &x; b = a; int *q = b.p; return *q; }\n",
    );
    let o = llfacts()
        .args(["analyze", "-q", "--engine", "builtin", "--explain", "copy:@main:%0", "copy:@x"])
        .arg(&bc)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // q = b.p, from b (entry:1); b = a, the llvm.memcpy (entry:4); a.p = &x, into a (entry:0)
    assert!(text.lines().any(|l| l == "  memory of copy:@main:%entry:1 at offset 0"), "{text}");
    assert!(text.lines().any(|l| l == "  what copy:@main:%entry:4 copies at offset 0"), "{text}");
    assert!(text.lines().any(|l| l == "  memory of copy:@main:%entry:0 at offset 0"), "{text}");
}

/// `--explain` names the solver's own nodes by what they stand for: the node a read at an
/// unknown offset takes the whole object from, and the fresh object an out-parameter
/// wrapper stores through its argument.
#[test]
fn explain_names_the_solvers_helper_nodes() {
    let bc = mem2reg_module(
        "explain-helpers",
        "helpers",
        "#include <stdlib.h>\nint y;\n\
         int *any(int i) { int *a[4] = {0}; a[1] = &y; return a[i]; }\n\
         void make(int **pp) { *pp = malloc(sizeof **pp); }\n\
         int main(int argc, char **argv) { int *p; make(&p); return *p + *any(argc); }\n",
    );
    let explain = |pointer: &str, object: &str| -> Vec<String> {
        let o = llfacts()
            .args(["analyze", "-q", "--engine", "builtin", "--explain", pointer, object])
            .arg(&bc)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).lines().map(str::to_string).collect()
    };
    // a[i] reads every cell of `a` (its alloca, the function's first instruction) through
    // the whole-object node; &y was stored at offset 8, a[1].
    let lines = explain("helpers:@main:%call", "helpers:@y");
    assert_eq!(lines.len(), 8, "{lines:#?}");
    assert_eq!(lines[2], "  helpers:@any:%0");
    assert!(lines[3].starts_with("  what loads through helpers:@any:"), "{lines:#?}");
    assert_eq!(lines[4], "  memory of helpers:@any:%entry:0 at any offset");
    assert_eq!(lines[5], "  memory of helpers:@any:%entry:0 at offset 8");
    assert!(lines[6].starts_with("  what stores through helpers:@any:"), "{lines:#?}");
    // p holds make's heap object (named by main's call of make, main's second
    // instruction after the alloca of p), which make stores through its argument.
    let lines = explain("helpers:@main:%0", "helpers:@main:%entry:1");
    assert_eq!(lines.len(), 6, "{lines:#?}");
    assert_eq!(lines[2], "  what loads through helpers:@main:%p");
    assert_eq!(lines[3], "  memory of helpers:@main:%entry:0 at offset 0");
    assert_eq!(
        lines[5],
        "  helpers:@main:%entry:1, stored through the call's argument \
         (by a constraint that names the object)"
    );
}
