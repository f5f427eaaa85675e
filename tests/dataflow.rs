//! The dataflow rule files through the binary, on fixtures/dataflow/*.c compiled by clang-22
//! at -O0 -g and put through mem2reg: `rules/lib/cfg.dl` (through fixtures/dataflow/cfg_probe.dl),
//! `analyze --analysis constprop`, `range`, `availexpr` and `mustpoint`, each expected tuple reasoned in the
//! fixture's comments; and the builtin engine against Soufflé on the same facts.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

/// The fixture compiled at -O0 -g (without optnone), then mem2reg; mustpoint.c at -O0 -g
/// only (the seed's must-point-to analysis follows memory).
fn build(dir: &Path, name: &str) -> PathBuf {
    let src = repo().join(format!("fixtures/dataflow/{name}.c"));
    let bc = dir.join(format!("{name}.bc"));
    if name == "mustpoint" {
        compile(&src, &bc, &["-O0", "-g", "-fno-discard-value-names"]);
    } else {
        compile_mem2reg(&src, &dir.join(format!("{name}.pre.bc")), &bc);
    }
    bc
}

fn csv(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// A fixture's facts and analysis outputs, with variables named as the C source (or, for
/// a name starting with `%`, as the IR) names them within a function.
struct Run {
    module: String,
    facts: Facts,
    out: PathBuf,
    stdout: String,
    code: Option<i32>,
}

impl Run {
    fn new(dir: &Path, name: &str, analysis: &str) -> Run {
        let bc = build(dir, name);
        let facts = dir.join("facts");
        extract_ok(std::slice::from_ref(&bc), &facts, &["-q"]);
        let out = dir.join("out");
        let o = llfacts()
            .args(["analyze", "--analysis", analysis])
            .arg(&bc)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        Run {
            module: name.to_string(),
            facts: Facts::open(&facts),
            out,
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            code: o.status.code(),
        }
    }

    /// The variable `name` of function `func` (exactly one).
    fn var(&self, func: &str, name: &str) -> String {
        let prefix = format!("{}:@{func}:", self.module);
        let rel = if name.starts_with('%') {
            "variable_name"
        } else {
            "variable_source_name"
        };
        let vars: BTreeSet<String> = (self.facts.rows(rel).iter())
            .filter(|r| r[0].starts_with(&prefix) && r[1] == name)
            .map(|r| r[0].clone())
            .collect();
        assert_eq!(vars.len(), 1, "{func} {name}: {vars:?}");
        vars.into_iter().next().unwrap()
    }

    /// The rows of an output relation, keyed by their first column.
    fn rows(&self, rel: &str) -> BTreeMap<String, Vec<String>> {
        csv(&self.out.join(format!("{rel}.csv")))
            .into_iter()
            .map(|r| (r[0].clone(), r[1..].to_vec()))
            .collect()
    }

    fn value(&self, rel: &str, func: &str, name: &str) -> Option<Vec<String>> {
        self.rows(rel).get(&self.var(func, name)).cloned()
    }

    /// (line, rest of the row) of each row whose first column is an instruction.
    fn by_line(&self, rel: &str) -> BTreeSet<(String, Vec<String>)> {
        (self.rows(rel).into_iter())
            .map(|(i, rest)| (self.facts.one("instr_debug_loc", &i, 2), rest))
            .collect()
    }
}

fn strings(v: &[&str]) -> Option<Vec<String>> {
    Some(v.iter().map(|s| s.to_string()).collect())
}

/// Extracts `bcs` and runs fixtures/dataflow/cfg_probe.dl on them: (facts, outputs).
fn probe(dir: &Path, bcs: &[PathBuf]) -> (PathBuf, PathBuf) {
    let facts = dir.join("facts");
    extract_ok(bcs, &facts, &["-q"]);
    let out = dir.join("out");
    let o = llfacts()
        .args(["run", "-F"])
        .arg(&facts)
        .arg("-D")
        .arg(&out)
        .arg(repo().join("fixtures/dataflow/cfg_probe.dl"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr_text(&o));
    (facts, out)
}

#[test]
fn cfg_helpers_give_dominators_post_dominators_and_back_edges() {
    let dir = scratch("dataflow-cfg");
    let bc = build(&dir, "cfg");
    let (_, out) = probe(&dir, &[bc]);
    let pairs = |rel: &str| -> BTreeSet<(String, String)> {
        (csv(&out.join(format!("{rel}.csv"))).into_iter())
            .map(|r| (r[0].clone(), r[1].clone()))
            .filter(|(a, b)| a != b)
            .collect()
    };
    let set = |v: &[(&str, &str)]| -> BTreeSet<(String, String)> {
        v.iter()
            .map(|(a, b)| (format!("f:%{a}"), format!("f:%{b}")))
            .collect()
    };
    // entry -> for.cond -> (for.body -> if.then | if.else -> if.end -> for.inc -> for.cond)
    // | for.end. The diamond's blocks hang under for.body; the loop exits from for.cond.
    assert_eq!(
        pairs("idom"),
        set(&[
            ("for.cond", "entry"),
            ("for.body", "for.cond"),
            ("for.end", "for.cond"),
            ("if.then", "for.body"),
            ("if.else", "for.body"),
            ("if.end", "for.body"),
            ("for.inc", "if.end"),
        ])
    );
    // Strict dominators are the chains of idom: entry over the 7 others, for.cond over 6,
    // for.body over 4, if.end over for.inc.
    let dom = pairs("dom");
    assert!(dom.contains(&(s("f:%entry"), s("f:%for.inc"))));
    assert!(dom.contains(&(s("f:%for.body"), s("f:%for.inc"))));
    assert!(!dom.contains(&(s("f:%if.then"), s("f:%if.end"))));
    assert_eq!(dom.len(), 18, "{dom:?}");
    // Every path to the exit passes for.cond and for.end; the body's blocks pass if.end
    // and for.inc; nothing but itself passes for.body or entry.
    let mut pdom = Vec::new();
    for b in [
        "entry", "for.body", "for.inc", "if.then", "if.else", "if.end",
    ] {
        pdom.push(("for.cond", b));
    }
    for b in [
        "entry", "for.cond", "for.body", "for.inc", "if.then", "if.else", "if.end",
    ] {
        pdom.push(("for.end", b));
    }
    for b in ["for.body", "if.then", "if.else", "if.end"] {
        pdom.push(("for.inc", b));
    }
    for b in ["for.body", "if.then", "if.else"] {
        pdom.push(("if.end", b));
    }
    assert_eq!(pairs("pdom"), set(&pdom));
    assert_eq!(pairs("back"), set(&[("for.inc", "for.cond")]));
    assert_eq!(csv(&out.join("entry.csv")), [[s("f:%entry")]]);
    assert_eq!(csv(&out.join("exit.csv")), [[s("f:%for.end")]]);
    // The entry block is one branch: its first point is its last, the function's first.
    let first_last = csv(&out.join("first_last.csv"));
    assert!(first_last.contains(&vec![s("f:%entry"), s("0"), s("0")]));
    assert_eq!(first_last.len(), 8);
    assert_eq!(csv(&out.join("dom_mismatch.csv")), Vec::<Vec<String>>::new());
}

/// The dominator tree extraction gives (`block_idom`) against dominance by its definition
/// (no path from the entry avoids the dominator), on every C and C++ fixture of points-to and
/// dataflow at -O0 and -O2: loops, switches, gotos, exceptions, unreachable blocks.
#[test]
fn extracted_dominators_agree_with_their_definition() {
    let dir = scratch("dataflow-dominators");
    let mut bcs = Vec::new();
    for sub in ["fixtures/pointsto", "fixtures/dataflow"] {
        let mut srcs: Vec<PathBuf> = (std::fs::read_dir(repo().join(sub)).unwrap())
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "c" || e == "cpp"))
            .collect();
        srcs.sort();
        for (k, src) in srcs.iter().enumerate() {
            for opt in ["-O0", "-O2"] {
                let bc = dir.join(format!("{}{k}{opt}.bc", sub.len()));
                compile(src, &bc, &[opt]);
                bcs.push(bc);
            }
        }
    }
    let (facts, out) = probe(&dir, &bcs);
    let tree = std::fs::read_to_string(facts.join("block_idom.facts")).unwrap();
    assert!(tree.lines().count() > 400, "{tree}");
    assert_eq!(csv(&out.join("dom_mismatch.csv")), Vec::<Vec<String>>::new());
}

