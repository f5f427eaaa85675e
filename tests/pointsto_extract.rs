//! The `pointsto` relation group: specific constraints reasoned from C, C++ and IR source
//! compiled by clang-22 (ids read off `llvm-dis-22` output), and the id closure (every node
//! is a variable or constant, every constraint names an instruction or global).

mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

const C_SOURCE: &str = r#"
#include <stdarg.h>
struct S { int a; long b; char *c; };
struct S gs;
int g, g2;
int *gp = &g;
struct T { int *x; int *y; } tab = { &g, &g2 };
int f1(void);
int f2(void) { return 2; }
int (*fns[2])(void) = { f1, f2 };
int target_var = 1;
extern int alias_var __attribute__((alias("target_var")));

void two_levels(void) {
  int a = 10;
  int *p = &a;
  int **pp = &p;
  int *q = *pp;
  *q = 1;
}
long *field(struct S *s) { return &s->b; }
int arr_at(int *arr, int i) { return arr[i]; }
int callit(int i) { return fns[i](); }
void cp(struct S *d, struct S *s) { *d = *s; }
int sum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  int s = 0;
  for (int i = 0; i < n; i++) s += va_arg(ap, int);
  va_end(ap);
  return s;
}
long toint(int *p) { return (long)p; }
int *fromint(long x) { return (int *)x; }
long distance(int *p, int *q) { return p - q; }
int *from_word(long *w) { return (int *)*w; }
void *absolute(int c) { return c ? (void *)-1 : (void *)8; }
int *sel(int c) { return c ? &g : &g2; }
int *pick(int c, int *a, int *b) { return c ? a : b; }
int *id(int *p) { return p; }
int *use(int *p) { return id(p); }
int *get_alias(void) { return &alias_var; }
long get_b(struct S *s) { return s->b; }
"#;

const NAMES: &str = "-fno-discard-value-names";

/// The instruction that defines `var`.
fn def(f: &Facts, var: &str) -> String {
    let rows = f.rows("instr_result");
    let hit: Vec<&Vec<String>> = rows.iter().filter(|r| r[1] == var).collect();
    assert_eq!(hit.len(), 1, "definition of {var}");
    hit[0][0].clone()
}

fn opt_mem2reg(bc: &Path) -> PathBuf {
    let out = bc.with_extension("m2r.bc");
    let status = Command::new("/usr/lib/llvm-22/bin/opt")
        .arg("-passes=mem2reg")
        .arg(bc)
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success(), "opt-22 -passes=mem2reg failed");
    out
}

fn extract_to(dir: &Path, inputs: &[PathBuf]) -> Facts {
    let out = dir.join("facts");
    extract_ok(inputs, &out, &["-q"]);
    Facts::open(&out)
}

