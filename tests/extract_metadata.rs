//! Type metadata facts (the `metadata` group): TBAA access tags and type descriptors, and
//! debug-info types with their links from globals, functions and variables. Each tuple is
//! reasoned from `fixtures/c/metadata.c` (its header gives `struct node`'s layout) compiled
//! by clang-22, or from `fixtures/ll/tbaa.ll`.

mod common;

use common::*;
use std::collections::{BTreeMap, BTreeSet};

/// `fixtures/c/metadata.c` compiled with `flags` (value names kept), extracted.
fn fixture(name: &str, flags: &[&str]) -> Facts {
    let dir = scratch(name);
    let bc = dir.join("metadata.bc");
    let mut all = vec!["-fno-discard-value-names"];
    all.extend_from_slice(flags);
    compile(&repo().join("fixtures/c/metadata.c"), &bc, &all);
    let out = dir.join("facts");
    extract_ok(&[bc], &out, &["-q"]);
    Facts::open(&out)
}

/// The instructions of `func` with `opcode`, in order.
fn instrs(f: &Facts, func: &str, opcode: &str) -> Vec<String> {
    let of: BTreeSet<String> = f
        .rows("instr_function")
        .iter()
        .filter(|r| r[1] == format!("metadata:@{func}"))
        .map(|r| r[0].clone())
        .collect();
    let index: BTreeMap<String, i64> = f
        .rows("instr_index")
        .iter()
        .map(|r| (r[0].clone(), r[1].parse().unwrap()))
        .collect();
    let mut v: Vec<String> = f
        .rows("instr")
        .iter()
        .filter(|r| r[1] == opcode && of.contains(&r[0]))
        .map(|r| r[0].clone())
        .collect();
    v.sort_by_key(|i| index[i]);
    v
}

/// TBAA type nodes by name (unique in this module), checking the id spelling.
fn tbaa_names(f: &Facts) -> BTreeMap<String, String> {
    let mut by_name = BTreeMap::new();
    for r in f.rows("tbaa_type").iter() {
        let hex = r[0]
            .strip_prefix("metadata:!tbaa:")
            .expect("a TBAA node id");
        assert!(
            hex.len() == 16 && hex.bytes().all(|c| c.is_ascii_hexdigit()),
            "{}",
            r[0]
        );
        assert!(
            by_name.insert(r[1].clone(), r[0].clone()).is_none(),
            "two {}",
            r[1]
        );
    }
    by_name
}

