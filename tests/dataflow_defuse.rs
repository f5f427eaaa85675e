//! `rules/defuse.dl` and `analyze --analysis defuse` through the binary, on
//! fixtures/dataflow/defuse.c compiled by clang-22 at -O0 -g and put through mem2reg. Each
//! access is named by the marker comment on its source line (`// K3`); the definitions
//! expected to reach each use are reasoned in the fixture's comments. Also: the standalone
//! rule file over the points-to relations that `analyze -o` writes gives the same tuples as
//! `analyze --analysis defuse`, on the builtin engine and on Soufflé (when on PATH).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

fn csv(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

fn pairs(path: &Path) -> BTreeSet<(String, String)> {
    (csv(path).into_iter())
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect()
}

struct Fixture {
    dir: PathBuf,
    bc: PathBuf,
    facts: Facts,
    /// Marker → its source line.
    markers: BTreeMap<String, String>,
}

impl Fixture {
    fn new(name: &str) -> Fixture {
        let dir = scratch(name);
        let src = repo().join("fixtures/dataflow/defuse.c");
        let bc = dir.join("defuse.bc");
        compile_mem2reg(&src, &dir.join("defuse.pre.bc"), &bc);
        extract_ok(std::slice::from_ref(&bc), &dir.join("facts"), &["-q"]);
        let mut markers = BTreeMap::new();
        for (n, line) in std::fs::read_to_string(&src).unwrap().lines().enumerate() {
            if let Some((_, comment)) = line.split_once("// ") {
                let m: String = comment.chars().take(2).collect();
                if m.len() == 2
                    && m.as_bytes()[0].is_ascii_uppercase()
                    && m.as_bytes()[1].is_ascii_digit()
                {
                    markers.insert(m, (n + 1).to_string());
                }
            }
        }
        Fixture {
            facts: Facts::open(&dir.join("facts")),
            dir,
            bc,
            markers,
        }
    }

    /// The `nth` instruction with `opcode` on the line of `marker`, in layout order.
    fn at(&self, marker: &str, opcode: &str, nth: usize) -> String {
        let line = &self.markers[marker];
        let mut found: Vec<(i64, String)> = (self.facts.rows("instr_debug_loc").iter())
            .filter(|r| &r[2] == line)
            .filter(|r| self.facts.one("instr", &r[0], 1) == opcode)
            .map(|r| {
                (
                    self.facts.one("instr_index", &r[0], 1).parse().unwrap(),
                    r[0].clone(),
                )
            })
            .collect();
        found.sort();
        found.dedup();
        assert!(
            nth < found.len(),
            "{marker}: no {opcode} #{nth} on line {line}: {found:?}"
        );
        found.swap_remove(nth).1
    }

    /// `analyze` with `args` on the fixture, its outputs written to `out`; its stdout.
    fn analyze_with(&self, out: &str, args: &[&str]) -> (PathBuf, String) {
        let out = self.dir.join(out);
        let o = llfacts()
            .arg("analyze")
            .args(args)
            .arg(&self.bc)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr_text(&o));
        (out, String::from_utf8_lossy(&o.stdout).into_owned())
    }

    /// `analyze --analysis defuse` on `engine`.
    fn analyze(&self, out: &str, engine: &str) -> PathBuf {
        let (out, stdout) = self.analyze_with(out, &["--analysis", "defuse", "--engine", engine]);
        assert!(stdout.starts_with("defuse: "), "{stdout}");
        out
    }
}

/// The definitions that reach each use, from `reaching_def.csv` in `out`.
fn reaching(out: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut got: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (u, d) in pairs(&out.join("reaching_def.csv")) {
        got.entry(u).or_default().insert(d);
    }
    got
}

/// Which definitions reach each use, by marker: `(use, [defs])`, each `MARKER:opcode:nth`,
/// or `<entry>:FUNC` for the entry definition of function FUNC (its id, then `:<entry>`).
fn expected(f: &Fixture, cases: &[(&str, &[&str])]) -> BTreeMap<String, BTreeSet<String>> {
    let name = |s: &str| {
        let p: Vec<&str> = s.split(':').collect();
        if p[0] == "<entry>" {
            return format!("defuse:@{}:<entry>", p[1]);
        }
        f.at(p[0], p[1], p.get(2).map_or(0, |n| n.parse().unwrap()))
    };
    cases
        .iter()
        .map(|(u, ds)| (name(u), ds.iter().map(|d| name(d)).collect()))
        .collect()
}

