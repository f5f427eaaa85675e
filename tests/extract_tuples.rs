//! Specific tuples, each derived by reasoning from C source written in the test and compiled
//! by clang-22 (at -O0 with value names kept, so the IR is predictable).

mod common;

use common::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const FLAGS: &[&str] = &["-O0", "-g", "-fno-discard-value-names"];

/// The instruction that defines `var`.
fn def(f: &Facts, var: &str) -> String {
    let rows = f.rows("instr_result");
    let hit: Vec<&Vec<String>> = rows.iter().filter(|r| r[1] == var).collect();
    assert_eq!(hit.len(), 1, "definition of {var}");
    hit[0][0].clone()
}

#[test]
fn struct_field_access_and_arithmetic() {
    let dir = scratch("tuples-struct");
    let code = "struct Point { int x; long y; char tag; };\n\
                long scale(struct Point *p, int k) {\n\
                  return p->y * k + p->x;\n\
                }\n";
    let bc = compile_snippet(&dir, "pt", code, FLAGS);
    let out = dir.join("facts");
    extract_ok(&[bc], &out, &["-q"]);
    let f = Facts::open(&out);

    // Module, function header and parameters.
    assert_eq!(
        f.lookup("module", "pt", 2),
        vec![dir.join("pt.c").display().to_string()]
    );
    f.assert_has("function_definition", &["pt:@scale"]);
    f.assert_has("function_name", &["pt:@scale", "scale"]);
    f.assert_has("function_signature", &["pt:@scale", "i64 (ptr, i32)"]);
    f.assert_has("function_param", &["pt:@scale", "0", "pt:@scale:%p"]);
    f.assert_has("function_param", &["pt:@scale", "1", "pt:@scale:%k"]);
    f.assert_has("function_nparams", &["pt:@scale", "2"]);
    f.assert_has("variable_type", &["pt:@scale:%k", "i32"]);
    f.assert_has("function_param_attr", &["pt:@scale", "0", "noundef", ""]);

    // The struct type, laid out by the x86-64 data layout: i32 at 0, i64 at 8, i8 at 16.
    let s = "pt:%struct.Point";
    f.assert_has("struct_type_name", &[s, "struct.Point"]);
    f.assert_has("struct_type_nfields", &[s, "3"]);
    for (i, (ty, off)) in [("i32", "0"), ("i64", "8"), ("i8", "16")]
        .iter()
        .enumerate()
    {
        f.assert_has("struct_type_field", &[s, &i.to_string(), ty]);
        f.assert_has("struct_type_field_offset", &[s, &i.to_string(), off]);
    }
    f.assert_has("type_alloc_size", &[s, "24"]);
    f.assert_has("type_store_size", &[s, "24"]);
    f.assert_has("type_abi_align", &[s, "8"]);
    f.assert_has("type_kind", &[s, "struct"]);

    // -O0 spills parameters: `%p.addr = alloca ptr` and `store ptr %p, ptr %p.addr`.
    let alloca = def(&f, "pt:@scale:%p.addr");
    f.assert_has("alloca_instr", &[&alloca]);
    f.assert_has("alloca_type", &[&alloca, "ptr"]);
    f.assert_has("instr_align", &[&alloca, "8"]);
    let store = f
        .rows("store_value")
        .iter()
        .find(|r| r[1] == "pt:@scale:%p")
        .map(|r| r[0].clone())
        .unwrap();
    f.assert_has("store_addr", &[&store, "pt:@scale:%p.addr"]);
    f.assert_has("store_type", &[&store, "ptr"]);

    // `p->y`: `%y = getelementptr inbounds %struct.Point, ptr %0, i32 0, i32 1`.
    let gep = def(&f, "pt:@scale:%y");
    f.assert_has("getelementptr_instr", &[&gep]);
    f.assert_has("gep_source_type", &[&gep, s]);
    f.assert_has("gep_inbounds", &[&gep]);
    f.assert_has("gep_nindices", &[&gep, "2"]);
    f.assert_has("gep_index_type", &[&gep, "0", s]);
    f.assert_has("gep_index_type", &[&gep, "1", "i64"]);
    let field_index = f
        .rows("gep_index")
        .iter()
        .find(|r| r[0] == gep && r[1] == "1")
        .unwrap()[2]
        .clone();
    f.assert_has("integer_constant", &[&field_index, "1"]);
    f.assert_has("integer_constant_value", &[&field_index, "1"]);
    f.assert_has("constant", &[&field_index, "i32"]);
    // The load through it reads an i64.
    let load = f
        .rows("load_addr")
        .iter()
        .find(|r| r[1] == "pt:@scale:%y")
        .map(|r| r[0].clone())
        .unwrap();
    f.assert_has("load_type", &[&load, "i64"]);

    // `(long)k` is `%conv = sext i32 %.. to i64`; `* k` is `%mul = mul nsw i64 %.., %conv`.
    let conv = def(&f, "pt:@scale:%conv");
    f.assert_has("sext_instr", &[&conv]);
    f.assert_has("cast_from_type", &[&conv, "i32"]);
    f.assert_has("cast_to_type", &[&conv, "i64"]);
    let mul = def(&f, "pt:@scale:%mul");
    f.assert_has("mul_instr", &[&mul]);
    f.assert_has("instr_nsw", &[&mul]);
    f.assert_has("binop_rhs", &[&mul, "pt:@scale:%conv"]);
    let add = def(&f, "pt:@scale:%add");
    f.assert_has("binop_lhs", &[&add, "pt:@scale:%mul"]);
    let ret = f.rows("ret_instr")[0][0].clone();
    f.assert_has("ret_value", &[&ret, "pt:@scale:%add"]);
    f.assert_has("block_terminator", &["pt:@scale:%entry", &ret]);
    f.assert_has("function_entry_block", &["pt:@scale", "pt:@scale:%entry"]);

    // Debug info: the arithmetic is on line 3; the parameter `p` is declared on line 2.
    let loc = f
        .rows("instr_debug_loc")
        .iter()
        .find(|r| r[0] == mul)
        .cloned()
        .unwrap();
    assert!(loc[1].ends_with("pt.c"), "{loc:?}");
    assert_eq!(loc[2], "3");
    f.assert_has("variable_source_name", &["pt:@scale:%p.addr", "p", "2"]);
    f.assert_has("variable_source_name", &["pt:@scale:%k.addr", "k", "2"]);
}

