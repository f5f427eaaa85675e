//! Records and ADTs through `llfacts run`: programs that use them as
//! analyses do, their text form in fact files and outputs, and their errors.
//! Expected rows are worked out by hand from Soufflé's documented semantics
//! (records are interned, so `=` is identity; `nil` ends recursive records;
//! outputs write `[1, nil]` and `$Branch(args)`), in this engine's sorted
//! order: `nil` first, then records field by field, ADT values by branch
//! name, then fields.

mod common;

use std::path::Path;

use common::{read_file as read, run_builtin_in as llfacts, write_file as write};

/// Run `p.dl` on `facts/` into `out/` with `jobs` threads; panics on failure.
fn run_ok(d: &Path, jobs: &str) {
    let o = llfacts(
        &[
            "run", "p.dl", "-F", "facts", "-D", "out", "-j", jobs, "--engine", "builtin",
        ],
        d,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

const CALL_STRINGS: &str = r#"
// Context-sensitive reachability: a context is the call-string of the call
// sites on the way from main, innermost first.
.type Ctx = [site: symbol, rest: Ctx]
.decl call(caller: symbol, site: symbol, callee: symbol)
.input call
.decl reach(f: symbol, ctx: Ctx)
.output reach
reach("main", nil).
reach(g, [s, c]) :- reach(f, c), call(f, s, g).

.decl ctxdepth(c: Ctx, d: number)
.output ctxdepth
ctxdepth(nil, 0).
ctxdepth(c, d + 1) :- reach(_, c), c = [_, rest], ctxdepth(rest, d).

// the two innermost call sites (nested destructuring, `_` inside)
.decl via(f: symbol, inner: symbol, outer: symbol)
.output via
via(f, s1, s2) :- reach(f, [s1, [s2, _]]).

.decl contexts(f: symbol, n: number)
.output contexts
contexts(f, n) :- reach(f, _), n = count : { reach(f, _) }.

// functions called from a context whose last call site is s5
.decl from_s5(f: symbol)
.output from_s5
from_s5(f) :- reach(f, c), count : { reach(f, [s, _]), s = "s5" } > 0, c != nil.
"#;

#[test]
fn call_strings_give_context_sensitive_reachability() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(d, "p.dl", CALL_STRINGS);
    write(
        d,
        "facts/call.facts",
        "main\ts1\ta\nmain\ts2\ta\na\ts3\tb\nb\ts4\tc\nmain\ts5\tc\n",
    );
    run_ok(d, "2");
    // main reaches a through s1 and s2, b through s3 from either, c through
    // s4 from either context of b, and through s5 directly.
    assert_eq!(
        read(d, "out/reach.csv"),
        "a\t[s1, nil]\na\t[s2, nil]\n\
         b\t[s3, [s1, nil]]\nb\t[s3, [s2, nil]]\n\
         c\t[s4, [s3, [s1, nil]]]\nc\t[s4, [s3, [s2, nil]]]\nc\t[s5, nil]\n\
         main\tnil\n"
    );
    // depth = number of call sites in the list
    assert_eq!(
        read(d, "out/ctxdepth.csv"),
        "nil\t0\n[s1, nil]\t1\n[s2, nil]\t1\n[s3, [s1, nil]]\t2\n[s3, [s2, nil]]\t2\n\
         [s4, [s3, [s1, nil]]]\t3\n[s4, [s3, [s2, nil]]]\t3\n[s5, nil]\t1\n"
    );
    // b: (s3,s1), (s3,s2); c: (s4,s3) twice, one tuple; depth-1 contexts have no second site
    assert_eq!(read(d, "out/via.csv"), "b\ts3\ts1\nb\ts3\ts2\nc\ts4\ts3\n");
    assert_eq!(read(d, "out/contexts.csv"), "a\t2\nb\t2\nc\t3\nmain\t1\n");
    assert_eq!(read(d, "out/from_s5.csv"), "c\n");
    // records are interned whatever the thread count: same rows with -j 1
    let first = read(d, "out/reach.csv");
    run_ok(d, "1");
    assert_eq!(read(d, "out/reach.csv"), first);
}

const EXPRESSIONS: &str = r#"
// Expression numbering over an ADT: subexpressions, values, constant
// folding by nested patterns, and expressions shared between statements.
.type Expr = Const {n: number}
           | Var {v: symbol}
           | Add {l: Expr, r: Expr}
           | Mul {l: Expr, r: Expr}
           | Unknown {}
.decl stmt(id: number, e: Expr)
.input stmt
.decl env(v: symbol, n: number)
.input env

.decl sub(e: Expr)
sub(e) :- stmt(_, e).
sub(l), sub(r) :- sub($Add(l, r)).
sub(l), sub(r) :- sub($Mul(l, r)).

.decl val(e: Expr, n: number)
.output val
val($Const(n), n) :- sub($Const(n)).
val($Var(v), n) :- sub($Var(v)), env(v, n).
val(e, a + b) :- sub(e), e = $Add(l, r), val(l, a), val(r, b).
val(e, a * b) :- sub(e), e = $Mul(l, r), val(l, a), val(r, b).

.decl result(id: number, n: number)
.output result
result(id, n) :- stmt(id, e), val(e, n).

.decl fold(e: Expr, to: Expr)
.output fold
fold(e, $Const(a + b)) :- sub(e), e = $Add($Const(a), $Const(b)).

.decl within(id: number, e: Expr)
within(id, e) :- stmt(id, e).
within(id, l), within(id, r) :- within(id, $Add(l, r)).
within(id, l), within(id, r) :- within(id, $Mul(l, r)).
.decl shared(e: Expr, n: number)
.output shared
shared(e, n) :- sub(e), n = count : { within(_, e) }, n > 1.

.decl unknown(id: number)
.output unknown
unknown(id) :- stmt(id, $Unknown()).
"#;

#[test]
fn expression_numbering_with_adts() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(d, "p.dl", EXPRESSIONS);
    write(
        d,
        "facts/stmt.facts",
        "1\t$Add($Var(x), $Mul($Const(2), $Var(y)))\n\
         2\t$Mul($Const(2),$Var(y))\n\
         3\t$Add($Const(1), $Const(2))\n\
         4\t$Unknown\n",
    );
    write(d, "facts/env.facts", "x\t10\ny\t5\n");
    run_ok(d, "2");
    // x=10, y=5: 1 -> 10 + 2*5 = 20, 2 -> 10, 3 -> 3; $Unknown has no value.
    assert_eq!(read(d, "out/result.csv"), "1\t20\n2\t10\n3\t3\n");
    // branches sort by name (Add, Const, Mul, Unknown, Var), then by fields
    assert_eq!(
        read(d, "out/val.csv"),
        "$Add($Const(1), $Const(2))\t3\n\
         $Add($Var(x), $Mul($Const(2), $Var(y)))\t20\n\
         $Const(1)\t1\n$Const(2)\t2\n\
         $Mul($Const(2), $Var(y))\t10\n\
         $Var(x)\t10\n$Var(y)\t5\n"
    );
    assert_eq!(
        read(d, "out/fold.csv"),
        "$Add($Const(1), $Const(2))\t$Const(3)\n"
    );
    // 2*y and y occur in statements 1 and 2, the constant 2 in 1, 2 and 3
    assert_eq!(
        read(d, "out/shared.csv"),
        "$Const(2)\t3\n$Mul($Const(2), $Var(y))\t2\n$Var(y)\t2\n"
    );
    assert_eq!(read(d, "out/unknown.csv"), "4\n");
}