#[test]
fn reaching_definitions_of_the_fixture() {
    let f = Fixture::new("defuse-fixture");
    let out = f.analyze("out", "builtin");
    let got = reaching(&out);
    let want = expected(
        &f,
        &[
            // strong update on a global: g = 2 kills g = 1
            ("K3:load", &["K2:store"]),
            // a store through a pointer to g or h kills nothing
            ("M4:load", &["M1:store", "M3:store"]),
            ("M5:load", &["M2:store", "M3:store"]),
            // loops: the store in the body comes back around the back edge
            ("L2:load", &["L1:store", "L2:store"]),
            ("L4:load", &["L1:store", "L2:store"]),
            // unknown offsets: a[i] overlaps every element and is never killed
            ("U4:load", &["U1:store", "U3:store"]),
            ("U6:load", &["U3:store", "U5:store"]),
            ("U7:load", &["U2:store", "U3:store"]),
            // an offset beyond the object is unknown
            ("O3:load", &["O1:store", "O2:store"]),
            // struct fields at different offsets
            ("F3:load", &["F1:store"]),
            ("F4:load", &["F2:store"]),
            // memset covers both fields; memcpy reads both and defines t
            ("I3:call", &["I1:call", "I2:store"]),
            ("I4:load:0", &["I1:call", "I2:store"]),
            ("I4:load:1", &["I3:call"]),
            // calls: g (escaped) is written by both calls, a[0] by none, b[0] by touch(b);
            // pure_fn (memory(none)) defines nothing
            ("C7:load:0", &["C1:store", "C4:call", "C5:call"]),
            ("C7:load:1", &["C2:store"]),
            ("C7:load:2", &["C3:store", "C5:call"]),
            // a call is a use too: touch(b) reads b[0] (its argument) and, unknown, every
            // escaped object (g, written by g = 1 and by opaque()), not a[0]; pure_fn
            // (memory(none)) reads nothing; what memory held on entry (g, escaped) too
            ("C5:call", &["C1:store", "C3:store", "C4:call", "<entry>:calls"]),
            // opaque() reads escaped objects too, with no pointer argument
            ("C4:call", &["C1:store", "<entry>:calls"]),
            // an alloca of a recursive function gets no strong update, and may be another
            // activation's
            ("R4:load", &["R1:store", "R2:store", "<entry>:rec"]),
            // the recursive call reads escaped objects (not a: it does not escape)
            ("R3:call", &["<entry>:rec"]),
            // a must-write on one branch only
            ("B3:load", &["B1:store", "B2:store"]),
            // entry definitions: killed by a must-write on the path, not for fresh locals
            ("E1:load", &["<entry>:entry_defs"]),
            ("E3:load", &["<entry>:entry_defs", "E2:store"]),
            ("E5:load:0", &["<entry>:entry_defs"]),
            ("E5:load:1", &["E4:store"]),
            // a must-write kills what lies within it
            ("W2:load", &["W1:store"]),
            ("W3:load", &["<entry>:wide_kill"]),
            ("W5:load:0", &["W4:call"]),
            ("W5:load:1", &["W4:call"]),
            // allocators write only their block (malloc modelled, my_alloc not)
            ("A5:load:0", &["A1:store", "A3:call"]),
            ("A5:load:1", &["A2:call", "A3:call", "A4:store", "<entry>:allocs"]),
            // my_alloc, an opaque call, reads escaped objects: g and the heap block
            ("A3:call", &["A1:store", "A2:call", "<entry>:allocs"]),
            // entry_defs(&g, 1) reads g, defined on entry
            ("E6:call", &["<entry>:call_entry"]),
            // a collapsed array of structs: a store to one element's field is no
            // must-write of the site all elements share
            ("S7:load:0", &["S1:store", "S2:store"]),
            ("S7:load:1", &["S3:store", "S4:store"]),
            ("S8:load", &["S5:store", "S6:store", "<entry>:struct_array"]),
        ],
    );
    assert_eq!(got, want);

    // def_use_edge: the memory edges turned around, and register edges (the loaded g is
    // returned; the loaded a[0] feeds an add).
    let edges = pairs(&out.join("def_use_edge.csv"));
    for (u, ds) in &want {
        for d in ds {
            assert!(edges.contains(&(d.clone(), u.clone())), "{d} -> {u}");
        }
    }
    let ret = f.at("K3", "ret", 0);
    assert!(edges.contains(&(f.at("K3", "load", 0), ret)));
    let loaded = f.at("U6", "load", 0);
    assert!(
        edges.iter().any(|(d, _)| *d == loaded),
        "the loaded a[0] has a register use"
    );
}

