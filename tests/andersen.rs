//! `rules/andersen.dl` end to end: the C and C++ fixtures in `fixtures/pointsto/` are
//! compiled by clang-22 at -O0 and at -O0 without optnone followed by `opt -passes=mem2reg`,
//! extracted by the real binary and solved by the builtin engine. Each fixture passes the
//! values of interest to `sink_*(v)` functions, whose parameter `%v` has the same points-to
//! set in both compilations; tests assert those sets exactly (what must be there for
//! soundness, and nothing else where field sensitivity or wrappers must separate objects).
//!
//! `fixtures/pointsto/unsound/` shows each unsound choice of docs/pointsto.md: those tests
//! assert the tuple the analysis misses, so that fixing the choice flips the test.

mod common;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// clang -O0: locals live in allocas.
    O0,
    /// clang -O0 -Xclang -disable-O0-optnone, then opt -passes=mem2reg: locals are SSA values.
    Mem2reg,
}

const MODES: [Mode; 2] = [Mode::O0, Mode::Mem2reg];

fn opt() -> PathBuf {
    clang().with_file_name("opt")
}

/// Compiles fixture sources into one bitcode file each for `mode`.
fn build(dir: &Path, sources: &[&str], mode: Mode) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for src in sources {
        let path = repo().join("fixtures/pointsto").join(src);
        let stem = Path::new(src)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let bc = dir.join(format!("{stem}.bc"));
        match mode {
            Mode::O0 => compile(&path, &bc, &["-O0", "-g", "-fno-discard-value-names"]),
            Mode::Mem2reg => {
                let pre = dir.join(format!("{stem}.pre.bc"));
                compile(
                    &path,
                    &pre,
                    &[
                        "-O0",
                        "-g",
                        "-fno-discard-value-names",
                        "-Xclang",
                        "-disable-O0-optnone",
                    ],
                );
                let status = Command::new(opt())
                    .args(["-passes=mem2reg"])
                    .arg(&pre)
                    .arg("-o")
                    .arg(&bc)
                    .status()
                    .unwrap();
                assert!(status.success(), "opt-22 failed on {}", pre.display());
            }
        }
        out.push(bc);
    }
    out
}

/// The facts and the analysis results of one program.
struct Analysis {
    facts: Facts,
    out: PathBuf,
    cache: std::cell::RefCell<HashMap<String, std::rc::Rc<Vec<Vec<String>>>>>,
    mode: Mode,
}

fn analyse(name: &str, sources: &[&str], mode: Mode) -> Analysis {
    analyse_in(name, sources, mode, "")
}

/// `analyse` with rules/andersen.dl under preprocessor definitions (`#define ...` lines):
/// how a user chooses the contexts without `llfacts analyze`.
fn analyse_in(name: &str, sources: &[&str], mode: Mode, defines: &str) -> Analysis {
    let dir = scratch(&format!("andersen-{name}-{mode:?}"));
    let bcs = build(&dir, sources, mode);
    let facts = dir.join("facts");
    extract_ok(&bcs, &facts, &["-q"]);
    let out = dir.join("out");
    let program = dir.join("andersen.dl");
    let rules = repo().join("rules/andersen.dl");
    std::fs::write(&program, format!("{defines}\n#include \"{}\"\n", rules.display())).unwrap();
    let o = llfacts()
        .args(["run", "--engine", "builtin"])
        .arg(&program)
        .arg("-F")
        .arg(&facts)
        .arg("-D")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "llfacts run rules/andersen.dl: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    Analysis {
        facts: Facts::open(&facts),
        out,
        cache: Default::default(),
        mode,
    }
}

