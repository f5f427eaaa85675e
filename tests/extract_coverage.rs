//! Completeness: every opcode, type kind and relation is produced from the fixtures, the
//! output matches the declared schema, and instruction counts agree with an independent
//! reading (the text `llvm-dis-22` prints).

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::*;
use llfacts::facts::registry::RELATIONS;

const OPCODES: &[&str] = &[
    "ret",
    "br",
    "switch",
    "indirectbr",
    "invoke",
    "resume",
    "unreachable",
    "cleanupret",
    "catchret",
    "catchswitch",
    "callbr",
    "fneg",
    "add",
    "fadd",
    "sub",
    "fsub",
    "mul",
    "fmul",
    "udiv",
    "sdiv",
    "fdiv",
    "urem",
    "srem",
    "frem",
    "shl",
    "lshr",
    "ashr",
    "and",
    "or",
    "xor",
    "extractelement",
    "insertelement",
    "shufflevector",
    "extractvalue",
    "insertvalue",
    "alloca",
    "load",
    "store",
    "fence",
    "cmpxchg",
    "atomicrmw",
    "getelementptr",
    "trunc",
    "zext",
    "sext",
    "fptrunc",
    "fpext",
    "fptoui",
    "fptosi",
    "uitofp",
    "sitofp",
    "ptrtoint",
    "ptrtoaddr",
    "inttoptr",
    "bitcast",
    "addrspacecast",
    "icmp",
    "fcmp",
    "phi",
    "select",
    "freeze",
    "call",
    "va_arg",
    "landingpad",
    "catchpad",
    "cleanuppad",
];

fn all_facts() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("coverage").join("facts");
        extract_ok(&all_fixtures(), &dir, &["-q"]);
        dir
    })
}

#[test]
fn every_opcode_has_instructions() {
    let f = Facts::open(all_facts());
    assert_eq!(OPCODES.len(), 66, "LLVM 22 has 66 opcodes");
    for op in OPCODES {
        let rows = f.rows(&format!("{op}_instr"));
        assert!(!rows.is_empty(), "{op}_instr is empty");
        // The kind relation and the generic instr relation agree.
        for r in rows.iter() {
            f.assert_has("instr", &[&r[0], op]);
        }
    }
    let total: usize = OPCODES
        .iter()
        .map(|op| f.rows(&format!("{op}_instr")).len())
        .sum();
    assert_eq!(
        total,
        f.rows("instr").len(),
        "every instruction has exactly one kind relation"
    );
}

#[test]
fn every_type_kind_occurs() {
    let f = Facts::open(all_facts());
    let kinds: BTreeSet<String> = f.rows("type_kind").iter().map(|r| r[1].clone()).collect();
    for k in [
        "void",
        "integer",
        "float",
        "label",
        "metadata",
        "token",
        "pointer",
        "array",
        "vector",
        "function",
        "struct",
        "target_ext",
        "x86_amx",
    ] {
        assert!(kinds.contains(k), "no type of kind {k}: {kinds:?}");
    }
    let widths: BTreeSet<String> = f
        .rows("fp_type_width")
        .iter()
        .map(|r| format!("{}={}", r[0], r[1]))
        .collect();
    for w in [
        "half=16",
        "bfloat=16",
        "float=32",
        "double=64",
        "x86_fp80=80",
        "fp128=128",
        "ppc_fp128=128",
    ] {
        assert!(widths.contains(w), "missing {w}");
    }
    for rel in [
        "vector_type_scalable",
        "struct_type_packed",
        "struct_type_opaque",
        "struct_type_literal",
        "struct_type_name",
        "function_type_varargs",
        "target_ext_type_name",
    ] {
        assert!(!f.rows(rel).is_empty(), "{rel} is empty");
    }
    f.assert_has("pointer_type_addrspace", &["ptr", "0"]);
    assert!(
        f.rows("pointer_type_addrspace").iter().any(|r| r[1] != "0"),
        "no non-zero address space"
    );
}

