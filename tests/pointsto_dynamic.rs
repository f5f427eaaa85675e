//! Dynamic soundness check of `llfacts analyze`: each program is compiled, analysed, then run
//! instrumented (fixtures/pointsto/dynamic/validate.py); every pointer value it computes
//! must point to an object, at an offset, that the analysis gave that value. On every
//! points-to fixture, on C++ over the standard library, and on Lua running a workload
//! script, each at -O0, after mem2reg and at -O2. The fixtures of documented unsound choices
//! must show the choice at run time, which is also what proves the check can fail.

mod common;

use std::process::{Command, Output};

use common::*;

fn validate(args: &[&str], sources: &[&str]) -> Output {
    let dynamic = repo().join("fixtures/pointsto/dynamic");
    let mut cmd = Command::new("python3");
    cmd.arg(dynamic.join("validate.py"))
        .arg("--llfacts")
        .arg(env!("CARGO_BIN_EXE_llfacts"))
        .args(args);
    if !sources.is_empty() {
        // what the fixtures declare and no analysed module defines
        cmd.arg("--lib").arg(dynamic.join("externals.c"));
    }
    for s in sources {
        cmd.arg(repo().join("fixtures/pointsto").join(s));
    }
    cmd.output().unwrap()
}

fn report(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `validate.py` prints "violations: object missing N, offset missing M".
fn violations(o: &Output) -> (usize, usize) {
    let text = report(o);
    let line = text
        .lines()
        .find(|l| l.starts_with("violations:"))
        .unwrap_or_else(|| panic!("no summary:\n{text}"));
    let n: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    (n[0], n[1])
}

/// The number of distinct (value, object, offset) observations.
fn observed(o: &Output) -> usize {
    let text = report(o);
    let key = "distinct (value, object, offset) ";
    let at = text.find(key).expect("summary");
    text[at + key.len()..]
        .split(';')
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// -O0, mem2reg, -O2.
const FORMS: [&[&str]; 3] = [&[], &["--mem2reg"], &["--cflag=-O2"]];

const SOUND: &[&[&str]] = &[
    &["alias_assertions.c"],
    &["below_start.c"],
    &["callbacks.c"],
    &["library_allocations.c"],
    &["library_notify.c"],
    &["library_storage.c"],
    &["std_thread.cpp"],
    &["string_construct.cpp"],
    &["call_once.cpp"],
    &["calltypes.c"],
    &["int_calls.c"],
    &["code_not_data.c"],
    &["context.c"],
    &["escape.c"],
    &["fields.c"],
    &["flow_slots.c"],
    &["funcptr.c"],
    &["globals.c"],
    &["heap_types.c"],
    &["inbounds.c"],
    &["indirection.c"],
    &["int_exposure.c"],
    &["link_app.c", "link_lib.c"],
    &["list.c"],
    &["megamorphic.c"],
    &["memcpy.c"],
    &["out_alloc_locals.c"],
    &["out_passed_on.c"],
    &["out_read_back.c"],
    &["out_wrappers.c"],
    &["static_storage.c", "static_storage_lib.c"],
    &["struct_arrays.c"],
    &["varargs.c"],
    &["virtual.cpp"],
    &["virtual_dispatch.cpp"],
    &["wrappers.c"],
    &["wrappers_indirect.c"],
];

#[test]
fn fixtures_run_within_their_points_to_sets() {
    let listed: usize = SOUND.iter().map(|s| s.len()).sum();
    let on_disk = std::fs::read_dir(repo().join("fixtures/pointsto"))
        .unwrap()
        .filter(|e| {
            let p = e.as_ref().unwrap().path();
            p.extension().is_some_and(|x| x == "c" || x == "cpp")
        })
        .count();
    assert_eq!(listed, on_disk, "a points-to fixture is missing from SOUND");
    for form in FORMS {
        for sources in SOUND {
            let o = validate(form, sources);
            // at -O2 a fixture may keep no pointer value at all
            assert!(
                o.status.success() && (observed(&o) > 0 || form == FORMS[2]),
                "{sources:?} {form:?} ({:?}):\n{}",
                o.status,
                report(&o)
            );
        }
    }
}

#[test]
fn documented_unsound_choices_show_at_run_time() {
    // entry_params.c is not here: argv's memory is the C library's, which the run does not
    // map to objects.
    for (fixture, missed) in [
        ("unsound/external_callback.c", "program:@parse_opt:%"),
        ("unsound/external_store.c", "program:@main:%"),
        (
            "unsound/external_deep.c",
            "program:@sink_r:%0 -> program:@x +0",
        ),
        (
            "unsound/incompatible_call.c",
            "program:@set:%0 -> program:@x +0",
        ),
        ("unsound/code_as_data.c", "-> program:@hello"),
        (
            "unsound/outside_and_back.c",
            "program:@sink_back:%0 -> program:@a +4",
        ),
        (
            "unsound/int_difference.c",
            "program:@sink_p:%0 -> program:@main:%",
        ),
        (
            "unsound/int_through_memory.c",
            "program:@sink_p:%0 -> program:@x +0",
        ),
    ] {
        // at -O2 what they show is mostly folded away
        for form in &FORMS[..2] {
            let o = validate(form, &[fixture]);
            let (objects, _) = violations(&o);
            assert!(
                objects > 0 && report(&o).contains(missed),
                "{fixture} {form:?}: expected a missed object ({missed}):\n{}",
                report(&o)
            );
            assert_eq!(o.status.code(), Some(1), "{}", report(&o));
        }
    }
}

/// C++ over libstdc++ (fixtures/pointsto/dynamic/stl_workload.cpp): std::string, map, set,
/// list, unordered_map, shared_ptr and virtual calls, with the library's string and
/// node-linking code external (and the library's calls of the program's own instances of
/// `_M_construct` modelled).
#[test]
fn stl_runs_within_its_points_to_sets() {
    for form in FORMS {
        let o = validate(form, &["dynamic/stl_workload.cpp"]);
        assert!(observed(&o) > 500, "{form:?}:\n{}", report(&o));
        assert!(o.status.success(), "{form:?}:\n{}", report(&o));
        assert_eq!(violations(&o), (0, 0), "{form:?}");
    }
}

/// An `inbounds` getelementptr whose address leaves its base's object is poison, and so is
/// what a load or phi passes on of it: not taken for the object it lands in (below_start.c,
/// where it lands in another global and the analysis rightly says the first one's).
#[test]
fn addresses_that_left_their_object_are_not_checked() {
    for form in &FORMS[..2] {
        let o = validate(form, &["below_start.c"]);
        let text = report(&o);
        assert!(o.status.success(), "{form:?}:\n{text}");
        assert_eq!(violations(&o), (0, 0));
        let left: usize = (text.split("left their object ").nth(1))
            .and_then(|t| t.split(';').next())
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("{text}"));
        assert!(left >= 2, "{form:?}: the base and the way back left: {text}");
    }
}

/// instrument.py numbers instructions as llfacts does, also after a landingpad's clause
/// lines: at -O2 the `new` of fixtures/pointsto/dynamic/landingpad_alloc.cpp is an invoke in
/// the landingpad's block. Its result and the two loads of `kept` point to its object: three
/// (value, object, offset) observations, which a misnumbered site would leave unchecked; the
/// fourth is pick's `p` (`&b`), a phi before its handler's landingpad, whose check goes after
/// the landingpad (before it, the module does not compile: after mem2reg too).
#[test]
fn allocations_after_landingpad_clauses_are_checked() {
    for form in FORMS {
        let o = validate(form, &["dynamic/landingpad_alloc.cpp"]);
        assert!(o.status.success(), "{form:?}:\n{}", report(&o));
        assert_eq!(violations(&o), (0, 0));
        if form == FORMS[2] {
            assert_eq!(observed(&o), 4, "{}", report(&o));
        }
    }
}

/// Memory that no defined function allocates is registered all the same:
/// fixtures/pointsto/dynamic/alloc_through_pointer.c allocates and frees through function
/// pointers that hold `malloc` and `free`, and mapped_memory.c maps memory with `mmap`.
/// Unregistered, the block and every pointer into it would be unknown, that is, unchecked.
#[test]
fn memory_from_pointers_to_malloc_and_from_mmap_is_checked() {
    for fixture in ["alloc_through_pointer.c", "mapped_memory.c"] {
        for form in FORMS {
            let o = validate(form, &[&format!("dynamic/{fixture}")]);
            let text = report(&o);
            assert!(o.status.success(), "{fixture} {form:?}:\n{text}");
            assert_eq!(violations(&o), (0, 0));
            assert!(text.contains(" unknown 0 "), "{fixture} {form:?}:\n{text}");
            assert!(observed(&o) >= 2, "{fixture} {form:?}:\n{text}");
        }
    }
}

/// fixtures/pointsto/dynamic/comdat_ctor.cpp: a constructor whose `define` line ends in
/// `comdat($name)` has its instructions numbered as llfacts numbers them (else its allocas
/// are objects the analysis does not have, and the check stops).
#[test]
fn definitions_in_a_named_comdat_are_numbered_as_llfacts_numbers_them() {
    for form in FORMS {
        let o = validate(form, &["dynamic/comdat_ctor.cpp"]);
        assert!(o.status.success(), "{form:?}:\n{}", report(&o));
        assert_eq!(violations(&o), (0, 0));
        assert!(observed(&o) > 0 || form == FORMS[2], "{form:?}:\n{}", report(&o));
    }
}

/// With contexts, the sets projected onto the nodes (what `analyze` reports) still hold
/// every value the run computes.
#[test]
fn context_sensitive_results_hold_at_run_time() {
    for context in ["1-callsite", "2-callsite", "1-caller"] {
        for form in &FORMS[..2] {
            for sources in SOUND {
                let o = validate(&[form, &["--context", context][..]].concat(), sources);
                assert!(
                    o.status.success() && observed(&o) > 0,
                    "{sources:?} {form:?} {context} ({:?}):\n{}",
                    o.status,
                    report(&o)
                );
            }
        }
    }
    for context in ["1-callsite", "2-callsite"] {
        let o = validate(&["--mem2reg", "--program", "lua", "--context", context], &[]);
        assert!(o.status.success(), "lua {context}:\n{}", report(&o));
        assert_eq!(violations(&o), (0, 0));
        assert!(observed(&o) > 20_000, "{}", report(&o));
    }
}

/// Lua 5.4 (crates.io's `lua-src`, as the benchmarks build it) with a `main` of ours,
/// running fixtures/pointsto/dynamic/workload.lua.
#[test]
fn lua_runs_within_its_points_to_sets() {
    for form in FORMS {
        let o = validate(&[form, &["--program", "lua"]].concat(), &[]);
        assert!(o.status.success(), "{form:?}:\n{}", report(&o));
        assert_eq!(violations(&o), (0, 0));
        // Offsets into collapsed arrays (Lua's stack among them) count modulo the element.
        assert!(observed(&o) > 20_000, "{}", report(&o));
    }
}