#[test]
fn globals_constants_and_calls() {
    let dir = scratch("tuples-globals");
    let code = "int counter = 7;\n\
                static const char greeting[] = \"hi\\tthere\";\n\
                int *pc = &counter;\n\
                extern int ext(int, ...);\n\
                int use(void) { return ext(counter, 2.5) + greeting[1]; }\n";
    let bc = compile_snippet(&dir, "g", code, FLAGS);
    let out = dir.join("facts");
    extract_ok(&[bc], &out, &["-q"]);
    let f = Facts::open(&out);

    f.assert_has("global_var", &["g:@counter", "g"]);
    f.assert_has("global_var_value_type", &["g:@counter", "i32"]);
    f.assert_has("global_var_linkage", &["g:@counter", "external"]);
    f.assert_has("global_var_initializer", &["g:@counter", "g:@counter#init"]);
    f.assert_has("integer_constant", &["g:@counter#init", "7"]);
    f.assert_has("integer_constant_value", &["g:@counter#init", "7"]);

    // `static const char greeting[] = "hi\tthere"` is an internal constant [9 x i8] string.
    f.assert_has("global_var_linkage", &["g:@greeting", "internal"]);
    f.assert_has("global_var_constant", &["g:@greeting"]);
    f.assert_has("global_var_value_type", &["g:@greeting", "[9 x i8]"]);
    f.assert_has("array_type_len", &["[9 x i8]", "9"]);
    f.assert_has("array_type_elem", &["[9 x i8]", "i8"]);
    f.assert_has("string_constant", &["g:@greeting#init", "hi\\tthere\\x00"]);
    f.assert_has("aggregate_constant_nelems", &["g:@greeting#init", "9"]);

    // `int *pc = &counter` points at the global.
    f.assert_has("global_ref_constant", &["g:@pc#init", "g:@counter"]);

    // `ext(counter, 2.5)`: a direct call through a varargs declaration.
    f.assert_has("function_declaration", &["g:@ext"]);
    f.assert_has("function_type_varargs", &["i32 (i32, ...)"]);
    let call = f
        .rows("call_direct")
        .iter()
        .find(|r| r[1] == "g:@ext")
        .map(|r| r[0].clone())
        .unwrap();
    f.assert_has("call_instr", &[&call]);
    f.assert_has("call_fn_type", &[&call, "i32 (i32, ...)"]);
    f.assert_has("call_nargs", &[&call, "2"]);
    f.assert_has("call_callconv", &[&call, "ccc"]);
    let callee = f.one("call_callee", &call, 1);
    f.assert_has("function_ref_constant", &[&callee, "g:@ext"]);
    let arg1 = f
        .rows("call_arg")
        .iter()
        .find(|r| r[0] == call && r[1] == "1")
        .unwrap()[2]
        .clone();
    f.assert_has("fp_constant", &[&arg1, "2.500000e+00"]);
    f.assert_has("constant", &[&arg1, "double"]);
}