/// A user's model file (`--rules`) reaches rules/defuse.dl as it reaches the points-to
/// solver, and so does a file of prep rules: with `model_alloc("my_alloc")`, my_alloc is an allocator, which writes (and
/// reads) nothing but its own block, so it no longer defines g or the block *p reads, and
/// is no use (its argument is an integer). Without the file, the fixture test above.
#[test]
fn user_models_reach_defuse() {
    let f = Fixture::new("defuse-models");
    let model = f.dir.join("my_alloc.dl");
    std::fs::write(&model, "model_alloc(\"my_alloc\").\n").unwrap();
    let (out, _) = f.analyze_with(
        "out",
        &["--analysis", "defuse", "--rules", model.to_str().unwrap()],
    );
    let got = reaching(&out);
    let want = expected(
        &f,
        &[
            ("A5:load:0", &["A1:store"]),
            ("A5:load:1", &["A2:call", "A4:store", "<entry>:allocs"]),
        ],
    );
    for (u, ds) in &want {
        assert_eq!(got.get(u), Some(ds), "{u}");
    }
    assert!(!got.contains_key(&f.at("A3", "call", 0)), "my_alloc is no use");

    // A file of the solver's prep rules (docs/pointsto.md's way to turn off the call type
    // filter) is valid for defuse too: defuse.dl includes the prep.
    let prep = f.dir.join("callable.dl");
    std::fs::write(
        &prep,
        "callable_type(C, F) :- indirect_call_type(_, C), target_type(F).\n",
    )
    .unwrap();
    f.analyze_with(
        "prep",
        &["--analysis", "defuse", "--rules", prep.to_str().unwrap()],
    );
}

/// The standalone rule file, with the points-to relations `analyze -o` writes copied into
/// the fact directory (and the class relations empty), gives the tuples of `analyze
/// --analysis defuse`, on the builtin engine and on Soufflé.
#[test]
fn standalone_rule_file_builtin_and_souffle_agree_with_analyze() {
    let f = Fixture::new("defuse-standalone");
    let analyzed = f.analyze("analyzed", "builtin");
    let relations = "var_points_to_field,object,obj_points_to,call_graph_edge";
    let args = ["--out-of-bounds", "unknown", "--relations", relations];
    let (pts, _) = f.analyze_with("pts", &args);
    let facts = f.dir.join("facts");
    for rel in [
        "var_points_to_field",
        "object",
        "obj_points_to",
        "call_graph_edge",
    ] {
        std::fs::copy(
            pts.join(format!("{rel}.csv")),
            facts.join(format!("{rel}.facts")),
        )
        .unwrap();
    }
    for rel in ["points_to_class", "class_points_to"] {
        std::fs::write(facts.join(format!("{rel}.facts")), "").unwrap();
    }
    let builtin = f.dir.join("builtin");
    let o = llfacts()
        .current_dir(repo())
        .args(["run", "--engine", "builtin", "rules/defuse.dl", "-F"])
        .arg(&facts)
        .arg("-D")
        .arg(&builtin)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr_text(&o));
    for rel in ["reaching_def", "def_use_edge"] {
        let file = format!("{rel}.csv");
        let ours = pairs(&builtin.join(&file));
        assert!(!ours.is_empty(), "{rel}");
        assert_eq!(
            ours,
            pairs(&analyzed.join(&file)),
            "{rel}: run against analyze"
        );
    }

    if Command::new("souffle").arg("--version").output().is_err() {
        eprintln!("souffle is not on PATH: the builtin-vs-Soufflé comparison is skipped");
        return;
    }
    let theirs = f.dir.join("souffle");
    std::fs::create_dir_all(&theirs).unwrap();
    let o = Command::new("souffle")
        .current_dir(repo())
        .args(["-F"])
        .arg(&facts)
        .arg("-D")
        .arg(&theirs)
        .arg("rules/defuse.dl")
        .output()
        .unwrap();
    assert!(o.status.success(), "souffle: {}", stderr_text(&o));
    // analyze on Soufflé: the solver's classes fed to it as facts
    let on_souffle = f.analyze("on-souffle", "souffle");
    for rel in ["reaching_def", "def_use_edge"] {
        let file = format!("{rel}.csv");
        let ours = pairs(&builtin.join(&file));
        assert_eq!(
            ours,
            pairs(&theirs.join(&file)),
            "{rel}: builtin against Soufflé"
        );
        assert_eq!(
            ours,
            pairs(&on_souffle.join(&file)),
            "{rel}: analyze on Soufflé"
        );
    }
}
