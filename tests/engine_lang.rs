//! Library-level tests of the embedded Datalog engine: one per language
//! feature, plus classic programs. Expected tuples are worked out by hand.

use llfacts::engine::{Database, Program, Value};

mod common;

/// Evaluate `src` with the given input rows and return `rel` as tab-joined lines.
fn eval_with(src: &str, inputs: &[(&str, &[&[&str]])], rel: &str, jobs: usize) -> Vec<String> {
    let prog = Program::from_source("test.dl", src).unwrap_or_else(|e| panic!("{e:#}"));
    let mut db = Database::new(&prog);
    for (r, rows) in inputs {
        for row in *rows {
            db.insert(r, row).unwrap();
        }
    }
    db.run(jobs).unwrap_or_else(|e| panic!("{e:#}"));
    db.rows_as_strings(rel)
        .unwrap()
        .into_iter()
        .map(|r| r.join("\t"))
        .collect()
}

fn eval(src: &str, rel: &str) -> Vec<String> {
    eval_with(src, &[], rel, 2)
}

fn lines(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Run `src` through the binary (`llfacts run --engine builtin`) and return
/// `rel`'s output file.
fn run_binary(src: &str, rel: &str) -> String {
    let t = tempfile::tempdir().unwrap();
    common::write_file(t.path(), "p.dl", src);
    let o = common::run_in(
        &["run", "p.dl", "-D", "out", "--engine", "builtin"],
        t.path(),
    );
    assert!(o.status.success(), "{}", common::stderr_text(&o));
    common::read_file(t.path(), &format!("out/{rel}.csv"))
}

fn err(src: &str) -> String {
    match Program::from_source("bad.dl", src) {
        Ok(_) => panic!("expected an error for:\n{src}"),
        Err(e) => format!("{e:#}"),
    }
}

// ------------------------------------------------------------ language features

#[test]
fn comments_are_ignored() {
    let src = "// line comment\n.decl a(x: number) /* block\n comment */\na(1). // trailing\n/* a(2). */\n";
    assert_eq!(eval(src, "a"), lines(&["1"]));
}

#[test]
fn include_is_relative_to_the_including_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("lib")).unwrap();
    std::fs::write(
        dir.path().join("lib/decls.dl"),
        "#include \"more.dl\"\n.decl a(x: number)\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("lib/more.dl"),
        ".decl b(x: number)\nb(7).\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("main.dl"),
        "#include \"lib/decls.dl\"\na(x + 1) :- b(x).\n",
    )
    .unwrap();
    let prog = Program::from_file(dir.path().join("main.dl")).unwrap();
    let mut db = Database::new(&prog);
    db.run(1).unwrap();
    assert_eq!(db.rows("a").unwrap(), vec![vec![Value::Number(8)]]);
}

#[test]
fn subtypes_and_union_types() {
    let src = r#"
        .type Fn <: symbol
        .type Var <: symbol
        .type Name = Fn | Var
        .decl fn(f: Fn)
        .decl var(v: Var)
        .decl name(n: Name)
        fn("main"). var("x").
        name(f) :- fn(f).
        name(v) :- var(v).
    "#;
    assert_eq!(eval(src, "name"), lines(&["main", "x"]));
}

#[test]
fn negated_atom_of_another_subtype_only_needs_the_same_kind() {
    let src = r#"
        .type A <: symbol
        .type B <: symbol
        .decl a(x: A) .decl b(x: B) .decl r(x: A)
        a("p"). a("q"). b("q").
        r(x) :- a(x), !b(x).
        r(cat(x, "!")) :- a(x), x = "p".
    "#;
    // functor results fit any subtype of their base, like constants do
    assert_eq!(eval(src, "r"), lines(&["p", "p!"]));
}

#[test]
fn typed_attributes_of_all_primitive_types() {
    let src = r#"
        .decl r(s: symbol, n: number, u: unsigned, f: float)
        r("a", -3, 4000000000, 1.5).
    "#;
    assert_eq!(eval(src, "r"), lines(&["a\t-3\t4000000000\t1.5"]));
}

#[test]
fn facts_in_the_program_and_set_semantics() {
    let src = r#".decl r(x: symbol, y: number)
        r("a", 1). r("a", 1). r("b", 2)."#;
    assert_eq!(eval(src, "r"), lines(&["a\t1", "b\t2"]));
}

#[test]
fn join_of_several_body_atoms() {
    let src = r#"
        .decl p(x: number, y: number)
        .decl q(y: number, z: number)
        .decl s(z: number)
        .decl out(x: number, z: number)
        p(1, 2). p(1, 3). p(5, 6).
        q(2, 10). q(3, 11). q(6, 12).
        s(10). s(12).
        out(x, z) :- p(x, y), q(y, z), s(z).
    "#;
    assert_eq!(eval(src, "out"), lines(&["1\t10", "5\t12"]));
}

#[test]
fn disjunction_in_body() {
    let src = r#"
        .decl a(x: number) .decl b(x: number) .decl c(x: number) .decl d(x: number)
        a(1). b(2). c(3). c(1).
        d(x) :- (a(x) ; b(x)), x < 10.
        d(x) :- c(x), (x = 3 ; x = 4).
    "#;
    assert_eq!(eval(src, "d"), lines(&["1", "2", "3"]));
}

#[test]
fn negation() {
    let src = r#"
        .decl a(x: number) .decl b(x: number, y: number) .decl c(x: number)
        a(1). a(2). a(3). b(2, 9).
        c(x) :- a(x), !b(x, _).
    "#;
    assert_eq!(eval(src, "c"), lines(&["1", "3"]));
}

#[test]
fn negation_of_any_body_term() {
    // Soufflé's De Morgan: !(x < y) is x >= y; !(A, B) is !A ; !B; !(A ; B) is
    // !A, !B; !!A is A
    let src = r#"
        .decl e(x: number, y: number)
        e(1, 2). e(2, 1). e(2, 3). e(3, 3). e(4, 9).
        .decl ge(x: number, y: number) .output ge
        ge(x, y) :- e(x, y), !(x < y).
        .decl lone(x: number, y: number) .output lone
        lone(x, y) :- e(x, y), !(e(y, x) ; y = 9).
        .decl not_both(x: number, y: number) .output not_both
        not_both(x, y) :- e(x, y), !(e(y, _), x < y).
        .decl twice(x: number) .output twice
        twice(x) :- e(x, _), !!e(_, x).
    "#;
    assert_eq!(run_binary(src, "ge"), "2\t1\n3\t3\n");
    assert_eq!(run_binary(src, "lone"), "2\t3\n");
    // (1,2): 2 has edges, 1 < 2: excluded; (2,3): 3 has an edge, 2 < 3: excluded
    assert_eq!(run_binary(src, "not_both"), "2\t1\n3\t3\n4\t9\n");
    assert_eq!(run_binary(src, "twice"), "1\n2\n3\n");
    // a negated atom of `_` only holds when the relation is empty
    let src = r#"
        .decl e(x: number, y: number) .decl g(x: number, y: number) eqrel
        .decl none(x: number, y: number) .decl n(x: number)
        e(1, 2). g(1, 2). n(7).
        .decl r(x: number) .output r
        r(1) :- n(_), !e(_, _).
        r(2) :- n(_), !g(_, _).
        r(x) :- n(x), !none(_, _).
    "#;
    assert_eq!(run_binary(src, "r"), "7\n");
}

#[test]
fn underscore_matches_anything() {
    let src = r#"
        .decl e(x: number, y: number) .decl src(x: number)
        e(1, 2). e(1, 3). e(4, 5).
        src(x) :- e(x, _).
    "#;
    assert_eq!(eval(src, "src"), lines(&["1", "4"]));
}

#[test]
fn number_comparisons() {
    let src = r#"
        .decl n(x: number) .decl lt(x: number) .decl le(x: number) .decl gt(x: number) .decl ge(x: number) .decl ne(x: number) .decl eq(x: number)
        n(-2). n(0). n(3).
        lt(x) :- n(x), x < 0.   le(x) :- n(x), x <= 0.
        gt(x) :- n(x), x > 0.   ge(x) :- n(x), x >= 0.
        ne(x) :- n(x), x != 0.  eq(x) :- n(x), x = 0.
    "#;
    assert_eq!(eval(src, "lt"), lines(&["-2"]));
    assert_eq!(eval(src, "le"), lines(&["-2", "0"]));
    assert_eq!(eval(src, "gt"), lines(&["3"]));
    assert_eq!(eval(src, "ge"), lines(&["0", "3"]));
    assert_eq!(eval(src, "ne"), lines(&["-2", "3"]));
    assert_eq!(eval(src, "eq"), lines(&["0"]));
}

#[test]
fn symbol_comparisons_are_lexicographic() {
    let src = r#"
        .decl s(x: symbol) .decl before(x: symbol, y: symbol) .decl not_a(x: symbol)
        s("b"). s("a"). s("ab").
        before(x, y) :- s(x), s(y), x < y.
        not_a(x) :- s(x), x != "a".
    "#;
    // "a" < "ab" < "b"
    assert_eq!(eval(src, "before"), lines(&["a\tab", "a\tb", "ab\tb"]));
    assert_eq!(eval(src, "not_a"), lines(&["ab", "b"]));
}