#[test]
fn tbaa_tags_and_type_graph_at_o2() {
    let f = fixture("meta-o2", &["-O2"]);
    let t = tbaa_names(&f);
    let names: Vec<&str> = t.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "Simple C/C++ TBAA",
            "any pointer",
            "double",
            "inner",
            "int",
            "node",
            "omnipotent char",
            // Since clang 20, pointer TBAA: `struct node *` has a type of its own under
            // `any pointer`.
            "p1 _ZTS4node",
            "short"
        ]
    );
    let n = |s: &str| t[s].as_str();

    // Field loads and stores through `struct node *`: base node, access type, byte offset.
    let tag = |func: &str, opcode: &str, access: &str, offset: &str| {
        let i = instrs(&f, func, opcode);
        assert_eq!(i.len(), 1, "{opcode} in {func}: {i:?}");
        f.assert_has("instr_tbaa", &[&i[0], n("node"), n(access), offset]);
    };
    tag("node_key", "load", "int", "0");
    tag("node_weight", "load", "double", "8");
    tag("inner_i", "load", "int", "20"); // in (16) + in.i (4)
    tag("link_node", "store", "p1 _ZTS4node", "24");
    // `head.next = 0` stores to a constant byte-offset GEP of @head: the tag keeps the type.
    tag("use_local", "store", "p1 _ZTS4node", "24");
    // Through `const int *`: the access tag of a scalar, base and access both `int`.
    let loads = instrs(&f, "sum", "load");
    assert!(!loads.is_empty());
    for i in &loads {
        f.assert_has("instr_tbaa", &[i, n("int"), n("int"), "0"]);
    }
    assert!(f.rows("instr_tbaa_const").is_empty());

    // The type descriptors: struct members (an array member as its element type, the
    // bit-field as its storage unit's type), a scalar's parent, the root.
    let members = |node: &str| -> Vec<(String, String, String)> {
        let mut rows: Vec<(i64, String, String)> = f
            .rows("tbaa_member")
            .iter()
            .filter(|r| r[0] == t[node])
            .map(|r| (r[1].parse().unwrap(), r[2].clone(), r[3].clone()))
            .collect();
        rows.sort();
        let name = |id: &String| t.iter().find(|(_, v)| *v == id).unwrap().0.clone();
        rows.iter()
            .map(|(k, m, o)| (k.to_string(), name(m), o.clone()))
            .collect()
    };
    let s = |v: &[(&str, &str, &str)]| -> Vec<(String, String, String)> {
        v.iter()
            .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
            .collect()
    };
    assert_eq!(
        members("node"),
        s(&[
            ("0", "int", "0"),
            ("1", "double", "8"),
            ("2", "inner", "16"),
            ("3", "p1 _ZTS4node", "24"),
            ("4", "omnipotent char", "32"),
            ("5", "int", "36"),
        ])
    );
    assert_eq!(
        members("inner"),
        s(&[("0", "short", "0"), ("1", "int", "4")])
    );
    assert_eq!(members("int"), s(&[("0", "omnipotent char", "0")]));
    assert_eq!(members("p1 _ZTS4node"), s(&[("0", "any pointer", "0")]));
    assert_eq!(members("any pointer"), s(&[("0", "omnipotent char", "0")]));
    assert_eq!(
        members("omnipotent char"),
        s(&[("0", "Simple C/C++ TBAA", "0")])
    );
    assert!(members("Simple C/C++ TBAA").is_empty());
    assert_eq!(f.rows("tbaa_root").len(), 1);
    f.assert_has("tbaa_root", &[n("Simple C/C++ TBAA")]);

    // `*dst = *src` is a memcpy with !tbaa.struct: each scalar range of struct node.
    let calls = instrs(&f, "copy_node", "call");
    assert_eq!(calls.len(), 1);
    let mut ranges: Vec<Vec<String>> = f
        .rows("instr_tbaa_struct")
        .iter()
        .filter(|r| r[0] == calls[0])
        .map(|r| r[1..].to_vec())
        .collect();
    ranges.sort_by_key(|r| r[0].parse::<i64>().unwrap());
    let want: Vec<Vec<String>> = [
        ("0", "0", "4", "int"),
        ("1", "8", "8", "double"),
        ("2", "16", "2", "short"),
        ("3", "20", "4", "int"),
        ("4", "24", "8", "p1 _ZTS4node"),
        ("5", "32", "4", "omnipotent char"),
        ("6", "36", "1", "omnipotent char"),
    ]
    .iter()
    .map(|(k, o, sz, ty)| vec![k.to_string(), o.to_string(), sz.to_string(), t[*ty].clone()])
    .collect();
    assert_eq!(ranges, want);
}

#[test]
fn no_tbaa_at_o0_and_no_debug_types_without_g() {
    let f = fixture("meta-o0", &["-O0"]);
    for rel in [
        "instr_tbaa",
        "instr_tbaa_const",
        "instr_tbaa_struct",
        "tbaa_type",
        "tbaa_member",
        "tbaa_root",
        "di_type",
        "di_member",
        "global_var_di_type",
        "function_di_type",
        "variable_di_type",
    ] {
        assert!(f.rows(rel).is_empty(), "{rel} at -O0 without -g");
    }
    // -O0 -g: debug-info types, still no TBAA.
    let g = fixture("meta-o0g", &["-O0", "-g"]);
    assert!(g.rows("instr_tbaa").is_empty() && g.rows("tbaa_type").is_empty());
    assert!(!g.rows("di_type").is_empty());
}