impl Analysis {
    /// Rows of an output relation.
    fn out(&self, rel: &str) -> std::rc::Rc<Vec<Vec<String>>> {
        if let Some(r) = self.cache.borrow().get(rel) {
            return r.clone();
        }
        let path = self.out.join(format!("{rel}.csv"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let rows = std::rc::Rc::new(
            text.lines()
                .map(|l| l.split('\t').map(str::to_string).collect())
                .collect::<Vec<Vec<String>>>(),
        );
        self.cache.borrow_mut().insert(rel.into(), rows.clone());
        rows
    }

    /// The defined function named `name` (C name or mangled name).
    fn function(&self, name: &str) -> String {
        let defs: Vec<String> = self
            .facts
            .rows("function_name")
            .iter()
            .filter(|r| r[1] == name && self.facts.has("function_definition", &[&r[0]]))
            .map(|r| r[0].clone())
            .collect();
        assert_eq!(defs.len(), 1, "definitions of {name}: {defs:?}");
        defs[0].clone()
    }

    /// The variable `%ir_name` of function `func`.
    fn var(&self, func: &str, ir_name: &str) -> String {
        let f = self.function(func);
        let vars: Vec<String> = self
            .facts
            .rows("variable_name")
            .iter()
            .filter(|r| r[1] == format!("%{ir_name}"))
            .filter(|r| self.facts.has("variable", &[&r[0], &f]))
            .map(|r| r[0].clone())
            .collect();
        assert_eq!(vars.len(), 1, "%{ir_name} in {func}: {vars:?}");
        vars[0].clone()
    }

    /// The stack object (alloca) of source variable `name` in `func` (-O0 with -g).
    fn stack_object(&self, func: &str, name: &str) -> String {
        let f = self.function(func);
        let objs: Vec<String> = self
            .facts
            .rows("variable_source_name")
            .iter()
            .filter(|r| r[1] == name && self.facts.has("variable", &[&r[0], &f]))
            .flat_map(|r| {
                self.facts
                    .rows("pt_address_of")
                    .iter()
                    .filter(|a| a[1] == r[0] && a[0] == a[2])
                    .map(|a| a[2].clone())
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(objs.len(), 1, "stack object of {name} in {func}: {objs:?}");
        objs[0].clone()
    }

    fn name_of_function(&self, f: &str) -> String {
        self.facts
            .lookup("function_name", f, 1)
            .pop()
            .unwrap_or_else(|| f.to_string())
    }

    /// A readable, compilation-independent name for an object: a global's or function's
    /// name, `stack:FUNC:%alloca`, `heap:CALLER>CALLEE@LINE`.
    fn label(&self, obj: &str) -> String {
        if obj.starts_with("<static>:") {
            return obj.to_string();
        }
        if let Some(n) = self.facts.lookup("global_var_name", obj, 1).pop() {
            return n;
        }
        if let Some(n) = self.facts.lookup("function_name", obj, 1).pop() {
            return format!("{n}()");
        }
        let func = self
            .facts
            .lookup("instr_function", obj, 1)
            .pop()
            .map(|f| self.name_of_function(&f))
            .unwrap_or_default();
        if self.facts.has("pt_object", &[obj, "stack"]) {
            let node = self
                .facts
                .rows("pt_address_of")
                .iter()
                .find(|a| a[0] == obj && a[2] == obj)
                .map(|a| a[1].clone())
                .unwrap();
            let name = self.facts.one("variable_name", &node, 1);
            return format!("stack:{func}:{name}");
        }
        let callee = self
            .facts
            .lookup("call_direct", obj, 1)
            .pop()
            .map(|f| self.name_of_function(&f))
            .unwrap_or_else(|| "*".into());
        let line = self
            .facts
            .lookup("instr_debug_loc", obj, 2)
            .pop()
            .unwrap_or_else(|| "?".into());
        format!("heap:{func}>{callee}@{line}")
    }

    /// Labels of the objects node `var` points to.
    fn pts_of(&self, var: &str) -> BTreeSet<String> {
        self.out("var_points_to")
            .iter()
            .filter(|r| r[0] == var)
            .map(|r| self.label(&r[1]))
            .collect()
    }

    /// Labels of the objects `%v` of `sink` points to.
    fn sink(&self, sink: &str) -> BTreeSet<String> {
        self.pts_of(&self.var(sink, "v"))
    }

    /// `label+offset` of the locations `%v` of `sink` points to.
    fn sink_fields(&self, sink: &str) -> BTreeSet<String> {
        let v = self.var(sink, "v");
        self.out("var_points_to_field")
            .iter()
            .filter(|r| r[0] == v)
            .map(|r| format!("{}+{}", self.label(&r[1]), r[2]))
            .collect()
    }

    /// Labels of what the memory of `obj` at `offset` points to.
    fn field(&self, obj: &str, offset: &str) -> BTreeSet<String> {
        self.out("field_points_to")
            .iter()
            .filter(|r| r[0] == obj && r[1] == offset)
            .map(|r| self.label(&r[2]))
            .collect()
    }

    /// Names of the functions that calls in `caller` may call.
    fn callees(&self, caller: &str) -> BTreeSet<String> {
        let f = self.function(caller);
        self.out("call_graph_edge")
            .iter()
            .filter(|r| self.facts.has("instr_function", &[&r[0], &f]))
            .map(|r| self.name_of_function(&r[1]))
            .collect()
    }

    /// Names of the functions an indirect call in `caller` may call.
    fn indirect_callees(&self, caller: &str) -> BTreeSet<String> {
        let f = self.function(caller);
        self.out("call_graph_edge")
            .iter()
            .filter(|r| self.facts.has("instr_function", &[&r[0], &f]))
            .filter(|r| self.facts.lookup("call_direct", &r[0], 1).is_empty())
            .map(|r| self.name_of_function(&r[1]))
            .collect()
    }

    fn reachable(&self) -> BTreeSet<String> {
        self.out("reachable_function")
            .iter()
            .map(|r| self.name_of_function(&r[0]))
            .collect()
    }

    fn heap_objects(&self) -> BTreeSet<String> {
        self.out("object")
            .iter()
            .filter(|r| r[1] == "heap")
            .map(|r| self.label(&r[0]))
            .collect()
    }
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[track_caller]
fn assert_set(a: &Analysis, what: &str, actual: BTreeSet<String>, expected: &[&str]) {
    assert_eq!(actual, set(expected), "{what} ({:?})", a.mode);
}

fn for_both(name: &str, sources: &[&str], check: impl Fn(&Analysis)) {
    for mode in MODES {
        check(&analyse(name, sources, mode));
    }
}

#[test]
fn indirection_phi_and_select() {
    for_both("indirection", &["indirection.c"], |a| {
        assert_set(a, "p after **ppp = &y", a.sink("sink_p"), &["x", "y"]);
        assert_set(a, "pp", a.sink("sink_pp"), &["stack:main:%p"]);
        assert_set(a, "q = **ppp", a.sink("sink_q"), &["x", "y"]);
        assert_set(a, "select", a.sink("sink_sel"), &["x", "z"]);
        assert_set(a, "phi", a.sink("sink_phi"), &["y", "z"]);
        assert_set(a, "*pr", a.sink("sink_r"), &["z"]);
        if a.mode == Mode::O0 {
            // At -O0 the variables are stack objects: what their memory holds.
            // `pp = &p` stores p's address into memory: p escapes, and keeps its one field.
            let p = a.stack_object("main", "p");
            assert_set(a, "memory of p", a.field(&p, "0"), &["x", "y"]);
            assert_set(a, "memory of p at -1", a.field(&p, "-1"), &[]);
            let ppp = a.stack_object("main", "ppp");
            assert_set(a, "memory of ppp", a.field(&ppp, "0"), &["stack:main:%pp"]);
        }
    });
}

#[test]
fn struct_fields_nested_structs_and_arrays() {
    for_both("fields", &["fields.c"], |a| {
        // s.a = &x; s.b = &y; read back through callees: fields stay apart.
        assert_set(a, "s->a", a.sink("sink_a"), &["x"]);
        assert_set(a, "s->b", a.sink("sink_b"), &["y"]);
        assert_set(a, "s.in.q through &s.in", a.sink("sink_inq"), &["w"]);
        assert_set(a, "s.arr[2]", a.sink("sink_arr2"), &["v"]);
        // A variable index is somewhere in s: every field.
        assert_set(
            a,
            "s.arr[i]",
            a.sink("sink_arr"),
            &["v", "w", "x", "y", "z"],
        );
        // `&x` and `&w` are stored into memory: escaped, so they keep only the fields of
        // their type, an int's one at 0.
        assert_set(a, "offset of s.in.q", a.sink_fields("sink_inq"), &["w+0"]);
        assert_set(a, "offset of s->a", a.sink_fields("sink_a"), &["x+0"]);
        // `st->top++` stored back into memory: the cursor is somewhere in st (offset -1),
        // so what is pushed through it is in st's cell -1, which `st.slots[1]` reads with
        // its own. (`st.top = st.slots` stores st's address into memory: st escapes, but
        // its 9 fields stay apart, so `top`'s own targets are not in the slots.)
        assert_set(a, "st.slots[1]", a.sink("sink_pushed"), &["x", "y"]);
    });
}

#[test]
fn escaped_objects_keep_only_their_declared_fields() {
    for_both("escape", &["escape.c"], |a| {
        // `kept` is only passed to a direct callee: its fields stay apart.
        assert_set(a, "kept.b", a.sink("sink_kept"), &["y"]);
        // `&escaped` is stored into the heap, but its type has two fields: they stay apart.
        assert_set(a, "escaped.b", a.sink("sink_escaped"), &["y"]);
        // The heap block's size varies: one cell, holding all three addresses. The two
        // typed objects are at their offset 0; `big` (40 fields) is one location, -1.
        assert_set(
            a,
            "blob[0]",
            a.sink_fields("sink_where"),
            &[
                "stack:main:%escaped+0",
                "stack:main:%named+0",
                "stack:main:%big+-1",
            ],
        );
        // Inside `named.name` (an array of chars) no field begins: -1.
        assert_set(a, "&named.name[3]", a.sink_fields("sink_name"), &["stack:main:%named+-1"]);
        assert_set(a, "named.q", a.sink("sink_q"), &["x"]);
        assert_set(a, "big.p[1]", a.sink("sink_big"), &["x", "y"]);
        assert_set(a, "*(&bytes + 8) in a callee", a.sink("sink_bytes"), &["y"]);
        assert_set(a, "*(&local + 8) in a callee", a.sink("sink_local_bytes"), &["y"]);
    });
}

#[test]
fn dereferenced_nodes_hold_no_code() {
    for_both("code_not_data", &["code_not_data.c"], |a| {
        // `u` holds `&a` or `hello`; `n`, read from it, is dereferenced.
        assert_set(a, "&n->v", a.sink("sink_int"), &["a"]);
        assert_set(a, "n->next", a.sink("sink_node"), &["b"]);
        assert_set(a, "u.f()", a.indirect_callees("main"), &["hello"]);
    });
}

#[test]
fn globals_with_initializers_and_function_tables() {
    for_both("globals", &["globals.c"], |a| {
        assert_set(a, "*gpp", a.sink("sink_gp"), &["x"]);
        assert_set(a, "gpair.second", a.sink("sink_second"), &["z"]);
        assert_set(a, "garr[1]", a.sink("sink_garr1"), &["y"]);
        assert_set(
            a,
            "ops[i].fn()",
            a.indirect_callees("run"),
            &["add1", "add2"],
        );
        assert!(a.reachable().contains("add2"));
    });
}

#[test]
fn heap_objects_per_call_site_of_allocation_wrappers() {
    for_both("wrappers", &["wrappers.c"], |a| {
        // Each call of the wrapper xmalloc is its own heap object.
        assert_set(
            a,
            "a = xmalloc()",
            a.sink("sink_a"),
            &["heap:main>xmalloc@50"],
        );
        assert_set(
            a,
            "b = xmalloc()",
            a.sink("sink_b"),
            &["heap:main>xmalloc@51"],
        );
        assert_set(a, "*a", a.sink("sink_a0"), &["x"]);
        assert_set(a, "*b", a.sink("sink_b0"), &["y"]);
        // A two-level chain: zalloc -> xmalloc -> malloc.
        assert_set(
            a,
            "d = zalloc()",
            a.sink("sink_d"),
            &["heap:main>zalloc@55"],
        );
        assert_set(
            a,
            "e = zalloc()",
            a.sink("sink_e"),
            &["heap:main>zalloc@56"],
        );
        // p + 1 after a header, as in sqlite3MemMalloc.
        assert_set(
            a,
            "c = mem_malloc()",
            a.sink("sink_c"),
            &["heap:main>mem_malloc@54"],
        );
        // `malloc(n + 8)` has no constant size: the wrapper's objects are field-insensitive.
        let offsets = &["heap:main>mem_malloc@54+-1"];
        assert_set(a, "offsets of c", a.sink_fields("sink_c"), offsets);
        // leaky() publishes its block: not a wrapper, one object for both calls.
        assert_set(a, "l1", a.sink("sink_l1"), &["heap:leaky>malloc@33"]);
        assert_set(a, "l2", a.sink("sink_l2"), &["heap:leaky>malloc@33"]);
        // The inner objects stay for the wrappers' own uses.
        assert!(a.heap_objects().contains("heap:xmalloc>malloc@7"));
    });
}

#[test]
fn heap_objects_per_call_site_of_out_parameter_wrappers() {
    for_both("out_wrappers", &["out_wrappers.c"], |a| {
        // make_node stores its fresh node only through `out`: each call is its own object,
        // of make_node's one constant size, so field-sensitive.
        assert_set(a, "a", a.sink("sink_a"), &["heap:main>make_node@62"]);
        assert_set(a, "b", a.sink("sink_b"), &["heap:main>make_node@63"]);
        assert_set(a, "a's fields", a.sink_fields("sink_a"), &["heap:main>make_node@62+0"]);
        assert_set(a, "a->val", a.sink("sink_a0"), &["x"]);
        assert_set(a, "b->val", a.sink("sink_b0"), &["y"]);
        // A chain: make_node2 passes its `out` to make_node.
        assert_set(a, "c", a.sink("sink_c"), &["heap:main>make_node2@64"]);
        // Out-wrapper of a returning wrapper: no constant size of its own (-1).
        assert_set(a, "buf", a.sink_fields("sink_buf"), &["heap:main>make_buf@67+-1"]);
        assert_set(a, "buf[1]", a.sink("sink_buf0"), &["z"]);
        // make_kept also keeps its node in a global: one object for both calls.
        assert_set(a, "k1", a.sink("sink_k1"), &["heap:make_kept>malloc@35"]);
        assert_set(a, "k2", a.sink("sink_k2"), &["heap:make_kept>malloc@35"]);
        // make_or_spare may store a node that is not fresh.
        let spare = &["heap:make_or_spare>malloc@43", "spare"];
        assert_set(a, "s1", a.sink("sink_s1"), spare);
        assert_set(a, "s2", a.sink("sink_s2"), spare);
        // The inner objects stay for the wrappers' own uses; the chain's inner call too.
        let heap = a.heap_objects();
        assert!(heap.contains("heap:make_node>malloc@11"), "{heap:?}");
        assert!(heap.contains("heap:make_node2>make_node@21"), "{heap:?}");
        assert!(!heap.contains("heap:main>make_kept@69"), "{heap:?}");
    });
}

#[test]
fn heap_objects_per_call_site_of_wrappers_over_out_allocators() {
    for_both("out_alloc_locals", &["out_alloc_locals.c"], |a| {
        // aligned_new returns what posix_memalign stored into its own local `p`: each call
        // is its own object, and the fields written through one stay out of the other.
        assert_set(a, "a", a.sink("sink_a"), &["heap:main>aligned_new@73"]);
        assert_set(a, "b", a.sink("sink_b"), &["heap:main>aligned_new@74"]);
        assert_set(a, "a->a", a.sink("sink_aa"), &["x"]);
        assert_set(a, "b->a", a.sink("sink_ba"), &["y"]);
        // The same through vasprintf in a variadic function.
        assert_set(a, "s1", a.sink("sink_s1"), &["heap:main>format@77"]);
        assert_set(a, "s2", a.sink("sink_s2"), &["heap:main>format@78"]);
        // An out-wrapper that stores such a block through `out`.
        assert_set(a, "c", a.sink("sink_c"), &["heap:main>new_pair@80"]);
        // `p` may also hold &spare: no wrapper, one object for both calls.
        let spare = &["heap:aligned_or_spare>posix_memalign@43", "spare"];
        assert_set(a, "d", a.sink("sink_d"), spare);
        assert_set(a, "e", a.sink("sink_e"), spare);
        // `&p` also goes to keep(), which may keep it: no wrapper.
        let kept = &["heap:aligned_kept>posix_memalign@54"];
        assert_set(a, "k1", a.sink("sink_k1"), kept);
        assert_set(a, "k2", a.sink("sink_k2"), kept);
        // The inner objects stay for the wrappers' own uses.
        let heap = a.heap_objects();
        assert!(heap.contains("heap:aligned_new>posix_memalign@16"), "{heap:?}");
        assert!(heap.contains("heap:format>vasprintf@26"), "{heap:?}");
    });
}

#[test]
fn arrays_of_structs_collapse_to_one_element() {
    for_both("struct_arrays", &["struct_arrays.c"], |a| {
        // `l++` steps through regs: each field keeps its own contents.
        assert_set(a, "l->name", a.sink("sink_name"), &[".str", ".str.1"]);
        assert_set(a, "l->func", a.sink("sink_func"), &["f1()", "f2()"]);
        // So does a variable index, whose stride is the element size.
        assert_set(a, "regs[argc].name", a.sink("sink_name_at"), &[".str", ".str.1"]);
        assert_set(a, "regs[argc].func", a.sink("sink_func_at"), &["f1()", "f2()"]);
        // Every element shares the cells of its fields: local[2].a = &z reaches local[3].a.
        assert_set(a, "local[3].a", a.sink("sink_a"), &["x", "z"]);
        assert_set(a, "local[1].b", a.sink("sink_b"), &["y"]);
        // A copy within one element keeps the fields; one of two elements goes to -1.
        assert_set(a, "copy.a", a.sink("sink_c"), &["x", "z"]);
        assert_set(a, "two[0].b", a.sink("sink_d"), &["x", "y", "z"]);
    });
}

#[test]
fn heap_objects_typed_by_use_and_variable_indices() {
    for_both("heap_types", &["heap_types.c"], |a| {
        // `malloc(n * sizeof *ps)` indexed only as `struct pair`: a collapsed array of
        // pairs, so `a` and `b` stay apart at any index (ps[k].a = &z reaches ps[k + 1].a).
        assert_set(a, "ps[k + 1].a", a.sink("sink_a"), &["x", "z"]);
        assert_set(a, "ps[k].b", a.sink("sink_b"), &["y"]);
        // The same for a wrapper's call, typed by its caller's uses.
        assert_set(a, "qs[k].b", a.sink("sink_c"), &["z"]);
        // Indexed as `struct pair` and as `struct other`: one cell with both stores.
        assert_set(a, "r1[0].b", a.sink("sink_d"), &["x", "z"]);
    });
}

#[test]
fn function_pointers_and_callbacks() {
    for_both("funcptr", &["funcptr.c"], |a| {
        assert_set(a, "get()", a.indirect_callees("main"), &["ret_x", "ret_y"]);
        assert_set(a, "r = get()", a.sink("sink_r"), &["x", "y"]);
        assert_set(
            a,
            "fn() in for_each",
            a.indirect_callees("for_each"),
            &["remember"],
        );
        assert_set(
            a,
            "out after the callback",
            a.sink("sink_seen"),
            &["x", "y"],
        );
        let reach = a.reachable();
        for f in ["main", "for_each", "remember", "ret_x", "ret_y"] {
            assert!(reach.contains(f), "{f} unreachable: {reach:?}");
        }
        assert!(!reach.contains("never_called"), "{reach:?}");
    });
}

#[test]
fn wrappers_behind_function_pointers() {
    for_both("wrappers_indirect", &["wrappers_indirect.c"], |a| {
        // cfg.alloc's only possible callee (by type) is std_alloc, a wrapper of malloc: the
        // indirect call allocates, so cfg_malloc is a wrapper and each call its own object.
        assert_set(
            a,
            "a = cfg_malloc()",
            a.sink("sink_a"),
            &["heap:main>cfg_malloc@37"],
        );
        assert_set(
            a,
            "b = cfg_malloc()",
            a.sink("sink_b"),
            &["heap:main>cfg_malloc@38"],
        );
        assert_set(a, "*a", a.sink("sink_a0"), &["x"]);
        assert_set(a, "*b", a.sink("sink_b0"), &["y"]);
        // getters[i] may be from_pool, which returns a static buffer: get is no wrapper,
        // and both its calls see the pool and the one object of its indirect call.
        for sink in ["sink_g1", "sink_g2"] {
            assert_set(a, sink, a.sink(sink), &["pool", "heap:get>*@26"]);
        }
    });
}

#[test]
fn indirect_calls_filtered_by_type() {
    for_both("calltypes", &["calltypes.c"], |a| {
        // Not `count`: no parameter, as `ret_x`, but it returns a `long` to a pointer call.
        assert_set(
            a,
            "indirect calls in main",
            a.indirect_callees("main"),
            &["ret_x", "take_ptr", "take_two"],
        );
        assert_set(a, "r = ()h()", a.sink("sink_r"), &["x"]);
        assert_set(a, "take_ptr's p", a.sink("sink_a"), &["y"]);
        assert_set(a, "take_ptr_long is never called", a.sink("sink_b"), &[]);
        assert_set(a, "take_two's q", a.sink("sink_c"), &["z"]);
    });
}

#[test]
fn linked_list() {
    for_both("list", &["list.c"], |a| {
        // push() publishes its node only through its return: a wrapper.
        assert_set(
            a,
            "nodes",
            a.sink("sink_node"),
            &["heap:main>push@19", "heap:main>push@20"],
        );
        assert_set(a, "n->data", a.sink("sink_data"), &["x", "y"]);
        assert_set(
            a,
            "main's callees",
            a.callees("main"),
            &["push", "sink_data", "sink_node"],
        );
    });
}

#[test]
fn memcpy_of_structs_holding_pointers() {
    for_both("memcpy", &["memcpy.c"], |a| {
        assert_set(a, "dst.a", a.sink("sink_a"), &["x"]);
        assert_set(a, "dst.b", a.sink("sink_b"), &["y"]);
        // Copied to offset 8 of b: the fields keep apart there too.
        assert_set(a, "b.inner.a", a.sink("sink_ia"), &["x"]);
        assert_set(a, "b.inner.b", a.sink("sink_ib"), &["y", "z"]);
        assert_set(a, "arr[2] after the shift", a.sink("sink_shift"), &["x"]);
        // low's copy lands at 0: exactly, so low[2] gets only what low[3] holds, nothing.
        // mid's lands at 8 > 0: at -1, which mid[0] reads too.
        assert_set(a, "low[2] after the copy to 0", a.sink("sink_down"), &["y"]);
        assert_set(a, "mid[0] after the copy to 8", a.sink("sink_down_inner"), &["x", "y"]);
    });
}

#[test]
fn varargs() {
    for_both("varargs", &["varargs.c"], |a| {
        assert_set(a, "va_arg", a.sink("sink_r"), &["x", "y"]);
        assert_set(a, "fixed parameter", a.sink("sink_fixed"), &["z"]);
        let objects = a.out("object");
        let pick = a.function("pick");
        assert!(objects.iter().any(|r| r[0] == pick && r[1] == "varargs"));
    });
}

#[test]
fn cpp_virtual_calls_and_exceptions() {
    for_both("virtual", &["virtual.cpp"], |a| {
        // b is a `new A` or a `new B`: Base's vtable, stored by Base's constructor, is
        // overwritten in both, so Base::get is not reached.
        assert_set(
            a,
            "b->get()",
            a.indirect_callees("_Z8call_getP4Base"),
            &["_ZN1A3getEv", "_ZN1B3getEv"],
        );
        assert_set(a, "b->get() result", a.sink("_Z8sink_gotPi"), &["x", "y"]);
        // catch (int *p) receives the thrown pointer.
        assert!(a.sink("_Z11sink_caughtPi").contains("y"));
        assert!(a.reachable().contains("_ZN1A3getEv"));
    });
}

#[test]
fn cpp_virtual_dispatch_by_allocated_type() {
    for_both("virtual_dispatch", &["virtual_dispatch.cpp"], |a| {
        // `new B` holds A's vtable only while A's constructor runs inside B's, which stores
        // B's over it: pb->f reaches B::f alone, so each f sees only its own call's argument.
        assert_set(a, "A::f's p", a.sink("_Z6sink_aPi"), &["i"]);
        assert_set(a, "B::f's p", a.sink("_Z6sink_bPi"), &["j"]);
        // P's constructor calls g on the Q under construction (P::g runs there, with &k):
        // its vtable store stays, and both g see both calls.
        assert_set(a, "P::g's p", a.sink("_Z7sink_pgPi"), &["k", "l"]);
        assert_set(a, "Q::g's p", a.sink("_Z7sink_qgPi"), &["k", "l"]);
    });
}

#[test]
fn declarations_link_to_definitions_across_modules() {
    for_both("link", &["link_lib.c", "link_app.c"], |a| {
        // link_app's `extern int *shared` is link_lib's global, initializer included.
        assert_set(a, "shared", a.sink("sink_shared"), &["stack:main:%z", "x"]);
        assert_set(a, "get_y()", a.sink("sink_get"), &["y"]);
        // link_lib's `hidden` is internal: app's call goes to an external function.
        assert_set(a, "hidden()", a.sink("sink_hidden"), &["hidden()"]);
        assert_set(
            a,
            "main's callees",
            a.callees("main"),
            &["get_y", "hidden", "sink_get", "sink_hidden", "sink_shared"],
        );
        assert!(a.reachable().contains("get_y"));
    });
}

#[test]
fn unmodelled_externals_get_an_external_object() {
    for_both("external_object", &["unsound/external_deep.c"], |a| {
        assert_set(
            a,
            "unwrap(&q)",
            a.sink("sink_r"),
            &["stack:main:%q", "unwrap()"],
        );
        let unwrap = a
            .facts
            .rows("function_name")
            .iter()
            .find(|r| r[1] == "unwrap")
            .unwrap()[0]
            .clone();
        assert!(
            a.out("object")
                .iter()
                .any(|r| r[0] == unwrap && r[1] == "external")
        );
    });
}

#[test]
fn library_static_storage_is_one_object_per_storage() {
    let sources = &["static_storage_lib.c", "static_storage.c"];
    for_both("static-storage", sources, |a| {
        // gmtime and localtime share glibc's struct tm; asctime and ctime one buffer.
        assert_set(a, "gmtime", a.sink("sink_gm"), &["<static>:tm"]);
        assert_set(a, "localtime", a.sink("sink_local"), &["<static>:tm"]);
        assert_set(a, "asctime", a.sink("sink_asc"), &["<static>:asctime"]);
        assert_set(a, "ctime", a.sink("sink_ctime"), &["<static>:asctime"]);
        // getenv's storage is one object, whichever module declares and calls it.
        assert_set(a, "getenv", a.sink("sink_env"), &["<static>:getenv"]);
        assert_set(a, "getenv in the other module", a.sink("sink_lib_env"), &["<static>:getenv"]);
        for storage in ["<static>:tm", "<static>:asctime", "<static>:getenv"] {
            assert!(a.out("object").iter().any(|r| r[0] == storage && r[1] == "external"));
        }
    });
}

#[test]
fn callbacks_from_the_c_library() {
    for_both("callbacks", &["callbacks.c"], |a| {
        // Each function passed to the library is called from the call that passes it.
        assert_set(
            a,
            "callbacks",
            a.callees("main"),
            &[
                "atexit", "bsearch", "bye", "cmp", "cmp_key", "on_usr1", "pthread_create",
                "pthread_join", "qsort", "raise", "signal", "sink_first", "sink_found",
                "sink_key", "sink_last", "sink_signal", "sink_thread", "worker",
            ],
        );
        // qsort's parameters point into the array: cmp reads both elements.
        assert_set(a, "last", a.sink("sink_last"), &["x", "y"]);
        // Sorting moves &x into items[0], which held &y.
        assert_set(a, "items[0] after qsort", a.sink("sink_first"), &["x", "y"]);
        // bsearch passes the key itself and elements of the array.
        assert_set(a, "*key", a.sink("sink_key"), &["w"]);
        assert_set(a, "*elem", a.sink("sink_found"), &["z"]);
        // The start routine's parameter is pthread_create's argument.
        assert_set(a, "arg", a.sink("sink_thread"), &["y"]);
        assert_set(a, "on_signal", a.sink("sink_signal"), &["w"]);
        for f in ["cmp", "cmp_key", "worker", "on_usr1", "bye"] {
            assert!(a.reachable().contains(f), "{f} is not reachable");
        }
    });
}

#[test]
fn a_function_reading_back_its_out_parameter_is_no_out_wrapper() {
    for_both("out_read_back", &["out_read_back.c"], |a| {
        // `*out` read back is ctx_new's own allocation, not main's call of ctx_new.
        let again = a.sink("sink_again");
        assert_eq!(again.len(), 1, "{again:?}");
        assert!(again.iter().all(|o| o.contains("ctx_new")), "{again:?}");
    });
}

#[test]
fn a_function_passing_its_out_parameter_on_is_no_out_wrapper() {
    for_both("out_passed_on", &["out_passed_on.c"], |a| {
        // set_p writes &y through `*out` into ctx_make's own block, which ctx_make reads
        // through `fresh`.
        assert_set(a, "fresh->p", a.sink("sink_fresh"), &["x", "y"]);
    });
}

#[test]
fn notifications_from_the_c_library() {
    for_both("library_notify", &["library_notify.c"], |a| {
        // A cookie stream's functions get the cookie.
        assert_set(a, "cookie", a.sink("sink_cookie"), &["x"]);
        // A SIGEV_THREAD notification gets what its `struct sigevent` holds: the value, and
        // the function itself; inside an `aiocb`, also the buffer.
        assert_set(a, "timer value", a.sink("sink_timer"), &["y", "on_timer()"]);
        assert_set(a, "aio value", a.sink("sink_aio"), &["z", "on_aio()", "main.text"]);
        // A SA_SIGINFO handler's `si_value`: what sigqueue sent, and what every
        // `struct sigevent` might send with a signal.
        assert_set(
            a,
            "si_value",
            a.sink("sink_signal"),
            &["w", "y", "on_timer()", "z", "on_aio()", "main.text"],
        );
        for f in ["cookie_write", "on_timer", "on_aio", "on_usr2"] {
            assert!(a.reachable().contains(f), "{f} is not reachable");
        }
    });
}

#[test]
fn pointers_the_c_library_keeps_between_calls() {
    for_both("library_storage", &["library_storage.c"], |a| {
        // What a thread returns, or passes to pthread_exit, is what pthread_join stores.
        assert_set(a, "joined", a.sink("sink_joined"), &["x", "y"]);
        assert_set(a, "exited", a.sink("sink_exited"), &["x", "y"]);
        // Thread-specific values come back from pthread_getspecific and reach the
        // key's destructor.
        assert_set(a, "pthread_getspecific", a.sink("sink_specific"), &["v", "z"]);
        assert_set(a, "destructed", a.sink("sink_destructed"), &["v", "z"]);
        // signal (or __sysv_signal, or sysv_signal) returns a handler set before, by any of
        // them or by sigaction; sigaction stores one into the old action.
        let handlers = ["on_hup()", "on_usr1()", "on_usr2()"];
        assert_set(a, "signal's previous handler", a.sink("sink_previous"), &handlers);
        assert_set(a, "old.sa_handler", a.sink("sink_old_action"), &handlers);
        // The tree's nodes hold its keys: the comparator, tfind's node and the walk see
        // them, and tdestroy passes them to free_key.
        let tree = "<static>:search tree";
        assert_set(a, "compared", a.sink("sink_compared"), &["a", "b", tree]);
        assert_set(a, "*tfind()", a.sink("sink_found"), &["a", "b", tree]);
        assert_set(a, "*node in walk", a.sink("sink_walked"), &["a", "b", tree]);
        assert_set(a, "destroyed", a.sink("sink_destroyed"), &["a", "b", tree]);
        // An hsearch entry found later holds the data entered (and, in the same one cell,
        // its key, the literal "w").
        let entry = [".str", "<static>:hash table", "w"];
        assert_set(a, "entry->data", a.sink("sink_entry"), &entry);
        assert_set(a, "thrd_create's argument", a.sink("sink_c11"), &["c11"]);
        let callbacks = [
            "returns_x", "exits_with_y", "sets_z", "destruct", "on_usr1", "on_usr2", "on_hup", "cmp",
            "walk", "free_key", "run_c11", "once", "visit",
        ];
        for f in callbacks {
            assert!(a.reachable().contains(f), "{f} is not reachable");
        }
        assert!(a.callees("main").contains("on_usr2"), "sigaction calls its handler");
    });
}

/// The library's own allocations of more than one block: one heap object per call, which
/// points into itself, so an element of the array (or the next node of the list) is that
/// object too; glob and wordexp put the array into a field of the caller's struct.
#[test]
fn library_allocations_point_into_themselves() {
    for_both("library_allocations", &["library_allocations.c"], |a| {
        let glob = ["heap:main>glob@27"];
        assert_set(a, "g.gl_pathv", a.sink("sink_pathv"), &glob);
        assert_set(a, "g.gl_pathv[0]", a.sink("sink_path"), &glob);
        assert_set(a, "w.we_wordv[1]", a.sink("sink_words"), &["heap:main>wordexp@33"]);
        assert_set(a, "list[0]", a.sink("sink_entry"), &["heap:main>scandir@38"]);
        assert_set(a, "at[0]", a.sink("sink_entry_at"), &["heap:main>scandirat@41"]);
        let symbols = ["heap:main>backtrace_symbols@45"];
        assert_set(a, "symbols[0]", a.sink("sink_symbol"), &symbols);
        let list = ["heap:main>getaddrinfo@49"];
        assert_set(a, "ai->ai_next", a.sink("sink_next"), &list);
        assert_set(a, "ai->ai_addr", a.sink("sink_address"), &list);
        assert_set(a, "ifs->ifa_name", a.sink("sink_interface"), &["heap:main>getifaddrs@55"]);
    });
}

#[test]
fn inbounds_offsets_beyond_an_object_point_nowhere_into_it() {
    for_both("inbounds", &["inbounds.c"], |a| {
        assert_set(a, "&q->d", a.sink_fields("sink_d_address"), &["big+24"]);
        assert_set(a, "q->d", a.sink("sink_d"), &["x"]);
        assert_set(a, "&q->b", a.sink_fields("sink_past"), &["big+8", "small+-1"]);
        assert_set(a, "r->d", a.sink("sink_anywhere_d"), &["w", "x"]);
    });
}

#[test]
fn std_thread_runs_its_callable() {
    for_both("std_thread", &["std_thread.cpp"], |a| {
        // The thread's code sees the lambda's capture of p, and with_arg its argument.
        // Not only its own: the two `unique_ptr<_State>` temporaries are filled by the one
        // constructor of that type, so each `_M_start_thread` call runs both `_M_run`s on
        // both state objects, and with_arg's argument, read at the offset the lambda state
        // keeps its capture (&p) at, also gets that; the function thread's state holds its
        // function and argument in one cell (stored through `_Head_base`'s constructor at an
        // unknown offset), hence with_arg itself.
        assert_set(a, "seen_by_lambda", a.sink("_Z11sink_lambdaPi"), &["x"]);
        let seen = ["_ZL8with_argPi()", "stack:main:%p", "y"];
        assert_set(a, "seen_by_function", a.sink("_Z13sink_functionPi"), &seen);
        assert!(a.reachable().contains("_ZL8with_argPi"), "with_arg is not reachable");
        let runs = a.reachable().iter().filter(|f| f.ends_with("6_M_runEv")).count();
        assert_eq!(runs, 2, "{:?}", a.reachable());
    });
}

#[test]
fn std_call_once_runs_its_callable() {
    for_both("call_once", &["call_once.cpp"], |a| {
        // pthread_once calls the function call_once left in `__once_call`, which runs the
        // lambda through `__once_callable`.
        let gthread_once = a.callees("_ZL14__gthread_oncePiPFvvE");
        assert!(gthread_once.iter().any(|f| f.ends_with("8__invokeEv")), "{gthread_once:?}");
        assert!(a.reachable().contains("_ZZ4mainENK3$_0clEv"), "{:?}", a.reachable());
    });
}

#[test]
fn library_string_constructors_land_in_the_programs_construct() {
    for_both("string_construct", &["string_construct.cpp"], |a| {
        let construct = "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE12_M_constructIPKcEEvT_S8_St20forward_iterator_tag";
        // substr, in the library, calls the program's _M_construct<const char*> on the
        // substring t; the program's own constructor calls it on s.
        assert!(a.callees("main").contains(construct), "{:?}", a.callees("main"));
        let this = a.pts_of(&a.var(construct, "this"));
        assert_set(a, "_M_construct's this", this, &["stack:main:%s", "stack:main:%t"]);
        // Its string members store into each string a pointer into that string (its local
        // buffer) or a fresh buffer, not a pointer into the other string.
        for (name, other) in [("s", "stack:main:%t"), ("t", "stack:main:%s")] {
            let string = a.stack_object("main", name);
            let held = a.field(&string, "0");
            assert!(held.contains(&format!("stack:main:%{name}")), "{name}: {held:?}");
            assert!(!held.contains(other), "{name}: {held:?}");
        }
    });
}

/// fixtures/pointsto/int_calls.c: unions that the ABI passes and returns as `i64`, `i128` and
/// `{ i64, i64 }`. The pointer in them reaches the loads on the other side of the call, at
/// its own offset. And addresses stored as integers: a constant expression, and widened and
/// or-ed into an `i128`.
#[test]
fn unions_passed_and_returned_as_integers() {
    for_both("int_calls", &["int_calls.c"], |a| {
        assert_set(a, "take(w): w.p", a.sink("sink_param"), &["a"]);
        assert_set(a, "pass(wrap(&a)).p", a.sink("sink_word"), &["a"]);
        assert_set(a, "both(&b, &c).s.p", a.sink("sink_low"), &["b"]);
        assert_set(a, "both(&b, &c).s.q", a.sink("sink_high"), &["c"]);
        assert_set(a, "two(&c, &d).first.p", a.sink("sink_first"), &["c"]);
        assert_set(a, "two(&c, &d).second.p", a.sink("sink_second"), &["d"]);
        assert_set(a, "k.n = (long)&d; k.p", a.sink("sink_constant"), &["d"]);
        assert_set(a, "z.n = (u128)&b | 1 << 64; z.p", a.sink("sink_widened"), &["b"]);
        assert_set(a, "h.n = &c << 64 | &a; h.s.p", a.sink("sink_shifted_low"), &["a"]);
        assert_set(a, "h.n = &c << 64 | &a; h.s.q", a.sink("sink_shifted_high"), &["c"]);
        assert_set(a, "t.n = both(&b, &c).n >> 64; t.p", a.sink("sink_upper"), &["c"]);
    });
}

// ---------------------------------------------------------------------------------------
// Unsound choices (docs/pointsto.md): each test asserts what the analysis misses.
// ---------------------------------------------------------------------------------------

#[test]
fn unsound_callbacks_from_external_code() {
    for_both("external_callback", &["unsound/external_callback.c"], |a| {
        assert!(!a.reachable().contains("parse_opt"));
        assert!(
            !a.sink("sink_last").contains("x"),
            "argp_parse's callbacks are now modelled"
        );
    });
}

#[test]
fn unsound_stores_by_external_code() {
    for_both("external_store", &["unsound/external_store.c"], |a| {
        // fill(&p) may store anything into p; p stays empty.
        assert_set(a, "p after fill(&p)", a.sink("sink_p"), &[]);
    });
}

#[test]
fn unsound_external_results_beyond_their_arguments() {
    for_both("external_deep", &["unsound/external_deep.c"], |a| {
        assert!(!a.sink("sink_r").contains("x"), "unwrap(&q) now reaches *q");
    });
}

#[test]
fn integers_that_never_become_pointers_expose_nothing() {
    for_both("int_exposure", &["int_exposure.c"], |a| {
        // a, b, c and d become integers that are subtracted, compared or used as an index:
        // a pointer made from an integer cannot reach them. e's integer is returned, f's
        // stored after arithmetic: both are exposed.
        assert_set(a, "from_int(to_int(&e))", a.sink("sink_back"), &["e", "f"]);
        assert_set(a, "from_int(tagged & ~1)", a.sink("sink_untagged"), &["e", "f"]);
        // An alignment check on fresh memory does not publish it: a wrapper, one heap
        // object per call.
        assert_set(a, "h1", a.sink("sink_h1"), &["heap:main>checked_alloc@64"]);
        assert_set(a, "h2", a.sink("sink_h2"), &["heap:main>checked_alloc@65"]);
        // `w.p = &g; (int *)w.i`: the integer was loaded from w, so the pointer is what w
        // holds, beside every exposed address.
        assert_set(a, "(int *)w.i", a.sink("sink_word"), &["e", "f", "g"]);
        // The eight strings day_name returns (at -O2 through a relative lookup table,
        // which tests/pointsto_dynamic.rs runs).
        assert_eq!(a.sink("sink_day").len(), 8, "{:?}", a.sink("sink_day"));
    });
}

#[test]
fn unsound_pointers_through_integers_in_memory() {
    for_both(
        "int_through_memory",
        &["unsound/int_through_memory.c"],
        |a| {
            assert!(!a.sink("sink_p").contains("x"), "u.s.p now sees u.i = &x << (63 + argc)");
        },
    );
}

#[test]
fn unsound_pointers_rebuilt_from_a_difference() {
    for_both("int_difference", &["unsound/int_difference.c"], |a| {
        assert_set(a, "rebuild(&y[0], &x[4] - &y[0])", a.sink("sink_p"), &["y"]);
    });
}

#[test]
fn unsound_code_read_as_data() {
    for_both("code_as_data", &["unsound/code_as_data.c"], |a| {
        assert_set(a, "&h->second", a.sink("sink_byte"), &[]);
    });
}

#[test]
fn unsound_steps_outside_an_object_and_back() {
    for_both("outside_and_back", &["unsound/outside_and_back.c"], |a| {
        assert_set(a, "p + 3 - 2", a.sink("sink_back"), &[]);
    });
}

#[test]
fn unsound_calls_through_incompatible_types() {
    for_both("incompatible_call", &["unsound/incompatible_call.c"], |a| {
        assert_set(a, "f(&x, 1)", a.indirect_callees("main"), &[]);
        assert!(
            !a.sink("sink_saved").contains("x"),
            "set(int *, long) is now reached"
        );
    });
}

#[test]
fn unsound_entry_point_parameters() {
    for_both("entry_params", &["unsound/entry_params.c"], |a| {
        assert_set(a, "argv[0]", a.sink("sink_arg"), &[]);
    });
}

/// The instances (contexts) of a function, and for heap objects labelled `label`, what
/// each of its context clones holds at `offset`.
impl Analysis {
    fn instances(&self, func: &str) -> usize {
        let f = self.function(func);
        self.out("reachable_context").iter().filter(|r| r[0] == f).count()
    }

    fn clones_hold(&self, label: &str, offset: &str) -> BTreeSet<BTreeSet<String>> {
        let mut by_clone: HashMap<(String, String), BTreeSet<String>> = HashMap::new();
        for r in self.out("cs_field_points_to").iter() {
            if self.label(&r[1]) == label && r[2] == offset {
                let held = by_clone.entry((r[0].clone(), r[1].clone())).or_default();
                held.insert(self.label(&r[4]));
            }
        }
        by_clone.into_values().collect()
    }
}

#[test]
fn contexts_separate_calls_and_clone_heap_objects() {
    let insensitive = "#define CONTEXT_DEPTH 0";
    let callsite1 = "#define CONTEXT_DEPTH 1";
    let callsite2 = "#define CONTEXT_DEPTH 2";
    let caller1 = "#define CONTEXT_DEPTH 1\n#define CONTEXT_CALLER 1";
    for mode in MODES {
        for (what, defines) in [
            ("insensitive", insensitive),
            ("1-callsite", callsite1),
            ("2-callsite", callsite2),
            ("1-caller", caller1),
        ] {
            let a = analyse_in(&format!("context-{what}"), &["context.c"], mode, defines);
            let both = &["a", "b"][..];
            let all = &["a", "b", "c", "d"][..];
            let (ids, deep, boxes): (&[&[&str]; 2], &[&[&str]; 2], &[&[&str]; 2]) = match what {
                // `id` is called twice from main: one call site each tells them apart; the
                // callers do not (both are main). `id2` calls `id` for both of its calls:
                // one call site merges them, two tell them apart.
                "1-callsite" => (&[&["a"], &["b"]], &[&["c", "d"], &["c", "d"]], &[&["a"], &["b"]]),
                "2-callsite" => (&[&["a"], &["b"]], &[&["c"], &["d"]], &[&["a"], &["b"]]),
                // Without contexts `id` returns everything any of its callers passed.
                "insensitive" => (&[all, all], &[all, all], &[both, both]),
                // [main] and [id2] are id's two instances.
                _ => (&[both, both], &[&["c", "d"], &["c", "d"]], &[both, both]),
            };
            let m = format!("{what} {mode:?}");
            assert_eq!(a.sink("sink_r1"), set(ids[0]), "r1 = id(&a), {m}");
            assert_eq!(a.sink("sink_r2"), set(ids[1]), "r2 = id(&b), {m}");
            assert_eq!(a.sink("sink_s1"), set(deep[0]), "s1 = id2(&c), {m}");
            assert_eq!(a.sink("sink_s2"), set(deep[1]), "s2 = id2(&d), {m}");
            // `make` is no wrapper (it keeps its box): with contexts its malloc is one heap
            // object per context of `make`, each holding its own call's argument.
            assert_eq!(a.sink("sink_b1"), set(boxes[0]), "b1->v, {m}");
            assert_eq!(a.sink("sink_b2"), set(boxes[1]), "b2->v, {m}");
            let (id_instances, clones): (usize, &[&[&str]]) = match what {
                "insensitive" => (0, &[]),
                // [call 1], [call 2], [the call in id2]
                "1-callsite" => (3, &[&["a"], &["b"]]),
                // and the call in id2 under each of id2's two calls
                "2-callsite" => (4, &[&["a"], &["b"]]),
                // [main], [id2]
                _ => (2, &[&["a", "b"]]),
            };
            assert_eq!(a.instances("id"), id_instances, "instances of id, {m}");
            let expected: BTreeSet<BTreeSet<String>> = clones.iter().map(|c| set(c)).collect();
            let heap = a.label(&a.out("object").iter().find(|r| r[1] == "heap").unwrap()[0]);
            assert_eq!(a.clones_hold(&heap, "0"), expected, "clones of {heap}, {m}");
        }
    }
}

#[test]
fn megamorphic_calls_run_their_callees_in_the_empty_context() {
    let callsite1 = "#define CONTEXT_DEPTH 1";
    let caller1 = "#define CONTEXT_DEPTH 1\n#define CONTEXT_CALLER 1";
    for mode in MODES {
        for (what, defines) in [("1-callsite", callsite1), ("1-caller", caller1)] {
            let a = analyse_in(&format!("megamorphic-{what}"), &["megamorphic.c"], mode, defines);
            let m = format!("{what} {mode:?}");
            // The two calls through the 33-function table (more candidates than the bound
            // of 32) share `pick10`'s instance in `[]`: each gets both calls' arguments.
            assert_eq!(a.sink("sink_table1"), set(&["c", "d"]), "table[argc](&c), {m}");
            assert_eq!(a.sink("sink_table2"), set(&["c", "d"]), "table[argc + 1](&d), {m}");
            // The direct calls keep their contexts: one per call site, one for both callers
            // in `main`; and so does the call through the two-function table in 1-callsite.
            let (direct, few, instances): (&[&[&str]; 2], &[&[&str]; 2], usize) = match what {
                "1-callsite" => (&[&["a"], &["b"]], &[&["a"], &["b"]], 3),
                _ => (&[&["a", "b"], &["a", "b"]], &[&["a", "b"], &["a", "b"]], 2),
            };
            assert_eq!(a.sink("sink_direct1"), set(direct[0]), "pick10(&a), {m}");
            assert_eq!(a.sink("sink_direct2"), set(direct[1]), "pick10(&b), {m}");
            assert_eq!(a.sink("sink_few1"), set(few[0]), "few[..](&a, 0), {m}");
            assert_eq!(a.sink("sink_few2"), set(few[1]), "few[..](&b, 0), {m}");
            // [call 1], [call 2] or [main]; and [] for both calls through the table.
            assert_eq!(a.instances("pick10"), instances, "instances of pick10, {m}");
            let f = a.function("pick10");
            assert!(
                a.out("reachable_context").iter().any(|r| r[0] == f && r[1] == "[]"),
                "pick10 in [], {m}"
            );
        }
    }
}

#[test]
fn stack_slots_are_read_flow_sensitively_outside_setjmp() {
    for_both("flow_slots", &["flow_slots.c"], |a| {
        // `p` holds &a, then &b, then &b or &c: each load sees the stores that reach it
        // (at -O0 through `p`'s slot; after mem2reg `p` is SSA).
        assert_set(a, "p after p = &a", a.sink("sink_first"), &["a"]);
        assert_set(a, "p after p = &b", a.sink("sink_second"), &["b"]);
        assert_set(a, "p after if (k) p = &c", a.sink("sink_joined"), &["b", "c"]);
        // longjmp returns to setjmp with `q = &d` stored on no path to the load.
        assert_set(a, "q after longjmp", a.sink("sink_after_jump"), &["a", "d"]);
    });
}