#[test]
fn modules_link_by_name_and_ids_stay_unique() {
    let dir = scratch("tuples-link");
    std::fs::create_dir_all(dir.join("other")).unwrap();
    let a = compile_snippet(&dir, "a", "int shared(int x) { return x + 1; }\n", FLAGS);
    let b = compile_snippet(
        &dir,
        "b",
        "int shared(int);\nint caller(void) { return shared(41); }\n",
        FLAGS,
    );
    let a2 = compile_snippet(
        &dir.join("other"),
        "a",
        "int shared(int x);\nint twice(int y) { return shared(shared(y)); }\n",
        FLAGS,
    );
    let out = dir.join("facts");
    extract_ok(&[a, b, a2], &out, &["-q"]);
    let f = Facts::open(&out);

    // Repeated stems get `~2`.
    f.assert_has(
        "module",
        &[
            "a",
            &dir.join("a.bc").display().to_string(),
            &dir.join("a.c").display().to_string(),
        ],
    );
    assert_eq!(f.lookup("module", "a~2", 0).len(), 1);
    // One definition and two declarations share the name `shared`.
    f.assert_has("function_definition", &["a:@shared"]);
    f.assert_has("function_declaration", &["b:@shared"]);
    f.assert_has("function_declaration", &["a~2:@shared"]);
    for id in ["a:@shared", "b:@shared", "a~2:@shared"] {
        f.assert_has("function_name", &[id, "shared"]);
    }
    let call = f
        .rows("call_direct")
        .iter()
        .find(|r| r[1] == "b:@shared")
        .map(|r| r[0].clone())
        .unwrap();
    assert!(call.starts_with("b:@caller:%entry:"), "{call}");
    // Ids never repeat across modules.
    for rel in ["instr", "block", "variable", "constant", "function"] {
        let rows = f.rows(rel);
        let ids: std::collections::HashSet<&String> = rows.iter().map(|r| &r[0]).collect();
        assert_eq!(ids.len(), rows.len(), "{rel} ids repeat");
    }
}

#[test]
fn layout_facts_match_what_the_c_compiler_computed() {
    // fixtures/c/layout.c stores sizeof/_Alignof/offsetof values next to their meanings.
    let bc = compiled_fixtures()
        .iter()
        .find(|p| p.file_name().unwrap() == "layout.O0.bc")
        .unwrap();
    let out = scratch("tuples-layout").join("facts");
    extract_ok(std::slice::from_ref(bc), &out, &["-q"]);
    let f = Facts::open(&out);
    let m = "layout.O0";
    let elems = |global: &str| -> Vec<String> {
        let init = f.one("global_var_initializer", &format!("{m}:@{global}"), 1);
        let mut e: Vec<(usize, String)> = f
            .rows("aggregate_constant_elem")
            .iter()
            .filter(|r| r[0] == init)
            .map(|r| (r[1].parse().unwrap(), r[2].clone()))
            .collect();
        e.sort();
        e.into_iter().map(|(_, c)| c).collect()
    };
    let values: Vec<String> = elems("layout_facts")
        .iter()
        .map(|c| f.one("integer_constant", c, 1))
        .collect();
    let names: Vec<String> = elems("layout_fact_names")
        .iter()
        .map(|c| {
            let global = f.one("global_ref_constant", c, 1);
            let init = f.one("global_var_initializer", &global, 1);
            let text = f.one("string_constant", &init, 1);
            text.trim_end_matches("\\x00").to_string()
        })
        .collect();
    assert_eq!(values.len(), names.len());
    assert!(values.len() > 30, "layout.c lists its facts");
    let mut checked = 0;
    for (name, value) in names.iter().zip(&values) {
        let words: Vec<&str> = name.split(' ').collect();
        let ty = format!("{m}:%{}", words[0]);
        if name.contains("aligned_member") && words[1] == "align" {
            continue; // C's _Alignof comes from an attribute the LLVM type does not carry.
        }
        match words[1] {
            "size" => f.assert_has("type_alloc_size", &[&ty, value]),
            "align" => f.assert_has("type_abi_align", &[&ty, value]),
            "offset" => f.assert_has("struct_type_field_offset", &[&ty, words[3], value]),
            other => panic!("unknown layout fact kind {other} in {name:?}"),
        }
        checked += 1;
    }
    assert!(checked > 30);
}

