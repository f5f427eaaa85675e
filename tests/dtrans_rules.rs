//! rules/dtrans.dl on the per-condition fixtures of `fixtures/dtrans/`: for every one of the
//! 30 safety conditions, a struct that must have it and the closest safe variant that must
//! not. Each fixture states, next to its code, the exact condition set of every struct type
//! it defines (`// EXPECT name: Cond...`, `; EXPECT` in `.ll`; `EXPECT[O0]` or `EXPECT[NP]`
//! for one form only), with the reason for each condition; the test compiles the C and C++
//! fixtures in the forms the analysis is meant for (`-O2 -Xclang -disable-llvm-passes`, and
//! `-O0`), runs `llfacts extract` and `llfacts run rules/dtrans.dl` through the real binary,
//! and compares every struct's set. Where Soufflé is installed, it must give the same tuples.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

/// Every condition of the seed, the fixture structs that must have it (each a different
/// way it arises), and the safe variants, which must not.
const CONDITIONS: &[(&str, &[&str], &[&str])] = &[
    (
        "BadCasting",
        &[
            "bad_cast",
            "bad_cast_other",
            "bad_alloc",
            "bad_cast_int",
            "bad_cast_extern",
            "bad_cast_mem_a",
            "extern_loaded",
        ],
        &[
            "bad_cast_safe",
            "bad_alloc_safe",
            "first_field_outer",
            "first_field_inner",
        ],
    ),
    (
        "BadPtrManipulation",
        &["bad_ptr_manip", "ptr_diff"],
        &["bad_ptr_manip_safe", "ptr_diff_safe", "has_zero_array"],
    ),
    (
        "AmbiguousGEP",
        &["ambiguous_gep_a", "ambiguous_gep_b"],
        &["ambiguous_gep_safe"],
    ),
    ("VolatileData", &["volatile_data"], &["volatile_data_safe"]),
    (
        "MismatchedElementAccess",
        &["mismatched_access", "bad_ptr_manip"],
        &["mismatched_access_safe", "has_vtable"],
    ),
    (
        "WholeStructureReference",
        &["whole_struct_ref"],
        &["whole_struct_ref_safe"],
    ),
    (
        "UnsafePointerStore",
        &["unsafe_store_a", "unsafe_store_b", "unsafe_store_int"],
        &["unsafe_store_safe", "unsafe_store_holder"],
    ),
    (
        "FieldAddressTaken",
        &[
            "field_addr_taken",
            "field_addr_arg",
            "field_addr_stored",
            "field_addr_int",
            "field_addr_fread",
        ],
        &[
            "field_addr_taken_safe",
            "memfunc_partial",
            "field_addr_string_safe",
        ],
    ),
    (
        "GlobalPtr",
        &["global_ptr", "bad_cast_mem_a"],
        &["local_ptr"],
    ),
    (
        "GlobalInstance",
        &["global_instance", "has_init"],
        &["global_instance_safe", "global_array"],
    ),
    (
        "GlobalArray",
        &["global_array", "global_array_ptr"],
        &["global_array_safe"],
    ),
    ("HasInitializerList", &["has_init"], &["has_init_safe"]),
    (
        "BadMemFuncSize",
        &["bad_memfunc_size", "bad_memfunc_size_var"],
        &["memfunc_safe", "memfunc_partial"],
    ),
    (
        "MemFuncPartialWrite",
        &["memfunc_partial"],
        &["memfunc_safe"],
    ),
    (
        "BadMemFuncManipulation",
        &[
            "bad_memfunc_manip",
            "bad_memfunc_manip_x",
            "bad_memfunc_manip_y",
        ],
        &["bad_memfunc_manip_safe"],
    ),
    (
        "AmbiguousPointerTarget",
        &["ambiguous_target_a", "ambiguous_target_b"],
        &["ambiguous_target_safe"],
    ),
    (
        "UnsafePtrMerge",
        &["unsafe_merge_a", "unsafe_merge_b", "unsafe_merge_untyped"],
        &["unsafe_merge_safe"],
    ),
    (
        "AddressTaken",
        &[
            "address_taken",
            "address_taken_int",
            "address_taken_stored",
            "address_taken_fread",
            "variadic_a",
            "extern_stored",
        ],
        &["address_taken_safe", "unhandled_use_safe"],
    ),
    ("NoFieldsInStruct", &["no_fields"], &["no_fields_safe"]),
    (
        "NestedStruct",
        &["nested", "first_field_inner"],
        &["nested_safe"],
    ),
    (
        "ContainsNestedStruct",
        &["contains_nested", "first_field_outer"],
        &["contains_nested_safe"],
    ),
    ("SystemObject", &["tm", "__va_list_tag"], &["user_tm"]),
    (
        "LocalPtr",
        &["local_ptr", "local_ptr_array"],
        &["local_ptr_safe", "global_ptr"],
    ),
    (
        "LocalInstance",
        &["local_instance", "has_vtable"],
        &["local_instance_safe"],
    ),
    (
        "MismatchedArgUse",
        &[
            "mismatched_arg",
            "mismatched_arg_param",
            "mismatched_indirect",
        ],
        &["mismatched_arg_safe"],
    ),
    ("HasVTable", &["has_vtable"], &["has_vtable_safe"]),
    (
        "HasFnPtr",
        &[
            "has_fn_ptr",
            "has_fn_ptr_called",
            "has_fn_table",
            "has_fn_table_called",
        ],
        &["has_fn_ptr_safe"],
    ),
    (
        "HasCppHandling",
        &["has_cpp_handling", "has_cpp_invoke"],
        &["has_cpp_handling_safe", "has_cpp_invoke_safe"],
    ),
    (
        "HasZeroSizedArray",
        &["has_zero_array"],
        &["has_zero_array_safe"],
    ),
    ("UnhandledUse", &["unhandled_use"], &["unhandled_use_safe"]),
];