/// Every node is a variable or a constant, every constraint's instruction is an instruction
/// or a global, and every pointer node used by a constraint is declared with `pt_node`.
fn assert_id_closure(f: &Facts) {
    let set = |rel: &str| -> HashSet<String> { f.rows(rel).iter().map(|r| r[0].clone()).collect() };
    let values: HashSet<String> = set("variable").union(&set("constant")).cloned().collect();
    let instrs = set("instr");
    let globals: HashSet<String> = ["global_var", "function", "alias"]
        .iter()
        .flat_map(|r| set(r))
        .collect();
    let nodes = set("pt_node");
    let objects = set("pt_object");
    for n in &nodes {
        // or an instruction's own node, `<instr>+<n>` (an integer's shifted part)
        let own = n
            .rsplit_once('+')
            .is_some_and(|(i, k)| instrs.contains(i) && k.parse::<u32>().is_ok());
        assert!(
            values.contains(n) || own,
            "pt_node {n} is neither variable nor constant nor an instruction's own"
        );
    }
    for row in f.rows("pt_node").iter() {
        assert!(
            globals.contains(&row[1]),
            "pt_node {row:?}: not in a function or global"
        );
    }
    for n in set("pt_node_aggregate") {
        assert!(nodes.contains(&n), "pt_node_aggregate {n} is not a node");
    }
    // (relation, node columns); column 0 is the instruction (or global).
    let constraints: &[(&str, &[usize])] = &[
        ("pt_address_of", &[1]),
        ("pt_copy", &[1, 2]),
        ("pt_field", &[1, 2]),
        ("pt_offset_unknown", &[1, 2]),
        ("pt_load", &[1, 2]),
        ("pt_int_load", &[1, 2]),
        ("pt_store", &[1, 2]),
        ("pt_memcpy", &[1, 2]),
        ("pt_ptr_to_int", &[1]),
        ("pt_address_unexposed", &[]),
        ("pt_int_to_ptr", &[1]),
        ("pt_va_start", &[1]),
        ("pt_va_arg", &[1, 2]),
        ("pt_exception", &[1]),
        ("pt_call", &[1]),
        ("pt_call_arg", &[2]),
        ("pt_call_result", &[1]),
        ("pt_return", &[2]),
    ];
    for (rel, cols) in constraints {
        for row in f.rows(rel).iter() {
            assert!(
                instrs.contains(&row[0]) || globals.contains(&row[0]),
                "{rel} {row:?}: not an instruction or global"
            );
            for &c in *cols {
                assert!(
                    nodes.contains(&row[c]),
                    "{rel} {row:?}: {} is no pt_node",
                    row[c]
                );
            }
        }
    }
    for row in f.rows("pt_address_of").iter() {
        assert!(
            objects.contains(&row[2]),
            "pt_address_of {row:?}: no such object"
        );
    }
    for row in f.rows("pt_param").iter() {
        assert!(
            globals.contains(&row[0]) && nodes.contains(&row[2]),
            "pt_param {row:?}"
        );
    }
    for row in f.rows("pt_initializer").iter() {
        assert!(
            globals.contains(&row[0]) && nodes.contains(&row[2]),
            "pt_initializer {row:?}"
        );
    }
    for row in f.rows("pt_object").iter() {
        assert!(
            instrs.contains(&row[0]) || globals.contains(&row[0]),
            "pt_object {row:?}"
        );
    }
}