/// The DI type node named `name` with `tag`, unique in the module.
fn di(f: &Facts, tag: &str, name: &str) -> String {
    let hits: Vec<String> = f
        .rows("di_type")
        .iter()
        .filter(|r| r[1] == tag && r[2] == name)
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(hits.len(), 1, "{tag} {name}: {hits:?}");
    hits[0].clone()
}

fn base(f: &Facts, node: &str) -> String {
    f.one("di_type_base", node, 1)
}

#[test]
fn debug_info_types_and_links_at_o0() {
    let f = fixture("meta-di", &["-O0", "-g"]);
    for r in f.rows("di_type").iter() {
        let hex = r[0].strip_prefix("metadata:!di:").expect("a DI node id");
        assert_eq!(hex.len(), 16, "{}", r[0]);
    }
    // Every node a fact names is described.
    let described: BTreeSet<String> = f.rows("di_type").iter().map(|r| r[0].clone()).collect();
    for (rel, cols) in [
        ("di_type_base", &[0, 1][..]),
        ("di_member", &[0, 3]),
        ("di_subroutine_elem", &[0, 2]),
        ("global_var_di_type", &[1]),
        ("function_di_type", &[1]),
        ("variable_di_type", &[3]),
    ] {
        for r in f.rows(rel).iter() {
            for &c in cols {
                assert!(described.contains(&r[c]), "{rel} names {}", r[c]);
            }
        }
    }

    let node = di(&f, "DW_TAG_structure_type", "node");
    let inner = di(&f, "DW_TAG_structure_type", "inner");
    let int = di(&f, "DW_TAG_base_type", "int");
    let double = di(&f, "DW_TAG_base_type", "double");
    let uint = di(&f, "DW_TAG_base_type", "unsigned int");
    let char_ = di(&f, "DW_TAG_base_type", "char");
    let typedef = di(&f, "DW_TAG_typedef", "node_t");
    f.assert_has("di_type_size", &[&node, "320"]);
    f.assert_has("di_type_size", &[&inner, "64"]);
    f.assert_has("di_type_size", &[&int, "32"]);
    assert!(f.lookup("di_type_size", &typedef, 1).is_empty());

    // `node_t head`: the global's type is the typedef, whose base is the struct.
    f.assert_has("global_var_di_type", &["metadata:@head", &typedef]);
    assert_eq!(base(&f, &typedef), node);

    // The members, offsets in bits; `next` points back to the struct.
    f.assert_has("di_member", &[&node, "0", "key", &int, "0"]);
    f.assert_has("di_member", &[&node, "1", "weight", &double, "64"]);
    f.assert_has("di_member", &[&node, "2", "in", &inner, "128"]);
    f.assert_has("di_member", &[&node, "5", "flags", &uint, "288"]);
    // `unsigned flags : 3` is the only bit-field.
    assert_eq!(
        f.rows("di_member_bitfield").as_slice(),
        [vec![node.clone(), "5".to_string(), "3".to_string()]]
    );
    f.assert_has("di_member", &[&inner, "1", "i", &int, "32"]);
    let member = |name: &str| -> Vec<String> {
        let rows = f.rows("di_member");
        rows.iter()
            .find(|r| r[0] == node && r[2] == name)
            .unwrap()
            .clone()
    };
    let next = member("next");
    assert_eq!(next[1..], ["3", "next", &next[3], "192"]);
    f.assert_has("di_type", &[&next[3], "DW_TAG_pointer_type", ""]);
    assert_eq!(base(&f, &next[3]), node);
    f.assert_has("di_type_size", &[&next[3], "64"]);
    let tag = member("tag");
    assert_eq!(tag[1..], ["4", "tag", &tag[3], "256"]);
    f.assert_has("di_type", &[&tag[3], "DW_TAG_array_type", ""]);
    assert_eq!(base(&f, &tag[3]), char_);
    f.assert_has("di_array_count", &[&tag[3], "0", "4"]);

    // `const int table[2][3]`: an array of const int, two dimensions.
    let table = f.one("global_var_di_type", "metadata:@table", 1);
    f.assert_has("di_type", &[&table, "DW_TAG_array_type", ""]);
    f.assert_has("di_type_size", &[&table, "192"]);
    f.assert_has("di_array_count", &[&table, "0", "2"]);
    f.assert_has("di_array_count", &[&table, "1", "3"]);
    let elem = base(&f, &table);
    f.assert_has("di_type", &[&elem, "DW_TAG_const_type", ""]);
    assert_eq!(base(&f, &elem), int);

    // `int node_key(const struct node *n)`: return int, parameter pointer to const node.
    let sig = f.one("function_di_type", "metadata:@node_key", 1);
    f.assert_has("di_type", &[&sig, "DW_TAG_subroutine_type", ""]);
    f.assert_has("di_subroutine_elem", &[&sig, "0", &int]);
    let param = f
        .rows("di_subroutine_elem")
        .iter()
        .find(|r| r[0] == sig && r[1] == "1")
        .unwrap()[2]
        .clone();
    f.assert_has("di_type", &[&param, "DW_TAG_pointer_type", ""]);
    let konst = base(&f, &param);
    f.assert_has("di_type", &[&konst, "DW_TAG_const_type", ""]);
    assert_eq!(base(&f, &konst), node);
    // `void link_node(struct node *, struct node *)`: no return element; both parameters
    // are the same pointer node (`next`'s type).
    let link = f.one("function_di_type", "metadata:@link_node", 1);
    let elems: Vec<Vec<String>> = f
        .rows("di_subroutine_elem")
        .iter()
        .filter(|r| r[0] == link)
        .map(|r| r[1..].to_vec())
        .collect();
    assert_eq!(
        elems,
        [
            vec!["1".to_string(), next[3].clone()],
            vec!["2".to_string(), next[3].clone()]
        ]
    );

    // Locals at -O0: llvm.dbg.declare describes the alloca, the variable's storage.
    f.assert_has(
        "variable_di_type",
        &["metadata:@node_key:%n.addr", "n", "address", &param],
    );
    f.assert_has(
        "variable_di_type",
        &["metadata:@use_local:%local", "local", "address", &node],
    );
    f.assert_has(
        "variable_di_type",
        &["metadata:@use_local:%r", "r", "address", &int],
    );
}