/// The forms C and C++ fixtures are compiled in: the analysis's primary input, and -O0.
const FORMS: &[(&str, &[&str])] = &[
    ("NP", &["-O2", "-Xclang", "-disable-llvm-passes"]),
    ("O0", &["-O0"]),
];

type Sets = BTreeMap<String, BTreeSet<String>>;

fn fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(repo().join("fixtures/dtrans"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e == "c" || e == "cpp" || e == "ll")
        })
        .collect();
    v.sort();
    assert!(v.len() >= 8, "fixtures/dtrans: {v:?}");
    v
}

fn is_ll(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "ll")
}

/// The EXPECT lines of a fixture for `form`: struct name (without `struct.`) → conditions.
fn expectations(src: &Path, form: &str) -> Sets {
    let text = std::fs::read_to_string(src).unwrap();
    let mut all = Sets::new();
    let mut own = Sets::new();
    for line in text.lines() {
        let line = line.trim_start_matches(['/', ';', ' ']);
        let Some(rest) = line.strip_prefix("EXPECT") else {
            continue;
        };
        let (target, rest) = match rest.strip_prefix('[') {
            Some(r) => {
                let (f, r) = r.split_once(']').expect("EXPECT[FORM]");
                (Some(f), r)
            }
            None => (None, rest),
        };
        // (the last colon: C++ names hold `::`)
        let (name, conds) = rest
            .trim()
            .rsplit_once(':')
            .expect("EXPECT name: conditions");
        let set: BTreeSet<String> = conds.split_whitespace().map(str::to_string).collect();
        let map = match target {
            None => &mut all,
            Some(f) if f == form => &mut own,
            Some(_) => continue,
        };
        assert!(
            map.insert(name.trim().to_string(), set).is_none(),
            "{}: two EXPECT lines for {name}",
            src.display()
        );
    }
    all.extend(own);
    all
}

