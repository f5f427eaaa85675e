//! `llfacts check`: exit codes, the three report formats with source locations, checking
//! an existing fact directory, user rules, and SARIF validated against the OASIS schema.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;

/// A -g module where `int c = a + b;` puts an `add nsw` at line 2, column 13 (the `+`),
/// and `f` itself is declared on line 1.
fn snippet(dir: &Path) -> PathBuf {
    compile_snippet(
        dir,
        "x",
        "int f(int a, int b) {\n  int c = a + b;\n  return c * 2;\n}\n",
        &["-O0", "-g"],
    )
}

/// User rules: flag every `add nsw`, and every defined function.
fn toy_rules(dir: &Path) -> PathBuf {
    let path = dir.join("toy.dl");
    std::fs::write(
        &path,
        format!(
            "#include \"{}\"\n\
             .decl violation(check: symbol, entity: symbol, message: symbol)\n\
             .output violation\n\
             violation(\"nsw-add\", I, \"add with nsw\") :- add_instr(I), instr_nsw(I).\n\
             violation(\"has-function\", F, cat(\"function \", N)) :- function_definition(F), function_name(F, N).\n",
            repo().join("schema/llfacts.dl").display()
        ),
    )
    .unwrap();
    path
}

fn check(args: &[&str], extra: &[&Path]) -> Output {
    llfacts()
        .arg("check")
        .args(["--engine", "builtin"])
        .args(args)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn clean_modules_pass_with_exit_0() {
    let mut args: Vec<PathBuf> = all_fixtures();
    args.insert(0, PathBuf::from("--format=json"));
    let o = llfacts()
        .arg("check")
        .args(["--engine", "builtin"])
        .args(&args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["count"], 0, "{stdout}");
}

#[test]
fn violations_are_reported_at_their_source_location() {
    let dir = scratch("check-text");
    let bc = snippet(&dir);
    let rules = toy_rules(&dir);
    let o = check(&["--checks"], &[&rules, &bc]);
    assert_eq!(o.status.code(), Some(1));
    let src = dir.join("x.c").display().to_string();
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines.contains(&format!("{src}:1: has-function: function f [x:@f]").as_str()),
        "{stdout}"
    );
    let nsw = lines.iter().find(|l| l.contains("nsw-add")).unwrap();
    assert!(
        nsw.starts_with(&format!("{src}:2:13: nsw-add: add with nsw [x:@f:%")),
        "{nsw}"
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "llfacts: 2 violations of 2 checks\n"
    );
}

#[test]
fn json_report() {
    let dir = scratch("check-json");
    let bc = snippet(&dir);
    let rules = toy_rules(&dir);
    let o = check(&["--format", "json", "--checks"], &[&rules, &bc]);
    assert_eq!(o.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["count"], 2);
    let v = &doc["violations"];
    assert_eq!(v[0]["check"], "has-function");
    assert_eq!(v[0]["entity"], "x:@f");
    assert_eq!(v[0]["location"]["line"], 1);
    assert_eq!(v[0]["module"], bc.display().to_string());
    assert_eq!(v[1]["check"], "nsw-add");
    assert_eq!(
        v[1]["location"]["file"],
        dir.join("x.c").display().to_string()
    );
    assert_eq!(v[1]["location"]["line"], 2);
    assert_eq!(v[1]["location"]["column"], 13);
}