#[test]
fn arithmetic_with_32_bit_wraparound() {
    let src = r#"
        .decl r(name: symbol, v: number)
        r("add", 2 + 3). r("sub", 2 - 5). r("mul", 6 * 7). r("div", -7 / 2). r("mod", -7 % 3).
        r("pow", 2 ^ 10). r("prec", 2 + 3 * 4). r("neg", -2 ^ 2).
        r("wrap", 2147483647 + 1). r("mulwrap", 65536 * 65536).
    "#;
    // C semantics: -7/2 = -3, -7%3 = -1; `-` binds looser than `^`: -(2^2) = -4.
    assert_eq!(
        eval(src, "r"),
        lines(&[
            "add\t5",
            "div\t-3",
            "mod\t-1",
            "mul\t42",
            "mulwrap\t0",
            "neg\t-4",
            "pow\t1024",
            "prec\t14",
            "sub\t-3",
            "wrap\t-2147483648"
        ])
    );
}

#[test]
fn bitwise_operators() {
    let src = r#"
        .decl r(name: symbol, v: number)
        r("band", 12 band 10). r("bor", 12 bor 10). r("bxor", 12 bxor 10).
        r("bshl", 1 bshl 4). r("bshr", -16 bshr 2). r("bnot", bnot 0). r("hex", 0xff). r("bin", 0b101).
    "#;
    assert_eq!(
        eval(src, "r"),
        lines(&[
            "band\t8", "bin\t5", "bnot\t-1", "bor\t14", "bshl\t16", "bshr\t-4", "bxor\t6",
            "hex\t255"
        ])
    );
}

#[test]
fn logical_operators() {
    let src = r#"
        .decl r(name: symbol, v: number)
        r("land", 3 land 0). r("lor", 0 lor 5). r("lnot", lnot 0). r("lnot2", lnot 7).
    "#;
    assert_eq!(
        eval(src, "r"),
        lines(&["land\t0", "lnot\t1", "lnot2\t0", "lor\t1"])
    );
}

#[test]
fn unsigned_and_float_arithmetic() {
    let src = r#"
        .decl u(v: unsigned) .decl f(v: float)
        u(0u - 1u). u(7u / 2u).
        f(1.5 * 2.0). f(1.0 / 4.0).
    "#;
    assert_eq!(eval(src, "u"), lines(&["3", "4294967295"]));
    assert_eq!(eval(src, "f"), lines(&["0.25", "3"]));
}

#[test]
fn string_functors() {
    let src = r#"
        .decl r(name: symbol, v: symbol)
        .decl n(name: symbol, v: number)
        r("cat", cat("ab", "cd", "e")).
        r("substr", substr("hello", 1, 3)).
        r("substr_clip", substr("hello", 3, 100)).
        r("to_string", to_string(-42)).
        n("strlen", strlen("hello")).
        n("to_number", to_number("-17")).
        n("to_number_hex", to_number("0x10")).
    "#;
    assert_eq!(
        eval(src, "r"),
        lines(&[
            "cat\tabcde",
            "substr\tell",
            "substr_clip\tlo",
            "to_string\t-42"
        ])
    );
    assert_eq!(
        eval(src, "n"),
        lines(&["strlen\t5", "to_number\t-17", "to_number_hex\t16"])
    );
}

#[test]
fn plus_concatenates_symbols() {
    let src = r#"
.decl n(x: symbol, y: symbol)
n("a", "b"). n("c", "d").
.decl s(x: symbol) .output s
s(x + "-" + y) :- n(x, y).
s(z) :- n(x, _), z = x + x.
"#;
    assert_eq!(run_binary(src, "s"), "a-b\naa\nc-d\ncc\n");
}

#[test]
fn to_number_follows_stoi() {
    let src = r#"
        .decl n(name: symbol, v: number)
        n("ws", to_number("  12")). n("plus", to_number("+5")). n("prefix", to_number("12abc")). n("bin", to_number("0b101")).
    "#;
    // Soufflé parses like C's stoi: leading blanks and sign, longest digit prefix.
    assert_eq!(
        eval(src, "n"),
        lines(&["bin\t5", "plus\t5", "prefix\t12", "ws\t12"])
    );
}

#[test]
fn to_unsigned_and_to_float_read_the_longest_prefix() {
    let src = r#"
        .decl u(name: symbol, v: unsigned) .decl f(name: symbol, v: float) .decl n(v: number)
        u("a", to_unsigned("12abc")). u("b", to_unsigned(" +7")). u("c", to_unsigned("0x1g")). u("d", to_unsigned("0x")).
        f("a", to_float("1.5abc")). f("b", to_float(" -.5e1x")). f("c", to_float("0x1.8p1")). f("d", to_float("1e")).
        n(to_number("0x")).
    "#;
    // As C's stoul/stof (and strtol for "0x", which reads the "0"): trailing text is
    // ignored; "1e" has no exponent digits, so only "1" is read; 0x1.8p1 = 1.5 * 2.
    assert_eq!(eval(src, "u"), lines(&["a\t12", "b\t7", "c\t1", "d\t0"]));
    assert_eq!(eval(src, "f"), lines(&["a\t1.5", "b\t-5", "c\t3", "d\t1"]));
    assert_eq!(eval(src, "n"), lines(&["0"]));
    for bad in [
        "to_float(\"1e40\")",
        "to_float(\"1e-40\")",
        "to_float(\".\")",
        "to_unsigned(\"-1\")",
        "to_unsigned(\"0b\")",
    ] {
        let ty = if bad.starts_with("to_float") {
            "float"
        } else {
            "unsigned"
        };
        let prog = Program::from_source("d.dl", &format!(".decl b(x: {ty})\nb({bad}).\n")).unwrap();
        let mut db = Database::new(&prog);
        let e = format!("{:#}", db.run(1).unwrap_err());
        assert!(
            e.contains("d.dl:2:1") && e.contains("wrong string"),
            "{bad}: {e}"
        );
    }
}

#[test]
fn nullary_relations() {
    let src = r#"
        .decl a(x: number) .decl has_big() .decl has_neg() .decl r(x: number)
        a(1). a(50).
        has_big() :- a(x), x > 10.
        has_neg() :- a(x), x < 0.
        r(x) :- a(x), has_big(), !has_neg().
    "#;
    assert_eq!(eval(src, "has_big"), lines(&[""]));
    assert!(eval(src, "has_neg").is_empty());
    assert_eq!(eval(src, "r"), lines(&["1", "50"]));
}

#[test]
fn contains_and_match() {
    let src = r#"
        .decl s(x: symbol) .decl c(x: symbol) .decl m(x: symbol) .decl nm(x: symbol)
        s("llvm.memcpy.p0"). s("main"). s("llvm.dbg.value").
        c(x) :- s(x), contains("dbg", x).
        m(x) :- s(x), match("llvm\\.mem.*", x).
        nm(x) :- s(x), !match("llvm.*", x).
    "#;
    assert_eq!(eval(src, "c"), lines(&["llvm.dbg.value"]));
    // match is a full match: "llvm\.mem.*" matches only the memcpy name
    assert_eq!(eval(src, "m"), lines(&["llvm.memcpy.p0"]));
    assert_eq!(eval(src, "nm"), lines(&["main"]));
}

#[test]
fn match_works_on_bytes_like_std_regex() {
    let src = r#"
        .decl s(x: symbol) .decl r(name: symbol, x: symbol)
        s("z"). s("é"). s("ab"). s("a٣"). s("éé").
        r("dot", x) :- s(x), match(".", x).
        r("dotdot", x) :- s(x), match("..", x).
        r("word", x) :- s(x), match("a\\w", x).
        r("lit", x) :- s(x), match("é+", x).
        r("class", x) :- s(x), match("[é]+", x).
    "#;
    // Soufflé's std::regex sees bytes: "é" is two of them, so `.` does not match it
    // but `..` does; `\w` is ASCII-only (not the Arabic-Indic digit); in `é+` the `+`
    // repeats only the last byte; `[é]` is the class of both bytes.
    assert_eq!(
        eval(src, "r"),
        lines(&[
            "class\té",
            "class\téé",
            "dot\tz",
            "dotdot\tab",
            "dotdot\té",
            "lit\té",
            "word\tab"
        ])
    );
}

#[test]
fn to_string_of_a_float_has_six_decimals() {
    let src = r#"
        .decl r(name: symbol, v: symbol)
        r("a", to_string(0.1)). r("b", to_string(-2.5)). r("c", to_string(1.0 / 3.0)).
        r("d", to_string(16777216.0)). r("e", to_string(42)).
    "#;
    // std::to_string(float) is printf("%f"): six decimals; integers are unchanged.
    assert_eq!(
        eval(src, "r"),
        lines(&[
            "a\t0.100000",
            "b\t-2.500000",
            "c\t0.333333",
            "d\t16777216.000000",
            "e\t42"
        ])
    );
}

#[test]
fn ord_of_numbers_is_the_value_and_distinguishes_symbols() {
    let src = r#"
        .decl n(v: number) .decl s(x: symbol) .decl same(x: symbol, y: symbol)
        n(ord(41) + 1).
        s("p"). s("q").
        same(x, y) :- s(x), s(y), ord(x) = ord(y).
    "#;
    assert_eq!(eval(src, "n"), lines(&["42"]));
    assert_eq!(eval(src, "same"), lines(&["p\tp", "q\tq"]));
}

#[test]
fn string_escapes() {
    let src = r#"
        .decl s(x: symbol) .decl len(n: number)
        s("a\"b\\c").
        len(strlen(x)) :- s(x).
    "#;
    assert_eq!(eval(src, "s"), lines(&["a\"b\\c"]));
    assert_eq!(eval(src, "len"), lines(&["5"]));
}

#[test]
fn multiple_heads() {
    let src = r#"
        .decl a(x: number) .decl b(x: number) .decl c(x: number)
        a(1). a(2).
        b(x), c(x + 10) :- a(x).
    "#;
    assert_eq!(eval(src, "b"), lines(&["1", "2"]));
    assert_eq!(eval(src, "c"), lines(&["11", "12"]));
}