fn run_ok(cmd: &mut Command, what: &str) {
    let o = cmd.output().unwrap();
    assert!(
        o.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Compiles (or copies) one fixture in `form`, extracts its facts; returns the fact dir.
fn facts_of(src: &Path, form: &str, flags: &[&str], dir: &Path) -> PathBuf {
    let stem = src.file_stem().unwrap().to_string_lossy().to_string();
    let work = dir.join(format!("{stem}.{form}"));
    std::fs::create_dir_all(&work).unwrap();
    // the module (and so every type id) is named after the file stem
    let input = if is_ll(src) {
        let p = work.join(format!("{stem}.ll"));
        std::fs::copy(src, &p).unwrap();
        p
    } else {
        let p = work.join(format!("{stem}.bc"));
        let mut f = flags.to_vec();
        if src.extension().is_some_and(|e| e == "cpp") {
            f.push("-fno-exceptions");
        }
        compile(src, &p, &f);
        p
    };
    let facts = work.join("facts");
    extract_ok(&[input], &facts, &["-q"]);
    facts
}

/// `llfacts run rules/dtrans.dl` with the builtin engine, from the repository root.
fn run_dtrans(facts: &Path, out: &Path) {
    run_ok(
        llfacts()
            .args(["run", "--engine", "builtin", "rules/dtrans.dl", "-F"])
            .arg(facts)
            .arg("-D")
            .arg(out)
            .current_dir(repo()),
        "llfacts run rules/dtrans.dl",
    );
}

fn rows(out: &Path, rel: &str) -> Vec<Vec<String>> {
    read_file(out, &format!("{rel}.csv"))
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// The struct types of module `stem` and their conditions, by struct name.
fn found(out: &Path, stem: &str) -> Sets {
    let short = |ty: &str| -> String {
        let name = ty
            .strip_prefix(&format!("{stem}:%"))
            .unwrap_or_else(|| panic!("type {ty} outside module {stem}"));
        let name = name.trim_matches('"');
        name.strip_prefix("struct.").unwrap_or(name).to_string()
    };
    let mut sets = Sets::new();
    for r in rows(out, "dtrans_type") {
        sets.insert(short(&r[0]), BTreeSet::new());
    }
    let witnessed: BTreeSet<(String, String)> = rows(out, "dtrans_safety_witness")
        .into_iter()
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    // A type in the ambiguous set is witnessed by the set's witnesses.
    let ambiguous: BTreeSet<String> = rows(out, "dtrans_ambiguous").into_iter().map(|r| r[0].clone()).collect();
    let ambiguous_conditions: BTreeSet<String> =
        rows(out, "dtrans_ambiguous_witness").into_iter().map(|r| r[0].clone()).collect();
    for r in rows(out, "dtrans_safety") {
        assert!(
            witnessed.contains(&(r[0].clone(), r[1].clone()))
                || (ambiguous.contains(&r[0]) && ambiguous_conditions.contains(&r[1])),
            "{} {} has no witness",
            r[0],
            r[1]
        );
        sets.get_mut(&short(&r[0]))
            .unwrap_or_else(|| panic!("{} is no dtrans_type", r[0]))
            .insert(r[1].clone());
    }
    sets
}

/// Compares a fixture's found sets with its expectations; returns the differences.
fn differences(src: &Path, form: &str, expected: &Sets, got: &Sets) -> Vec<String> {
    let mut diffs = Vec::new();
    let names: BTreeSet<&String> = expected.keys().chain(got.keys()).collect();
    for name in names {
        match (expected.get(name), got.get(name)) {
            (Some(e), Some(g)) if e == g => {}
            (Some(e), Some(g)) => diffs.push(format!(
                "{} [{form}] {name}: missing {:?}, unexpected {:?}",
                src.file_name().unwrap().to_string_lossy(),
                e.difference(g).collect::<Vec<_>>(),
                g.difference(e).collect::<Vec<_>>()
            )),
            (Some(_), None) => diffs.push(format!(
                "{} [{form}] {name}: expected, but no such dtrans_type",
                src.file_name().unwrap().to_string_lossy()
            )),
            (None, Some(g)) => diffs.push(format!(
                "{} [{form}] {name}: no EXPECT line (found {g:?})",
                src.file_name().unwrap().to_string_lossy()
            )),
            (None, None) => unreachable!(),
        }
    }
    diffs
}

/// Runs every fixture of the given kind in `form` and asserts every struct's exact set.
fn check_form(form: &str, flags: &[&str], ll: bool) {
    let dir = scratch(&format!("dtrans-rules-{form}"));
    let mut diffs = Vec::new();
    let mut structs = 0;
    for src in fixtures().iter().filter(|p| is_ll(p) == ll) {
        let facts = facts_of(src, form, flags, &dir);
        let out = facts.with_file_name("out");
        run_dtrans(&facts, &out);
        let stem = src.file_stem().unwrap().to_string_lossy();
        let expected = expectations(src, form);
        assert!(!expected.is_empty(), "{}: no EXPECT line", src.display());
        let got = found(&out, &stem);
        structs += got.len();
        diffs.extend(differences(src, form, &expected, &got));
    }
    assert!(structs > 0);
    assert!(
        diffs.is_empty(),
        "condition sets differ:\n{}",
        diffs.join("\n")
    );
}

#[test]
fn every_condition_has_a_firing_and_a_safe_fixture() {
    let mut expected = Sets::new();
    for src in fixtures() {
        for (name, set) in expectations(&src, "NP") {
            assert!(
                expected.insert(name.clone(), set).is_none(),
                "{name} is defined by two fixtures"
            );
        }
    }
    let conditions: BTreeSet<&str> = CONDITIONS.iter().map(|c| c.0).collect();
    assert_eq!(conditions.len(), 30, "the seed's 30 conditions, once each");
    // every condition named in a fixture is one of the seed's
    for (name, set) in &expected {
        for c in set {
            assert!(
                conditions.contains(c.as_str()),
                "{name}: unknown condition {c}"
            );
        }
    }
    for (cond, firing, safe) in CONDITIONS {
        assert!(
            !firing.is_empty() && !safe.is_empty(),
            "{cond}: a firing and a safe struct"
        );
        let set = |name: &str| {
            expected
                .get(name)
                .unwrap_or_else(|| panic!("no fixture struct {name}"))
        };
        for name in *firing {
            assert!(
                set(name).contains(*cond),
                "{name} is expected without {cond}"
            );
        }
        for name in *safe {
            assert!(!set(name).contains(*cond), "{name} is expected with {cond}");
        }
    }
}

#[test]
fn condition_sets_without_llvm_passes() {
    check_form(FORMS[0].0, FORMS[0].1, false);
}

#[test]
fn condition_sets_at_o0() {
    check_form(FORMS[1].0, FORMS[1].1, false);
}

#[test]
fn condition_sets_of_hand_written_ir() {
    check_form("NP", &[], true);
}

/// Soufflé, when built (`/work/souffle-src/build/src/souffle`) or on PATH.
fn souffle() -> Option<PathBuf> {
    let built = PathBuf::from("/work/souffle-src/build/src/souffle");
    if built.exists() {
        return Some(built);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("souffle"))
        .find(|p| p.exists())
}

fn csv_rows(dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            let text = std::fs::read_to_string(&p).unwrap();
            (name, text.lines().map(str::to_string).collect())
        })
        .collect()
}

#[test]
fn souffle_gives_the_same_tuples() {
    let Some(souffle) = souffle() else {
        eprintln!("note: souffle not found; the builtin engine is not compared with Soufflé");
        return;
    };
    let dir = scratch("dtrans-rules-souffle");
    for (form, flags) in FORMS.iter().chain([&RECOVERED_FORM]) {
        for src in fixtures() {
            let recovering = src == recovered_fixture() || src == recovered_classes_fixture();
            if (is_ll(&src) && *form != "NP") || (*form == RECOVERED_FORM.0 && !recovering) {
                continue;
            }
            let facts = facts_of(&src, form, flags, &dir);
            let ours = facts.with_file_name("out-builtin");
            run_dtrans(&facts, &ours);
            let theirs = facts.with_file_name("out-souffle");
            std::fs::create_dir_all(&theirs).unwrap();
            run_ok(
                Command::new(&souffle)
                    .arg("-F")
                    .arg(&facts)
                    .arg("-D")
                    .arg(&theirs)
                    .arg("rules/dtrans.dl")
                    .current_dir(repo()),
                "souffle rules/dtrans.dl",
            );
            let (a, b) = (csv_rows(&ours), csv_rows(&theirs));
            assert_eq!(
                a.keys().collect::<Vec<_>>(),
                b.keys().collect::<Vec<_>>(),
                "{} [{form}]: output files",
                src.display()
            );
            for (rel, rows) in &a {
                let other = &b[rel];
                assert!(
                    rows == other,
                    "{} [{form}] {rel}: only builtin {:?}; only souffle {:?}",
                    src.display(),
                    rows.difference(other).collect::<Vec<_>>(),
                    other.difference(rows).collect::<Vec<_>>()
                );
            }
        }
    }
}

/// Where struct types vanish from the module: -O2 with debug info.
const RECOVERED_FORM: (&str, &[&str]) = ("O2G", &["-O2", "-g"]);

fn recovered_fixture() -> PathBuf {
    repo().join("fixtures/dtrans/recovered.c")
}

fn recovered_classes_fixture() -> PathBuf {
    repo().join("fixtures/dtrans/recovered_classes.cpp")
}

/// dtrans_layout and dtrans_layout_field by type name (without `struct.`): the size,
/// alignment and packing, and the fields' (offset, bytes, alignment, type as LLVM spells
/// it, without the module).
fn layouts_by_name(out: &Path) -> BTreeMap<String, (Vec<String>, Vec<[String; 4]>)> {
    let names: BTreeMap<String, String> = rows(out, "dtrans_layout")
        .into_iter()
        .map(|r| (r[0].clone(), r[1].trim_start_matches("struct.").to_string()))
        .collect();
    let mut layouts = BTreeMap::new();
    for r in rows(out, "dtrans_layout") {
        layouts.insert(names[&r[0]].clone(), (r[2..5].to_vec(), vec![]));
    }
    for r in rows(out, "dtrans_layout_field") {
        let text = r[3].rsplit_once(":%").map_or(r[3].clone(), |(_, t)| format!("%{t}"));
        let fields = &mut layouts.get_mut(&names[&r[0]]).unwrap().1;
        fields.push([r[4].clone(), r[5].clone(), r[6].clone(), text]);
    }
    layouts
}

/// `src` in `form` run through rules/dtrans.dl; returns the output directory.
fn dtrans_of(src: &Path, form: &str, flags: &[&str], dir: &Path) -> PathBuf {
    let facts = facts_of(src, form, flags, dir);
    let out = facts.with_file_name("out");
    run_dtrans(&facts, &out);
    out
}

/// The names of the types recovered from debug info (without `struct.`).
fn recovered_names(out: &Path) -> BTreeSet<String> {
    rows(out, "dtrans_layout")
        .into_iter()
        .filter(|r| r[5] == "debug info")
        .map(|r| r[1].trim_start_matches("struct.").to_string())
        .collect()
}

/// Every type's conditions by its name (without `struct.`), recovered types included.
fn sets_by_name(out: &Path) -> Sets {
    let ids: BTreeMap<String, String> =
        rows(out, "dtrans_layout").into_iter().map(|r| (r[0].clone(), r[1].trim_start_matches("struct.").to_string())).collect();
    let mut sets: Sets = ids.values().map(|name| (name.clone(), BTreeSet::new())).collect();
    for r in rows(out, "dtrans_safety") {
        sets.get_mut(&ids[&r[0]]).unwrap().insert(r[1].clone());
    }
    sets
}

/// fixtures/dtrans/recovered.c: at -O2 no value keeps six of its struct types, so the
/// module holds none of them. With -g each is recovered from debug info, with the layout
/// clang gives the module's struct type at -O0 (size, alignment, every field's offset,
/// size, alignment and type), and every type has the conditions of its EXPECT (or
/// EXPECT[O2G]) line. Without -g, those six are listed in dtrans_unrecovered, since accesses
/// name them as their base, and only the types kept as a global's elements are analysed.
#[test]
fn types_the_optimiser_dropped_are_recovered_from_debug_info() {
    let src = recovered_fixture();
    let dir = scratch("dtrans-rules-recovered");
    let run = |form: &str, flags: &[&str]| dtrans_of(&src, form, flags, &dir);
    let (form, flags) = RECOVERED_FORM;
    let recovered = run(form, flags);
    let module = run("O0", &["-O0"]);
    let without_g = run("O2", &["-O2"]);

    let from_debug_info = recovered_names(&recovered);
    assert_eq!(from_debug_info, ["bits", "inner", "outer", "pair", "rec", "wide"].map(String::from).into());
    let (got, want) = (layouts_by_name(&recovered), layouts_by_name(&module));
    for name in &from_debug_info {
        assert_eq!(got.get(name), want.get(name), "{name}: recovered layout against -O0's");
    }
    // Field names come from debug info; the bit-fields `a` and `b` share the byte at 0.
    let names: BTreeSet<(String, String)> =
        rows(&recovered, "dtrans_field_name").into_iter().map(|r| (r[1].clone(), r[2].clone())).collect();
    for (index, name) in [("0", "tag"), ("1", "id"), ("2", "flag"), ("0", "a (bit-fields)"), ("1", "n"), ("0", "in"), ("1", "w")] {
        assert!(names.contains(&(index.to_string(), name.to_string())), "field {index} {name}");
    }

    let sets = sets_by_name(&recovered);
    // (`holder` is no access's base: not recovered.)
    let names: Vec<&String> = sets.keys().collect();
    assert_eq!(names, ["bits", "held", "inner", "outer", "pair", "rec", "slot", "union.anon", "wide"]);
    let expected: Sets = expectations(&src, form).into_iter().filter(|(name, _)| sets.contains_key(name)).collect();
    let diffs = differences(&src, form, &expected, &sets);
    assert!(diffs.is_empty(), "condition sets differ:\n{}", diffs.join("\n"));

    // Without -g, only the types that stay in the module: elements of a global's type, and
    // the source type of an array index.
    let kept = found(&without_g, "recovered");
    assert_eq!(kept.keys().collect::<Vec<_>>(), ["held", "slot", "union.anon"]);
    let expected: Sets = expectations(&src, "O2").into_iter().filter(|(name, _)| kept.contains_key(name)).collect();
    let diffs = differences(&src, "O2", &expected, &kept);
    assert!(diffs.is_empty(), "condition sets differ:\n{}", diffs.join("\n"));
    let unrecovered: BTreeSet<String> = rows(&without_g, "dtrans_unrecovered").into_iter().map(|r| r[1].clone()).collect();
    // (`inner` is no access's base: `o->in.x` is tagged with `outer`.)
    assert_eq!(unrecovered, ["bits", "outer", "pair", "rec", "wide"].map(String::from).into());
}

/// fixtures/dtrans/recovered_classes.cpp: the C++ types -O2 drops from the module, whose
/// accesses' TBAA tags name them by their mangled names (`_ZTSN3geo5PointE`). With -g each
/// is recovered from the debug-info composite of that identifier, by its qualified name,
/// with the layout clang gives the module's struct type at -O0 (a specialization's type is
/// `struct.geo::Cell` and `struct.geo::Cell.2` there). The types whose members overlap (an
/// empty base at the first member's offset) or that debug info only declares (a class
/// with a virtual base, whose constructor is not compiled here) are listed as having no
/// layout, and the others have the conditions of their EXPECT[O2G] lines. A class with a
/// vtable, whose composite has no identifier, is found by the name C++ spells; a type the
/// module keeps is that type, not a second one from debug info, and a specialization the
/// module keeps is the type of its family with its layout, or each of those with it.
#[test]
fn cpp_types_the_optimiser_dropped_are_recovered_from_debug_info() {
    let src = recovered_classes_fixture();
    let dir = scratch("dtrans-rules-recovered-classes");
    let run = |form: &str, flags: &[&str]| dtrans_of(&src, form, flags, &dir);
    let (form, flags) = RECOVERED_FORM;
    let recovered = run(form, flags);
    let module = run("O0", &["-O0"]);

    let from_debug_info = recovered_names(&recovered);
    let names = [
        "class.geo::Box", "geo::Base", "geo::Base2", "geo::Cell<int>", "geo::Cell<long>", "geo::Derived",
        "geo::Derived2", "geo::Outer", "geo::Outer::Inner", "geo::Point", "geo::Shape", "geo::Stat",
    ];
    assert_eq!(from_debug_info, names.map(String::from).into());
    // (the fields' types as LLVM spells them: a nested type's name is quoted in the module)
    let unquoted = |layouts: BTreeMap<String, (Vec<String>, Vec<[String; 4]>)>| {
        layouts
            .into_iter()
            .map(|(name, (layout, fields))| {
                let fields: Vec<[String; 4]> = fields.into_iter().map(|f| f.map(|x| x.replace('"', ""))).collect();
                (name, (layout, fields))
            })
            .collect::<BTreeMap<_, _>>()
    };
    let (got, want) = (unquoted(layouts_by_name(&recovered)), unquoted(layouts_by_name(&module)));
    for name in &from_debug_info {
        let at_o0 = match name.as_str() {
            "geo::Cell<int>" => "geo::Cell",
            "geo::Cell<long>" => "geo::Cell.2",
            other => other,
        };
        assert!(want.contains_key(at_o0), "{at_o0} at -O0");
        assert_eq!(got.get(name), want.get(at_o0), "{name}: recovered layout against -O0's");
    }
    let fields: BTreeSet<(String, String)> =
        rows(&recovered, "dtrans_field_name").into_iter().map(|r| (r[1].clone(), r[2].clone())).collect();
    for (index, name) in [("2", "tag"), ("0", "next"), ("1", "n"), ("0", ""), ("1", "c"), ("0", "in"), ("1", "t")] {
        assert!(fields.contains(&(index.to_string(), name.to_string())), "field {index} {name:?}");
    }
    let unrecovered: BTreeSet<String> = rows(&recovered, "dtrans_unrecovered").into_iter().map(|r| r[1].clone()).collect();
    assert_eq!(unrecovered, ["_ZTSN3geo4VirtE", "_ZTSN3geo5VBaseE", "_ZTSN3geo9WithEmptyE"].map(String::from).into());

    let sets = sets_by_name(&recovered);
    let expected: Sets = expectations(&src, form).into_iter().filter(|(name, _)| sets.contains_key(name)).collect();
    // (and the module's own types that the TBAA tags name: `geo::Keep` by its name, the
    // specializations `geo::Pair`, `geo::Pair.0` and `geo::Pair.1` by their layouts)
    let kept = ["geo::Keep", "geo::Pair", "geo::Pair.0", "geo::Pair.1"];
    assert_eq!(expected.len(), names.len() + kept.len());
    assert!(kept.iter().all(|k| expected.contains_key(*k) && !from_debug_info.contains(*k)));
    let diffs = differences(&src, form, &expected, &sets);
    assert!(diffs.is_empty(), "condition sets differ:\n{}", diffs.join("\n"));
}

/// dtrans_whole_program: the reasons no transformation may run, by fixture.
/// - preconditions.c (a whole program): the program's struct given to the unknown ext_sink,
///   and the program's function given to the unknown ext_register; not the field address
///   given to strlen (a modelled library function), nor the C library's FILE given to the
///   unknown ext_underflow.
/// - access.c (no main): every exported function, called by code not seen, besides the call
///   of ext_sink (not fread, which is modelled).
/// - invoke.ll: the invoke, landingpad and resume (and no main).
#[test]
fn whole_program_preconditions() {
    let dir = scratch("dtrans-rules-whole-program");
    // (reason, the function of the entity: `module:@func` or `module:@func:%block:N`)
    let reasons = |name: &str| -> BTreeSet<(String, String)> {
        let src = repo().join("fixtures/dtrans").join(name);
        let facts = facts_of(&src, "NP", FORMS[0].1, &dir);
        let out = facts.with_file_name("out");
        run_dtrans(&facts, &out);
        rows(&out, "dtrans_whole_program")
            .into_iter()
            .map(|r| {
                let func = r[1].split(":%").next().unwrap().to_string();
                (r[0].clone(), func)
            })
            .collect()
    };
    let external = "unknown external call receives a type of interest";
    let function = "unknown external call receives a function of the program";
    let no_main = "no main: an exported function is called by code not seen";
    let set = |rows: &[(&str, &str)]| -> BTreeSet<(String, String)> {
        rows.iter()
            .map(|(r, f)| (r.to_string(), f.to_string()))
            .collect()
    };
    assert_eq!(
        reasons("preconditions.c"),
        set(&[
            (external, "preconditions:@hand_over"),
            (function, "preconditions:@main")
        ])
    );
    let access = reasons("access.c");
    let (exported, others): (BTreeSet<_>, BTreeSet<_>) =
        access.into_iter().partition(|(r, _)| r == no_main);
    assert_eq!(others, set(&[(external, "access:@dt_address_taken")]));
    // every `dt_` function of access.c is exported
    let defined: BTreeSet<(String, String)> =
        read_file(&repo().join("fixtures/dtrans"), "access.c")
            .lines()
            .filter(|l| !l.starts_with(' ') && !l.starts_with("//") && l.ends_with('{'))
            .filter_map(|l| {
                l.find("dt_")
                    .map(|i| l[i..].split('(').next().unwrap().to_string())
            })
            .map(|f| (no_main.to_string(), format!("access:@{f}")))
            .collect();
    assert!(defined.len() >= 10, "{defined:?}");
    assert_eq!(exported, defined);
    let invoke = reasons("invoke.ll");
    assert!(
        invoke.contains(&(
            "exception handling".to_string(),
            "invoke:@dt_has_cpp_invoke".to_string()
        )),
        "{invoke:?}"
    );
    assert!(
        invoke
            .iter()
            .all(|(r, _)| r == "exception handling" || r == no_main),
        "{invoke:?}"
    );
}