#[test]
fn c_at_o0() {
    let dir = scratch("pointsto-c-o0");
    let bc = compile_snippet(&dir, "pt", C_SOURCE, &["-O0", NAMES]);
    let f = extract_to(&dir, &[bc]);
    assert_id_closure(&f);

    // `%a = alloca i32`: a stack object of 4 bytes, and `%a = &a`.
    let a = def(&f, "pt:@two_levels:%a");
    f.assert_has("pt_object", &[&a, "stack"]);
    f.assert_has("pt_object_size", &[&a, "4"]);
    f.assert_has("pt_address_of", &[&a, "pt:@two_levels:%a", &a]);
    f.assert_has("pt_node", &["pt:@two_levels:%a", "pt:@two_levels"]);
    // entry: 4 allocas, `store i32 10, ptr %a` (:4, no constraint), `store ptr %a, ptr %p`
    // (:5), `store ptr %p, ptr %pp` (:6), `%0 = load ptr, ptr %pp`, `%1 = load ptr, ptr %0`.
    let e = "pt:@two_levels:%entry";
    f.assert_has(
        "store_value",
        &[&format!("{e}:4"), "pt:@two_levels:%entry:4#0"],
    );
    assert!(
        f.lookup("pt_store", &format!("{e}:4"), 1).is_empty(),
        "i32 store is no pt_store"
    );
    f.assert_has(
        "pt_store",
        &[&format!("{e}:5"), "pt:@two_levels:%p", "pt:@two_levels:%a"],
    );
    f.assert_has(
        "pt_store",
        &[&format!("{e}:6"), "pt:@two_levels:%pp", "pt:@two_levels:%p"],
    );
    f.assert_has(
        "pt_load",
        &[&format!("{e}:7"), "pt:@two_levels:%0", "pt:@two_levels:%pp"],
    );
    f.assert_has(
        "pt_load",
        &[&format!("{e}:8"), "pt:@two_levels:%1", "pt:@two_levels:%0"],
    );
    // `*q = 1` stores an i32: no constraint.
    assert!(f.lookup("pt_store", &format!("{e}:11"), 1).is_empty());

    // `&s->b`: `%b = getelementptr inbounds %struct.S, ptr %0, i32 0, i32 1`, b at 8.
    let gep = def(&f, "pt:@field:%b");
    f.assert_has(
        "pt_field",
        &[&gep, "pt:@field:%b", "pt:@field:%0", "8", "0.1"],
    );
    f.assert_has(
        "pt_return",
        &["pt:@field:%entry:4", "pt:@field", "pt:@field:%b"],
    );
    f.assert_has("pt_param", &["pt:@field", "0", "pt:@field:%s"]);

    // `arr[i]`: `getelementptr inbounds i32, ptr %0, i64 %idxprom`.
    let gep = def(&f, "pt:@arr_at:%arrayidx");
    f.assert_has(
        "pt_offset_unknown",
        &[&gep, "pt:@arr_at:%arrayidx", "pt:@arr_at:%0"],
    );
    assert!(f.lookup("pt_field", &gep, 1).is_empty());

    // `fns[i]()`: a gep on the constant @fns with a variable index, a load, an indirect call.
    let gep = def(&f, "pt:@callit:%arrayidx");
    let base = format!("{gep}#0");
    f.assert_has("pt_offset_unknown", &[&gep, "pt:@callit:%arrayidx", &base]);
    f.assert_has("pt_address_of", &[&gep, &base, "pt:@fns"]);
    f.assert_has("pt_node", &[&base, "pt:@callit"]);
    let call = def(&f, "pt:@callit:%call");
    f.assert_has("pt_call", &[&call, "pt:@callit:%1"]);

    // Global initializers: `@tab = { ptr @g, ptr @g2 }`, `@fns = [ptr @f1, ptr @f2]`.
    f.assert_has("pt_initializer", &["pt:@tab", "0", "pt:@tab#init.0"]);
    f.assert_has("pt_initializer", &["pt:@tab", "8", "pt:@tab#init.1"]);
    f.assert_has("pt_address_of", &["pt:@tab", "pt:@tab#init.0", "pt:@g"]);
    f.assert_has("pt_address_of", &["pt:@tab", "pt:@tab#init.1", "pt:@g2"]);
    f.assert_has("pt_node", &["pt:@tab#init.1", "pt:@tab"]);
    f.assert_has("pt_initializer", &["pt:@fns", "0", "pt:@fns#init.0"]);
    f.assert_has("pt_initializer", &["pt:@fns", "8", "pt:@fns#init.1"]);
    f.assert_has("pt_address_of", &["pt:@fns", "pt:@fns#init.0", "pt:@f1"]);
    f.assert_has("pt_address_of", &["pt:@fns", "pt:@fns#init.1", "pt:@f2"]);
    f.assert_has("pt_initializer", &["pt:@gp", "0", "pt:@gp#init"]);
    assert!(
        f.lookup("pt_initializer", "pt:@gs", 2).is_empty(),
        "zeroinitializer"
    );
    f.assert_has("pt_object", &["pt:@gs", "global"]);
    f.assert_has("pt_object_size", &["pt:@gs", "24"]);
    f.assert_has("pt_object", &["pt:@f1", "function"]);
    f.assert_has("pt_object", &["pt:@f2", "function"]);

    // `*d = *s`: `call void @llvm.memcpy.p0.p0.i64(ptr %0, ptr %1, i64 24, i1 false)`.
    let m = "pt:@cp:%entry:6";
    f.assert_has("pt_memcpy", &[m, "pt:@cp:%0", "pt:@cp:%1"]);
    assert!(
        f.lookup("pt_call", m, 1).is_empty(),
        "memcpy is modelled, not a call"
    );

    // va_start in a variadic function: `call void @llvm.va_start.p0(ptr %arraydecay)`.
    let va = "pt:@sum:%entry:6";
    f.assert_has("pt_va_start", &[va, "pt:@sum:%arraydecay", "pt:@sum"]);
    assert!(f.lookup("pt_call", va, 1).is_empty());
    // va_end gets nothing.
    assert!(f.rows("pt_call").iter().all(|r| !r[1].contains("va_end")));

    // `(long)p` and `(int *)x`.
    let p2i = def(&f, "pt:@toint:%1");
    f.assert_has("pt_ptr_to_int", &[&p2i, "pt:@toint:%0"]);
    let i2p = def(&f, "pt:@fromint:%1");
    f.assert_has("pt_int_to_ptr", &[&i2p, "pt:@fromint:%1"]);
    // A returned integer is exposed; the two sides of `p - q` are not.
    assert!(f.rows("pt_address_unexposed").iter().all(|r| r[0] != p2i));
    for (side, p) in [("lhs", "%0"), ("rhs", "%1")] {
        let cast = def(&f, &format!("pt:@distance:%sub.ptr.{side}.cast"));
        f.assert_has("pt_ptr_to_int", &[&cast, &format!("pt:@distance:{p}")]);
        f.assert_has("pt_address_unexposed", &[&cast]);
    }
    assert_eq!(f.rows("pt_address_unexposed").len(), 2);
    // `(int *)*w` loads an integer: the pointer is also what `*w` holds.
    let word = def(&f, "pt:@from_word:%2");
    f.assert_has("pt_int_to_ptr", &[&word, "pt:@from_word:%2"]);
    f.assert_has("pt_int_load", &[&word, "pt:@from_word:%2", "pt:@from_word:%0"]);
    // `(void *)-1` is an absolute address (SQLite's SQLITE_TRANSIENT): like null, it
    // points to no object, so it gets no constraint.
    assert!(f.rows("pt_int_to_ptr").iter().all(|r| !r[1].contains("@absolute")));
    assert!(f.rows("pt_return").iter().any(|r| r[1] == "pt:@absolute"));

    // `c ? &g : &g2` is a select at -O0 (the arms are constants).
    let sel = def(&f, "pt:@sel:%cond");
    for (k, g) in [(1, "pt:@g"), (2, "pt:@g2")] {
        let site = format!("{sel}#{k}");
        f.assert_has("pt_copy", &[&sel, "pt:@sel:%cond", &site]);
        f.assert_has("pt_address_of", &[&sel, &site, g]);
    }

    // A direct call: the callee constant is the address of the function.
    let call = def(&f, "pt:@use:%call");
    let callee = format!("{call}#1");
    f.assert_has("pt_call", &[&call, &callee]);
    f.assert_has("pt_address_of", &[&call, &callee, "pt:@id"]);
    f.assert_has("pt_call_arg", &[&call, "0", "pt:@use:%0"]);
    f.assert_has("pt_call_result", &[&call, "pt:@use:%call"]);

    // `&alias_var` is resolved to the aliasee's object.
    let ret = "pt:@get_alias:%entry:0";
    let site = format!("{ret}#0");
    f.assert_has("pt_return", &[ret, "pt:@get_alias", &site]);
    f.assert_has("pt_address_of", &[ret, &site, "pt:@target_var"]);
}