fn s(x: &str) -> String {
    x.to_string()
}

#[test]
fn constprop_folds_through_phis_branches_and_widths() {
    let dir = scratch("dataflow-constprop");
    let run = Run::new(&dir, "constprop", "constprop");
    let c = |func, name| run.value("constant_value", func, name);
    // Seed 4.5: the phi pair folds; the phis themselves do not.
    assert_eq!(c("phi_sum", "s"), strings(&["32"]));
    assert_eq!(c("phi_sum", "%a.0"), None);
    assert_eq!(c("phi_sum", "%b.0"), None);
    assert_eq!(c("phi_sum_differs", "t"), None);
    // Loops: k stays 5; i does not.
    assert_eq!(c("loop_const", "%k.0"), strings(&["5"]));
    assert_eq!(c("loop_const", "twice"), strings(&["10"]));
    assert_eq!(c("loop_const", "%i.0"), None);
    // A branch that cannot be taken, a switch on a constant.
    assert_eq!(c("dead_branch", "y1"), strings(&["3"]));
    assert_eq!(c("dead_branch", "%y.0"), strings(&["2"]));
    assert_eq!(c("sw", "%r.0"), strings(&["20"]));
    // Widths: an 8-bit wrap, exact 64-bit products, and what does not fit a number.
    assert_eq!(c("u8", "c2"), strings(&["4"]));
    assert_eq!(c("wide", "m"), strings(&["300000"]));
    assert_eq!(c("wide", "big"), None);
    assert_eq!(c("wide", "sum"), None);
    // Unsigned and signed comparisons of all ones.
    assert_eq!(c("cmp", "ut"), strings(&["1"]));
    assert_eq!(c("cmp", "st"), strings(&["0"]));
    // Absorbing constants.
    assert_eq!(c("absorb", "z"), strings(&["0"]));
    assert_eq!(c("absorb", "o"), strings(&["-1"]));
    assert_eq!(c("absorb", "m"), strings(&["0"]));
    assert_eq!(c("absorb", "p"), None);
    // Calls.
    assert_eq!(c("call", "r"), None);
    assert_eq!(c("call", "r1"), None);
    // One division by zero: div0's `x / z` (line 90), not div_ok's, nor the one div_dead
    // never runs, nor div_loop's `x / (k * 1)`, whose divisor is 0 only at first.
    assert_eq!(
        run.by_line("division_by_zero"),
        BTreeSet::from([(s("90"), vec![])])
    );
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(run.stdout.contains("constprop.c:90:"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("warning: division-by-zero: the divisor is always zero")
    );
}

#[test]
fn range_refines_on_branches_widens_loops_and_finds_indexes_out_of_bounds() {
    let dir = scratch("dataflow-range");
    let run = Run::new(&dir, "range", "range");
    let r = |func, name| run.value("value_range", func, name);
    // Seed 5.6.
    assert_eq!(r("seed_5_6", "%i.0"), strings(&["0", "100"]));
    assert_eq!(r("seed_5_6", "%add2"), strings(&["1", "100"]));
    // Seed 5.5, both branches (the false one with the corrected formula).
    assert_eq!(r("seed_5_5", "a"), strings(&["10", "90"]));
    assert_eq!(r("seed_5_5", "b"), strings(&["5", "20"]));
    assert_eq!(r("seed_5_5", "ta"), strings(&["1010", "1019"]));
    assert_eq!(r("seed_5_5", "tb"), strings(&["1011", "1020"]));
    assert_eq!(r("seed_5_5", "fa"), strings(&["2010", "2090"]));
    assert_eq!(r("seed_5_5", "fb"), strings(&["2005", "2020"]));
    // Nested conditions, loops, widths, switch.
    assert_eq!(r("nested", "n1"), strings(&["1", "8"]));
    assert_eq!(r("loop", "%j.0"), strings(&["0", "4"]));
    assert_eq!(r("loop", "%idxprom"), strings(&["0", "3"]));
    assert_eq!(r("widths", "sc"), strings(&["-128", "127"]));
    assert_eq!(r("widths", "uc"), strings(&["0", "255"]));
    assert_eq!(r("widths", "lo4"), strings(&["0", "15"]));
    assert_eq!(r("widths", "d"), strings(&["0", "9"]));
    assert_eq!(r("sw", "%sel.0"), strings(&["1", "3"]));
    assert_eq!(r("wide", "%k.0"), strings(&["0", "+inf"]));
    assert_eq!(r("ne_loop", "%i.0"), strings(&["0", "10"]));
    assert_eq!(r("ne_loop", "%inc"), strings(&["1", "10"]));
    assert_eq!(r("wide", "r1"), None);
    // Out of bounds: arr[i] after the loop (not arr[a], on the same line), table[n + 8],
    // buf[-1], x->a[3] of a field before the last; not table[n] nor buf[j], nor a struct's
    // last array field nor an extern array of no size (line 118).
    let row = |line: &str, v: &[&str]| (line.to_string(), strings(v).unwrap());
    assert_eq!(
        run.by_line("out_of_bounds"),
        BTreeSet::from([
            row("16", &["100", "100", "10"]),
            row("46", &["8", "15", "8"]),
            row("61", &["-1", "-1", "4"]),
            row("118", &["3", "3", "2"]),
        ])
    );
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(
        run.stdout.contains("range.c:16:")
            && run.stdout.contains(
                "warning: out-of-bounds: index in [100, 100] is outside an array of 10 elements"
            ),
        "{}",
        run.stdout
    );
}

#[test]
fn availexpr_finds_unordered_and_nested_equivalence_but_not_across_loop_phis() {
    let dir = scratch("dataflow-availexpr");
    let run = Run::new(&dir, "availexpr", "availexpr");
    let pairs: BTreeSet<(String, String)> = (csv(&run.out.join("equivalent_vars.csv")).into_iter())
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    let v = |func, name| run.var(func, name);
    // Seed 7.5: x dominates both y's and their phi. Seed 7.6: c ~ d, then e ~ f. a < b is
    // b > a, and so are their zexts.
    let expected = BTreeSet::from([
        (v("unordered", "x"), v("unordered", "%add1")),
        (v("unordered", "x"), v("unordered", "%add2")),
        (v("unordered", "x"), v("unordered", "%y.0")),
        (v("nested", "c"), v("nested", "d")),
        (v("nested", "e"), v("nested", "f")),
        (v("compare", "%cmp"), v("compare", "%cmp1")),
        (v("compare", "lt"), v("compare", "gt")),
    ]);
    // Not: loop_phi's sums (aaa before the loop, yyy + bbb in it), s1 and s2 (ordered), the
    // two calls' successors h1 and h2.
    assert_eq!(pairs, expected);
    let expr = |func, name| run.value("available_expr", func, name).unwrap()[0].clone();
    let (a, b) = (v("unordered", "a"), v("unordered", "b"));
    assert_eq!(expr("unordered", "x"), format!("add({a}, {b})"));
    assert_eq!(expr("unordered", "%add1"), format!("add({a}, {b})"));
    assert_eq!(
        expr("compare", "%cmp1"),
        format!("icmp slt({}, {})", v("compare", "a"), v("compare", "b"))
    );
    assert_eq!(
        expr("nested", "s2"),
        format!("sub({}, {})", v("nested", "%call1"), v("nested", "%call"))
    );
    assert_eq!(run.code, Some(0), "{}", run.stdout);
}

#[test]
fn mustpoint_follows_pointers_through_memory_and_intersects_at_merges() {
    let dir = scratch("dataflow-mustpoint");
    let run = Run::new(&dir, "mustpoint", "mustpoint");
    let at_exit: BTreeSet<(String, String, String)> =
        (csv(&run.out.join("must_point_to_at_exit.csv")).into_iter())
            .map(|r| (r[0].clone(), r[1].clone(), r[2].clone()))
            .collect();
    let fact = |func: &str, loc: &str, target: &str| {
        // `@x` is the global x, other names are locals.
        let v = |name: &str| match name.strip_prefix('@') {
            Some(global) => format!("mustpoint:@{global}"),
            None => format!("mustpoint:@{func}:%{name}"),
        };
        (format!("mustpoint:@{func}"), v(loc), v(target))
    };
    // Seed 8.2: a, b, d -> x; c, e -> a. Seed 6.4: c is nothing at the merge, d -> y. A
    // call may rewrite p (its address escaped), not q.
    let expected = BTreeSet::from([
        fact("all_ops", "a", "x"),
        fact("all_ops", "b", "x"),
        fact("all_ops", "c", "a"),
        fact("all_ops", "d", "x"),
        fact("all_ops", "e", "a"),
        fact("merges", "d", "y"),
        fact("calls", "q", "a"),
    ]);
    assert_eq!(at_exit, expected);
    // Flow-sensitively: in the loop, d -> y before `d = &x` (line 36) and d -> x before
    // `d = &y` (line 37); c -> y and c -> x (the global) on the two branches (only).
    let points = csv(&run.out.join("must_point_to.csv"));
    let lines = |loc: &str, target: &str| -> BTreeSet<String> {
        let (_, l, t) = fact("merges", loc, target);
        (points.iter())
            .filter(|r| r[1] == l && r[2] == t)
            .flat_map(|r| run.facts.lookup("instr_debug_loc", &r[0], 2))
            .collect()
    };
    assert!(lines("d", "y").contains("36") && !lines("d", "y").contains("37"));
    assert!(lines("d", "@x").contains("37") && !lines("d", "@x").contains("36"));
    // c: only at the branches' last points (their `br`, the second instruction).
    let c_points: BTreeSet<(String, String)> = (points.iter())
        .filter(|r| r[1] == "mustpoint:@merges:%c")
        .map(|r| (r[0].clone(), r[2].clone()))
        .collect();
    assert_eq!(
        c_points,
        BTreeSet::from([
            (s("mustpoint:@merges:%if.then:1"), s("mustpoint:@merges:%y")),
            (s("mustpoint:@merges:%if.else:1"), s("mustpoint:@x")),
        ])
    );
    assert_eq!(run.code, Some(0), "{}", run.stdout);
}

/// The same tuples from `llfacts run` and `souffle`, for every dataflow rule file on the
/// fixtures' facts. Skipped (saying so) where `souffle` is not on PATH.
#[test]
fn builtin_and_souffle_give_the_same_tuples() {
    if Command::new("souffle").arg("--version").output().is_err() {
        eprintln!("souffle is not on PATH: the builtin-vs-Soufflé comparison is skipped");
        return;
    }
    let dir = scratch("dataflow-souffle");
    let bcs: Vec<PathBuf> = ["constprop", "range", "availexpr", "mustpoint", "cfg"]
        .iter()
        .map(|n| build(&dir, n))
        .collect();
    let facts = dir.join("facts");
    extract_ok(&bcs, &facts, &["-q"]);
    for program in [
        "rules/constprop.dl",
        "rules/range.dl",
        "rules/availexpr.dl",
        "rules/mustpoint.dl",
        "fixtures/dataflow/cfg_probe.dl",
    ] {
        let (ours, theirs) = (dir.join("builtin"), dir.join("souffle"));
        for d in [&ours, &theirs] {
            let _ = std::fs::remove_dir_all(d);
            std::fs::create_dir_all(d).unwrap();
        }
        let o = llfacts()
            .args(["run", "--engine", "builtin", "-F"])
            .arg(&facts)
            .arg("-D")
            .arg(&ours)
            .arg(program)
            .current_dir(repo())
            .output()
            .unwrap();
        assert!(o.status.success(), "{program}: {}", stderr_text(&o));
        let o = Command::new("souffle")
            .arg("-F")
            .arg(&facts)
            .arg("-D")
            .arg(&theirs)
            .arg(program)
            .current_dir(repo())
            .output()
            .unwrap();
        assert!(o.status.success(), "souffle {program}: {}", stderr_text(&o));
        let mut files: Vec<_> = std::fs::read_dir(&ours)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        files.sort();
        assert!(!files.is_empty());
        for f in files {
            let set =
                |d: &Path| -> BTreeSet<Vec<String>> { csv(&d.join(&f)).into_iter().collect() };
            assert_eq!(set(&ours), set(&theirs), "{program}: {f:?}");
        }
    }
}
