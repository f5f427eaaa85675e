//! Dynamic soundness check of `llfacts dtrans` (fixtures/dtrans/dynamic/validate.py): a
//! program is compiled, analysed, and run instrumented; every load, store and memory-function
//! range into an instance of a type the analysis finds legal to reorder must touch exactly
//! one of its fields, and no field found deletable is read. Here the check is shown to hold
//! on fixtures (at -O2 -g too, where struct types exist only in debug info) and on Lua, and
//! to catch wrong claims.

mod common;

use std::process::{Command, Output};

use common::*;

fn validate(args: &[&str]) -> Output {
    Command::new("python3")
        .arg(repo().join("fixtures/dtrans/dynamic/validate.py"))
        .arg("--llfacts")
        .arg(env!("CARGO_BIN_EXE_llfacts"))
        .args(args)
        .output()
        .unwrap()
}

fn report(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The report from its first `violations:` line on, each line without its count (` xN`)
/// and its instruction (a wrong access keeps its function).
fn violation_lines(text: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| !l.starts_with("violations:"))
        .map(|l| match l.split_once(" x") {
            Some((head, rest)) => match rest.split_once(": ") {
                Some((_, site)) => format!("{head}: {}", site.split('\t').next().unwrap()),
                None => head.to_string(),
            },
            None => l.to_string(),
        })
        .collect()
}

/// The report's line of the legal types the run accessed.
fn legal_types_accessed(text: &str) -> &str {
    text.lines()
        .find_map(|l| l.strip_prefix("legal types accessed: "))
        .unwrap_or_else(|| panic!("{text}"))
}

fn claims() -> String {
    repo()
        .join("fixtures/dtrans/dynamic/claims.c")
        .to_string_lossy()
        .into_owned()
}

/// claims.c: struct kept, struct outer and struct wrapped are legal and accessed only through
/// their fields (kept on the stack, in a global, on the heap as an array, and by a memset of
/// the whole array; outer's array of struct inner through an element's address). struct
/// punned is blocked, and its second field read as two shorts shows as wrong, on the heap
/// and inside wrapped, whose check holds those reads to punned alone. outer's field n is
/// never read: deletable, and the run reads it nowhere.
#[test]
fn legal_types_are_accessed_by_field_only() {
    for form in ["O0", "NP"] {
        let o = validate(&["--form", form, &claims()]);
        let text = report(&o);
        assert_eq!(o.status.code(), Some(0), "{form}: {text}");
        assert!(text.contains("program exit 0;"), "{form}: {text}");
        assert!(text.contains("legal to reorder 3 (3 accessed)"), "{form}: {text}");
        assert!(
            text.contains("legal types accessed: struct.kept struct.outer struct.wrapped\n"),
            "{form}: {text}"
        );
        assert!(text.contains("blocked types with wrong accesses 1\n"), "{form}: {text}");
        assert!(text.contains("violations: 0 (wrong"), "{form}: {text}");
        assert!(text.contains("deletable fields 1; violations: 0 "), "{form}: {text}");
    }
}