#[test]
fn c_after_mem2reg() {
    let dir = scratch("pointsto-c-mem2reg");
    let flags = ["-O0", "-Xclang", "-disable-O0-optnone", NAMES];
    let bc = compile_snippet(&dir, "ptm", C_SOURCE, &flags);
    let bc = opt_mem2reg(&bc);
    let f = extract_to(&dir, &[bc]);
    assert_id_closure(&f);
    // `%cond = phi ptr [ %a, %cond.true ], [ %b, %cond.false ]`.
    let phi = def(&f, "ptm.m2r:@pick:%cond");
    f.assert_has(
        "pt_copy",
        &[&phi, "ptm.m2r:@pick:%cond", "ptm.m2r:@pick:%a"],
    );
    f.assert_has(
        "pt_copy",
        &[&phi, "ptm.m2r:@pick:%cond", "ptm.m2r:@pick:%b"],
    );
    f.assert_has(
        "pt_return",
        &[
            &format!("{}:1", "ptm.m2r:@pick:%cond.end"),
            "ptm.m2r:@pick",
            "ptm.m2r:@pick:%cond",
        ],
    );
    // The va_arg address phi: `%vaarg.addr = phi ptr [ %1, ... ], [ %overflow_arg_area, ... ]`.
    let phi = def(&f, "ptm.m2r:@sum:%vaarg.addr");
    f.assert_has(
        "pt_copy",
        &[
            &phi,
            "ptm.m2r:@sum:%vaarg.addr",
            "ptm.m2r:@sum:%overflow_arg_area",
        ],
    );
    // Parameters are used directly: `ret ptr %p`.
    f.assert_has(
        "pt_return",
        &["ptm.m2r:@id:%entry:0", "ptm.m2r:@id", "ptm.m2r:@id:%p"],
    );
}