#[test]
fn names_with_special_bytes_are_escaped_and_round_trip() {
    let ll = repo().join("fixtures/ll/names.ll");
    let out = scratch("tuples-names").join("facts");
    extract_ok(&[ll], &out, &["-q"]);
    let f = Facts::open(&out);
    let raw_names: Vec<Vec<u8>> = f
        .rows("global_var_name")
        .iter()
        .map(|r| llfacts::facts::unescape(&r[1]).unwrap())
        .collect();
    for expected in [
        &b"name with\ttab"[..],
        b"line\nbreak",
        b"quote\"and\\backslash",
        b"non-utf8-\xff-byte",
        "utf8-été-✓".as_bytes(),
        b"123",
        b"tab\t\t\tand-cr\r",
        b"ctrl\x01\x02\x1f\x7f",
    ] {
        assert!(
            raw_names.iter().any(|n| n == expected),
            "missing global named {:?}",
            String::from_utf8_lossy(expected)
        );
    }
    // The escaped forms, as Soufflé reads them.
    f.assert_has(
        "global_var_name",
        &["names:@\"name with\\\\09tab\"", "name with\\ttab"],
    );
    f.assert_has(
        "global_var_name",
        &["names:@\"non-utf8-\\\\FF-byte\"", "non-utf8-\\xff-byte"],
    );
    // A local named "2" and the unnamed slot values do not collide.
    let vars: Vec<String> = f
        .rows("variable_name")
        .iter()
        .map(|r| r[1].clone())
        .collect();
    assert!(
        vars.contains(&"%\"2\"".to_string()) && vars.contains(&"%1".to_string()),
        "{vars:?}"
    );
}

#[test]
fn vector_gep_struct_indices_are_followed() {
    // %S = { i32, [4 x i8], i64 }: a splat <i32 1, i32 1> selects field 1 ([4 x i8]), whose
    // elements are i8; zeroinitializer selects field 0 (i32); a scalar i32 2 field 2 (i64).
    let dir = scratch("tuples-vgep");
    let ll = dir.join("vg.ll");
    std::fs::write(
        &ll,
        "%S = type { i32, [4 x i8], i64 }\n\
         define <2 x ptr> @v(<2 x ptr> %a) {\n\
         entry:\n\
         \x20 %g = getelementptr %S, <2 x ptr> %a, <2 x i64> zeroinitializer, <2 x i32> <i32 1, i32 1>, <2 x i64> <i64 2, i64 3>\n\
         \x20 %h = getelementptr %S, <2 x ptr> %a, i64 0, <2 x i32> zeroinitializer\n\
         \x20 %k = getelementptr %S, <2 x ptr> %a, i64 0, i32 2\n\
         \x20 ret <2 x ptr> %g\n\
         }\n",
    )
    .unwrap();
    let out = dir.join("facts");
    extract_ok(&[ll], &out, &["-q"]);
    let f = Facts::open(&out);
    let (g, h, k) = (
        def(&f, "vg:@v:%g"),
        def(&f, "vg:@v:%h"),
        def(&f, "vg:@v:%k"),
    );
    for (instr, pos, ty) in [
        (&g, "0", "vg:%S"),
        (&g, "1", "[4 x i8]"),
        (&g, "2", "i8"),
        (&h, "1", "i32"),
        (&k, "1", "i64"),
    ] {
        f.assert_has("gep_index_type", &[instr, pos, ty]);
    }
    f.assert_has("gep_nindices", &[&g, "3"]);
}