#[test]
fn sarif_report_is_valid_sarif_2_1_0() {
    let dir = scratch("check-sarif");
    let bc = snippet(&dir);
    let rules = toy_rules(&dir);
    let report = dir.join("report.sarif");
    let o = check(
        &["--format", "sarif", "--checks"],
        &[&rules, &bc, Path::new("-o"), &report],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty(), "the report goes to the file");
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "llfacts");
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["has-function", "nsw-add"]);
    let nsw = &run["results"][1];
    assert_eq!(nsw["ruleId"], "nsw-add");
    assert_eq!(nsw["ruleIndex"], 1);
    let phys = &nsw["locations"][0]["physicalLocation"];
    assert_eq!(
        phys["artifactLocation"]["uri"],
        format!("file://{}", dir.join("x.c").display())
    );
    assert_eq!(phys["region"]["startLine"], 2);
    assert_eq!(phys["region"]["startColumn"], 13);

    // An empty report is valid too.
    let clean = dir.join("clean.sarif");
    let o = check(&["--format", "sarif", "-o"], &[&clean, &bc]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let v = std::process::Command::new("python3")
        .arg(repo().join("tests/validate_sarif.py"))
        .arg(&report)
        .arg(&clean)
        .output()
        .unwrap();
    assert!(
        v.status.success(),
        "SARIF schema validation failed:\n{}{}",
        String::from_utf8_lossy(&v.stdout),
        String::from_utf8_lossy(&v.stderr)
    );
}

/// A report that cannot be written whole (here: past `ulimit -f`) leaves the previous one.
#[test]
fn failed_report_write_keeps_the_previous_report() {
    let dir = scratch("check-report-limit");
    let bc = snippet(&dir);
    let rules = toy_rules(&dir);
    let report = dir.join("report.sarif");
    std::fs::write(&report, "previous").unwrap();
    let mut cmd = llfacts();
    cmd.args([
        "check", "--engine", "builtin", "--format", "sarif", "--checks",
    ])
    .args([&rules, &bc])
    .arg("-o")
    .arg(&report);
    let o = with_file_size_limit(&mut cmd, 512).output().unwrap();
    assert_one_line_error(&o, 1, &[&report.display().to_string(), "file size limit"]);
    assert_eq!(std::fs::read_to_string(&report).unwrap(), "previous");
    assert_eq!(temporaries_in(&dir), Vec::<String>::new());
}

#[test]
fn checks_an_existing_fact_directory() {
    let dir = scratch("check-facts");
    let bc = snippet(&dir);
    let facts = dir.join("facts");
    extract_ok(&[bc], &facts, &["-q"]);
    let rules = toy_rules(&dir);
    let o = check(
        &["--format", "json", "--checks"],
        &[&rules, Path::new("--facts"), &facts],
    );
    assert_eq!(o.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["count"], 2);
    assert_eq!(doc["violations"][1]["location"]["column"], 13);
}

#[test]
fn errors_and_usage() {
    let dir = scratch("check-errors");
    let bc = snippet(&dir);
    // Rules that do not output `violation`.
    let bad = dir.join("bad.dl");
    std::fs::write(&bad, ".decl a(x: number)\n.output a\na(1).\n").unwrap();
    let o = check(&["--checks"], &[&bad, &bc]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("bad.dl") && stderr.contains("violation"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1);
    // A missing input.
    let o = check(&[], &[&dir.join("missing.bc")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.bc: no such file"));
    // Neither inputs nor --facts; both.
    assert_eq!(check(&[], &[]).status.code(), Some(2));
    assert_eq!(check(&["--facts"], &[&dir, &bc]).status.code(), Some(2));
}

#[test]
fn builtin_checks_fire_on_corrupted_facts() {
    // Make the `a + b` add of the snippet claim an i64 result while its operands stay i32.
    let dir = scratch("check-builtin");
    let bc = snippet(&dir);
    let facts = dir.join("facts");
    extract_ok(&[bc], &facts, &["-q"]);
    let f = Facts::open(&facts);
    let add = f.rows("add_instr")[0][0].clone();
    let result = f.one("instr_result", &add, 1);
    let path = facts.join("variable_type.facts");
    let text = std::fs::read_to_string(&path).unwrap();
    let from = format!("{result}\ti32\n");
    assert!(text.contains(&from));
    std::fs::write(&path, text.replace(&from, &format!("{result}\ti64\n"))).unwrap();

    let o = check(&["--format", "json", "--facts"], &[&facts]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let hit = doc["violations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["check"] == "binop-operand-types")
        .unwrap_or_else(|| panic!("no binop-operand-types in {doc}"));
    assert_eq!(hit["entity"], add.as_str());
    assert_eq!(hit["location"]["line"], 2);
    assert_eq!(hit["location"]["column"], 13);
}