#[test]
fn c_byte_offset_geps_when_optimized() {
    for opt in ["-O1", "-O2"] {
        let dir = scratch(&format!("pointsto-c{opt}"));
        let bc = compile_snippet(&dir, "pto", C_SOURCE, &[opt, NAMES]);
        let f = extract_to(&dir, &[bc]);
        assert_id_closure(&f);
        // `s->b`: `%b = getelementptr inbounds i8, ptr %s, i64 8`.
        let gep = def(&f, "pto:@get_b:%b");
        f.assert_has(
            "pt_field",
            &[&gep, "pto:@get_b:%b", "pto:@get_b:%s", "8", "8"],
        );
        f.assert_has("pt_param", &["pto:@get_b", "0", "pto:@get_b:%s"]);
    }
}

/// An address shifted into the upper half of an `i128` and stored: the store puts it at byte
/// 8 of the slot, through a node of the store's own (`<store>+0`, a `pt_field` at 8).
#[test]
fn integers_shifted_by_whole_bytes_move_their_pointers() {
    let dir = scratch("pointsto-shift");
    let code = "int x;\n\
                union pun { unsigned __int128 i; struct { void *pad; int *p; } s; };\n\
                int *upper(void) { union pun u; u.i = (unsigned __int128)(unsigned long)&x << 64;\n\
                  return u.s.p; }\n";
    let bc = compile_snippet(&dir, "sh", code, &["-O0", NAMES]);
    let f = extract_to(&dir, &[bc]);
    assert_id_closure(&f);
    let shifted: Vec<Vec<String>> =
        f.rows("pt_field").iter().filter(|r| r[1].ends_with("+0")).cloned().collect();
    assert_eq!(shifted.len(), 1, "{shifted:?}");
    let store = &shifted[0][0];
    assert!(f.rows("store_instr").iter().any(|r| &r[0] == store), "{store} is no store");
    let node = format!("{store}+0");
    f.assert_has("pt_field", &[store, &node, "sh:@upper:%u", "8", "8"]);
    f.assert_has("pt_node", &[&node, "sh:@upper"]);
    // the value stored there is `&x`, the ptrtoint's operand
    let conv = def(&f, "sh:@upper:%conv");
    let value = f.one("pt_ptr_to_int", &conv, 1);
    f.assert_has("pt_store", &[store, &node, &value]);
    f.assert_has("pt_address_of", &[&conv, &value, "sh:@x"]);
}