#[test]
fn equality_binds_a_variable() {
    let src = r#"
        .decl a(x: number) .decl b(x: number, y: number)
        a(3).
        b(x, y) :- a(x), y = x * 2.
    "#;
    assert_eq!(eval(src, "b"), lines(&["3\t6"]));
}

#[test]
fn aggregates_count_sum_min_max() {
    let src = r#"
        .decl v(x: number)
        .decl r(name: symbol, n: number)
        v(3). v(-1). v(10).
        r("count", n) :- n = count : { v(_) }.
        r("sum", n) :- n = sum x : { v(x) }.
        r("min", n) :- n = min x : v(x).
        r("max", n) :- n = max x : { v(x) }.
    "#;
    assert_eq!(
        eval(src, "r"),
        lines(&["count\t3", "max\t10", "min\t-1", "sum\t12"])
    );
}

#[test]
fn aggregates_over_empty_sets() {
    let src = r#"
        .decl v(x: number)
        .decl r(name: symbol, n: number)
        r("count", n) :- n = count : { v(_) }.
        r("sum", n) :- n = sum x : { v(x) }.
        r("min", n) :- n = min x : { v(x) }.
        r("max", n) :- n = max x : { v(x) }.
    "#;
    // count and sum of nothing are 0; min and max have no value, so no tuple.
    assert_eq!(eval(src, "r"), lines(&["count\t0", "sum\t0"]));
}

#[test]
fn aggregate_over_a_single_atom_counts_tuples() {
    let src = r#"
        .decl e(x: number, y: number) .decl r(n: number, s: number)
        e(1, 5). e(2, 5). e(3, 6).
        r(n, s) :- n = count : { e(_, 5) }, s = sum y : { e(_, y) }.
    "#;
    // two tuples have y = 5; the sum runs over the three tuples: 5 + 5 + 6.
    assert_eq!(eval(src, "r"), lines(&["2\t16"]));
}

#[test]
fn aggregate_over_one_atom_with_a_repeated_variable_counts_bindings() {
    // one atom with a repeated variable, a nested aggregate or `range`: over
    // the distinct bindings of the named local variables, not over tuples
    let src = r#"
.decl e(x: number, y: number, z: number)
e(1, 1, 5). e(1, 1, 6). e(1, 2, 7). e(2, 2, 8).
.decl n(x: number)
n(1). n(2).
.decl loops(k: number) .output loops
loops(k) :- k = count : { e(y, y, _) }.
.decl self(x: number, k: number) .output self
self(x, k) :- n(x), k = count : { e(x, x, _) }.
.decl tuples(k: number) .output tuples
tuples(k) :- k = count : { e(y, _, _) }.
"#;
    // y = 1 (twice) and y = 2: two bindings; x = 1 and x = 2 bind nothing local
    assert_eq!(run_binary(src, "loops"), "2\n");
    assert_eq!(run_binary(src, "self"), "1\t1\n2\t1\n");
    assert_eq!(run_binary(src, "tuples"), "4\n");
}

