//! Dynamic soundness check of the dataflow rules (fixtures/dataflow/dynamic/validate.py):
//! a program is compiled, analysed by rule files, and run instrumented; every
//! `constant_value` must be what the value always was, and every `value_range` must hold
//! every value computed. Here the checker is shown to find false claims.

mod common;

use std::process::{Command, Output};

use common::*;

fn validate(args: &[&str], rules: &str, sources: &[&str]) -> Output {
    let dynamic = repo().join("fixtures/dataflow/dynamic");
    let mut cmd = Command::new("python3");
    cmd.arg(dynamic.join("validate.py"))
        .arg("--llfacts")
        .arg(env!("CARGO_BIN_EXE_llfacts"))
        .arg("--rules")
        .arg(rules)
        .args(args);
    for s in sources {
        cmd.arg(dynamic.join(s));
    }
    cmd.output().unwrap()
}

/// `script` (of fixtures/dataflow/dynamic) with `args` on `source`: its exit code and report.
fn check(script: &str, args: &[&str], source: &std::path::Path) -> (Option<i32>, String) {
    let o = Command::new("python3")
        .arg(repo().join("fixtures/dataflow/dynamic").join(script))
        .arg("--llfacts")
        .arg(env!("CARGO_BIN_EXE_llfacts"))
        .args(args)
        .arg(source)
        .output()
        .unwrap();
    (o.status.code(), report(&o))
}