#[test]
fn debug_values_at_o2_and_tbaa_ids_do_not_depend_on_debug_info() {
    let g = fixture("meta-o2g", &["-O2", "-g"]);
    let plain = fixture("meta-o2-plain", &["-O2"]);
    // At -O2 the parameter itself holds the variable (llvm.dbg.value).
    let node = di(&g, "DW_TAG_structure_type", "node");
    let ty = g
        .rows("variable_di_type")
        .iter()
        .find(|r| r[0] == "metadata:@node_weight:%n")
        .expect("n in node_weight")
        .clone();
    assert_eq!(ty[1..3], ["n", "value"]);
    // `w` in weight_is_set is the parameter plus 8: its record has a DIExpression.
    let w = g.rows("variable_di_type").iter().find(|r| r[0] == "metadata:@weight_is_set:%n" && r[1] == "w").expect("w").clone();
    assert_eq!(w[2], "expression");
    let n = g.rows("variable_di_type").iter().find(|r| r[0] == "metadata:@weight_is_set:%n" && r[1] == "n").expect("n").clone();
    assert_eq!(n[2], "value");
    g.assert_has("di_type", &[&ty[3], "DW_TAG_pointer_type", ""]);
    let typedef = base(&g, &ty[3]);
    g.assert_has("di_type", &[&typedef, "DW_TAG_typedef", "node_t"]);
    assert_eq!(base(&g, &typedef), node);
    // TBAA ids are content hashes: debug info elsewhere in the module changes none of them.
    for rel in ["tbaa_type", "tbaa_member", "tbaa_root", "instr_tbaa"] {
        assert_eq!(g.rows(rel), plain.rows(rel), "{rel}");
    }
}