const PATHS: &str = r#"
// Paths of a DAG as linked lists (newest node first); recursion is bounded by
// the data, since the graph has no cycle.
.type Path = [node: number, rest: Path]
.decl edge(a: number, b: number)
edge(1, 2). edge(2, 3). edge(1, 3). edge(3, 4).
.decl path(from: number, to: number, p: Path)
.output path
path(a, a, [a, nil]) :- edge(a, _).
path(a, c, [c, p]) :- path(a, b, p), edge(b, c).

.decl plen(p: Path, n: number)
plen(p, 1) :- path(_, _, p), p = [_, nil].
plen(p, n + 1) :- path(_, _, p), p = [_, rest], plen(rest, n).
.decl longest(a: number, b: number, n: number)
.output longest
longest(a, b, n) :- path(a, b, _), n = max m : { path(a, b, p), plen(p, m) }.

.decl alternatives(a: number, b: number)
.output alternatives
alternatives(a, b) :- path(a, b, p), path(a, b, q), p != q.

// a path built from bound fields is looked up, not enumerated
.decl via2(a: number, p: Path)
.output via2
via2(a, p) :- edge(a, 2), p = [2, [a, nil]], path(a, 2, p).
"#;

#[test]
fn paths_as_linked_lists() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(d, "p.dl", PATHS);
    run_ok(d, "2");
    assert_eq!(
        read(d, "out/path.csv"),
        "1\t1\t[1, nil]\n1\t2\t[2, [1, nil]]\n\
         1\t3\t[3, [1, nil]]\n1\t3\t[3, [2, [1, nil]]]\n\
         1\t4\t[4, [3, [1, nil]]]\n1\t4\t[4, [3, [2, [1, nil]]]]\n\
         2\t2\t[2, nil]\n2\t3\t[3, [2, nil]]\n2\t4\t[4, [3, [2, nil]]]\n\
         3\t3\t[3, nil]\n3\t4\t[4, [3, nil]]\n"
    );
    // the longest path counts its nodes: 1-2-3-4 has 4
    assert_eq!(
        read(d, "out/longest.csv"),
        "1\t1\t1\n1\t2\t2\n1\t3\t3\n1\t4\t4\n2\t2\t1\n2\t3\t2\n2\t4\t3\n3\t3\t1\n3\t4\t2\n"
    );
    // two paths each from 1 to 3 and from 1 to 4
    assert_eq!(read(d, "out/alternatives.csv"), "1\t3\n1\t4\n");
    assert_eq!(read(d, "out/via2.csv"), "1\t[2, [1, nil]]\n");
}