#[test]
fn memory_attributes_match_llvm_dis() {
    // The oracle is LLVM's own printer: `attributes #N = { ... memory(...) ... }`.
    let mut checked = 0;
    for bc in compiled_fixtures()
        .iter()
        .filter(|p| p.to_string_lossy().ends_with(".O2.bc"))
    {
        let text = std::process::Command::new("/usr/lib/llvm-22/bin/llvm-dis")
            .arg(bc)
            .arg("-o")
            .arg("-")
            .output()
            .unwrap();
        let text = String::from_utf8(text.stdout).unwrap();
        let mut groups = std::collections::HashMap::new();
        for line in text.lines().filter(|l| l.starts_with("attributes #")) {
            let (num, body) = line["attributes ".len()..].split_once(" = ").unwrap();
            if let Some(start) = body.find("memory(") {
                let end = start + body[start..].find(')').unwrap();
                groups.insert(
                    num.to_string(),
                    body[start + "memory(".len()..end].to_string(),
                );
            }
        }
        let out = scratch("tuples-memory").join("facts");
        extract_ok(std::slice::from_ref(bc), &out, &["-q"]);
        let f = Facts::open(&out);
        let stem = bc.file_stem().unwrap().to_string_lossy().to_string();
        for line in text.lines().filter(|l| l.starts_with("define ")) {
            let name = line.split('@').nth(1).unwrap().split('(').next().unwrap();
            let group = line.rsplit(' ').find(|w| w.starts_with('#')).unwrap_or("");
            let ours: Vec<String> = f
                .rows("function_attr")
                .iter()
                .filter(|r| r[0] == format!("{stem}:@{name}") && r[1] == "memory")
                .map(|r| r[2].clone())
                .collect();
            match groups.get(group) {
                Some(expected) => {
                    assert_eq!(ours, vec![expected.clone()], "memory of @{name} in {stem}");
                    checked += 1;
                }
                None => assert!(ours.is_empty(), "@{name} in {stem} has no memory attribute"),
            }
        }
    }
    assert!(
        checked > 10,
        "only {checked} functions with memory attributes"
    );
}

/// Compiles a C++ snippet written in the test.
fn compile_cpp(dir: &Path, name: &str, code: &str, flags: &[&str]) -> PathBuf {
    let src = dir.join(format!("{name}.cpp"));
    std::fs::write(&src, code).unwrap();
    let out = dir.join(format!("{name}.bc"));
    compile(&src, &out, flags);
    out
}

#[test]
fn constant_spelling_key_and_expression_flags() {
    let dir = scratch("tuples-constant-text");
    let code = "static int tbl[3];\n\
                int *pk = &tbl[2];\n\
                int *pk2 = &tbl[2];\n\
                int *first = &tbl[0];\n\
                struct S { int a; long b; } zs;\n\
                int minus_one(void) { return -1; }\n";
    let bc = compile_snippet(&dir, "ct", code, FLAGS);
    let out = dir.join("facts");
    extract_ok(&[bc], &out, &["-q"]);
    let f = Facts::open(&out);

    // `&tbl[2]`: clang-22 emits a byte-offset GEP, 2 * 4 bytes, without flags at -O0.
    let pk = "ct:@pk#init";
    let text = "ptr getelementptr (i8, ptr @tbl, i64 8)";
    f.assert_has("constant_text", &[pk, text]);
    f.assert_has("constant_text", &["ct:@pk#init.1", "i64 8"]);
    f.assert_has("constant_expr_gep_nindices", &[pk, "1"]);
    assert!(f.lookup("constant_expr_flag", pk, 1).is_empty());
    // `return -1`: the operand of `ret i32 -1`.
    let ret = &f.rows("ret_value")[0][1];
    f.assert_has("constant_text", &[ret, "i32 -1"]);

    // Equal constants have equal keys; `&tbl[0]` folds to `ptr @tbl`, another constant.
    let key = |c: &str| f.one("constant_key", c, 1);
    assert_eq!(key(pk), key("ct:@pk2#init"));
    assert_ne!(key(pk), key("ct:@first#init"));
    f.assert_has("constant_text", &["ct:@first#init", "ptr @tbl"]);
    // A struct type prints by name, not as its definition.
    f.assert_has(
        "constant_text",
        &["ct:@zs#init", "%struct.S zeroinitializer"],
    );
    assert_eq!(key(pk).len(), 16);
}