#[test]
fn constant_tags_atomics_and_old_scalar_tags() {
    let dir = scratch("meta-ll");
    let out = dir.join("facts");
    extract_ok(&[repo().join("fixtures/ll/tbaa.ll")], &out, &["-q"]);
    let f = Facts::open(&out);
    let t = |name: &str| -> String {
        let hits: Vec<String> = f
            .rows("tbaa_type")
            .iter()
            .filter(|r| r[1] == name)
            .map(|r| r[0].clone())
            .collect();
        assert_eq!(hits.len(), 1, "{name}");
        hits[0].clone()
    };
    let omnipotent = t("omnipotent char");
    f.assert_has(
        "instr_tbaa",
        &["tbaa:@read_const:%0:0", &t("long"), &t("long"), "0"],
    );
    assert_eq!(
        f.rows("instr_tbaa_const").as_slice(),
        [vec!["tbaa:@read_const:%0:0".to_string()]]
    );
    // Two type nodes are named `int`: `!{!"int", !1, i64 0}`, and `!{!"int", !1}`, which
    // LLVM's reader makes of the old scalar tag (`UpgradeTBAANode`: the tag becomes
    // `!{T, T, i64 0}` with T the old node). Both have `omnipotent char` as member 0.
    let ints: Vec<String> = f
        .rows("tbaa_type")
        .iter()
        .filter(|r| r[1] == "int")
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(ints.len(), 2);
    for i in &ints {
        f.assert_has("tbaa_member", &[i, "0", &omnipotent, "0"]);
    }
    let rmw = f.one("instr_tbaa", "tbaa:@rmw:%0:0", 1);
    let old = f.one("instr_tbaa", "tbaa:@old_scalar:%0:0", 1);
    assert!(ints.contains(&rmw) && ints.contains(&old) && rmw != old);
    f.assert_has("instr_tbaa", &["tbaa:@rmw:%0:0", &rmw, &rmw, "0"]);
    f.assert_has("instr_tbaa", &["tbaa:@old_scalar:%0:0", &old, &old, "0"]);
    assert_eq!(f.rows("instr_tbaa").len(), 3);
}

/// One module read in one context (`-j 1`) or in shards (`-j 2`, `-j 3`) gives the same
/// metadata bytes: node ids are content hashes, not positions in the module.
#[test]
fn metadata_facts_do_not_depend_on_jobs_or_shards() {
    let dir = scratch("meta-jobs");
    let mut code = String::from(
        "struct pair { long a; double b; struct pair *up; int arr[3]; };\n\
         struct other { char c; struct pair p; };\n",
    );
    for i in 0..70 {
        code.push_str(&format!(
            "long f{i}(struct pair *p, struct other *o, int k) {{\n\
               struct pair local = *p;\n\
               local.a += k + {i};\n\
               o->p.arr[{m}] = (int)local.a;\n\
               p->up = &o->p;\n\
               return local.a + (long)o->p.b + o->c;\n\
             }}\n",
            m = i % 3
        ));
    }
    let bc = compile_snippet(&dir, "many", &code, &["-O2", "-g"]);
    let dirs = same_bytes_for_jobs(&[bc], &dir.join("j"), &["1", "2", "3"]);
    let f = Facts::open(&dirs[0]);
    for rel in [
        "instr_tbaa",
        "tbaa_member",
        "di_member",
        "variable_di_type",
        "function_di_type",
    ] {
        assert!(!f.rows(rel).is_empty(), "{rel}");
    }
    assert_eq!(f.rows("function_di_type").len(), 70);
}

/// Debug-info ids are content hashes cut at some depth: types that differ only behind a
/// chain of unnamed nodes (pointers, qualifiers, subroutine types) still get distinct ids.
#[test]
fn types_that_differ_deep_behind_unnamed_nodes_have_distinct_ids() {
    let dir = scratch("meta-deep");
    let code = "struct a { int x; }; struct b { int x; };\n\
                void (*p1)(int **);\n\
                void (*p2)(char **);\n\
                void (*p3)(int ***);\n\
                void (*p4)(const int **);\n\
                void (*p5)(struct a **);\n\
                void (*p6)(struct b **);\n\
                void (**p7)(struct a **);\n\
                void (*p8)(int **, ...);\n";
    let bc = compile_snippet(&dir, "deep", code, &["-O0", "-g"]);
    let out = dir.join("facts");
    extract_ok(&[bc], &out, &["-q"]);
    let f = Facts::open(&out);
    let ids: BTreeSet<String> = (1..=8)
        .map(|i| f.one("global_var_di_type", &format!("deep:@p{i}"), 1))
        .collect();
    assert_eq!(ids.len(), 8, "{ids:?}");
}