#[test]
fn fact_text_forms_read_and_written_as_souffle_does() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(
        d,
        "p.dl",
        r#"
        .type Pair = [name: symbol, weight: float]
        .type L = [p: Pair, next: L]
        .type Shape = Circle {r: unsigned} | Dot {} | Box {a: L, b: number}
        .decl lists(l: L)
        .input lists
        .decl shapes(s: Shape, tag: symbol)
        .input shapes
        .decl heads(name: symbol, w: float)
        heads(n, w) :- lists([[n, w], _]).
        .output lists, shapes, heads
        "#,
    );
    // blanks around the punctuation are allowed; a symbol field runs to `,` or `]`
    write(
        d,
        "facts/lists.facts",
        "nil\n[[a b, 1.5], nil]\n[ [c,2] , [[a b, 1.5], nil] ]\n",
    );
    write(
        d,
        "facts/shapes.facts",
        "$Dot\tdot\n$Circle(3)\tc\n$Box([[x, 0], nil], -1)\tb\n",
    );
    let o = llfacts(&["run", "p.dl", "-F", "facts", "-D", "-"], d);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    // Soufflé writes `, ` between fields and symbols inside records unquoted.
    assert!(
        out.contains(
            "lists\nl\n===============\nnil\n[[a b, 1.5], nil]\n[[c, 2], [[a b, 1.5], nil]]\n==============="
        ),
        "{out}"
    );
    // branches sort by name: Box, Circle, Dot
    assert!(
        out.contains(
            "shapes\ns\ttag\n===============\n$Box([[x, 0], nil], -1)\tb\n$Circle(3)\tc\n$Dot\tdot\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("heads\nname\tw\n===============\na b\t1.5\nc\t2\n"),
        "{out}"
    );
}

#[test]
fn record_equality_is_identity() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(
        d,
        "p.dl",
        r#"
        .type P = [a: number, b: symbol]
        .decl mk(x: number, s: symbol)
        mk(1, "a"). mk(2, "b").
        .decl rec(p: P)
        rec([x, s]) :- mk(x, s).
        .decl same(x: number)
        same(x) :- mk(x, s), rec(p), p = [x, s], p = [1, "a"].
        .decl eq(p: P, q: P)
        eq(p, q) :- rec(p), rec(q), p = q.
        .decl ne(p: P, q: P)
        ne(p, q) :- rec(p), rec(q), p != q.
        .decl notnil(p: P)
        notnil(p) :- rec(p), p != nil, !rec([9, "z"]).
        // p's type comes from the head attribute: nothing in the body types it
        .decl built(p: P)
        built(p) :- mk(x, s), p = [x, s].
        .output same, eq, ne, notnil, built
        "#,
    );
    run_ok(d, "2");
    assert_eq!(read(d, "out/same.csv"), "1\n");
    assert_eq!(read(d, "out/eq.csv"), "[1, a]\t[1, a]\n[2, b]\t[2, b]\n");
    assert_eq!(read(d, "out/ne.csv"), "[1, a]\t[2, b]\n[2, b]\t[1, a]\n");
    assert_eq!(read(d, "out/notnil.csv"), "[1, a]\n[2, b]\n");
    assert_eq!(read(d, "out/built.csv"), "[1, a]\n[2, b]\n");
}