#[test]
fn cpp_invoke_and_landingpad() {
    let dir = scratch("pointsto-cpp");
    let src = dir.join("eh.cpp");
    std::fs::write(
        &src,
        "struct E { int *p; };\n\
         void thrower(int *p);\n\
         int *catcher(int *p) {\n\
           try { thrower(p); } catch (E &e) { return e.p; }\n\
           return nullptr;\n\
         }\n",
    )
    .unwrap();
    let bc = dir.join("eh.bc");
    compile(&src, &bc, &["-O0", "-fexceptions", NAMES]);
    let f = extract_to(&dir, &[bc]);
    assert_id_closure(&f);
    let func = "eh:@_Z7catcherPi";
    // entry: 5 allocas, a store, `%0 = load`, then
    // `invoke void @_Z7throwerPi(ptr %0) to label %invoke.cont unwind label %lpad`:
    // operands are the argument, the two destinations, and the callee last.
    let inv = format!("{func}:%entry:7");
    f.assert_has("invoke_instr", &[&inv]);
    f.assert_has("pt_call", &[&inv, &format!("{inv}#3")]);
    f.assert_has(
        "pt_address_of",
        &[&inv, &format!("{inv}#3"), "eh:@_Z7throwerPi"],
    );
    f.assert_has("pt_call_arg", &[&inv, "0", &format!("{func}:%0")]);
    // `%1 = landingpad { ptr, i32 } catch ptr @_ZTI1E`, `%2 = extractvalue ... %1, 0`.
    let lp = format!("{func}:%lpad:0");
    let exn = format!("{func}:%1");
    f.assert_has("pt_exception", &[&lp, &exn]);
    f.assert_has("pt_node_aggregate", &[&exn]);
    f.assert_has(
        "pt_copy",
        &[&format!("{func}:%lpad:1"), &format!("{func}:%2"), &exn],
    );
    // `%5 = call ptr @__cxa_begin_catch(ptr %exn)`: an external call returning a pointer.
    let begin = def(&f, &format!("{func}:%5"));
    f.assert_has("pt_call_result", &[&begin, &format!("{func}:%5")]);
    f.assert_has("pt_call_arg", &[&begin, "0", &format!("{func}:%exn")]);
    // `llvm.eh.typeid.for` takes a pointer but stores it nowhere: nothing.
    let typeid = def(&f, &format!("{func}:%4"));
    assert!(f.lookup("pt_call", &typeid, 1).is_empty());
}