#[test]
fn long_constant_spellings_are_capped() {
    let dir = scratch("tuples-constant-cap");
    // 2,000 distinct ints: LLVM prints `[2000 x i32] [i32 0, i32 1, ...]`, about 17 kB.
    let elems: Vec<String> = (0..2000).map(|i| i.to_string()).collect();
    let code = format!("int big[2000] = {{{}}};\n", elems.join(","));
    let bc = compile_snippet(&dir, "cap", &code, FLAGS);
    let out = dir.join("facts");
    extract_ok(&[bc], &out, &["-q"]);
    let f = Facts::open(&out);
    let text = f.one("constant_text", "cap:@big#init", 1);
    assert_eq!(text.len(), 1024 + 3);
    assert!(text.starts_with("[2000 x i32] [i32 0, i32 1, i32 2, "));
    assert!(text.ends_with("..."));
    f.assert_has("constant_text", &["cap:@big#init.1999", "i32 1999"]);
}

#[test]
fn blocks_successors_result_types_and_columns() {
    let dir = scratch("tuples-cfg");
    let code = "int pick(int c, int x) {\n\
                  int y = x + 1;\n\
                  if (c)\n\
                    y = 2;\n\
                  return y;\n\
                }\n\
                int dispatch(int i) {\n\
                  static void *labels[] = { &&a, &&b, &&c };\n\
                  goto *labels[i];\n\
                  a: return 1;\n\
                  b: return 2;\n\
                  c: return 3;\n\
                }\n";
    let bc = compile_snippet(&dir, "cfg", code, FLAGS);
    let out = dir.join("facts");
    extract_ok(&[bc], &out, &["-q"]);
    let f = Facts::open(&out);

    f.assert_has("block_name", &["cfg:@pick:%entry", "%entry"]);
    f.assert_has("block_name", &["cfg:@pick:%if.then", "%if.then"]);
    // `if (c)`: entry's conditional br leads to the first instruction of both arms.
    let br = f.one("block_terminator", "cfg:@pick:%entry", 1);
    f.assert_has("instr_successor", &[&br, "cfg:@pick:%if.then:0"]);
    f.assert_has("instr_successor", &[&br, "cfg:@pick:%if.end:0"]);
    // Within a block, the successor is the next instruction.
    f.assert_has(
        "instr_successor",
        &["cfg:@pick:%entry:0", "cfg:@pick:%entry:1"],
    );
    // `x + 1` is `%add = add nsw i32 ...`; the store after it has no result.
    f.assert_has("instr_result_type", &[&def(&f, "cfg:@pick:%add"), "i32"]);
    let store = f.rows("store_instr")[0][0].clone();
    f.assert_has("instr_result_type", &[&store, "void"]);

    // Declaration columns: `int pick(int c, int x)` puts c at 14, x at 21; line 2 is
    // `int y = x + 1;` (the string continuation drops the indent), y at 5.
    f.assert_has(
        "variable_source_column",
        &["cfg:@pick:%c.addr", "c", "1", "14"],
    );
    f.assert_has(
        "variable_source_column",
        &["cfg:@pick:%x.addr", "x", "1", "21"],
    );
    f.assert_has("variable_source_column", &["cfg:@pick:%y", "y", "2", "5"]);

    // The computed goto: one indirectbr with the three address-taken labels.
    let ibr = f.rows("indirectbr_instr")[0][0].clone();
    f.assert_has("indirectbr_ndests", &[&ibr, "3"]);
}

#[test]
fn cpp_names_demangle_and_landingpads_count_clauses() {
    let dir = scratch("tuples-cpp");
    let code = "#include <typeinfo>\n\
                namespace ns { double demangle_me(double x) { return x; } }\n\
                const std::type_info &ti() { return typeid(int); }\n\
                extern \"C\" int plain(int x) { return x; }\n\
                struct E {};\n\
                void thrower();\n\
                int catcher() {\n\
                  try { thrower(); } catch (E &) { return 1; } catch (int) { return 2; }\n\
                  return 0;\n\
                }\n";
    let bc = compile_cpp(&dir, "pp", code, FLAGS);
    let out = dir.join("facts");
    extract_ok(&[bc], &out, &["-q"]);
    let f = Facts::open(&out);

    f.assert_has(
        "function_demangled",
        &["pp:@_ZN2ns11demangle_meEd", "ns::demangle_me(double)"],
    );
    f.assert_has("global_var_demangled", &["pp:@_ZTIi", "typeinfo for int"]);
    // C names are not mangled: no demangled form.
    assert!(f.lookup("function_demangled", "pp:@plain", 1).is_empty());
    // `catch (E &)` and `catch (int)`: one landingpad with two catch clauses.
    let lp = f.rows("landingpad_instr")[0][0].clone();
    f.assert_has("landingpad_nclauses", &[&lp, "2"]);
    f.assert_has(
        "landingpad_clause",
        &[&lp, "1", "catch", &format!("{lp}#1")],
    );
    f.assert_has("constant_text", &[&format!("{lp}#1"), "ptr @_ZTIi"]);
}