fn report(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn false_claims_are_found_on_a_run() {
    let rules = repo().join("fixtures/dataflow/dynamic/wrong_claims.dl");
    let o = validate(&["--mem2reg"], rules.to_str().unwrap(), &["claims.c"]);
    let text = report(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    // Two claims of each kind were checked; one of each is false (wrong_claims.dl).
    assert!(
        text.contains("claims checked: constant_value 2, value_range 2;"),
        "{text}"
    );
    let violations: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("violations:"))
        .collect();
    assert_eq!(
        violations,
        [
            "violations: 2",
            "  constant_value program:@bump:%2 = 8, run: [7, 7]",
            "  value_range program:@twice:%2 in [7, 9], run: signed [6, 6], unsigned [6, 6]",
        ],
        "{text}"
    );
}

/// The counts line: (constant_value claims checked, value_range claims checked).
fn checked(text: &str) -> (usize, usize) {
    let count = |key: &str| -> usize {
        let at = text
            .find(key)
            .unwrap_or_else(|| panic!("no `{key}` in {text}"))
            + key.len();
        let digits: String = text[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().unwrap()
    };
    (count("constant_value "), count("value_range "))
}

/// rules/constprop.dl and rules/range.dl on the dataflow fixtures (run by their drive_*.c)
/// and on Lua 5.4 running
/// fixtures/pointsto/dynamic/workload.lua, after mem2reg: no claim is false, and there are
/// claims to check.
#[test]
fn constprop_and_range_hold_on_real_runs() {
    let fixtures = repo().join("fixtures/dataflow");
    for (name, least) in [("constprop", (8, 0)), ("range", (0, 20))] {
        let src = fixtures.join(format!("{name}.c"));
        let main = fixtures.join(format!("drive_{name}.c"));
        let sources = [src.to_str().unwrap(), main.to_str().unwrap()];
        let o = validate(&["--mem2reg"], "constprop,range", &sources);
        let text = report(&o);
        assert_eq!(o.status.code(), Some(0), "{name}: {text}");
        let (c, r) = checked(&text);
        assert!(c >= least.0 && r >= least.1, "{name}: {text}");
    }
    let o = validate(&["--mem2reg", "--program", "lua"], "constprop,range", &[]);
    let text = report(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    let (c, r) = checked(&text);
    assert!(c >= 10 && r >= 1000, "{text}");
}

/// fixtures/dataflow/dynamic/defuse_validate.py on defuse_claims.c after mem2reg, with
/// `extra` arguments.
fn defuse_validate(extra: &[&str]) -> (Option<i32>, String) {
    let claims = repo().join("fixtures/dataflow/dynamic/defuse_claims.c");
    check("defuse_validate.py", &[&["--mem2reg"], extra].concat(), &claims)
}

/// The lines from `violations:` on.
fn violations(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.starts_with("violations:"))
        .collect()
}

/// rules/defuse.dl on a run of defuse_claims.c: every definition a load reads is among its
/// reaching definitions. The 10 loads that run each read one definition: 3 the entry
/// definition (bump's first load of counter, on both calls: the initializer, then the
/// previous activation's store; read_through's *p, stored by main; depth's *outer, an outer
/// activation's local), 2 the call set_shared (shared.a and shared.b), the other 5 a store
/// or the memset of the same activation. Dropping the entry definitions from the claims,
/// or the call set_shared (main's instruction 8 in its first block, %0, as clang-22 lays
/// it out), makes exactly those reads violations: the check tells the three kinds apart
/// and can fail.
#[test]
fn defuse_holds_on_a_run_and_dropped_definitions_are_caught() {
    let (code, text) = defuse_validate(&[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("uses checked 10, (use, definition) pairs checked 10\n"),
        "{text}"
    );
    assert_eq!(violations(&text), ["violations: 0 pairs at 0 uses"], "{text}");

    let dropped: [(&str, &[&str]); 2] = [
        (
            "<entry>$",
            &[
                "violations: 3 pairs at 3 uses",
                "  program:@bump:%0:0 reads program:@bump:<entry>",
                "  program:@depth:%5:0 reads program:@depth:<entry>",
                "  program:@read_through:%1:0 reads program:@read_through:<entry>",
            ],
        ),
        (
            "@main:%0:8$",
            &[
                "violations: 2 pairs at 2 uses",
                "  program:@main:%0:10 reads program:@main:%0:8",
                "  program:@main:%0:9 reads program:@main:%0:8",
            ],
        ),
    ];
    for (drop, want) in dropped {
        let (code, text) = defuse_validate(&["--drop", drop]);
        assert_eq!(code, Some(1), "{drop}: {text}");
        assert_eq!(violations(&text), want, "{drop}: {text}");
    }
}

/// defuse's check on fixtures/pointsto/dynamic/containers.cpp, whose std::map and
/// std::unordered_set code the check's runtime shares (one copy of each template instance,
/// instrumented, which must not report to the runtime itself): the run completes with uses
/// checked and no violation, at -O0 and after mem2reg.
#[test]
fn defuse_holds_on_cxx_containers() {
    let containers = repo().join("fixtures/pointsto/dynamic/containers.cpp");
    for form in [&[][..], &["--mem2reg"][..]] {
        let (code, text) = check("defuse_validate.py", form, &containers);
        assert_eq!(code, Some(0), "{form:?}: {text}");
        assert!(text.contains("program exit 0"), "{form:?}: {text}");
        assert!(!text.contains("uses checked 0,"), "{form:?}: {text}");
        assert_eq!(violations(&text), ["violations: 0 pairs at 0 uses"], "{form:?}: {text}");
    }
}

/// fixtures/dataflow/dynamic/mustpoint_validate.py on mustpoint_claims.c at -O0: every
/// `must_point_to` claim holds each time execution passes its point, and claims were
/// reached. A claim the analysis rightly does not make, that s still holds &a after
/// `touch(&s)` (main's %18:4, the point after the call; s is %11, a is %6 in clang-22's
/// numbering), is caught: touch stored &y there, and main runs once.
#[test]
fn mustpoint_holds_on_a_run_and_a_wrong_claim_is_caught() {
    let claims = repo().join("fixtures/dataflow/dynamic/mustpoint_claims.c");
    let validate = |extra: &[&str]| check("mustpoint_validate.py", extra, &claims);
    let (code, text) = validate(&[]);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(violations(&text), ["violations: 0"], "{text}");
    let reached: usize = text
        .split("reached ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count of claims reached: {text}"));
    assert!(reached >= 20, "{text}");

    let wrong = "program:@main:%18:4,program:@main:%11,program:@main:%6";
    let (code, text) = validate(&["--claim", wrong]);
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(
        violations(&text),
        [
            "violations: 1",
            "  at program:@main:%18:4: program:@main:%11 -> program:@main:%6 does not always hold (passed 1 times)",
        ],
        "{text}"
    );
}

/// setjmp returns again when a call made after it longjmps back
/// (fixtures/dataflow/dynamic/longjmp.c): retry's resumed code reads `tries` as stored after
/// setjmp and by its own increment, and at -O0 resumed's `p` holds &b there, though the one
/// CFG path to it stores &a. Without the longjmp edges, defuse misses 2 (use, definition)
/// pairs at -O0 and after mem2reg, and mustpoint claims &a at 2 points that run with &b.
#[test]
fn setjmp_resumes_with_what_calls_after_it_wrote() {
    let src = repo().join("fixtures/dataflow/dynamic/longjmp.c");
    let validate = |script: &str, form: &[&str]| check(script, form, &src);
    for form in [&[][..], &["--mem2reg"][..]] {
        let (code, text) = validate("defuse_validate.py", form);
        assert_eq!(code, Some(0), "{form:?}: {text}");
        assert!(text.contains("program exit 0"), "{form:?}: {text}");
        assert!(!text.contains("uses checked 0,"), "{form:?}: {text}");
        assert_eq!(violations(&text), ["violations: 0 pairs at 0 uses"], "{form:?}: {text}");
    }
    let (code, text) = validate("mustpoint_validate.py", &[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(!text.contains("reached 0 "), "{text}");
    assert_eq!(violations(&text), ["violations: 0"], "{text}");
}