#[test]
fn dollar_is_the_deprecated_counter() {
    let t = tempfile::tempdir().unwrap();
    let src = ".decl e(x: symbol)\ne(\"a\"). e(\"b\").\n.decl c(x: symbol, k: number)\n\
               .output c\nc(x, $) :- e(x).\n";
    common::write_file(t.path(), "p.dl", src);
    let o = common::run_in(&["run", "p.dl", "-D", "-", "--engine", "builtin"], t.path());
    assert!(o.status.success(), "{}", common::stderr_text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    // two distinct numbers from 0, in this engine's order
    assert!(
        out.contains("a\t0\nb\t1\n") || out.contains("a\t1\nb\t0\n"),
        "{out}"
    );
    assert_eq!(
        common::stderr_text(&o),
        "Warning: Deprecated $ symbol was used. Use functor 'autoinc()' instead. \
         in file p.dl at line 5\nc(x, $) :- e(x).\n-----^-----------\n"
    );
}

#[test]
fn aggregate_scoping_and_bodies_as_soufflé_reads_them() {
    let src = r#"
.decl e(x: number, y: number)
e(1, 1). e(2, 5).
.decl f(x: number)
f(1). f(2). f(5).
// the target's z is the aggregate's own: every z of f, whatever e binds
.decl all(x: number, k: number) .output all
all(x, k) :- e(x, z), k = sum z : { f(z) }.
// a variable only in the body is a group key when the rule binds it
.decl same(x: number, k: number) .output same
same(x, k) :- e(x, z), k = count : { f(z) }.
// a variable the rule uses but does not ground is the aggregate's own too
.decl loose(k: number) .output loose
loose(a) :- a < 5, a = count : { e(_, a) }.
// a body without an atom holds once or not at all
.decl absent(k: number) .output absent
absent(k) :- k = count : { !f(3) }.
// a literal written twice is one literal (one atom: its tuples are counted)
.decl twice(k: number) .output twice
twice(k) :- k = count : { e(_, y), e(_, y) }.
"#;
    assert_eq!(run_binary(src, "all"), "1\t8\n2\t8\n");
    assert_eq!(run_binary(src, "same"), "1\t1\n2\t1\n");
    assert_eq!(run_binary(src, "loose"), "2\n");
    assert_eq!(run_binary(src, "absent"), "1\n");
    assert_eq!(run_binary(src, "twice"), "2\n");
    let e = err(
        ".decl e(x: number, y: number)\n.decl c(x: number, k: number)\n\
                 c(x, k) :- e(x, z), k = max z + x : { e(z, _) }.\n",
    );
    // the target's x is not the rule's x, and nothing binds it
    assert!(e.contains("Ungrounded variable"), "{e}");
}

#[test]
fn nested_aggregates() {
    let src = r#"
.decl e(x: number, y: number)
e(1, 2). e(1, 3). e(2, 3). e(3, 4). e(3, 5). e(3, 6).
.decl n(x: number)
n(x) :- e(x, _).
n(y) :- e(_, y).
// the most successors among x's successors
.decl widest(x: number, k: number) .output widest
widest(x, k) :- e(x, _), k = max c : { e(x, y), c = count : { e(y, _) } }.
// an aggregate as the target
.decl two_step(x: number, k: number) .output two_step
two_step(x, k) :- n(x), k = sum (count : { e(y, _) }) : { e(x, y) }.
// three levels; the innermost reads x of the outer clause and y of its parent
.decl deep(x: number, k: number) .output deep
deep(x, k) :- n(x), x < 3, k = count : { e(x, y), count : { e(y, z), z > x } > 1 }.
.decl top(k: number) .output top
top(k) :- k = max a : { n(x), a = sum b : { e(x, y), b = count : { e(y, _) } } }.
"#;
    assert_eq!(run_binary(src, "widest"), "1\t3\n2\t3\n3\t0\n");
    // 1: 1 + 3; 2: 3; 3: 0 + 0 + 0; sinks: 0
    assert_eq!(
        run_binary(src, "two_step"),
        "1\t4\n2\t3\n3\t0\n4\t0\n5\t0\n6\t0\n"
    );
    // x = 1: y = 3 has 4, 5, 6 above 1; x = 2: y = 3 has 4, 5, 6 above 2
    assert_eq!(run_binary(src, "deep"), "1\t1\n2\t1\n");
    assert_eq!(run_binary(src, "top"), "4\n");
    // recursion through a nested aggregate cannot be stratified
    let e = err(".decl e(x: number, y: number)\n.decl r(x: number)\nr(1).\n\
                 r(k) :- r(x), k = count : { e(x, y), count : { r(y) } > 0 }.\n");
    assert!(e.contains("Unable to stratify relation(s) {r}"), "{e}");
}

#[test]
fn record_patterns_in_an_aggregate_over_several_atoms() {
    // over the distinct bindings of the named variables (a pattern's record
    // is not one of them), as Soufflé's materialised body
    let src = r#"
.type P = [a: number, b: number]
.decl p(r: P)
p([1, 2]). p([2, 1]). p([3, 3]). p([4, 5]). p([4, 6]).
.decl n(x: number)
n(1). n(4).
.decl mutual(k: number) .output mutual
mutual(k) :- k = count : { p([x, y]), p([y, x]) }.
.decl firsts(k: number) .output firsts
firsts(k) :- k = sum x : { p([x, _]), n(x) }.
"#;
    // (1,2), (2,1), (3,3); x = 1 and x = 4 once each, though [4, _] twice
    assert_eq!(run_binary(src, "mutual"), "3\n");
    assert_eq!(run_binary(src, "firsts"), "5\n");
}

#[test]
fn aggregate_in_head_and_with_outer_group_variable() {
    let src = r#"
        .decl w(s: symbol) .decl c(s: symbol, x: number) .decl b(s: symbol, n: number)
        w("a"). w("b"). w("z").
        c("a", 1). c("a", 2). c("b", 7).
        b(s, count : { c(s, _) }) :- w(s).
    "#;
    assert_eq!(eval(src, "b"), lines(&["a\t2", "b\t1", "z\t0"]));
}

#[test]
fn hex_and_binary_constants() {
    let src = ".decl r(x: number)\nr(0x7fffffff). r(0b11). r(-0x10).\n";
    assert_eq!(eval(src, "r"), lines(&["-16", "3", "2147483647"]));
}

#[test]
fn empty_body_check_style_rule() {
    let src = r#"
        .decl s(x: symbol) .decl r(x: symbol)
        s("a"). s("b").
        r(x) :- s(x), x != "a".
    "#;
    assert_eq!(eval(src, "r"), lines(&["b"]));
}

#[test]
fn inputs_from_memory_with_typed_values() {
    let src = ".decl e(x: symbol, n: number, u: unsigned)\n.decl o(x: symbol, n: number)\no(x, n + 1) :- e(x, n, u), u > 1u.\n";
    let prog = Program::from_source("t.dl", src).unwrap();
    let mut db = Database::new(&prog);
    db.insert_values(
        "e",
        &[
            Value::Symbol("k".into()),
            Value::Number(41),
            Value::Unsigned(2),
        ],
    )
    .unwrap();
    db.insert_values(
        "e",
        &[
            Value::Symbol("j".into()),
            Value::Number(1),
            Value::Unsigned(1),
        ],
    )
    .unwrap();
    assert!(
        db.insert_values(
            "e",
            &[Value::Number(1), Value::Number(1), Value::Unsigned(1)]
        )
        .is_err()
    );
    assert!(db.insert("e", &["a", "notanumber", "1"]).is_err());
    db.run(1).unwrap();
    assert_eq!(
        db.rows("o").unwrap(),
        vec![vec![Value::Symbol("k".into()), Value::Number(42)]]
    );
    assert_eq!(db.len("o").unwrap(), 1);
}

#[test]
fn alias_type_and_as_cast() {
    let src = r#"
        .type Id = number
        .type Name <: symbol
        .decl a(x: Id) .decl n(s: Name) .decl src(s: symbol)
        a(1). src("k").
        a(x + 1) :- a(x), x < 3.
        n(as(s, Name)) :- src(s).
    "#;
    assert_eq!(eval(src, "a"), lines(&["1", "2", "3"]));
    assert_eq!(eval(src, "n"), lines(&["k"]));
}

#[test]
fn parenthesized_expressions_and_aggregate_targets() {
    let src = r#"
        .decl v(x: number) .decl r(name: symbol, n: number)
        v(1). v(2). v(3).
        r("paren", y) :- v(x), (x + 1) * 2 = y, y > 7.
        r("minpar", m) :- m = min (x * 10) : { v(x) }.
        r("sumexpr", s) :- s = sum x * x : v(x).
        r("functor", max(x, 2)) :- v(x).
    "#;
    // (3+1)*2 = 8 > 7; min of 10,20,30; 1+4+9; max(1,2)=2, max(2,2)=2, max(3,2)=3.
    assert_eq!(
        eval(src, "r"),
        lines(&[
            "functor\t2",
            "functor\t3",
            "minpar\t10",
            "paren\t8",
            "sumexpr\t14"
        ])
    );
}

#[test]
fn negated_contains() {
    let src = r#"
        .decl s(x: symbol) .decl r(x: symbol)
        s("foo.bar"). s("baz").
        r(x) :- s(x), !contains(".", x).
    "#;
    assert_eq!(eval(src, "r"), lines(&["baz"]));
}

#[test]
fn unsigned_and_float_inputs_from_text() {
    let src = ".decl u(x: unsigned, f: float)\n";
    assert_eq!(
        eval_with(
            src,
            &[("u", &[&["0x10", "2.5"], &["0b11", "-1"], &["7", "1e3"]])],
            "u",
            1
        ),
        lines(&["3\t-1", "7\t1000", "16\t2.5"])
    );
}

#[test]
fn error_negative_unsigned_operation() {
    let e = err(".decl u(x: unsigned)\nu(-1).\n");
    assert!(e.starts_with("bad.dl:2:3:"), "{e}");
}

// ------------------------------------------------------------ whole programs

const TC: &str = r#"
    .decl edge(x: number, y: number)
    .decl path(x: number, y: number)
    path(x, y) :- edge(x, y).
    path(x, z) :- path(x, y), edge(y, z).
"#;

#[test]
fn transitive_closure_of_a_cycle() {
    // 1 -> 2 -> 3 -> 1: every node reaches every node (9 pairs), plus 3 -> 4.
    let edges: &[&[&str]] = &[&["1", "2"], &["2", "3"], &["3", "1"], &["3", "4"]];
    let got = eval_with(TC, &[("edge", edges)], "path", 2);
    let mut want = Vec::new();
    for x in 1..=3 {
        for y in 1..=4 {
            want.push(format!("{x}\t{y}"));
        }
    }
    assert_eq!(got, want);
}

#[test]
fn transitive_closure_is_identical_for_any_thread_count() {
    // A chain of 150 nodes: 150*149/2 = 11175 paths, enough to split scans into several tasks.
    let rows: Vec<[String; 2]> = (0..149)
        .map(|i| [i.to_string(), (i + 1).to_string()])
        .collect();
    let refs: Vec<Vec<&str>> = rows
        .iter()
        .map(|r| vec![r[0].as_str(), r[1].as_str()])
        .collect();
    let slices: Vec<&[&str]> = refs.iter().map(|r| r.as_slice()).collect();
    let one = eval_with(TC, &[("edge", &slices)], "path", 1);
    let four = eval_with(TC, &[("edge", &slices)], "path", 4);
    assert_eq!(one.len(), 150 * 149 / 2);
    assert_eq!(one, four);
}

#[test]
fn same_generation() {
    let src = r#"
        .decl parent(c: symbol, p: symbol)
        .decl person(x: symbol)
        .decl sg(x: symbol, y: symbol)
        person(x) :- parent(x, _).
        person(x) :- parent(_, x).
        sg(x, x) :- person(x).
        sg(x, y) :- parent(x, px), sg(px, py), parent(y, py).
        parent("b", "a"). parent("c", "a"). parent("d", "b"). parent("e", "c").
    "#;
    let got: Vec<String> = eval(src, "sg")
        .into_iter()
        .filter(|l| {
            let (x, y) = l.split_once('\t').unwrap();
            x != y
        })
        .collect();
    // b,c are siblings (parent a); d,e are cousins (parents b and c).
    assert_eq!(got, lines(&["b\tc", "c\tb", "d\te", "e\td"]));
}

#[test]
fn stratified_negation_unreachable_nodes() {
    let src = r#"
        .decl node(x: number) .decl edge(x: number, y: number)
        .decl reach(x: number) .decl unreach(x: number)
        node(1). node(2). node(3). node(4). node(5).
        edge(1, 2). edge(2, 3). edge(4, 5).
        reach(1).
        reach(y) :- reach(x), edge(x, y).
        unreach(x) :- node(x), !reach(x).
    "#;
    assert_eq!(eval(src, "unreach"), lines(&["4", "5"]));
}

#[test]
fn aggregates_per_group() {
    let src = r#"
        .decl sale(shop: symbol, amount: number)
        .decl shop(s: symbol)
        .decl stats(s: symbol, n: number, total: number, lo: number, hi: number)
        sale("a", 10). sale("a", 5). sale("a", 7). sale("b", 3). shop("a"). shop("b"). shop("c").
        stats(s, n, t, lo, hi) :- shop(s),
            n = count : { sale(s, _) }, t = sum x : { sale(s, x) },
            lo = min x : { sale(s, x) }, hi = max x : { sale(s, x) }.
    "#;
    // shop c has no sales: min/max are undefined, so it has no row.
    assert_eq!(
        eval(src, "stats"),
        lines(&["a\t3\t22\t5\t10", "b\t1\t3\t3\t3"])
    );
}

#[test]
fn aggregate_over_several_atoms_counts_distinct_bindings() {
    let src = r#"
        .decl f(x: number) .decl g(x: number, y: number) .decl r(n: number)
        f(1). f(2). g(1, 10). g(1, 11). g(2, 10).
        r(n) :- n = count : { f(x), g(x, _) }.
    "#;
    // Distinct bindings of the named variable x: {1, 2}.
    assert_eq!(eval(src, "r"), lines(&["2"]));
}

#[test]
fn mutual_recursion() {
    let src = r#"
        .decl n(x: number) .decl even(x: number) .decl odd(x: number)
        n(0). n(1). n(2). n(3). n(4). n(5).
        even(0).
        odd(y) :- even(x), n(y), y = x + 1.
        even(y) :- odd(x), n(y), y = x + 1.
    "#;
    assert_eq!(eval(src, "even"), lines(&["0", "2", "4"]));
    assert_eq!(eval(src, "odd"), lines(&["1", "3", "5"]));
}

#[test]
fn recursion_with_two_recursive_atoms() {
    // path(x,z) :- path(x,y), path(y,z): needs both delta versions.
    let src = r#"
        .decl e(x: number, y: number) .decl p(x: number, y: number)
        e(1, 2). e(2, 3). e(3, 4). e(4, 5).
        p(x, y) :- e(x, y).
        p(x, z) :- p(x, y), p(y, z).
    "#;
    assert_eq!(eval(src, "p").len(), 10);
}

#[test]
fn recursive_atom_with_expression_argument() {
    // The delta atom p(x + 1, z) can only be read once x is bound by q.
    let src = r#"
        .decl q(x: number) .decl p(x: number, z: number)
        q(0). q(1). q(2).
        p(3, 100).
        p(y, z) :- q(x), p(x + 1, z), y = x.
    "#;
    assert_eq!(
        eval(src, "p"),
        lines(&["0\t100", "1\t100", "2\t100", "3\t100"])
    );
}

#[test]
fn rule_order_does_not_matter() {
    let a = "
        .decl e(x: number, y: number) .decl p(x: number, y: number) .decl q(x: number)
        e(1, 2). e(2, 3).
        p(x, y) :- e(x, y).
        p(x, z) :- p(x, y), e(y, z).
        q(x) :- p(x, _), !e(x, _).
    ";
    let b = "
        .decl q(x: number) .decl p(x: number, y: number) .decl e(x: number, y: number)
        q(x) :- p(x, _), !e(x, _).
        p(x, z) :- p(x, y), e(y, z).
        p(x, y) :- e(x, y).
        e(2, 3). e(1, 2).
    ";
    assert_eq!(eval(a, "p"), eval(b, "p"));
    assert_eq!(eval(a, "q"), eval(b, "q"));
    assert!(eval(a, "q").is_empty());
}

// ------------------------------------------------------------ rejected programs

#[test]
fn runtime_division_by_zero_is_an_error() {
    let prog = Program::from_source(
        "d.dl",
        ".decl a(x: number)\n.decl b(x: number)\na(0).\nb(10 / x) :- a(x).\n",
    )
    .unwrap();
    let mut db = Database::new(&prog);
    let e = format!("{:#}", db.run(1).unwrap_err());
    assert!(
        e.contains("d.dl:4:1") && e.contains("division by zero"),
        "{e}"
    );
}

#[test]
fn runtime_to_number_error() {
    let prog =
        Program::from_source("d.dl", ".decl b(x: number)\nb(to_number(\"abc\")).\n").unwrap();
    let mut db = Database::new(&prog);
    let e = format!("{:#}", db.run(1).unwrap_err());
    assert!(e.contains("d.dl:2:1") && e.contains("to_number"), "{e}");
}

#[test]
fn error_undeclared_relation() {
    let e = err(".decl a(x: number)\na(x) :- b(x).\n");
    assert!(e.starts_with("bad.dl:2:9: Undefined relation b"), "{e}");
}

#[test]
fn error_arity_mismatch() {
    let e = err(".decl a(x: number)\n.decl b(x: number, y: number)\na(x) :- b(x).\n");
    assert!(
        e.starts_with("bad.dl:3:9: Mismatching arity of relation b"),
        "{e}"
    );
}

#[test]
fn error_type_mismatch_between_columns() {
    let e = err(".decl a(x: number)\n.decl b(x: symbol)\na(x) :- b(x).\n");
    assert!(
        e.starts_with("bad.dl:3:1:") || e.starts_with("bad.dl:3:3:"),
        "{e}"
    );
    assert!(e.contains("Type mismatch"), "{e}");
}

#[test]
fn error_type_mismatch_in_constant() {
    let e = err(".decl a(x: number)\na(\"one\").\n");
    assert!(e.starts_with("bad.dl:2:3: Type mismatch"), "{e}");
}

#[test]
fn error_disjoint_subtypes() {
    let e =
        err(".type A <: symbol\n.type B <: symbol\n.decl a(x: A)\n.decl b(x: B)\na(x) :- b(x).\n");
    assert!(e.starts_with("bad.dl:5:3: Type mismatch"), "{e}");
}

#[test]
fn error_comparing_disjoint_subtypes() {
    let e = err(
        ".type A <: symbol\n.type B <: symbol\n.decl a(x: A)\n.decl b(x: B)\n.decl r(x: symbol)\nr(x) :- a(x), b(y), x = y.\n",
    );
    assert!(
        e.starts_with("bad.dl:6:21: Unable to deduce type for variable x"),
        "{e}"
    );
}

#[test]
fn error_negation_of_another_kind() {
    let e = err(".decl a(x: number)\n.decl b(x: symbol)\na(x) :- a(x), !b(x).\n");
    assert!(e.starts_with("bad.dl:3:18: Type mismatch"), "{e}");
}

#[test]
fn error_ungrounded_head_variable() {
    let e = err(".decl a(x: number)\n.decl b(x: number, y: number)\nb(x, y) :- a(x).\n");
    assert!(e.starts_with("bad.dl:3:6: Ungrounded variable y"), "{e}");
}

#[test]
fn error_ungrounded_variable_in_negation() {
    let e = err(".decl a(x: number)\n.decl c(x: number, y: number)\na(x) :- a(x), !c(x, y).\n");
    assert!(e.starts_with("bad.dl:3:21: Ungrounded variable y"), "{e}");
}

#[test]
fn error_ungrounded_variable_in_comparison() {
    let e = err(".decl a(x: number)\na(x) :- a(x), y > 3.\n");
    assert!(e.starts_with("bad.dl:2:15: Ungrounded variable y"), "{e}");
}

#[test]
fn error_negation_through_recursion() {
    let e = err(
        ".decl a(x: number)\n.decl b(x: number)\na(1).\nb(x) :- a(x), !a(x).\na(x) :- b(x), !b(x).\n",
    );
    // a and b form one SCC; the first negation inside it is `!a(x)` on line 4.
    assert!(
        e.starts_with("bad.dl:4:16: Unable to stratify relation(s) {a,b}"),
        "{e}"
    );
}

#[test]
fn error_aggregation_through_recursion() {
    let e = err(".decl a(x: number)\na(1).\na(n) :- n = count : { a(_) }.\n");
    assert!(
        e.starts_with("bad.dl:3:23: Unable to stratify relation(s) {a}"),
        "{e}"
    );
}

#[test]
fn error_unsupported_constructs() {
    for (src, at, what) in [
        (
            ".functor f(x: number): number\n",
            "bad.dl:1:1:",
            "unsupported directive `.functor`",
        ),
        (
            ".decl a(x: number) fancy\n",
            "bad.dl:1:20:",
            "unsupported relation qualifier `fancy`",
        ),
        (
            ".decl a(x: number)\na($).\n",
            "bad.dl:2:3:",
            "Argument in fact is not constant",
        ),
        (
            ".decl a(x: number)\na(x) :- a(y), x = mean y : a(y).\n",
            "bad.dl:2:19:",
            "`mean` needs a float target",
        ),
        (
            ".decl a(x: number)\na(f(1)).\n",
            "bad.dl:2:3:",
            "unknown functor `f`",
        ),
        (
            "#foo 3\n",
            "bad.dl:1:1:",
            "unsupported preprocessor directive `#foo`",
        ),
        (
            ".decl a(x: number)\n.output a(IO=sqlite)\n",
            "bad.dl:2:9:",
            "unsupported IO=sqlite",
        ),
    ] {
        let e = err(src);
        assert!(e.starts_with(at) && e.contains(what), "{src:?} -> {e}");
    }
}

#[test]
fn soufflé_keywords_are_not_names() {
    // Soufflé's scanner reserves them: `count` as an attribute is its syntax error
    for (src, at, word) in [
        (".decl a(count: number)\n", "bad.dl:1:9:", "`count`"),
        (".decl input(x: number)\n", "bad.dl:1:7:", "`input`"),
        (".type range <: number\n", "bad.dl:1:7:", "`range`"),
        (
            ".decl a(x: number)\n.decl b(x: number)\na(band) :- b(band).\n",
            "bad.dl:3:3:",
            "`band`",
        ),
    ] {
        let e = err(src);
        assert!(
            e.starts_with(at) && e.contains(&format!("{word} is a reserved word")),
            "{src:?} -> {e}"
        );
    }
}

#[test]
fn error_syntax_has_position() {
    let e = err(".decl a(x: number)\na(1) :- .\n");
    assert!(e.starts_with("bad.dl:2:9: syntax error"), "{e}");
}

#[test]
fn error_underscore_in_head() {
    let e = err(".decl a(x: number)\na(_).\n");
    assert!(e.starts_with("bad.dl:2:3: Underscore in head"), "{e}");
}

#[test]
fn error_number_constant_out_of_range() {
    let e = err(".decl a(x: number)\na(2147483648).\n");
    assert!(e.starts_with("bad.dl:2:3:") && e.contains("32-bit"), "{e}");
}

#[test]
fn large_relations_keep_set_semantics_through_table_growth() {
    // Enough rows to grow the row sets and index tables many times, with
    // duplicates, repeated keys and negation on a key with `_` columns.
    let src = r#"
        .decl e(x: number, y: number)
        .decl path(x: number, y: number)
        .decl deg(x: number, n: number)
        .decl sink(x: number)
        path(x, y) :- e(x, y).
        path(x, z) :- path(x, y), e(y, z).
        deg(x, n) :- e(x, _), n = count : { e(x, _) }.
        sink(y) :- e(_, y), !e(y, _).
    "#;
    let prog = Program::from_source("test.dl", src).unwrap();
    let mut db = Database::new(&prog);
    // 40 chains 0 -> 1 -> ... -> 99 (offset by 1000 per chain), each edge twice.
    for c in 0..40 {
        for i in 0..99 {
            for _ in 0..2 {
                let (a, b) = ((c * 1000 + i).to_string(), (c * 1000 + i + 1).to_string());
                db.insert("e", &[&a, &b]).unwrap();
            }
        }
    }
    db.run(2).unwrap();
    assert_eq!(db.len("e").unwrap(), 40 * 99);
    assert_eq!(db.len("path").unwrap(), 40 * (99 * 100 / 2));
    assert_eq!(db.len("deg").unwrap(), 40 * 99);
    assert!(
        db.rows("deg")
            .unwrap()
            .iter()
            .all(|r| r[1] == Value::Number(1))
    );
    let sinks: Vec<String> = (0..40).map(|c| (c * 1000 + 99).to_string()).collect();
    let mut got: Vec<String> = db
        .rows_as_strings("sink")
        .unwrap()
        .into_iter()
        .map(|r| r.join("\t"))
        .collect();
    got.sort();
    let mut want = sinks;
    want.sort();
    assert_eq!(got, want);
}

// ------------------------------------------------------------ includes served from memory

fn files(entries: &[(&str, &str)]) -> std::collections::BTreeMap<String, String> {
    entries
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn files_err(entry: &str, fs: &std::collections::BTreeMap<String, String>) -> String {
    match Program::from_files(entry, fs) {
        Ok(_) => panic!("expected an error for {entry}"),
        Err(e) => format!("{e:#}"),
    }
}

#[test]
fn from_files_resolves_includes_against_the_including_file() {
    let fs = files(&[
        (
            "rules/checks.dl",
            "#include \"../schema/llfacts.dl\"\n#include \"lib/models.dl\"\n.output c\nc(x) :- m(x), t(x).\n",
        ),
        (
            "rules/lib/models.dl",
            ".decl m(x: Id)\nm(1). m(2).\n.decl c(x: Id)\n",
        ),
        (
            "schema/llfacts.dl",
            "#include \"types.dl\"\n.decl t(x: Id)\nt(2). t(3).\n",
        ),
        ("schema/types.dl", ".type Id <: number\n"),
    ]);
    let prog = Program::from_files("rules/checks.dl", &fs).unwrap_or_else(|e| panic!("{e:#}"));
    let mut db = Database::new(&prog);
    db.run(1).unwrap();
    assert_eq!(db.rows("c").unwrap(), vec![vec![Value::Number(2)]]);
    // `./` and `dir/..` are normalized away, in the entry too
    let prog = Program::from_files("./rules/../rules/checks.dl", &fs).unwrap();
    assert_eq!(prog.relations(), vec!["t", "m", "c"]);
}

#[test]
fn from_files_names_files_by_their_keys_in_errors() {
    let fs = files(&[
        ("rules/a.dl", "#include \"../schema/s.dl\"\n"),
        ("schema/s.dl", ".decl t(x: number)\nt(\"x\").\n"),
    ]);
    assert_eq!(
        files_err("rules/a.dl", &fs),
        "schema/s.dl:2:3: Type mismatch: argument 1 of t has type symbol, but the attribute is declared number"
    );
}

#[test]
fn from_files_missing_include_is_one_line_naming_both_files() {
    let fs = files(&[(
        "rules/a.dl",
        ".decl t(x: number)\n#include \"../schema/none.dl\"\n",
    )]);
    assert_eq!(
        files_err("rules/a.dl", &fs),
        "rules/a.dl:2:1: cannot read included file schema/none.dl: not found"
    );
    // never falls back to the disk
    let fs = files(&[("a.dl", "#include \"Cargo.toml\"\n")]);
    assert_eq!(
        files_err("a.dl", &fs),
        "a.dl:1:1: cannot read included file Cargo.toml: not found"
    );
    assert_eq!(
        files_err("b.dl", &fs),
        "cannot read program b.dl: not found"
    );
}

#[test]
fn from_files_rejects_recursive_includes() {
    let fs = files(&[
        ("a.dl", "#include \"lib/b.dl\"\n"),
        ("lib/b.dl", "#include \"../a.dl\"\n"),
    ]);
    assert_eq!(
        files_err("a.dl", &fs),
        "lib/b.dl:1:1: recursive #include of a.dl"
    );
}

// ------------------------------------------------------------ regressions

#[test]
fn float_equality_compares_values_not_bits() {
    // -0.0 = 0.0 holds, as in Soufflé: the equality filters A's tuples rather
    // than looking up the bit pattern of -0.0
    let src = ".decl A(x: float)\nA(0.0).\nA(x+1) :- A(x), x = -0.0.\n";
    assert_eq!(eval(src, "A"), lines(&["0", "1"]));
    let src = ".decl A(x: float)\n.decl B(x: float)\nA(0.0).\nB(x) :- -0.0 = x, A(x).\n";
    assert_eq!(eval(src, "B"), lines(&["0"]));
    // a float equality still binds a variable no atom binds
    let src = ".decl A(x: float)\n.decl B(x: float)\nA(0.5).\nB(y) :- A(x), y = x * 2.0.\n";
    assert_eq!(eval(src, "B"), lines(&["1"]));
}

#[test]
fn atom_argument_may_be_an_expression_over_a_variable_the_atom_binds() {
    let src = r#"
        .decl R(a: number, b: symbol, c: number, d: number)
        .decl o(x: number)
        R(1, "c", 0, 2). R(2, "c", 0, 2). R(3, "d", 0, 4). R(4, "c", 9, 5).
        o(x) :- R(x, "c", _, x + 1).
    "#;
    assert_eq!(eval(src, "o"), lines(&["1", "4"]));
    // also inside an aggregate, and with the expression first
    let src = r#"
        .decl R(a: number, b: number)
        .decl n(c: number)
        R(4, 2). R(2, 1). R(5, 4). R(3, 6).
        n(c) :- c = count : { R(y * 2, y) }.
    "#;
    assert_eq!(eval(src, "n"), lines(&["2"]));
}

#[test]
fn body_literal_may_begin_with_a_unary_operator_word() {
    let src = r#"
        .decl b(x: unsigned)
        .decl a(x: unsigned)
        .decl z(x: unsigned)
        b(0u). b(4294967295u). b(7u).
        a(x) :- b(x), bnot(x) > 0u.
        z(x) :- b(x), lnot(x) = 1u.
    "#;
    assert_eq!(eval(src, "a"), lines(&["0", "7"]));
    assert_eq!(eval(src, "z"), lines(&["0"]));
}

#[test]
fn unary_minus_on_unsigned_is_a_type_error_naming_the_operator() {
    let e = err(".decl r(x: unsigned)\nr(x) :- x = -(1u).\n");
    assert!(
        e.contains("bad.dl:2:") && e.contains("unary operator `-`"),
        "{e}"
    );
    assert!(!e.contains("Ungrounded"), "{e}");
    let e = err(".decl r(x: unsigned)\n.decl s(x: unsigned)\nr(y) :- s(x), y = -x.\n");
    assert!(
        e.contains("unary operator `-` is not defined on unsigned"),
        "{e}"
    );
}

#[test]
fn atoms_that_bind_nothing_are_tested_once_not_joined() {
    // 300^4 combinations of the `_` atoms if they were joined; tested once each.
    let src = r#"
        .decl n(x: number)
        .decl a(x: number, y: number)
        .decl e()
        .decl r(x: number)
        .decl s(x: number)
        n(0). n(x + 1) :- n(x), x < 299.
        a(x, x * 2) :- n(x).
        r(x) :- n(x), a(_, _), a(_, _), a(_, _), a(_, _), n(_), x > 296.
        r(-1) :- a(_, _), !e().
        r(-2) :- a(_, _), e().
        s(x) :- n(x), a(x, _), a(_, x), x < 20.
    "#;
    assert_eq!(eval(src, "r"), lines(&["-1", "297", "298", "299"]));
    assert_eq!(
        eval(src, "s"),
        lines(&["0", "2", "4", "6", "8", "10", "12", "14", "16", "18"])
    );
    // in recursion, the test reads the delta of its version
    let src = r#"
        .decl e(x: number, y: number)
        .decl p(x: number, y: number)
        .decl flag()
        e(1, 2). e(2, 3). e(3, 4).
        p(x, y) :- e(x, y).
        p(x, z) :- p(x, y), e(y, z), p(_, _).
        flag() :- p(_, 4), p(1, _).
    "#;
    assert_eq!(eval(src, "p").len(), 6);
    assert_eq!(eval(src, "flag").len(), 1);
}

#[test]
fn eqrel_holds_the_reflexive_symmetric_transitive_closure() {
    let src = r#"
        .decl e(a: number, b: number) eqrel
        e(1, 2). e(2, 3). e(5, 5). e(8, 7).
    "#;
    assert_eq!(
        eval(src, "e"),
        lines(&[
            "1\t1", "1\t2", "1\t3", "2\t1", "2\t2", "2\t3", "3\t1", "3\t2", "3\t3", "5\t5", "7\t7",
            "7\t8", "8\t7", "8\t8"
        ])
    );
    let e = err(".decl e(a: number, b: number, c: number) eqrel\n");
    assert!(e.contains("Equivalence relation e is not binary"), "{e}");
    let e = err(".decl e(a: number, b: symbol) eqrel\n");
    assert!(
        e.contains("Domains of equivalence relation e are different"),
        "{e}"
    );
}

#[test]
fn eqrel_equals_the_explicit_closure_in_recursion_and_negation() {
    // `same` (eqrel) and `closure` (its definition, spelled out) must agree,
    // also when `same` is derived recursively together with `reach`.
    let src = r#"
        .decl edge(a: number, b: number)
        .decl node(a: number)
        .decl same(a: number, b: number) eqrel
        .decl closure(a: number, b: number)
        .decl reach(a: number)
        .decl alone(a: number)
        .decl unrelated(a: number, b: number)
        node(x) :- edge(x, _). node(y) :- edge(_, y).
        same(x, y) :- reach(x), edge(x, y).
        reach(1).
        reach(y) :- reach(x), same(x, y).
        closure(x, y) :- reach(x), edge(x, y).
        closure(x, x) :- closure(x, _).
        closure(y, x) :- closure(x, y).
        closure(x, z) :- closure(x, y), closure(y, z).
        alone(x) :- node(x), !same(x, _).
        unrelated(x, y) :- node(x), node(y), x < y, !same(x, y), same(x, _).
        .decl loopy(a: number)
        .decl cloopy(a: number)
        .decl selfs(a: number)
        .decl cselfs(a: number)
        loopy(x) :- same(x, x), reach(x).
        reach(x) :- loopy(x).
        cloopy(x) :- closure(x, x), reach(x).
        selfs(x) :- same(x, x).
        cselfs(x) :- closure(x, x).
    "#;
    let mut edges: Vec<Vec<String>> = Vec::new();
    let mut s: u32 = 7;
    for _ in 0..300 {
        s = s.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let a = (s >> 8) % 120;
        s = s.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let b = (s >> 8) % 120;
        edges.push(vec![a.to_string(), b.to_string()]);
    }
    edges.push(vec!["1".into(), "2".into()]);
    let rows: Vec<Vec<&str>> = edges
        .iter()
        .map(|r| r.iter().map(|x| x.as_str()).collect())
        .collect();
    let rows: Vec<&[&str]> = rows.iter().map(|r| r.as_slice()).collect();
    let inputs = [("edge", rows.as_slice())];
    let same = eval_with(src, &inputs, "same", 2);
    assert!(same.len() > 100);
    assert_eq!(same, eval_with(src, &inputs, "closure", 2));
    assert_eq!(same, eval_with(src, &inputs, "same", 1));
    // `same(x, x)` reads the elements, in a recursion (old and new pairs) and after it
    let loopy = eval_with(src, &inputs, "loopy", 2);
    assert!(!loopy.is_empty());
    assert_eq!(loopy, eval_with(src, &inputs, "cloopy", 2));
    assert_eq!(
        eval_with(src, &inputs, "selfs", 2),
        eval_with(src, &inputs, "cselfs", 2)
    );
    // negation: nodes outside every class, and pairs of distinct classes
    let alone = eval_with(src, &inputs, "alone", 2);
    let in_same: std::collections::BTreeSet<String> = same
        .iter()
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect();
    assert!(alone.iter().all(|x| !in_same.contains(x)));
    assert!(!alone.is_empty());
    for pair in eval_with(src, &inputs, "unrelated", 2) {
        assert!(!same.contains(&pair), "{pair}");
    }
}

#[test]
fn one_declaration_may_declare_several_relations() {
    let src = r#"
        .decl A, B(x: number, y: symbol)
        A(1, "a").
        B(x + 1, y) :- A(x, y).
    "#;
    assert_eq!(eval(src, "A"), lines(&["1\ta"]));
    assert_eq!(eval(src, "B"), lines(&["2\ta"]));
    let e = err(".decl A, A(x: number)\n");
    assert!(
        e.contains("bad.dl:1:10:") && e.contains("Redefinition of relation A"),
        "{e}"
    );
}

#[test]
fn hints_that_change_no_tuple_are_accepted() {
    let src = r#"
        .pragma "legacy"
        .pragma "magic-transform" "*"
        .pragma "no-such-key" "x"
        .decl e(x: number, y: number) brie
        .decl p(x: number, y: number) btree magic
        .decl q(x: number, y: number) btree_delete no_magic no_inline
        .decl o(x: number) overridable
        e(1, 2). e(2, 3).
        p(x, y) :- e(x, y).
        p(x, z) :- p(x, y), e(y, z).
        .plan 0:(2,1)
        q(x, y) :- p(x, y), x < 2.
        o(1).
    "#;
    assert_eq!(eval(src, "p"), lines(&["1\t2", "1\t3", "2\t3"]));
    assert_eq!(eval(src, "q"), lines(&["1\t2", "1\t3"]));
    // Soufflé rejects a plan it cannot apply, in these words
    let rules = ".decl e(x: number, y: number)\n.decl p(x: number, y: number)\n\
                 p(x, y) :- e(x, y).\np(x, z) :- p(x, y), e(y, z).\n";
    for (plan, what) in [
        (
            ".plan 0:(1,2), 1:(2,1)",
            "5:18: execution plan for version 1: only versions 0..0 permitted",
        ),
        (
            ".plan 0:(1,2,3)",
            "5:9: Invalid execution order in plan (expected 2 atoms, not 3)",
        ),
        (
            ".plan 0:(1,1)",
            "5:9: Invalid execution order in plan (incomplete)",
        ),
    ] {
        let e = err(&format!("{rules}{plan}\n"));
        assert!(e.starts_with(&format!("bad.dl:{what}")), "{plan} -> {e}");
    }
    let e = err(".decl e(x: number)\n.decl p(x: number)\np(x) :- e(x).\n.plan 0:(1)\n");
    assert!(
        e.starts_with("bad.dl:4:9: Ignored execution plan for non-recursive clause"),
        "{e}"
    );
    let e = err(".decl e(x: number)\ne(1).\n.plan 0:(1)\n");
    assert!(
        e.starts_with("bad.dl:3:1: `.plan` must follow a rule"),
        "{e}"
    );
    let e = err(".decl a(x: number, y: number) eqrel brie\n");
    assert!(e.contains("Multiple representation qualifiers"), "{e}");
}

#[test]
fn inline_relations_give_the_same_tuples_within_soufflés_restrictions() {
    let src = r#"
        .decl e(x: number, y: number)
        .decl two(x: number, z: number) inline
        .decl link(x: number, z: number) inline
        .decl r(x: number, z: number)
        .decl n(x: number)
        e(1, 2). e(2, 3). e(3, 4). e(3, 1).
        two(x, z) :- e(x, y), e(y, z).
        link(x, y) :- e(x, y) ; e(y, x).
        r(x, z) :- two(x, z), !link(z, x).
        n(x) :- e(x, _), !link(x, x + 2).
    "#;
    assert_eq!(eval(src, "r"), lines(&["2\t4"]));
    assert_eq!(eval(src, "n"), lines(&["2", "3"]));
    let base = ".decl e(x: number, y: number)\n.decl i(x: number) inline\ni(x) :- e(x, _).\n";
    for (rest, what) in [
        (
            ".decl r(x: number)\nr(x) :- e(x, _), !i(_).\n",
            "5:21: Cannot inline negated atom containing an unnamed variable",
        ),
        (
            ".decl w(x: number) inline\nw(x) :- e(x, y).\n.decl r(x: number)\nr(x) :- e(x, _), !w(x).\n",
            "7:19: Cannot inline negated relation which may introduce new variables",
        ),
        (
            ".decl r(x: number)\nr(n) :- n = count : { i(_) }.\n",
            "5:23: Cannot inline relations that appear in aggregator",
        ),
        (".output i\n", "2:1: IO relation i cannot be inlined"),
        (
            ".decl j(x: number) inline\nj(x) :- i(x).\ni(x) :- j(x).\n",
            "Cannot inline cyclically dependent relations {i, j}",
        ),
    ] {
        let e = err(&format!("{base}{rest}"));
        assert!(e.contains(what), "{rest} -> {e}");
    }
}

#[test]
fn limitsize_stops_a_relation_at_n_tuples() {
    let src = r#"
        .decl n(x: number)
        .limitsize n(n=5)
        n(0).
        n(x + 1) :- n(x).
    "#;
    assert_eq!(eval(src, "n"), lines(&["0", "1", "2", "3", "4"]));
}

#[test]
fn range_generates_values_like_soufflé() {
    let src = r#"
        .decl up(x: number)
        .decl down(x: number)
        .decl step(x: number)
        .decl neg(x: number)
        .decl empty(x: number)
        .decl zero(x: number)
        .decl zero_eq(x: number)
        .decl u(x: unsigned)
        .decl ud(x: unsigned)
        .decl us(x: unsigned)
        .decl f(x: float)
        .decl fs(x: float)
        .decl head(x: number, y: number)
        .decl test(x: number)
        .decl total(n: number)
        up(x) :- x = range(1, 4).
        down(x) :- x = range(3, 0).
        step(x) :- x = range(0, 10, 3).
        neg(x) :- x = range(5, -2, -3).
        empty(x) :- x = range(0, 5, -1).
        zero(x) :- x = range(7, 9, 0).
        zero_eq(x) :- x = range(7, 7, 0).
        u(x) :- x = range(2u, 5u).
        ud(x) :- x = range(5u, 2u).
        us(x) :- x = range(1u, 10u, 4u).
        f(x) :- x = range(0.5, 2.5).
        fs(x) :- x = range(1.0, 0.0, -0.25).
        head(range(0, 2), y + 1) :- up(y), y < 3.
        test(x) :- up(x), x = range(0, 10, 2).
        total(n) :- n = sum x : { x = range(1, 101) }.
    "#;
    assert_eq!(eval(src, "up"), lines(&["1", "2", "3"]));
    assert_eq!(eval(src, "down"), lines(&["1", "2", "3"]));
    assert_eq!(eval(src, "step"), lines(&["0", "3", "6", "9"]));
    assert_eq!(eval(src, "neg"), lines(&["-1", "2", "5"]));
    assert!(eval(src, "empty").is_empty());
    assert_eq!(eval(src, "zero"), lines(&["7"]));
    assert!(eval(src, "zero_eq").is_empty());
    assert_eq!(eval(src, "u"), lines(&["2", "3", "4"]));
    assert_eq!(eval(src, "ud"), lines(&["3", "4", "5"]));
    assert_eq!(eval(src, "us"), lines(&["1", "5", "9"]));
    assert_eq!(eval(src, "f"), lines(&["0.5", "1.5"]));
    assert_eq!(eval(src, "fs"), lines(&["0.25", "0.5", "0.75", "1"]));
    assert_eq!(eval(src, "head"), lines(&["0\t2", "0\t3", "1\t2", "1\t3"]));
    assert_eq!(eval(src, "test"), lines(&["2"]));
    assert_eq!(eval(src, "total"), lines(&["5050"]));
    let e = err(".decl r(x: symbol)\nr(x) :- x = range(\"a\", \"b\").\n");
    assert!(e.contains("bad.dl:2:") && e.contains("range"), "{e}");
}

#[test]
fn true_false_mean_lxor_bshru_and_ipv4_literals() {
    let src = r#"
        .decl a(x: number)
        .decl t(x: number)
        .decl f(x: number)
        .decl fl(x: float)
        .decl m(x: float)
        .decl none(x: float)
        .decl ops(a: number, b: number, c: number, d: unsigned, e: number)
        .decl ip(x: number, y: number)
        a(1). a(2). a(4).
        t(x) :- a(x), true.
        f(x) :- a(x), false.
        fl(1.0). fl(2.0). fl(4.5).
        m(v) :- v = mean x : fl(x).
        none(v) :- v = mean x : { fl(x), x > 10.0 }.
        ops(1 lxor 0, 3 lxor 5, 0 lxor 0 lor 1, 4294967295u bshru 28u, -16 bshru 28).
        ip(192.168.0.1, 10.0.0.255).
    "#;
    assert_eq!(eval(src, "t"), lines(&["1", "2", "4"]));
    assert!(eval(src, "f").is_empty());
    assert_eq!(eval(src, "m"), lines(&["2.5"]));
    assert!(eval(src, "none").is_empty());
    // lxor is 1 when exactly one side is non-zero, binds tighter than lor
    assert_eq!(eval(src, "ops"), lines(&["1\t0\t1\t15\t15"]));
    // (192<<24)+(168<<16)+(0<<8)+1 wrapped to i32; 10.0.0.255 = 167772415
    assert_eq!(eval(src, "ip"), lines(&["-1062731775\t167772415"]));
    let e = err(".decl a(x: number)\na(300.1.2.3).\n");
    assert!(e.contains("bad.dl:2:3: IP out of range"), "{e}");
    let e = err(".decl a(x: float)\n.decl b(x: number)\nb(1).\na(v) :- v = mean x : b(x).\n");
    assert!(e.contains("`mean` needs a float target"), "{e}");
    let e = err(".decl s(x: symbol)\ns(\"a\" - \"b\").\n");
    assert!(
        e.contains("bad.dl:2:") && e.contains("no valid overloads"),
        "{e}"
    );
}

#[test]
fn choice_domain_keeps_the_first_tuple_per_key() {
    let src = r#"
        .decl edge(x: number, y: number)
        .decl pick(x: number, y: number) choice-domain x
        .decl both(x: number, y: number) choice-domain x, y
        .decl pair(x: number, y: number, z: number) choice-domain (x, y)
        .decl st(x: number, y: number) choice-domain y
        .decl reach(x: number)
        edge(1, 2). edge(1, 3). edge(2, 3). edge(3, 4). edge(2, 4). edge(4, 1).
        pick(x, y) :- edge(x, y).
        both(x, y) :- edge(x, y).
        pair(x, y, z) :- edge(x, y), edge(y, z).
        reach(1).
        reach(y) :- reach(x), edge(x, y).
        st(x, y) :- reach(x), edge(x, y), y != 1.
    "#;
    for jobs in [1, 2] {
        assert_eq!(
            eval_with(src, &[], "pick", jobs),
            lines(&["1\t2", "2\t3", "3\t4", "4\t1"])
        );
        assert_eq!(
            eval_with(src, &[], "both", jobs),
            lines(&["1\t2", "2\t3", "3\t4", "4\t1"])
        );
        // every node but the root gets exactly one parent
        let st = eval_with(src, &[], "st", jobs);
        let mut ys: Vec<&str> = st.iter().map(|l| l.split('\t').nth(1).unwrap()).collect();
        ys.sort();
        assert_eq!(ys, vec!["2", "3", "4"]);
        assert_eq!(eval_with(src, &[], "pair", jobs).len(), 6);
    }
    let e = err(".decl r(x: number) choice-domain y\n");
    assert!(
        e.contains("bad.dl:1:") && e.contains("y in choice-domain"),
        "{e}"
    );
}

#[test]
fn preprocessor_defines_macros_and_conditionals() {
    let src = r#"
        #define N 3
        #define EDGE(a, b) e(a, b)
        #define TWICE(x) ((x) * 2)
        #define DEBUG
        .decl e(x: number, y: number)
        .decl r(x: number)
        EDGE(1, N). EDGE(N, TWICE(N + 1)).
        #ifdef DEBUG
        r(x) :- e(x, _).
        #else
        r(-1).
        #endif
        #undef DEBUG
        #ifndef DEBUG
        r(100).
        #endif
        #if defined(N) && N > 2 || 0
        r(N * 10).
        #elif N == 3
        r(-2).
        #else
        r(-3).
        #endif
        #if 0
        this is skipped ( entirely
        #if 1
        r(-4).
        #endif
        #endif
        #define LONG(a) \
            r(a + 1000).
        LONG(N)
    "#;
    assert_eq!(eval(src, "e"), lines(&["1\t3", "3\t8"]));
    assert_eq!(eval(src, "r"), lines(&["1", "3", "30", "100", "1003"]));
    // macros defined in an included file hold after the include
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("defs.dl"), "#define ONE 1\n").unwrap();
    std::fs::write(
        t.path().join("main.dl"),
        "#include \"defs.dl\"\n.decl a(x: number)\na(ONE).\n",
    )
    .unwrap();
    let prog = Program::from_file(t.path().join("main.dl")).unwrap();
    let mut db = Database::new(&prog);
    db.run(1).unwrap();
    assert_eq!(
        db.rows_as_strings("a").unwrap(),
        vec![vec!["1".to_string()]]
    );
    let e = err("#if 1\n.decl a(x: number)\n");
    assert!(e.contains("unterminated #if"), "{e}");
    let e = err("#endif\n");
    assert!(e.contains("bad.dl:1:1: #endif without #if"), "{e}");
    let e = err("#define F(a) a\n.decl a(x: number)\na(F(1, 2)).\n");
    assert!(
        e.contains("bad.dl:3:3:") && e.contains("macro F takes 1 arguments"),
        "{e}"
    );
}

#[test]
fn preprocessor_stringizes_pastes_and_renumbers_lines() {
    // `#x` spells the argument (blanks made one space, strings with their
    // escapes), `##` pastes tokens (an empty argument pastes nothing),
    // `#pragma` is ignored, RAM_DOMAIN_SIZE is mcpp's -DRAM_DOMAIN_SIZE=32
    let src = r#"
#define STR(x) #x
#define CAT(a, b) a ## b
#define REL(n) CAT(rel_, n)
#define THREE(a, b) a ## b ## 3
#pragma once
#pragma anything at all
.decl REL(names)(s: symbol)
.output rel_names
REL(names)(STR( malloc )).
REL(names)(STR(a  +  "b\n")).
REL(names)(STR()).
.decl CAT(num, s)(n: number)
.output nums
nums(CAT(4, 2)). nums(THREE(1, 2)). nums(CAT(, 7)). nums(CAT(8, )).
#if RAM_DOMAIN_SIZE == 32
nums(RAM_DOMAIN_SIZE).
#endif
"#;
    assert_eq!(run_binary(src, "rel_names"), "\na + \"b\\n\"\nmalloc\n");
    assert_eq!(run_binary(src, "nums"), "7\n8\n32\n42\n123\n");
    // an argument is expanded before substitution unless `#` takes it;
    // __LINE__ is the line of the use, after `#line` too
    let src = r#"#define STR(x) #x
#define XSTR(x) STR(x)
#define N 3
#define L __LINE__
.decl s(x: symbol) .output s
s(STR(N)). s(XSTR(N)). s(STR(L)). s(__FILE__).
.decl n(x: number) .output n
n(__LINE__). n(L).
#line 50
n(L).
"#;
    assert_eq!(run_binary(src, "s"), "3\nL\nN\np.dl\n");
    assert_eq!(run_binary(src, "n"), "8\n50\n");
    // `#line N "file"`: the next line is line N (of file)
    let e = err(".decl a(x: number)\n#line 100\na(y) :- a(x).\n");
    assert!(e.starts_with("bad.dl:100:3:"), "{e}");
    let e = err(".decl a(x: number)\n#line 7 \"gen.dl\"\n\na(y) :- a(x).\n");
    assert!(e.starts_with("gen.dl:8:3:"), "{e}");
    for (src, what) in [
        (
            "#define S(x) #y\n",
            "bad.dl:1:9: `#` not followed by a parameter in macro S",
        ),
        (
            "#define P(x) ## x\n",
            "bad.dl:1:9: `##` at either end of macro P",
        ),
        (
            "#define P(a, b) a ## b\n.decl r(x: number)\nr(P(1, +)).\n",
            "bad.dl:3:3: pasting gives `1+`, which is not one token",
        ),
        ("#line x\n", "bad.dl:1:1: #line needs a line number"),
    ] {
        let e = err(src);
        assert!(e.starts_with(what), "{src:?} -> {e}");
    }
}

#[test]
fn variables_used_once_do_not_make_a_join() {
    // y and z occur once: `a(y, _)` and `a(_, z)` are tests, not 300 x 300 loops
    let src = r#"
        .decl n(x: number)
        .decl a(x: number, y: number)
        .decl r(x: number)
        .decl c(x: number, k: number)
        n(0). n(x + 1) :- n(x), x < 299.
        a(x, x + 1) :- n(x).
        r(x) :- n(x), a(y, _), a(_, z), a(w, w + 1), x > 297.
        c(x, k) :- n(x), x < 2, k = count : { a(x, v) }.
    "#;
    assert_eq!(eval(src, "r"), lines(&["298", "299"]));
    assert_eq!(eval(src, "c"), lines(&["0\t1", "1\t1"]));
}

#[test]
fn deprecated_type_declarations_and_io_qualifiers_are_accepted() {
    let src = r#"
        .number_type N
        .symbol_type S
        .type T
        .decl e(x: N) input
        .decl a(x: N, s: S, t: T) output printsize
        a(1, "x", "y").
        a(x, "e", "f") :- e(x).
    "#;
    let prog = Program::from_source("old.dl", src).unwrap();
    assert_eq!(prog.inputs(), vec!["e"]);
    assert_eq!(prog.outputs(), vec!["a"]);
    assert_eq!(
        eval_with(src, &[("e", &[&["7"]])], "a", 2),
        lines(&["1\tx\ty", "7\te\tf"])
    );
    // `T` is a symbol subtype: a number does not fit
    let e = err(".type T\n.decl a(x: T)\na(1).\n");
    assert!(e.contains("bad.dl:3:3:"), "{e}");
}