#[test]
fn range_and_initializes_attribute_values() {
    let dir = scratch("tuples-range");
    // `x & 7` is in [0, 8): clang-22 -O2 marks the return value `range(i32 0, 8)`. At -O2
    // the optimizer also proves `&tbl[2]` (byte 8 of 12) in bounds.
    let code = "int low3(int x) { return x & 7; }\n\
                static int tbl[3];\n\
                int *pk = &tbl[2];\n";
    let bc = compile_snippet(&dir, "rg", code, &["-O2"]);
    // `initializes` comes from IR text, where its value is certain; so do wrap flags on
    // constant expressions, which clang does not emit for C.
    let ll = dir.join("init.ll");
    std::fs::write(
        &ll,
        "@g = global i32 0\n\
         @e = global i64 add nuw nsw (i64 ptrtoint (ptr @g to i64), i64 1)\n\
         define void @f(ptr initializes((0, 4), (8, 12)) %p, i64 %n) {\n\
           call void @f(ptr initializes((0, 4)) %p, i64 range(i64 0, 5) %n)\n\
           ret void\n\
         }\n",
    )
    .unwrap();
    let out = dir.join("facts");
    extract_ok(&[bc, ll], &out, &["-q"]);
    let f = Facts::open(&out);
    f.assert_has("function_ret_attr", &["rg:@low3", "range", "i32 0, 8"]);
    f.assert_has(
        "function_param_attr",
        &["init:@f", "0", "initializes", "(0, 4), (8, 12)"],
    );
    let call = "init:@f:%0:0";
    f.assert_has("call_arg_attr", &[call, "0", "initializes", "(0, 4)"]);
    f.assert_has("call_arg_attr", &[call, "1", "range", "i64 0, 5"]);
    let pk = "rg:@pk#init";
    // LLVM 22 also marks the constant, non-negative offset `nuw`.
    let text = "ptr getelementptr inbounds nuw (i8, ptr @tbl, i64 8)";
    f.assert_has("constant_text", &[pk, text]);
    f.assert_has("constant_expr_flag", &[pk, "inbounds"]);
    f.assert_has("constant_expr_flag", &[pk, "nuw"]);
    f.assert_has("constant_expr_flag", &["init:@e#init", "nuw"]);
    f.assert_has("constant_expr_flag", &["init:@e#init", "nsw"]);
}

