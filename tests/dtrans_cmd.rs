//! `llfacts dtrans` through the binary on fixtures/dtrans/program.c: the full report of
//! every struct type (conditions, verdicts, field summaries), at -O2 without LLVM passes
//! (the input DTrans is meant for) and at -O0; `-o`, `--facts`, and bad input; and on
//! fixtures/dtrans/ambiguous.c, how the ambiguous set is reported.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

fn build(dir: &Path, flags: &[&str]) -> PathBuf {
    let bc = dir.join("program.bc");
    compile(&repo().join("fixtures/dtrans/program.c"), &bc, flags);
    bc
}

fn report(bc: &Path) -> Value {
    let o = llfacts().arg("dtrans").arg(bc).args(["--format", "json"]).output().unwrap();
    assert!(o.status.success(), "{}", stderr_text(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn ty<'a>(report: &'a Value, name: &str) -> &'a Value {
    let id = format!("program:%struct.{name}");
    (report["types"].as_array().unwrap().iter())
        .find(|t| t["type"] == id.as_str())
        .unwrap_or_else(|| panic!("no {id} in {report:#}"))
}

fn conditions(t: &Value) -> BTreeSet<String> {
    (t["conditions"].as_array().unwrap().iter())
        .map(|c| c["condition"].as_str().unwrap().to_string())
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// (state, value) of each field's single-value summary.
fn values(t: &Value) -> Vec<(String, String)> {
    (t["fields"].as_array().unwrap().iter())
        .map(|f| {
            let v = &f["value"];
            (v["state"].as_str().unwrap().into(), v["value"].as_str().unwrap().into())
        })
        .collect()
}

fn single(v: &str) -> (String, String) {
    ("single".into(), v.into())
}

fn multiple() -> (String, String) {
    ("multiple".into(), String::new())
}

fn alloc_states(t: &Value) -> Vec<String> {
    (t["fields"].as_array().unwrap().iter())
        .filter_map(|f| f.get("alloc").map(|a| a["state"].as_str().unwrap().to_string()))
        .collect()
}

/// Every pointer local is an `alloca ptr` in both forms, so every type that a local
/// pointer holds has LocalPtr, which blocks nothing.
fn assert_program_report(r: &Value) {
    assert_eq!(r["summary"]["types"], 14, "{r:#}");
    assert_eq!(r["whole_program"].as_array().unwrap().len(), 0, "{r:#}");

    // Heap nodes linked through their own fields, walked and freed: nothing unsafe.
    // 4-byte key, 4 bytes of padding, pointer: sorting by alignment still needs 16 bytes.
    for name in ["list_node", "tree"] {
        let t = ty(r, name);
        assert_eq!(conditions(t), set(&["LocalPtr"]), "{name}");
        assert_eq!(t["reorder"]["legal"], true, "{name}");
        assert_eq!(t["reorder"]["saves_bytes"], 0, "{name}");
        assert_eq!(t["delete"]["fields"], serde_json::json!([]), "{name}: every field is read");
        assert_eq!(t["split"]["legal"], true, "{name}");
    }
    // Keys come from parameters; links from parameters and calls that are no allocators.
    assert_eq!(values(ty(r, "list_node")), vec![multiple(), multiple()]);
    assert_eq!(alloc_states(ty(r, "list_node")), vec!["bottom"]);
    assert_eq!(alloc_states(ty(r, "tree")), vec!["bottom", "bottom"]);

    // A global instance with a non-zero initializer of function addresses, called through.
    let ops = ty(r, "ops");
    assert_eq!(conditions(ops), set(&["GlobalInstance", "HasFnPtr", "HasInitializerList"]));
    assert_eq!(ops["reorder"]["legal"], false);
    assert_eq!(ops["blocked_by"], serde_json::json!(["HasInitializerList"]));
    assert_eq!(values(ops), vec![single("ptr @twice"), single("ptr @square")]);
    let fnptr = (ops["conditions"].as_array().unwrap().iter())
        .find(|c| c["condition"] == "HasFnPtr")
        .unwrap();
    assert!(fnptr["location"]["line"].as_i64().is_some(), "a witness with its line: {fnptr}");

    // memset of the whole struct, then stores of computed values; memcpy of a whole point
    // from another point: safe, and the copy makes the values unknown.
    for name in ["stats", "point"] {
        let t = ty(r, name);
        assert_eq!(conditions(t), set(&["LocalPtr"]), "{name}");
        assert_eq!(t["reorder"]["legal"], true, "{name}");
        assert!(values(t).iter().all(|v| *v == multiple()), "{name}: {t:#}");
    }

    // The field written and never read is the one a deletion removes; constants stored once.
    let record = ty(r, "record");
    assert_eq!(conditions(record), set(&["LocalPtr"]));
    assert_eq!(record["delete"]["fields"], serde_json::json!([1]));
    assert_eq!(values(record), vec![single("i32 7"), single("i32 9"), single("ptr @.str")]);
    assert_eq!(alloc_states(record), vec!["bottom"], "a string constant is no allocation");

    // Field 0 of a global is read and written at the global's address (no getelementptr):
    // still read, and assigned a value besides the zero it starts with.
    let opts = ty(r, "options");
    assert_eq!(conditions(opts), set(&["GlobalInstance"]));
    assert_eq!(opts["delete"]["fields"], serde_json::json!([]), "{opts:#}");
    assert_eq!(values(opts), vec![multiple(), multiple()]);
    // A store inside a nested struct changes the field that holds it; the nested type's
    // own fields start at zero with the global (`top.at.x` is never assigned).
    assert_eq!(values(ty(r, "frame")), vec![multiple(), multiple()]);
    assert_eq!(values(ty(r, "pos")), vec![single("i32 0"), multiple()]);
    // Each element of a global array's initializer initialises the element type.
    assert_eq!(values(ty(r, "limit")), vec![multiple(), single("i32 9")]);
    // fread writes the whole header, whatever was stored before.
    assert_eq!(values(ty(r, "header")), vec![multiple(), multiple()]);
    // calloc's block starts zeroed: `hits` is 0 or 1, `misses` never stored but 0. The
    // wrapper's memset clears its block before anything says it is a `config`: `mode` is 0
    // or 2, `fn` null or `twice`.
    assert_eq!(values(ty(r, "counter")), vec![multiple(), single("i32 0")]);
    assert_eq!(values(ty(r, "config")), vec![multiple(), multiple()]);

    // char, double, char, int: 24 bytes; double, int, char, char: 16.
    let padded = ty(r, "padded");
    assert_eq!(conditions(padded), set(&["LocalPtr"]));
    assert_eq!(padded["reorder"]["saves_bytes"], 8);
    assert_eq!(padded["reorder"]["order"], serde_json::json!([1, 3, 0, 2]));
    assert_eq!(
        values(padded),
        vec![single("i8 97"), single("double 5.000000e-01"), single("i8 99"), single("i32 4")]
    );
    // Useful types first: the one whose reorder saves padding leads.
    assert_eq!(r["types"][0]["type"], "program:%struct.padded");
    assert_eq!(r["summary"]["reorder_saved_bytes"], 8);
}

#[test]
fn full_report_without_llvm_passes() {
    let dir = scratch("dtrans_cmd_nopasses");
    let bc = build(&dir, &["-O2", "-Xclang", "-disable-llvm-passes", "-g"]);
    assert_program_report(&report(&bc));
}

#[test]
fn full_report_at_o0() {
    let dir = scratch("dtrans_cmd_o0");
    let bc = build(&dir, &["-O0", "-g"]);
    assert_program_report(&report(&bc));
}

#[test]
fn text_output_relations_and_facts() {
    let dir = scratch("dtrans_cmd_text");
    let bc = build(&dir, &["-O2", "-Xclang", "-disable-llvm-passes"]);
    let out = dir.join("out");
    let o = llfacts().arg("dtrans").arg(&bc).arg("-o").arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", stderr_text(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.starts_with("dtrans: 14 struct types"), "{text}");
    // -q: the same report without its summary lines.
    let o = llfacts().args(["dtrans", "-q"]).arg(&bc).output().unwrap();
    assert!(o.status.success(), "{}", stderr_text(&o));
    let quiet = String::from_utf8(o.stdout).unwrap();
    let types = text.split_once("\n\n").unwrap().1;
    assert_eq!(quiet, types);
    assert!(
        text.contains("reorder: legal, saves 8 bytes per instance (24 -> 16; field order 1 3 0 2)"),
        "{text}"
    );
    assert!(text.contains("delete: legal for fields 1 (never read)"), "{text}");
    for rel in [
        "dtrans_type",
        "dtrans_safety",
        "dtrans_safety_witness",
        "dtrans_field_access",
        "dtrans_field_value",
        "dtrans_field_alloc",
        "dtrans_whole_program",
        "dtrans_ambiguous",
        "dtrans_ambiguous_witness",
    ] {
        assert!(out.join(format!("{rel}.csv")).exists(), "{rel}");
    }
    let safety = read_file(&out, "dtrans_safety.csv");
    assert!(safety.contains("program:%struct.ops\tHasFnPtr\n"), "{safety}");

    // The same report from facts extracted once.
    let facts = dir.join("facts");
    extract_ok(&[bc.clone()], &facts, &[]);
    let o = llfacts().arg("dtrans").arg("--facts").arg(&facts).output().unwrap();
    assert!(o.status.success(), "{}", stderr_text(&o));
    assert_eq!(String::from_utf8(o.stdout).unwrap(), text);
}

/// Eight types through one `void *` (fixtures/dtrans/ambiguous.c, whose EXPECT lines
/// tests/dtrans_rules.rs checks): each is marked ambiguous, its conditions seen on the
/// ambiguous pointers say so, and the type that never meets them stays legal.
#[test]
fn ambiguous_types_are_reported() {
    let dir = scratch("dtrans_cmd_ambiguous");
    let bc = dir.join("ambiguous.bc");
    compile(&repo().join("fixtures/dtrans/ambiguous.c"), &bc, &["-O2", "-Xclang", "-disable-llvm-passes"]);
    let r = report(&bc);
    assert_eq!(r["summary"]["ambiguous"], 8, "{:#}", r["summary"]);
    let named = |name: &str| {
        let id = format!("ambiguous:%struct.{name}");
        (r["types"].as_array().unwrap().iter()).find(|t| t["type"] == id.as_str()).unwrap().clone()
    };
    for name in ["amb_a", "amb_b", "amb_c", "amb_d", "amb_e", "amb_f", "amb_g", "amb_h"] {
        let t = named(name);
        assert_eq!(t["ambiguous"], true, "{name}");
        // How it joined the set: a node of the module (the pointers `put` stores, `get` loads).
        let entry = t["ambiguous_entry"]["entity"].as_str().unwrap_or_else(|| panic!("{name}: {t:#}"));
        assert!(entry.starts_with("ambiguous:@"), "{name}: {entry}");
        assert_eq!(t["reorder"]["legal"], false, "{name}");
        let through: BTreeSet<String> = (t["conditions"].as_array().unwrap().iter())
            .filter(|c| c["ambiguous"] == true)
            .map(|c| c["condition"].as_str().unwrap().to_string())
            .collect();
        // Seen only on the ambiguous pointers (their own LocalPtr slots are direct).
        for c in ["GlobalPtr", "MismatchedElementAccess", "UnsafePointerStore"] {
            assert!(through.contains(c), "{name}: {c} not through an ambiguous pointer: {t:#}");
        }
        assert!(!through.contains("LocalPtr"), "{name}: {t:#}");
    }
    // `rc->z` uses the ambiguous pointer as amb_c itself: amb_c's BadCasting is its own.
    let c = named("amb_c");
    let bad = (c["conditions"].as_array().unwrap().iter()).find(|c| c["condition"] == "BadCasting").unwrap();
    assert_eq!(bad["ambiguous"], false, "{c:#}");
    let keeper = named("keeper");
    assert_eq!(keeper["ambiguous"], false);
    assert!(keeper["ambiguous_entry"].is_null());
    assert_eq!(keeper["reorder"]["legal"], true);
    assert_eq!(keeper["reorder"]["saves_bytes"], 8);

    let o = llfacts().arg("dtrans").arg(&bc).output().unwrap();
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("8 reaching ambiguous pointers"), "{text}");
    assert!(text.contains("(an ambiguous pointer)"), "{text}");
    assert!(text.contains("  ambiguous: reaches pointers to more than 6 struct types: ambiguous:@"), "{text}");
}

/// fixtures/dtrans/recovered.c at -O2: the module holds none of its struct types. With -g
/// the report shows them, recovered from debug info, with their source field names; without,
/// it names them as not analysed.
#[test]
fn types_dropped_by_the_optimiser_are_reported() {
    let dir = scratch("dtrans_cmd_recovered");
    let src = repo().join("fixtures/dtrans/recovered.c");
    let (with_g, without_g) = (dir.join("g.bc"), dir.join("plain.bc"));
    compile(&src, &with_g, &["-O2", "-g"]);
    compile(&src, &without_g, &["-O2"]);

    let r = report(&with_g);
    // Six recovered; `held` and the union stay in the module as a global's elements, `slot`
    // as the source type of an array index.
    assert_eq!(r["summary"]["types"], 9, "{:#}", r["summary"]);
    assert_eq!(r["summary"]["recovered"], 6);
    let rec = (r["types"].as_array().unwrap().iter()).find(|t| t["name"] == "%struct.rec").unwrap();
    assert_eq!(rec["recovered"], true);
    assert_eq!(rec["reorder"]["saves_bytes"], 8, "{rec:#}");
    let names: Vec<&str> = (rec["fields"].as_array().unwrap().iter()).map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["tag", "id", "flag"]);
    let text = String::from_utf8(llfacts().arg("dtrans").arg(&with_g).output().unwrap().stdout).unwrap();
    for line in [
        "6 recovered from debug info",
        "%struct.rec (24 bytes, 3 fields, from debug info)",
        "  reorder: legal, saves 8 bytes per instance (24 -> 16; field order 1 0 2)",
        "  field 0 tag i8 @0: read write; single value i8 114",
        "  field 0 in %struct.inner @0:",
    ] {
        assert!(text.contains(line), "{line:?} not in\n{text}");
    }

    // `slot`'s fields are read through the element address `t[i]` alone, with or without -g.
    for bc in [&with_g, &without_g] {
        let r = report(bc);
        let slot = (r["types"].as_array().unwrap().iter()).find(|t| t["name"] == "%struct.slot").unwrap();
        assert_eq!(slot["delete"]["fields"], serde_json::json!([]), "{slot:#}");
        assert_eq!(values(slot), vec![multiple(), multiple()], "`val` is 0 (calloc) or 3");
    }

    let r = report(&without_g);
    assert_eq!(r["summary"]["types"], 3);
    assert_eq!(r["unrecovered"], serde_json::json!(["bits", "outer", "pair", "rec", "wide"]));
    let text = String::from_utf8(llfacts().arg("dtrans").arg(&without_g).output().unwrap().stdout).unwrap();
    assert!(text.contains("5 named by TBAA tags have no layout and are not analysed (build with -g)"), "{text}");
    assert!(text.contains("no layout (not analysed): bits, outer, pair, rec, wide"), "{text}");
}

#[test]
fn bad_input_and_usage() {
    let dir = scratch("dtrans_cmd_bad");
    write_file(&dir, "bad.bc", "not bitcode");
    let o = llfacts().arg("dtrans").arg(dir.join("bad.bc")).output().unwrap();
    assert_one_line_error(&o, 1, &["bad.bc"]);
    let bc = build(&dir, &["-O0"]);
    let o = llfacts().arg("dtrans").arg(&bc).args(["--format", "sarif"]).output().unwrap();
    assert_one_line_error(&o, 2, &["text or json"]);
}

/// A reader that stops reading (`llfacts dtrans x.bc | head`) is no error: writing the report
/// into a closed pipe ends the command quietly, with no internal error.
#[test]
fn closed_stdout_is_no_error() {
    let dir = scratch("dtrans-cmd-closed-stdout");
    let bc = build(&dir, &["-O0"]);
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = llfacts().arg("dtrans").arg(&bc).stdout(writer).output().unwrap();
    assert_eq!(stderr_text(&o), "");
    assert_eq!(o.status.code(), Some(0));
}
