//! Every rule file in `rules/` runs on the fixtures' facts through the builtin engine, and
//! each file's results are checked on a program whose answers follow from its source.

mod common;

use std::path::{Path, PathBuf};

use common::*;

fn run_rules(rules: &Path, facts: &Path, out: &Path) {
    let o = llfacts()
        .args(["run", "--engine", "builtin", "-F"])
        .arg(facts)
        .arg("-D")
        .arg(out)
        .arg(rules)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}: {}",
        rules.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    // the built-in rules give Soufflé no warning either (a singleton variable
    // would be `_x`, a relation without rules an input)
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "",
        "{}: warnings",
        rules.display()
    );
}

fn rule_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(repo().join("rules"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.retain(|p| p.extension().is_some_and(|e| e == "dl"));
    v.sort();
    v
}

#[test]
fn every_rule_file_runs_on_every_fixture() {
    let dir = scratch("rules-all");
    let facts = dir.join("facts");
    extract_ok(&all_fixtures(), &facts, &["-q"]);
    // rules/defuse.dl reads the points-to solution as well
    let pts = dir.join("pts");
    let solution = ["var_points_to_field", "object", "obj_points_to", "call_graph_edge"];
    let o = llfacts()
        .args(["analyze", "--relations", &solution.join(","), "--facts"])
        .arg(&facts)
        .arg("-o")
        .arg(&pts)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr_text(&o));
    for rel in solution {
        std::fs::copy(pts.join(format!("{rel}.csv")), facts.join(format!("{rel}.facts"))).unwrap();
    }
    for rel in ["points_to_class", "class_points_to"] {
        std::fs::write(facts.join(format!("{rel}.facts")), "").unwrap();
    }
    let files = rule_files();
    assert!(!files.is_empty());
    for rules in files {
        let out = dir.join(rules.file_stem().unwrap());
        run_rules(&rules, &facts, &out);
        assert!(
            std::fs::read_dir(&out).unwrap().count() > 0,
            "{} wrote no output",
            rules.display()
        );
    }
}

#[test]
fn callgraph_links_modules_and_finds_recursion_and_dead_blocks() {
    let dir = scratch("rules-callgraph");
    let flags = &["-O0", "-fno-discard-value-names"];
    let lib = compile_snippet(
        &dir,
        "lib",
        "static int helper(int x) { return x; }\nint twice(int x) { return helper(x) * 2; }\n",
        flags,
    );
    let app = compile_snippet(
        &dir,
        "app",
        "int twice(int);\nint puts(const char *);\n\
         int even(int n);\nint odd(int n) { return n == 0 ? 0 : even(n - 1); }\n\
         int even(int n) { return n == 0 ? 1 : odd(n - 1); }\n\
         int main(void) { puts(\"hi\"); return twice(odd(3)); }\n",
        flags,
    );
    // A block no branch reaches: written in IR, since clang drops such blocks.
    let dead = dir.join("dead.ll");
    std::fs::write(
        &dead,
        "define i32 @f() {\nentry:\n  ret i32 0\norphan:\n  ret i32 1\n}\n",
    )
    .unwrap();
    let facts = dir.join("facts");
    extract_ok(&[lib, app, dead], &facts, &["-q"]);
    let out = dir.join("out");
    run_rules(&repo().join("rules/callgraph.dl"), &facts, &out);
    let read = |rel: &str| std::fs::read_to_string(out.join(format!("{rel}.csv"))).unwrap();

    // app's declaration of `twice` resolves to lib's definition; `helper` is internal to lib.
    let edges = read("call_edge");
    for edge in [
        "app:@main\tlib:@twice",
        "app:@main\tapp:@odd",
        "app:@odd\tapp:@even",
        "app:@even\tapp:@odd",
        "lib:@twice\tlib:@helper",
    ] {
        assert!(
            edges.lines().any(|l| l == edge),
            "missing {edge:?} in {edges}"
        );
    }
    assert_eq!(edges.lines().count(), 5, "{edges}");
    assert_eq!(read("external_callee"), "app:@main\tputs\n");
    assert_eq!(read("recursive"), "app:@even\napp:@odd\n");
    assert_eq!(read("unreachable_block"), "dead:@f:%orphan\n");
}