/// Claiming struct punned legal, and fields that the run reads deletable: the two 2-byte
/// reads of punned's 4-byte field at offset 4 (in main, of the punned inside wrapped: +4 in
/// punned, not +12 in wrapped; in halves, of one on the heap), and the reads of kept's tag
/// and of outer's array (through an element's address) are violations.
#[test]
fn a_wrong_claim_is_caught() {
    let o = validate(&[
        "--claim",
        "struct.punned",
        "--claim-deletable",
        "struct.kept:0",
        "--claim-deletable",
        "struct.outer:1",
        "--expect-violations",
        &claims(),
    ]);
    let text = report(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    let violations = violation_lines(&text);
    assert_eq!(
        violations,
        [
            "violations: 4 (wrong accesses into legal types)",
            "  struct.punned +4 (2 bytes): main",
            "  struct.punned +4 (2 bytes): halves",
            "  struct.punned +6 (2 bytes): main",
            "  struct.punned +6 (2 bytes): halves",
            "deletable fields 3; violations: 2 (deletable fields read)",
            "  struct.kept field 0 read",
            "  struct.outer field 1 read",
        ],
        "{text}"
    );
}

/// Lua 5.4 running fixtures/pointsto/dynamic/workload.lua, compiled without LLVM passes:
/// the types found legal are accessed, and never other than by field.
#[test]
fn lua_run_contradicts_no_verdict() {
    let o = validate(&["--program", "lua", "--form", "NP"]);
    let text = report(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("violations: 0 (wrong"), "{text}");
    assert!(text.contains("violations: 0 (deletable"), "{text}");
    let accessed = legal_types_accessed(&text);
    assert!(accessed.split(' ').count() >= 3, "{text}");
}

/// fixtures/dtrans/recovered.c at -O2 -g, where its struct types exist only in debug info
/// and TBAA tags (`slot` in the module): the run finds heap instances from the tags and the
/// array index, the four types found legal are accessed by field only, and claiming struct pair legal (its bytes are read as a
/// `long`) or rec's third field deletable (rec_sum reads it) is caught.
#[test]
fn recovered_types_are_checked_at_o2_with_debug_info() {
    let src = repo().join("fixtures/dtrans/recovered.c").to_string_lossy().into_owned();
    let o = validate(&["--form", "O2G", &src]);
    let text = report(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("legal types accessed: struct.bits struct.outer struct.rec struct.slot\n"), "{text}");
    assert!(text.contains("violations: 0 (wrong"), "{text}");

    let o = validate(&[
        "--form",
        "O2G",
        "--claim",
        "struct.pair",
        "--claim-deletable",
        "struct.rec:2",
        "--expect-violations",
        &src,
    ]);
    let text = report(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    let violations = violation_lines(&text);
    assert_eq!(
        violations,
        [
            "violations: 1 (wrong accesses into legal types)",
            "  struct.pair +0 (8 bytes): pun",
            "deletable fields 1; violations: 1 (deletable fields read)",
            "  struct.rec field 2 read",
        ],
        "{text}"
    );
}

/// fixtures/pointsto/dynamic/containers.cpp, whose std::map and std::unordered_set code the
/// check's runtime shares (one copy of each template instance, instrumented), and whose C++
/// type names hold spaces: the run completes, accesses are checked, and the types found
/// legal (at -O2, an Rb-tree helper's named with its template arguments) are accessed by
/// field only.
#[test]
fn cxx_containers_are_checked() {
    let src = repo().join("fixtures/pointsto/dynamic/containers.cpp");
    for form in ["O0", "O2"] {
        let o = validate(&["--form", form, src.to_str().unwrap()]);
        let text = report(&o);
        assert_eq!(o.status.code(), Some(0), "{form}: {text}");
        assert!(text.contains("program exit 0;"), "{form}: {text}");
        assert!(text.contains("violations: 0 (wrong"), "{form}: {text}");
        let accessed = legal_types_accessed(&text);
        assert!(accessed.contains("class.std::tuple"), "{form}: {text}");
    }
}

/// fixtures/dtrans/dynamic/callbacks.c: the callbacks that a function pointer reaches read
/// the context's first field, and at -O2 their parameter is used as no struct type (byte
/// offsets, a plain load at 0, an anonymous struct without a TBAA name). It takes the types
/// passed to it, so that field is read, not deletable, in every form; before, at -O2 the
/// analysis called it deletable and the run read it 14 times.
#[test]
fn fields_read_through_untyped_callback_parameters_are_not_deletable() {
    let src = repo().join("fixtures/dtrans/dynamic/callbacks.c");
    for form in ["O0", "NP", "O2"] {
        let o = validate(&["--form", form, src.to_str().unwrap()]);
        let text = report(&o);
        assert_eq!(o.status.code(), Some(0), "{form}: {text}");
        assert!(text.contains("program exit 0;"), "{form}: {text}");
        assert!(text.contains("legal types accessed: struct.transform\n"), "{form}: {text}");
        assert!(
            text.contains("deletable fields 0; violations: 0 (deletable fields read)"),
            "{form}: {text}"
        );
    }
}