/// What LLVM 22 can say and LLVM 19 could not, from `fixtures/ll/llvm22.ll`: the
/// `ptrtoaddr` instruction (its operands and its points-to constraint, as `ptrtoint`'s),
/// `icmp samesign`, fast-math flags on `fptrunc`/`fpext`, getelementptr `nusw`/`nuw`,
/// the new atomicrmw operations and attributes.
#[test]
fn llvm22_instructions_flags_and_attributes() {
    let dir = scratch("tuples-llvm22");
    // Assembled by llvm-as-22 first: the bitcode path, as users' modules come.
    let bc = dir.join("llvm22.bc");
    let ok = std::process::Command::new("/usr/lib/llvm-22/bin/llvm-as")
        .arg(repo().join("fixtures/ll/llvm22.ll"))
        .arg("-o")
        .arg(&bc)
        .status()
        .expect("llvm-as-22")
        .success();
    assert!(ok, "llvm-as-22 failed on fixtures/ll/llvm22.ll");
    let out = dir.join("facts");
    extract_ok(&[bc], &out, &["-q"]);
    let f = Facts::open(&out);
    let addr = "llvm22:@addr_of:%0:0";
    f.assert_has("ptrtoaddr_instr", &[addr]);
    f.assert_has("instr", &[addr, "ptrtoaddr"]);
    f.assert_has("opcode_class", &["ptrtoaddr", "conversion"]);
    f.assert_has("cast_from", &[addr, "llvm22:@addr_of:%p"]);
    f.assert_has("cast_from_type", &[addr, "ptr"]);
    f.assert_has("cast_to_type", &[addr, "i64"]);
    f.assert_has("pt_ptr_to_int", &[addr, "llvm22:@addr_of:%p"]);
    f.assert_has("pt_ptr_to_int", &["llvm22:@keep:%0:1", "llvm22:@keep:%p"]);
    assert_eq!(f.rows("ptrtoaddr_instr").len(), 2);

    f.assert_has("instr_samesign", &["llvm22:@same_sign:%0:0"]);
    f.assert_has("cmp_predicate", &["llvm22:@same_sign:%0:0", "ult"]);
    assert_eq!(f.rows("instr_samesign").len(), 1);

    let (trunc, ext) = ("llvm22:@widen:%0:0", "llvm22:@widen:%0:1");
    let flags = |i: &str| -> BTreeSet<String> { f.lookup("instr_fmf", i, 1).into_iter().collect() };
    assert_eq!(flags(trunc), BTreeSet::from(["nnan".into(), "ninf".into()]));
    assert_eq!(flags(ext).len(), 7, "fast is all seven flags");
    assert!(flags("llvm22:@widen:%0:2").is_empty());

    let gep = |k: usize| format!("llvm22:@offsets:%0:{k}");
    f.assert_has("gep_nusw", &[&gep(0)]);
    f.assert_has("gep_nusw", &[&gep(1)]);
    f.assert_has("gep_nuw", &[&gep(1)]);
    f.assert_has("gep_nuw", &[&gep(2)]);
    f.assert_has("gep_inbounds", &[&gep(2)]);
    assert_eq!(
        f.rows("gep_nusw").len(),
        2,
        "inbounds implies nusw, not recorded twice"
    );
    assert_eq!(f.rows("gep_nuw").len(), 2);
    assert!(f.lookup("gep_inbounds", &gep(0), 0).is_empty());

    for (k, op) in ["usub_cond", "usub_sat", "fmaximum", "fminimum"]
        .iter()
        .enumerate()
    {
        f.assert_has("atomicrmw_operation", &[&format!("llvm22:@rmw:%0:{k}"), op]);
    }

    for row in [
        ["llvm22:@addr_of", "0", "captures", "address"],
        ["llvm22:@consume", "0", "dead_on_return", ""],
        ["llvm22:@consume", "1", "captures", "none"],
        ["llvm22:@consume", "2", "captures", "ret: address, provenance"],
    ] {
        f.assert_has("function_param_attr", &row);
    }
    f.assert_has(
        "function_attr",
        &[
            "llvm22:@consume",
            "memory",
            "errnomem: write, target_mem0: read",
        ],
    );
    f.assert_has(
        "function_attr",
        &["llvm22:@keep", "sanitize_alloc_token", ""],
    );
}

/// The same facts from what clang-22 itself writes: `captures(none)` where clang-19 wrote
/// `nocapture`, `getelementptr inbounds nuw`, and `fpext fast` under -ffast-math.
#[test]
fn clang22_writes_captures_nuw_and_fast_fpext() {
    let dir = scratch("tuples-clang22");
    let code = "void clear(int *p, int n) { for (int i = 0; i < n; i++) p[i] = 0; }\n\
                int second(int *p) { return p[1]; }\n\
                double widen(float f) { return f; }\n";
    let bc = compile_snippet(&dir, "c22", code, &["-O2", "-ffast-math"]);
    let out = dir.join("facts");
    extract_ok(&[bc], &out, &["-q"]);
    let f = Facts::open(&out);
    f.assert_has(
        "function_param_attr",
        &["c22:@clear", "0", "captures", "none"],
    );
    assert!(
        !f.rows("function_param_attr")
            .iter()
            .any(|r| r[2] == "nocapture"),
        "LLVM 22 has no nocapture"
    );
    // `p[1]`: a constant byte offset, inbounds and nuw.
    let geps: Vec<String> = f
        .rows("gep_nuw")
        .iter()
        .map(|r| r[0].clone())
        .filter(|i| i.starts_with("c22:@second:"))
        .collect();
    assert_eq!(geps.len(), 1, "{geps:?}");
    f.assert_has("gep_inbounds", &[&geps[0]]);
    let ext: Vec<String> = f.rows("fpext_instr").iter().map(|r| r[0].clone()).collect();
    assert_eq!(ext.len(), 1);
    assert_eq!(f.lookup("instr_fmf", &ext[0], 0).len(), 7, "fpext fast");
}