/// C++ composites: their ODR identifier, which is also the name clang gives their TBAA type
/// node, and the namespaces and types they are declared in.
#[test]
fn cpp_composites_have_identifiers_and_scopes() {
    let dir = scratch("meta-cpp");
    let src = dir.join("scopes.cpp");
    std::fs::write(
        &src,
        "namespace geo { struct Point { int x; long y; };\n\
         template <class T> struct Cell { T v; struct Link { Cell *next; } link; }; }\n\
         namespace { struct Hidden { int h; }; }\n\
         struct Plain { int p; Hidden *hidden; };\n\
         long use(geo::Point *p, geo::Cell<int>::Link *l, Plain *q) {\n\
           return p->y + (long)l->next + q->hidden->h + q->p;\n\
         }\n",
    )
    .unwrap();
    let bc = dir.join("scopes.bc");
    compile(&src, &bc, &["-O2", "-g"]);
    let out = dir.join("facts");
    extract_ok(&[bc], &out, &["-q"]);
    let f = Facts::open(&out);
    let point = di(&f, "DW_TAG_structure_type", "Point");
    f.assert_has("di_type_identifier", &[&point, "_ZTSN3geo5PointE"]);
    f.assert_has("di_type_scope", &[&point, "geo"]);
    // the access `p->y` is tagged with the same name, which C++ spells `geo::Point`
    let tbaa_point: Vec<String> =
        f.rows("tbaa_type").iter().filter(|r| r[1] == "_ZTSN3geo5PointE").map(|r| r[0].clone()).collect();
    assert_eq!(tbaa_point.len(), 1);
    f.assert_has("tbaa_type_cxx", &[&tbaa_point[0], "geo::Point"]);
    // (the access `l->next`: a type nested in a specialization, as the demangler spells it;
    // `q->hidden->h`: a type in an anonymous namespace)
    let cxx: Vec<String> = f.rows("tbaa_type_cxx").iter().map(|r| r[1].clone()).collect();
    for name in ["geo::Cell<int>::Link", "(anonymous namespace)::Hidden", "Plain"] {
        assert!(cxx.iter().any(|c| c == name), "{name} in {cxx:?}");
    }
    // scalar type nodes (`long`, `any pointer`) are no mangled names
    assert_eq!(cxx.len(), 4, "{cxx:?}");
    let link = di(&f, "DW_TAG_structure_type", "Link");
    f.assert_has("di_type_identifier", &[&link, "_ZTSN3geo4CellIiE4LinkE"]);
    f.assert_has("di_type_scope", &[&link, "geo::Cell<int>"]);
    let hidden = di(&f, "DW_TAG_structure_type", "Hidden");
    f.assert_has("di_type_scope", &[&hidden, "(anonymous namespace)"]);
    // a type at file scope has an identifier and no scope; base types have neither
    let plain = di(&f, "DW_TAG_structure_type", "Plain");
    f.assert_has("di_type_identifier", &[&plain, "_ZTS5Plain"]);
    assert!(f.lookup("di_type_scope", &plain, 0).is_empty());
    let int = di(&f, "DW_TAG_base_type", "int");
    assert!(f.lookup("di_type_identifier", &int, 0).is_empty());
    // C has no identifiers and no scopes
    let c = fixture("meta-cpp-c", &["-O0", "-g"]);
    assert!(c.rows("di_type_identifier").is_empty() && c.rows("di_type_scope").is_empty());
    let c2 = fixture("meta-cpp-c2", &["-O2"]);
    assert!(!c2.rows("tbaa_type").is_empty() && c2.rows("tbaa_type_cxx").is_empty());
}