#[test]
fn ir_fixture() {
    let dir = scratch("pointsto-ll");
    let f = extract_to(&dir, &[repo().join("fixtures/ll/pointsto.ll")]);
    assert_id_closure(&f);
    let m = "pointsto";
    // A struct initializer with a nested array and a constant gep: `%struct.pair = { i32, ptr,
    // [2 x ptr] }` = `{ 7, @x, [@y, gep (i8, @x, 4)] }`: leaves at 8, 16 and 24.
    f.assert_has(
        "pt_initializer",
        &["pointsto:@pair", "8", "pointsto:@pair#init.1"],
    );
    f.assert_has(
        "pt_initializer",
        &["pointsto:@pair", "16", "pointsto:@pair#init.2.0"],
    );
    f.assert_has(
        "pt_initializer",
        &["pointsto:@pair", "24", "pointsto:@pair#init.2.1"],
    );
    f.assert_has(
        "pt_field",
        &[
            "pointsto:@pair",
            "pointsto:@pair#init.2.1",
            "pointsto:@pair#init.2.1.0",
            "4",
            "4",
        ],
    );
    f.assert_has(
        "pt_address_of",
        &["pointsto:@pair", "pointsto:@pair#init.2.1.0", "pointsto:@x"],
    );
    assert!(
        f.lookup("pt_initializer", "pointsto:@pair", 2).len() == 3,
        "i32 7 is no leaf"
    );
    // A vector of pointers in an initializer: elements at 0 and 8.
    f.assert_has(
        "pt_initializer",
        &["pointsto:@vec", "8", "pointsto:@vec#init.1"],
    );
    // An integer initializer holding an address: it escapes.
    f.assert_has(
        "pt_ptr_to_int",
        &["pointsto:@addr_as_int", "pointsto:@addr_as_int#init.0"],
    );

    // va_arg of a pointer.
    let va = format!("{m}:@first_vararg:%entry:2");
    f.assert_has(
        "pt_va_arg",
        &[
            &va,
            "pointsto:@first_vararg:%p",
            "pointsto:@first_vararg:%ap",
        ],
    );
    f.assert_has("pt_object_size", &["pointsto:@first_vararg:%entry:0", "24"]);

    // Aliases: of a global (resolved to its object), of a constant offset (the aliasee node,
    // which the alias itself gives a pt_field).
    let sel = "pointsto:@aliases:%0:0";
    f.assert_has("pt_address_of", &[sel, &format!("{sel}#1"), "pointsto:@x"]);
    f.assert_has(
        "pt_copy",
        &[sel, &format!("{sel}#2"), "pointsto:@alias_field#aliasee"],
    );
    f.assert_has(
        "pt_field",
        &[
            "pointsto:@alias_field",
            "pointsto:@alias_field#aliasee",
            "pointsto:@alias_field#aliasee.0",
            "24",
            "0.2.1",
        ],
    );
    f.assert_has(
        "pt_address_of",
        &[
            "pointsto:@alias_field",
            "pointsto:@alias_field#aliasee.0",
            "pointsto:@pair",
        ],
    );
    // llvm.ptrmask passes its pointer through.
    f.assert_has(
        "pt_copy",
        &[
            "pointsto:@aliases:%0:1",
            "pointsto:@aliases:%m",
            "pointsto:@aliases:%a",
        ],
    );

    // Vectors of pointers: a shufflevector with a constant vector, a masked gather.
    let shuf = "pointsto:@vectors:%0:0";
    f.assert_has(
        "pt_copy",
        &[shuf, "pointsto:@vectors:%both", "pointsto:@vectors:%ps"],
    );
    f.assert_has(
        "pt_copy",
        &[shuf, "pointsto:@vectors:%both", &format!("{shuf}#1")],
    );
    f.assert_has(
        "pt_copy",
        &[shuf, &format!("{shuf}#1"), &format!("{shuf}#1.0")],
    );
    f.assert_has(
        "pt_address_of",
        &[shuf, &format!("{shuf}#1.1"), "pointsto:@y"],
    );
    f.assert_has("pt_node_aggregate", &["pointsto:@vectors:%ps"]);
    f.assert_has("pt_node_aggregate", &[&format!("{shuf}#1")]);
    f.assert_has(
        "pt_load",
        &[
            "pointsto:@vectors:%0:1",
            "pointsto:@vectors:%loaded",
            "pointsto:@vectors:%both",
        ],
    );
    f.assert_has(
        "pt_copy",
        &[
            "pointsto:@vectors:%0:2",
            "pointsto:@vectors:%one",
            "pointsto:@vectors:%loaded",
        ],
    );

    // Inline asm: the pointer argument escapes, the result is unknown; an ifunc reference
    // is unknown; llvm.stacksave is an unmodelled intrinsic, so an external call.
    let f_ = "pointsto:@asm_and_ifunc";
    f.assert_has(
        "pt_ptr_to_int",
        &[&format!("{f_}:%0:1"), &format!("{f_}:%p")],
    );
    f.assert_has(
        "pt_int_to_ptr",
        &[&format!("{f_}:%0:1"), &format!("{f_}:%q")],
    );
    assert!(f.lookup("pt_call", &format!("{f_}:%0:1"), 1).is_empty());
    f.assert_has(
        "pt_int_to_ptr",
        &[&format!("{f_}:%0:0"), &format!("{f_}:%0:0#0")],
    );
    f.assert_has(
        "pt_call_result",
        &[&format!("{f_}:%0:2"), &format!("{f_}:%s")],
    );
    // `getelementptr inbounds %struct.pair, ptr %q, i64 1, i32 2, i64 1`: 32 + 16 + 8.
    f.assert_has(
        "pt_field",
        &[
            &format!("{f_}:%0:3"),
            &format!("{f_}:%f"),
            &format!("{f_}:%q"),
            "56",
            "1.2.1",
        ],
    );

    // A relative lookup table holds its targets (at -1: llvm.load.relative computes the
    // offset); the differences of addresses in it expose neither.
    let leaf = "pointsto:@rel#init.0.0.0.0";
    f.assert_has("pt_initializer", &["pointsto:@rel", "-1", leaf]);
    f.assert_has("pt_address_of", &["pointsto:@rel", leaf, "pointsto:@y"]);
    assert!(f.rows("pt_ptr_to_int").iter().all(|r| r[0] != "pointsto:@rel"));
    // llvm.load.relative loads from the table what it holds.
    f.assert_has(
        "pt_int_to_ptr",
        &["pointsto:@relative:%0:0", "pointsto:@relative:%p"],
    );
    f.assert_has(
        "pt_int_load",
        &["pointsto:@relative:%0:0", "pointsto:@relative:%p", "pointsto:@relative:%0:0#0"],
    );
    assert!(f.lookup("pt_call", "pointsto:@relative:%0:0", 1).is_empty());

    // Only subtracted from each other: neither address is exposed.
    f.assert_has("pt_address_unexposed", &["pointsto:@distance:%0:0"]);
    f.assert_has("pt_address_unexposed", &["pointsto:@distance:%0:1"]);
    // `inttoptr (load i64, ptr %w)`: also what *w holds.
    f.assert_has(
        "pt_int_load",
        &["pointsto:@from_word:%0:1", "pointsto:@from_word:%p", "pointsto:@from_word:%w"],
    );
    f.assert_has("pt_int_to_ptr", &["pointsto:@from_word:%0:1", "pointsto:@from_word:%p"]);

    // Atomics on pointers.
    let a = "pointsto:@atomics";
    f.assert_has(
        "pt_load",
        &[
            &format!("{a}:%0:0"),
            &format!("{a}:%prev"),
            &format!("{a}:%slot"),
        ],
    );
    f.assert_has(
        "pt_store",
        &[
            &format!("{a}:%0:0"),
            &format!("{a}:%slot"),
            &format!("{a}:%new"),
        ],
    );
    f.assert_has(
        "pt_load",
        &[
            &format!("{a}:%0:1"),
            &format!("{a}:%pair"),
            &format!("{a}:%slot"),
        ],
    );
    f.assert_has(
        "pt_store",
        &[
            &format!("{a}:%0:1"),
            &format!("{a}:%slot"),
            &format!("{a}:%prev"),
        ],
    );
    f.assert_has("pt_node_aggregate", &[&format!("{a}:%pair")]);
    f.assert_has(
        "pt_copy",
        &[
            &format!("{a}:%0:2"),
            &format!("{a}:%seen"),
            &format!("{a}:%pair"),
        ],
    );

    // Memory copies through integers at least as wide as a pointer.
    let c = "pointsto:@int_copies";
    for store in ["%0:1", "%0:3"] {
        f.assert_has(
            "pt_memcpy",
            &[
                &format!("{c}:{store}"),
                &format!("{c}:%d"),
                &format!("{c}:%s"),
            ],
        );
    }
    assert!(f.lookup("pt_memcpy", &format!("{c}:%0:5"), 1).is_empty());

    // ... and through phi, select and freeze, and from a global's address, which is named by
    // its use site in the load.
    let c = "pointsto:@int_copies_merged";
    let holder = format!("{c}:%entry:0#0");
    f.assert_has(
        "pt_address_of",
        &[&format!("{c}:%entry:0"), &holder, "pointsto:@holder"],
    );
    let copies = |store: &str| -> Vec<String> {
        let mut from: Vec<String> = f
            .rows("pt_memcpy")
            .iter()
            .filter(|row| row[0] == format!("{c}:{store}"))
            .inspect(|row| assert_eq!(row[1], format!("{c}:%d")))
            .map(|row| row[2].clone())
            .collect();
        from.sort();
        from
    };
    let (s, t) = (format!("{c}:%s"), format!("{c}:%t"));
    assert_eq!(copies("%entry:1"), std::slice::from_ref(&holder));
    assert_eq!(copies("%join:1"), [s.clone(), t.clone()]);
    assert_eq!(copies("%join:4"), [holder, s, t]);
}

#[test]
fn realistic_fixtures_keep_the_id_closure() {
    let dir = scratch("pointsto-fixtures");
    for src in ["fixtures/c/realistic.c", "fixtures/cpp/classes.cpp"] {
        let src = repo().join(src);
        let stem = src.file_stem().unwrap().to_string_lossy().to_string();
        for opt in ["-O0", "-O2"] {
            let sub = dir.join(format!("{stem}{opt}"));
            std::fs::create_dir_all(&sub).unwrap();
            let bc = sub.join(format!("{stem}.bc"));
            compile(&src, &bc, &[opt, "-g"]);
            let f = extract_to(&sub, &[bc]);
            assert_id_closure(&f);
            for rel in [
                "pt_node",
                "pt_address_of",
                "pt_load",
                "pt_store",
                "pt_call",
                "pt_param",
            ] {
                assert!(!f.rows(rel).is_empty(), "{rel} empty for {stem} {opt}");
            }
        }
    }
}