#[test]
fn every_relation_is_populated_by_the_fixtures() {
    let f = Facts::open(all_facts());
    let empty: Vec<&str> = RELATIONS
        .iter()
        .map(|r| r.name)
        .filter(|n| f.rows(n).is_empty())
        .collect();
    assert!(
        empty.is_empty(),
        "relations no fixture populates: {empty:?}"
    );
}

#[test]
fn every_file_matches_its_declaration() {
    assert_schema_valid(all_facts());
}

/// Per defined function (by name as `llvm-dis` spells it after `@`), its blocks and
/// instructions, counted in the text `llvm-dis-22` prints: a reading independent of ours.
/// Inside a body, a label starts in column 0; an instruction is indented by two spaces
/// (switch cases, landingpad clauses and debug records are indented further; `  ]` closes
/// a switch, with its attachments).
fn disassembled_counts(path: &std::path::Path) -> BTreeMap<String, (usize, usize)> {
    let out = std::process::Command::new("/usr/lib/llvm-22/bin/llvm-dis")
        .arg(path)
        .arg("-o")
        .arg("-")
        .output()
        .expect("llvm-dis-22 (apt-get install llvm-22)");
    assert!(
        out.status.success(),
        "llvm-dis-22 failed on {}",
        path.display()
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut counts = BTreeMap::new();
    let mut current: Option<(String, usize, usize, bool)> = None;
    for line in text.lines() {
        if line.starts_with("define ") {
            let after = &line[line.find(" @").expect("a function name") + 2..];
            let name = &after[..after.find('(').expect("parameters")];
            current = Some((name.to_string(), 0, 0, false));
            continue;
        }
        let Some((name, blocks, instrs, started)) = current.as_mut() else {
            continue;
        };
        if line == "}" {
            counts.insert(std::mem::take(name), (*blocks, *instrs));
            current = None;
        } else if line.starts_with("  ") && !line.starts_with("   ") && !line.starts_with("  ]") {
            if !*started {
                *blocks += 1; // An unlabelled entry block.
            }
            *started = true;
            *instrs += 1;
        } else if !line.is_empty() && !line.starts_with([' ', ';']) && line.contains(':') {
            *blocks += 1;
            *started = true;
        }
    }
    counts
}

#[test]
fn counts_agree_with_an_independent_reader() {
    for bc in compiled_fixtures() {
        let out = scratch("counts").join("facts");
        extract_ok(std::slice::from_ref(bc), &out, &["-q"]);
        let f = Facts::open(&out);
        let counts = disassembled_counts(bc);
        let blocks: usize = counts.values().map(|c| c.0).sum();
        let instrs: usize = counts.values().map(|c| c.1).sum();
        assert_eq!(
            f.rows("function_definition").len(),
            counts.len(),
            "{}",
            bc.display()
        );
        assert_eq!(f.rows("block").len(), blocks, "{}", bc.display());
        assert_eq!(f.rows("instr").len(), instrs, "{}", bc.display());
        // Per function, too.
        let mut per_fn: BTreeMap<String, usize> = BTreeMap::new();
        for r in f.rows("instr_function").iter() {
            *per_fn.entry(r[1].clone()).or_default() += 1;
        }
        let stem = bc.file_stem().unwrap().to_string_lossy().to_string();
        for (name, (_, expected)) in &counts {
            if !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
            {
                continue;
            }
            let id = format!("{stem}:@{name}");
            assert_eq!(
                per_fn.get(&id).copied().unwrap_or(0),
                *expected,
                "instructions of {id}"
            );
        }
    }
}

#[test]
fn output_is_byte_identical_for_every_job_count() {
    let base = scratch("jobs");
    same_bytes_for_jobs(&all_fixtures(), &base.join("j"), &["1", "2", "3", "8"]);
}

/// A function far larger than the others, late in the module: its run is extracted first
/// (see `task_order` in `extract/mod.rs`), and the bytes are still those of `-j 1`.
#[test]
fn a_large_late_run_gives_the_same_bytes() {
    let base = scratch("large-run");
    let mut code = String::new();
    for i in 0..50 {
        if i == 40 {
            code.push_str("int big(int v) {\n  switch (v) {\n");
            for c in 0..400 {
                code.push_str(&format!("  case {c}: v = v * {c} + 1; break;\n"));
            }
            code.push_str("  }\n  return v;\n}\n");
        }
        code.push_str(&format!("int g{i}(int v) {{ return v + {i}; }}\n"));
    }
    let bc = compile_snippet(&base, "large", &code, &["-O0"]);
    same_bytes_for_jobs(&[bc], &base.join("j"), &["1", "2", "3"]);
}

/// One large module, read in one LLVM context (`-j 1`) or in one per thread (shards, see
/// `extract/input.rs`), gives the same bytes: 120 functions (8 runs) with debug info,
/// declarations between definitions, function pointers in globals, a computed goto whose
/// labels a global takes the address of, and a struct type used only by late functions.
#[test]
fn one_module_in_several_contexts_gives_the_same_bytes() {
    let base = scratch("shards");
    let mut code = String::from(
        "#include <string.h>\nstruct late { int a; double b; };\n\
         int dispatch(int op) {\n  static void *labels[] = { &&add, &&sub };\n  int x = 0;\n  \
         goto *labels[op & 1];\nadd: x += 1; return x;\nsub: x -= 1; return x;\n}\n",
    );
    for i in 0..120 {
        code.push_str(&format!("extern int ext{i}(int);\n"));
        if i >= 100 {
            code.push_str(&format!(
                "double f{i}(int v) {{ struct late l; memset(&l, 0, sizeof l); l.a = v; \
                 return l.b + ext{i}(l.a); }}\n"
            ));
        } else {
            code.push_str(&format!(
                "int f{i}(int v) {{ char buf[{i} + 8]; memcpy(buf, &v, sizeof v); \
                 return buf[0] + ext{i}(v) + dispatch(v); }}\n"
            ));
        }
    }
    code.push_str("int (*table[])(int) = { f0, f1, f50, f99 };\n");
    for (name, flags) in [("o0g", &["-O0", "-g"][..]), ("o1", &["-O1"][..])] {
        let bc = compile_snippet(&base, name, &code, flags);
        let dirs = same_bytes_for_jobs(
            &[bc],
            &base.join(format!("{name}-j")),
            &["1", "2", "3", "5"],
        );
        assert_eq!(Facts::open(&dirs[0]).rows("function_definition").len(), 121);
    }
}

/// Printing a constant data vector creates its elements as constants in the LLVM context, so
/// workers that printed float vectors at the same time corrupted the context's tables: a
/// crash or a hang in about one run in five on this module (400 functions and globals with
/// distinct float vectors and arrays, spelled by the workers and the globals task at once).
#[test]
fn workers_print_float_vectors_at_once_without_crashing() {
    let base = scratch("float-vectors");
    let mut code = String::from("typedef float v8 __attribute__((vector_size(32)));\n");
    for i in 0..400 {
        let vals: Vec<String> = (1..9).map(|k| format!("{i}.{k}f")).collect();
        let vals = vals.join(", ");
        code.push_str(&format!(
            "float ga{i}[8] = {{ {vals} }};\n\
             v8 f{i}(v8 x) {{ return x * (v8){{ {vals} }} + (v8){{ {i}.5f, 1.5f, 2.5f, 3.5f, \
             4.5f, 5.5f, 6.5f, {i}.75f }}; }}\n"
        ));
    }
    let bc = compile_snippet(&base, "fv", &code, &["-O1"]);
    for round in 0..8 {
        let out = base.join(format!("out{round}"));
        let mut child = llfacts()
            .args(["extract", "-q", "-j", "4"])
            .arg(&bc)
            .arg("-o")
            .arg(&out)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if std::time::Instant::now() > deadline {
                child.kill().unwrap();
                panic!("round {round}: extract hung");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert!(status.success(), "round {round}: {err}");
    }
    same_bytes_for_jobs(&[bc], &base.join("j"), &["1", "4"]);
}
