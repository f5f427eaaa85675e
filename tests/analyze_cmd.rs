//! `llfacts analyze` and `llfacts alias` through the binary: the summary, the output
//! relations, the DOT call graph, and alias assertions placed in C code
//! (`fixtures/pointsto/alias_assertions.c`), each answered as the assertion says, at -O0 and
//! after mem2reg.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

fn fixture() -> PathBuf {
    repo().join("fixtures/pointsto/alias_assertions.c")
}

/// The fixture at -O0 (`mem2reg == false`) or at -O0 without optnone plus mem2reg.
fn build(dir: &Path, mem2reg: bool) -> PathBuf {
    let bc = dir.join("a.bc");
    if !mem2reg {
        compile(&fixture(), &bc, &["-O0", "-fno-discard-value-names"]);
        return bc;
    }
    let pre = dir.join("pre.bc");
    compile(
        &fixture(),
        &pre,
        &[
            "-O0",
            "-fno-discard-value-names",
            "-Xclang",
            "-disable-O0-optnone",
        ],
    );
    let ok = Command::new(clang().with_file_name("opt"))
        .args(["-passes=mem2reg"])
        .arg(&pre)
        .arg("-o")
        .arg(&bc)
        .status()
        .unwrap()
        .success();
    assert!(ok, "opt-22 failed");
    bc
}

fn rows(dir: &Path, rel: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join(format!("{rel}.facts"))).unwrap();
    text.lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// Every MAYALIAS/NOALIAS call as (expected answer, `FUNCTION VALUE1 VALUE2`).
fn assertions(bc: &Path, dir: &Path) -> Vec<(&'static str, String)> {
    let facts = dir.join("facts");
    extract_ok(&[bc.to_path_buf()], &facts, &["-q"]);
    let name = |rel: &str| -> HashMap<String, String> {
        rows(&facts, rel)
            .into_iter()
            .map(|r| (r[0].clone(), r[1].clone()))
            .collect()
    };
    let (fn_name, var_name) = (name("function_name"), name("variable_name"));
    let global_of = name("global_ref_constant");
    let global_name = name("global_var_name");
    let instr_fn = name("instr_function");
    let mut args: HashMap<String, Vec<String>> = HashMap::new();
    for r in rows(&facts, "call_arg") {
        let slot = args.entry(r[0].clone()).or_default();
        let i: usize = r[1].parse().unwrap();
        slot.resize(slot.len().max(i + 1), String::new());
        slot[i] = r[2].clone();
    }
    // An argument as `.ll` names it: a variable's IR name, or `@g` for a global reference.
    let value = |operand: &String| match var_name.get(operand) {
        Some(v) => v.clone(),
        None => format!("@{}", global_name[&global_of[operand]]),
    };
    let mut out = Vec::new();
    for r in rows(&facts, "call_direct") {
        let expect = match fn_name[&r[1]].as_str() {
            "MAYALIAS" => "may-alias",
            "NOALIAS" => "no-alias",
            _ => continue,
        };
        let func = &fn_name[&instr_fn[&r[0]]];
        let (a, b) = (value(&args[&r[0]][0]), value(&args[&r[0]][1]));
        out.push((expect, format!("{func} {a} {b}")));
    }
    out.sort();
    out
}

/// `llfacts alias --engine builtin BC ARGS...`.
fn alias(bc: &Path, args: &[&str]) -> std::process::Output {
    llfacts()
        .args(["alias", "--engine", "builtin"])
        .arg(bc)
        .args(args)
        .output()
        .unwrap()
}