#[test]
fn record_errors_name_the_location() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let decls = ".type L = [h: number, t: L]\n.type E = Num {n: number} | Neg {e: E}\n\
                 .decl A(l: L)\n.decl B(e: E)\n.decl C(x: number)\n.output C\n";
    for (clause, parts) in [
        (
            "A([1, nil, 2]).",
            &[
                "p.dl:7:3:",
                "Wrong number of arguments for record type L: expected 2, found 3",
            ][..],
        ),
        ("B($Pos(1)).", &["p.dl:7:3:", "Undefined ADT branch Pos"]),
        (
            "B($Num(1, 2)).",
            &["p.dl:7:3:", "branch Num of E: expected 1, found 2"],
        ),
        (
            "A([\"x\", nil]).",
            &[
                "p.dl:7:4:",
                "field 1 of record type L is number, found symbol",
            ],
        ),
        ("A($Num(1)).", &["p.dl:7:3:", "has type E", "declared L"]),
        ("B(nil).", &["p.dl:7:3:", "`nil` where E is expected"]),
        (
            "C(1) :- A(x), A(y), x < y.",
            &["p.dl:7:21:", "only compared with `=` and `!=`"],
        ),
        (
            "C(x + 1) :- A(x).",
            &["p.dl:7:5:", "operands of `+` are L and number"],
        ),
        (
            "C(1) :- A(x), B(y), x = y.",
            &[
                "p.dl:7:25:",
                "variable y is used as L here but as E elsewhere",
            ],
        ),
        (
            "C(1) :- [1, nil] = [1, nil].",
            &["p.dl:7:9:", "Unable to deduce the record type"],
        ),
        // Soufflé's grammar: a branch term always has its parentheses
        (
            "B($Neg($Num)).",
            &[
                "p.dl:7:8:",
                "branch `$Num` needs its argument list: `$Num()`",
            ],
        ),
        (
            "C(x) :- A([x, _]), B($Neg(x)).",
            &["p.dl:7:27:", "variable x is used as E here but as number"],
        ),
    ] {
        write(d, "p.dl", &format!("{decls}{clause}\n"));
        let o = llfacts(&["run", "p.dl", "-D", "-"], d);
        common::assert_one_line_error(&o, 1, parts);
    }
}

#[test]
fn a_malformed_record_in_a_fact_file_names_file_and_line() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(
        d,
        "p.dl",
        ".type L = [h: number, t: L]\n.decl A(l: L)\n.input A\n.output A\n",
    );
    write(d, "facts/A.facts", "[1, nil]\n[2, [3, nil]\n");
    let o = llfacts(&["run", "p.dl", "-F", "facts", "-D", "-"], d);
    common::assert_one_line_error(
        &o,
        1,
        &[
            "Error loading A data",
            "A.facts:2",
            "cannot convert \"[2, [3, nil]\"",
        ],
    );
}

#[test]
fn library_rows_carry_records_in_their_text_form() {
    use llfacts::engine::{Database, Program, Value};
    let prog = Program::from_source(
        "lib.dl",
        ".type L = [h: number, t: L]\n.decl a(l: L)\n.decl b(l: L)\nb(t) :- a([_, t]).\n",
    )
    .unwrap();
    let mut db = Database::new(&prog);
    db.insert("a", &["[1, [2, nil]]"]).unwrap();
    db.insert_values("a", &[Value::Record("[3,nil]".into())])
        .unwrap();
    assert!(db.insert("a", &["[1, 2]"]).is_err());
    db.run(1).unwrap();
    // the tails of [1, [2, nil]] and [3, nil]: nil sorts first
    assert_eq!(
        db.rows("b").unwrap(),
        vec![
            vec![Value::Record("nil".into())],
            vec![Value::Record("[2, nil]".into())]
        ]
    );
}