fn alias_queries(dir: &Path, bc: &Path, queries: &[(&str, String)]) -> Vec<String> {
    let file = dir.join("queries.txt");
    let text: String = queries.iter().map(|(_, q)| format!("{q}\n")).collect();
    std::fs::write(&file, text).unwrap();
    let o = llfacts()
        .args(["alias", "--engine", "builtin"])
        .arg(bc)
        .arg("--queries")
        .arg(&file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn every_alias_assertion_is_answered_right() {
    for mem2reg in [false, true] {
        let dir = scratch(&format!("alias-asserts-{mem2reg}"));
        let bc = build(&dir, mem2reg);
        let queries = assertions(&bc, &dir);
        assert_eq!(queries.len(), 16, "assertions found: {queries:?}");
        let answers = alias_queries(&dir, &bc, &queries);
        assert_eq!(answers.len(), queries.len());
        let wrong: Vec<String> = queries
            .iter()
            .zip(&answers)
            .filter(|((expect, _), got)| expect != got)
            .map(|((expect, q), got)| format!("{q}: expected {expect}, got {got}"))
            .collect();
        assert!(wrong.is_empty(), "mem2reg={mem2reg}: {wrong:#?}");
    }
}

#[test]
fn one_query_prints_exactly_the_answer() {
    let dir = scratch("alias-one");
    let bc = build(&dir, true);
    for (args, expect) in [
        (["main", "%x", "%x"], "may-alias\n"),
        (["main", "%x", "%y"], "no-alias\n"),
        (["main", "%a", "%b"], "no-alias\n"),
        (["main", "@gx", "%x"], "no-alias\n"),
    ] {
        let o = alias(&bc, &args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(String::from_utf8_lossy(&o.stdout), expect, "{args:?}");
    }
}

#[test]
fn unknown_names_are_one_line_errors() {
    let dir = scratch("alias-errors");
    let bc = build(&dir, true);
    // Too few arguments: a usage error.
    let o = alias(&bc, &["main", "%x"]);
    assert_one_line_error(&o, 2, &["usage: llfacts alias"]);
    for (args, needle) in [
        (
            ["main", "%nope", "%x"],
            "no value `%nope` in function `main`",
        ),
        (["nofunc", "%x", "%x"], "no defined function `nofunc`"),
        (["main", "@nothing", "%x"], "no global `@nothing`"),
        (["main", "x", "%x"], "not a value name"),
    ] {
        let o = alias(&bc, &args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn analyze_reports_writes_relations_and_draws_the_call_graph() {
    let dir = scratch("analyze-cmd");
    let bc = build(&dir, true);
    let out = dir.join("out");
    let dot = dir.join("cg.dot");
    let o = llfacts()
        .args(["analyze", "--engine", "builtin", "--format", "json"])
        .arg(&bc)
        .arg("-o")
        .arg(&out)
        .arg("--callgraph-dot")
        .arg(&dot)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // One indirect call (`fp(...)`), resolved to both callees.
    assert_eq!(summary["indirect_calls"], 1, "{summary}");
    assert_eq!(summary["indirect_calls_resolved"], 1, "{summary}");
    assert_eq!(summary["indirect_calls_unresolved"], 0, "{summary}");
    assert_eq!(summary["analysis"], "andersen");
    assert!(summary["max_points_to"].as_u64().unwrap() >= 2, "{summary}");
    // main, xmalloc, callee_f, callee_g and the declared malloc, abort, MAYALIAS, NOALIAS.
    assert_eq!(summary["reachable_functions"], 8, "{summary}");

    for rel in llfacts::analysis::pointsto::OUTPUTS {
        assert!(out.join(format!("{rel}.csv")).is_file(), "{rel}.csv");
    }
    let reachable = std::fs::read_to_string(out.join("reachable_function.csv")).unwrap();
    assert!(reachable.lines().any(|l| l == "a:@callee_g"), "{reachable}");
    // `%s` in main points to the alloca of s at offset 0, and `%x` to x's at 0 too: `&x` is
    // passed to the indirect call `fp`, so x escapes, but an int has one field, at 0.
    let pts = std::fs::read_to_string(out.join("var_points_to_field.csv")).unwrap();
    for (var, offset) in [("%s", "0"), ("%x", "0")] {
        assert!(
            pts.lines()
                .any(|l| l.starts_with(&format!("a:@main:{var}\t"))
                    && l.ends_with(&format!("\t{offset}"))),
            "{var}: {pts}"
        );
    }

    let dot = std::fs::read_to_string(&dot).unwrap();
    assert!(dot.starts_with("digraph callgraph {"), "{dot}");
    assert!(
        dot.contains("\"main\" -> \"callee_f\" [style=dashed];"),
        "{dot}"
    );
    assert!(
        dot.contains("\"main\" -> \"callee_g\" [style=dashed];"),
        "{dot}"
    );
    assert!(dot.contains("\"main\" -> \"xmalloc\";"), "{dot}");
    assert!(dot.contains("\"xmalloc\" -> \"malloc\";"), "{dot}");
}

/// `--relations` writes only the relations named, each as the full output has it.
#[test]
fn analyze_writes_only_the_relations_asked_for() {
    let dir = scratch("analyze-relations");
    let bc = build(&dir, false);
    let analyze = |out: &Path, extra: &[&str]| {
        let o = llfacts()
            .args(["analyze", "-q", "--engine", "builtin"])
            .arg(&bc)
            .arg("-o")
            .arg(out)
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let (all, some) = (dir.join("all"), dir.join("some"));
    analyze(&all, &[]);
    analyze(&some, &["--relations", "object,call_graph_edge"]);
    let mut names: Vec<String> = std::fs::read_dir(&some)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["call_graph_edge.csv", "object.csv"]);
    for name in names {
        let full = std::fs::read_to_string(all.join(&name)).unwrap();
        assert!(!full.is_empty(), "{name}");
        assert_eq!(
            std::fs::read_to_string(some.join(&name)).unwrap(),
            full,
            "{name}"
        );
    }
    // A name that is no output relation, or --relations without -o: usage errors.
    for args in [
        &["-o", "x", "--relations", "bogus"][..],
        &["--relations", "object"],
    ] {
        let o = llfacts()
            .arg("analyze")
            .arg(&bc)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn analyze_text_summary_and_bad_input() {
    let dir = scratch("analyze-text");
    let bc = build(&dir, false);
    let o = llfacts()
        .args(["analyze", "--engine", "builtin"])
        .arg(&bc)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.starts_with("andersen: "), "{text}");
    assert!(text.contains("1 of 1 indirect calls resolved"), "{text}");

    let missing = dir.join("missing.bc");
    let o = llfacts().arg("analyze").arg(&missing).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("missing.bc"), "{err}");
}

#[test]
fn a_rules_file_turns_the_call_type_filter_off() {
    // docs/pointsto.md: the filter is one relation; a `--rules` file that makes every target
    // type callable restores the edge that `unsound/incompatible_call.c` misses.
    let dir = scratch("analyze-type-filter");
    let bc = dir.join("ic.bc");
    compile(
        &repo().join("fixtures/pointsto/unsound/incompatible_call.c"),
        &bc,
        &["-O0"],
    );
    let off = dir.join("off.dl");
    std::fs::write(
        &off,
        "callable_type(C, F) :- indirect_call_type(_, C), target_type(F).\n",
    )
    .unwrap();
    for solver in ["native", "rules"] {
        for (extra, reached) in [(None, false), (Some(&off), true)] {
            let out = dir.join(format!("out-{solver}-{reached}"));
            let mut cmd = llfacts();
            cmd.args(["analyze", "-q", "--solver", solver]).arg(&bc);
            if let Some(f) = extra {
                cmd.arg("--rules").arg(f);
            }
            let o = cmd.arg("-o").arg(&out).output().unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let edges = std::fs::read_to_string(out.join("call_graph_edge.csv")).unwrap();
            assert_eq!(
                edges.lines().any(|l| l.ends_with("\tic:@set")),
                reached,
                "{solver}, filter off: {reached}: {edges}"
            );
        }
    }
}

#[test]
fn out_of_bounds_unknown_keeps_offsets_past_an_object_at_its_minus_one() {
    // fixtures/pointsto/inbounds.c: `&q->d` is 24 bytes into what may be an 8-byte array.
    // By default that location is poison and dropped; `--out-of-bounds unknown` keeps it at
    // the array's -1, whose pointer to y the load then reads.
    let dir = scratch("analyze-out-of-bounds");
    let bc = dir.join("ib.bc");
    compile(&repo().join("fixtures/pointsto/inbounds.c"), &bc, &["-O0"]);
    for solver in ["native", "rules"] {
        for (how, y) in [(None, false), (Some("poison"), false), (Some("unknown"), true)] {
            let out = dir.join(format!("out-{solver}-{how:?}"));
            let mut cmd = llfacts();
            cmd.args(["analyze", "-q", "--solver", solver]).arg(&bc);
            if let Some(how) = how {
                cmd.args(["--out-of-bounds", how]);
            }
            let o = cmd.arg("-o").arg(&out).output().unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let pts = std::fs::read_to_string(out.join("var_points_to.csv")).unwrap();
            let sink: Vec<&str> = pts.lines().filter(|l| l.starts_with("ib:@sink_d:%0\t")).collect();
            assert!(sink.contains(&"ib:@sink_d:%0\tib:@x"), "{solver} {how:?}: {sink:?}");
            assert_eq!(sink.contains(&"ib:@sink_d:%0\tib:@y"), y, "{solver} {how:?}: {sink:?}");
        }
    }
    let o = llfacts().args(["analyze", "--out-of-bounds", "maybe"]).arg(&bc).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn analyze_and_alias_read_a_fact_directory() {
    let dir = scratch("analyze-facts");
    let bc = build(&dir, true);
    // `assertions` extracts the module into dir/facts.
    let queries = assertions(&bc, &dir);
    let facts = dir.join("facts");
    let file = dir.join("queries.txt");
    let text: String = queries.iter().map(|(_, q)| format!("{q}\n")).collect();
    std::fs::write(&file, text).unwrap();
    let o = llfacts()
        .args(["alias", "--engine", "builtin", "--facts"])
        .arg(&facts)
        .arg("--queries")
        .arg(&file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let expected: String = queries.iter().map(|(e, _)| format!("{e}\n")).collect();
    assert_eq!(String::from_utf8_lossy(&o.stdout), expected);
    let o = llfacts()
        .args(["alias", "--facts"])
        .arg(&facts)
        .args(["main", "%x", "%y"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "no-alias\n");

    // The same relations from the modules and from their facts.
    let analyze = |input: &[&std::ffi::OsStr], out: &Path| {
        let o = llfacts()
            .args(["analyze", "--engine", "builtin", "-q", "-o"])
            .arg(out)
            .args(input)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let (from_bc, from_facts) = (dir.join("out-bc"), dir.join("out-facts"));
    analyze(&[bc.as_os_str()], &from_bc);
    analyze(&["--facts".as_ref(), facts.as_os_str()], &from_facts);
    for rel in llfacts::analysis::pointsto::OUTPUTS {
        let name = format!("{rel}.csv");
        let a = std::fs::read_to_string(from_bc.join(&name)).unwrap();
        // The relations with contexts are empty when insensitive.
        let contextual = rel.starts_with("cs_") || *rel == "reachable_context";
        assert!(!a.is_empty() || contextual, "{name}");
        assert_eq!(a, std::fs::read_to_string(from_facts.join(&name)).unwrap(), "{name}");
    }

    // Modules and --facts together, or a directory that is none: one-line errors.
    let o = llfacts()
        .arg("analyze")
        .arg(&bc)
        .arg("--facts")
        .arg(&facts)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let o = llfacts()
        .args(["analyze", "--facts"])
        .arg(dir.join("nowhere"))
        .output()
        .unwrap();
    assert_one_line_error(&o, 1, &["nowhere", "not a fact directory"]);
    // An empty directory, and one that lacks relations (from an older llfacts).
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = llfacts().args(["analyze", "--facts"]).arg(&empty).output().unwrap();
    assert_one_line_error(&o, 1, &["empty: not a fact directory"]);
    let partial = dir.join("partial");
    std::fs::create_dir_all(&partial).unwrap();
    std::fs::copy(facts.join("type_kind.facts"), partial.join("type_kind.facts")).unwrap();
    let o = llfacts().args(["dtrans", "--facts"]).arg(&partial).output().unwrap();
    assert_one_line_error(&o, 1, &["partial: incomplete fact directory: no module.facts and "]);
}

#[test]
fn a_call_graph_that_cannot_be_written_fails_before_any_output() {
    let dir = scratch("analyze-dot-dest");
    let bc = build(&dir, false);
    let out = dir.join("out");
    let taken = dir.join("taken");
    std::fs::create_dir_all(&taken).unwrap();
    for (dot, needle) in [
        (taken.clone(), "taken: is a directory"),
        (dir.join("no/cg.dot"), "no such directory"),
    ] {
        let o = llfacts()
            .arg("analyze")
            .arg(&bc)
            .arg("-o")
            .arg(&out)
            .arg("--callgraph-dot")
            .arg(&dot)
            .output()
            .unwrap();
        assert_one_line_error(&o, 1, &[needle]);
        assert!(!out.exists(), "-o written before the failure");
    }
    // Only the points-to analysis has a call graph: a usage error.
    let o = llfacts()
        .args(["analyze", "--analysis", "range"])
        .arg(&bc)
        .arg("-o")
        .arg(&out)
        .arg("--callgraph-dot")
        .arg(dir.join("cg.dot"))
        .output()
        .unwrap();
    assert_one_line_error(&o, 2, &["--callgraph-dot: only the andersen analysis"]);
    assert!(!out.exists());
}

#[test]
fn analyze_reports_findings_as_sarif() {
    let dir = scratch("analyze-sarif");
    let bc = build(&dir, false);
    // Points-to computes facts and has no findings: an empty, valid log, exit 0.
    let o = llfacts()
        .args(["analyze", "--engine", "builtin", "--format", "sarif"])
        .arg(&bc)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let log: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 0);
}

#[test]
fn analyze_runs_the_call_graph_rules_and_reports_their_notes() {
    let dir = scratch("analyze-callgraph");
    let app = compile_snippet(
        &dir,
        "app",
        "int even(int n);\nint odd(int n) { return n == 0 ? 0 : even(n - 1); }\n\
         int even(int n) { return n == 0 ? 1 : odd(n - 1); }\nint main(void) { return odd(3); }\n",
        &["-O0", "-g"],
    );
    // A block no branch reaches: written in IR, since clang drops such blocks.
    let dead = dir.join("dead.ll");
    std::fs::write(
        &dead,
        "define i32 @f() {\nentry:\n  ret i32 0\norphan:\n  ret i32 1\n}\n",
    )
    .unwrap();
    let out = dir.join("out");
    let o = llfacts()
        .args(["analyze", "--analysis", "callgraph", "--engine", "builtin", "-o"])
        .arg(&out)
        .arg(&app)
        .arg(&dead)
        .output()
        .unwrap();
    // The unreachable block is a note: it is reported, and the run still succeeds.
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with(
            "callgraph: 3 call_edge, 0 external_callee, 2 recursive, 1 unreachable_block; "
        ),
        "{text}"
    );
    assert_eq!(
        lines[1..],
        [format!(
            "{}: note: unreachable-block: no path from the function's entry reaches this block [dead:@f:%orphan]",
            dead.display()
        )]
    );
    assert_eq!(read_file(&out, "recursive.csv"), "app:@even\napp:@odd\n");
    assert_eq!(read_file(&out, "unreachable_block.csv"), "dead:@f:%orphan\n");

    let o = llfacts()
        .args(["analyze", "--analysis", "callgraph", "--engine", "builtin", "--format", "sarif"])
        .arg(&app)
        .arg(&dead)
        .output()
        .unwrap();
    assert!(o.status.success());
    let log: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let result = &log["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "unreachable-block");
    assert_eq!(result["level"], "note");

    // An output relation of another analysis is a usage error.
    let o = llfacts()
        .args(["analyze", "--analysis", "callgraph", "-o"])
        .arg(&out)
        .args(["--relations", "var_points_to"])
        .arg(&app)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

/// `--context` takes one of the modes; anything else is a usage error in one line, for
/// `analyze` and `alias` alike, before any input is read.
#[test]
fn bad_context_is_a_usage_error() {
    let dir = scratch("analyze-bad-context");
    let bc = build(&dir, false);
    for cmd in [&["analyze"][..], &["alias", "--engine", "builtin"]] {
        for mode in ["4-callsite", "callsite", "1-callers", ""] {
            let mut c = llfacts();
            c.args(cmd).args(["--context", mode]).arg(&bc);
            if cmd[0] == "alias" {
                c.args(["main", "%p", "%q"]);
            }
            let o = c.output().unwrap();
            assert_one_line_error(&o, 2, &["--context", "2-callsite"]);
            assert_eq!(stderr_text(&o).lines().count(), 1, "{}", stderr_text(&o));
        }
    }
    let o = llfacts()
        .args(["analyze", "-q", "--engine", "builtin", "--context", "2-caller"])
        .arg(&bc)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr_text(&o));
}

#[test]
fn summary_counts_constant_data_as_one_object_beside_every_object() {
    let dir = scratch("analyze-constant-data");
    let ll = dir.join("pick.ll");
    std::fs::write(
        &ll,
        r#"@.s1 = private constant [2 x i8] c"a\00"
@.s2 = private constant [2 x i8] c"b\00"
@table = constant [2 x i32] [i32 1, i32 2]
@counter = global i32 0
@ptrs = constant [1 x ptr] [ptr @counter]

define ptr @pick(i32 %k) {
  %c = icmp eq i32 %k, 0
  %a = select i1 %c, ptr @.s1, ptr @.s2
  %d = icmp eq i32 %k, 1
  %b = select i1 %d, ptr %a, ptr @table
  %e = icmp eq i32 %k, 2
  %r = select i1 %e, ptr %b, ptr @counter
  %f = select i1 %e, ptr @ptrs, ptr @.s1
  ret ptr %r
}
"#,
    )
    .unwrap();
    let o = llfacts()
        .args(["analyze", "--format", "json"])
        .arg(&ll)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // Pointers: %a {s1, s2}, %b {s1, s2, table}, %r {s1, s2, table, counter},
    // %f {ptrs, s1}, one node per constant operand (s1, s2, table, counter, ptrs, s1) and
    // @ptrs' initializer leaf {counter}: 11 sets holding 2 + 3 + 4 + 2 + 6 + 1 = 18 objects.
    // The strings and the table of numbers are constant data; @counter is not constant and
    // @ptrs holds a pointer: counted as one, 1 + 1 + 2 + 2 + 6 + 1 = 13.
    assert_eq!(summary["pointers"], 11, "{summary}");
    let avg = summary["avg_points_to"].as_f64().unwrap();
    let merged = summary["avg_points_to_constants_as_one"].as_f64().unwrap();
    assert!((avg - 18.0 / 11.0).abs() < 1e-9, "{summary}");
    assert!((merged - 13.0 / 11.0).abs() < 1e-9, "{summary}");
}
