//! `llfacts run` on components, subsumption and `autoinc()`, through the real
//! binary. Expected tuples are reasoned by hand from Soufflé's documented
//! semantics (components are a syntactic expansion that prefixes names with
//! the instance; a subsumptive rule deletes a tuple when a distinct
//! dominating tuple exists; `autoinc()` numbers from 0).

mod common;

use common::{read_file as read, run_builtin_in as llfacts, stderr_text as stderr, write_file as write};

/// Run `prog` on `facts` (file name, contents) with `-D -` and `jobs` threads; stdout.
fn run_stdout(prog: &str, facts: &[(&str, &str)], jobs: &str) -> String {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(d, "p.dl", prog);
    for (name, text) in facts {
        write(d, &format!("facts/{name}"), text);
    }
    std::fs::create_dir_all(d.join("facts")).unwrap();
    let o = llfacts(
        &[
            "run", "p.dl", "-F", "facts", "-D", "-", "-j", jobs, "--engine", "builtin",
        ],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    String::from_utf8(o.stdout).unwrap()
}

/// The rows that `-D -` printed for relation `rel`, tab-separated.
fn section(out: &str, rel: &str) -> String {
    let mut lines = out.lines();
    while let Some(l) = lines.next() {
        if l == rel {
            lines.next(); // attribute names
            lines.next(); // ===
            let rows: Vec<&str> = lines
                .by_ref()
                .take_while(|l| !l.starts_with("==="))
                .collect();
            return rows.iter().map(|r| format!("{r}\n")).collect();
        }
    }
    panic!("no relation {rel} in:\n{out}")
}

/// A failed run: exit code 1, one line containing `parts`, no panic.
fn assert_fails(prog: &str, parts: &[&str]) {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "p.dl", prog);
    let o = llfacts(&["run", "p.dl", "-D", "-", "--engine", "builtin"], t.path());
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    for p in parts {
        assert!(err.contains(p), "missing {p:?} in {err}");
    }
}

// ------------------------------------------------------------------ components

const REACH: &str = r#"
.type Block <: symbol
.type Func <: symbol

.decl cfg_edge(a: Block, b: Block)
.decl call_edge(a: Func, b: Func)
.input cfg_edge, call_edge

// Reachability over any graph; the roots default to the nodes without a
// predecessor, and a sub-component may choose them instead.
.comp Reach<N> {
    .type Node = N
    .decl edge(a: Node, b: Node)
    .decl root(n: Node) overridable
    .decl path(a: Node, b: Node)
    .decl reach(n: Node)
    .decl unreachable(n: Node)
    root(a) :- edge(a, _), !edge(_, a).
    path(a, b) :- edge(a, b).
    path(a, c) :- path(a, b), edge(b, c).
    reach(r) :- root(r).
    reach(b) :- reach(a), edge(a, b).
    unreachable(n) :- (edge(n, _) ; edge(_, n)), !reach(n).
    .output reach, unreachable
}

// A call graph is entered at main, whoever else has no caller.
.comp FromMain : Reach<Func> {
    .override root
    root("main").
}

.init blocks = Reach<Block>
.init calls = FromMain

blocks.edge(a, b) :- cfg_edge(a, b).
calls.edge(a, b) :- call_edge(a, b).

.decl recursive(f: Func)
recursive(f) :- calls.path(f, f).
.output recursive
"#;

#[test]
fn generic_component_instantiated_twice_with_an_override() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(d, "p.dl", REACH);
    // CFG: entry -> b1 <-> b2 -> exit, and a loop d1 <-> d2 -> exit that no
    // root reaches (d1 and d2 both have a predecessor).
    write(
        d,
        "facts/cfg_edge.facts",
        "entry\tb1\nb1\tb2\nb2\tb1\nb2\texit\nd1\td2\nd2\td1\nd2\texit\n",
    );
    // Calls: main -> parse <-> lex, main -> log, helper -> log. With the
    // default roots helper would be a root too; the override keeps main only.
    write(
        d,
        "facts/call_edge.facts",
        "main\tparse\nparse\tlex\nlex\tparse\nmain\tlog\nhelper\tlog\n",
    );
    let o = llfacts(&["run", "p.dl", "-F", "facts", "-D", "out"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    // Output files are named after the instance-qualified relations.
    assert_eq!(read(d, "out/blocks.reach.csv"), "b1\nb2\nentry\nexit\n");
    assert_eq!(read(d, "out/blocks.unreachable.csv"), "d1\nd2\n");
    assert_eq!(read(d, "out/calls.reach.csv"), "lex\nlog\nmain\nparse\n");
    assert_eq!(read(d, "out/calls.unreachable.csv"), "helper\n");
    // parse and lex call each other: calls.path(f, f) holds for both.
    assert_eq!(read(d, "out/recursive.csv"), "lex\nparse\n");
}

#[test]
fn nested_components_orphan_clauses_and_a_component_parameter() {
    let prog = r#"
        .decl out(n: number)
        .comp Lib {
            .decl seen(n: number)
            .comp Count {
                seen(1).
                seen(n + 1) :- seen(n), n < 3.
            }
            .init counter = Count
            out(n) :- seen(n).
        }
        .comp Pick<Which> {
            .comp Evens {
                .decl keep(n: number)
                keep(n) :- out(n), n % 2 = 0.
            }
            .comp Odds {
                .decl keep(n: number)
                keep(n) :- out(n), n % 2 = 1.
            }
            .init chosen = Which
        }
        .init lib = Lib
        .init odd = Pick<Odds>
        .output out, odd.chosen.keep, lib.seen
    "#;
    let out = run_stdout(prog, &[], "2");
    // Count declares nothing: its clauses belong to Lib's seen (lib.seen),
    // and Lib's rule for out, declared nowhere in Lib, to the program's out.
    assert_eq!(section(&out, "lib.seen"), "1\n2\n3\n");
    assert_eq!(section(&out, "out"), "1\n2\n3\n");
    // Which = Odds: the nested instance odd.chosen keeps the odd ones.
    assert_eq!(section(&out, "odd.chosen.keep"), "1\n3\n");
}

#[test]
fn inherited_instance_and_qualified_names_in_directives() {
    // A base's nested instance is part of every sub-component's instance.
    let prog = r#"
        .comp Edges {
            .decl edge(x: number, y: number)
            edge(1, 2). edge(2, 3).
        }
        .comp WithEdges { .init a = Edges }
        .comp Paths : WithEdges {
            .decl path(x: number, y: number)
            path(x, y) :- a.edge(x, y).
            path(x, z) :- a.edge(x, y), path(y, z).
        }
        .init c = Paths
        c.a.edge(3, 4).
        .output c.path
    "#;
    let out = run_stdout(prog, &[], "1");
    assert_eq!(
        section(&out, "c.path"),
        "1\t2\n1\t3\n1\t4\n2\t3\n2\t4\n3\t4\n"
    );
}

// A component declaring a record type over its parameter, a record type of
// its own and an ADT over both; the relations over them are instantiated for
// numbers and for a record type of the program.
const SHORTEST: &str = r#"
.type Pt = [x: number, y: number]
.comp Graph<N> {
    .type Edge = [from: N, to: N]
    .type Len = Hops {n: number, last: Edge} | Self {at: N}
    .decl edge(e: Edge)
    .decl reach(e: Edge, l: Len)
    reach([a, b], $Hops(1, [a, b])) :- edge([a, b]).
    reach([a, c], $Hops(n + 1, [b, c])) :- reach([a, b], $Hops(n, _)), edge([b, c]).
    reach(as([a, a], Edge), $Self(a)) :- edge([a, _]).
    // only the shortest distances are kept (and extended)
    reach(e, $Hops(n, _)) <= reach(e, $Hops(m, _)) :- m < n.
    .output reach
}
.init nums = Graph<number>
.init pts = Graph<Pt>
nums.edge([1, 2]). nums.edge([2, 3]). nums.edge([1, 3]). nums.edge([3, 1]).
pts.edge([[0, 0], [0, 1]]). pts.edge([[0, 1], [1, 1]]).

.decl far(a: number, p: Pt)
far(a, p) :- nums.reach([a, _], $nums.Hops(3, _)), pts.reach([p, _], $pts.Hops(2, _)).
.output far
"#;

#[test]
fn records_and_adts_declared_in_a_generic_component_instantiated_twice() {
    let out = run_stdout(SHORTEST, &[], "2");
    // nums: edges 1->2, 2->3, 1->3, 3->1 (a cycle: without the subsumptive
    // rule the hop counts would grow forever). Shortest walks, with their
    // last edge: from 1: 2 and 3 directly, 1 by 1->3->1; from 2: 3
    // directly, 1 by 2->3->1, 2 by 2->3->1->2; from 3: 1 directly, 2 by
    // 3->1->2, 3 by 3->1->3 (each the only walk of its length). 1->2->3 is
    // longer than the edge 1->3: deleted. Self(a) for each edge source.
    // The instance's types and branches are named nums.Edge, nums.Hops, …;
    // ADT values sort by branch name (Hops < Self).
    assert_eq!(
        section(&out, "nums.reach"),
        "[1, 1]\t$nums.Hops(2, [3, 1])\n\
         [1, 1]\t$nums.Self(1)\n\
         [1, 2]\t$nums.Hops(1, [1, 2])\n\
         [1, 3]\t$nums.Hops(1, [1, 3])\n\
         [2, 1]\t$nums.Hops(2, [3, 1])\n\
         [2, 2]\t$nums.Hops(3, [1, 2])\n\
         [2, 2]\t$nums.Self(2)\n\
         [2, 3]\t$nums.Hops(1, [2, 3])\n\
         [3, 1]\t$nums.Hops(1, [3, 1])\n\
         [3, 2]\t$nums.Hops(2, [1, 2])\n\
         [3, 3]\t$nums.Hops(2, [1, 3])\n\
         [3, 3]\t$nums.Self(3)\n"
    );
    // pts: N = Pt, so an edge is a record of two records. A = [0, 0],
    // B = [0, 1], C = [1, 1]; edges A->B, B->C: A reaches B (1 hop) and C
    // (2, last edge B->C), B reaches C; Self for A and B. Records sort
    // field by field.
    assert_eq!(
        section(&out, "pts.reach"),
        "[[0, 0], [0, 0]]\t$pts.Self([0, 0])\n\
         [[0, 0], [0, 1]]\t$pts.Hops(1, [[0, 0], [0, 1]])\n\
         [[0, 0], [1, 1]]\t$pts.Hops(2, [[0, 1], [1, 1]])\n\
         [[0, 1], [0, 1]]\t$pts.Self([0, 1])\n\
         [[0, 1], [1, 1]]\t$pts.Hops(1, [[0, 1], [1, 1]])\n"
    );
    // From outside, the branches are written with their instance: the only
    // 3-hop distance of nums starts at 2, the only 2-hop one of pts at A.
    assert_eq!(section(&out, "far"), "2\t[0, 0]\n");
}

#[test]
fn component_errors_are_one_line_with_position() {
    assert_fails(
        ".init a = Nope\n",
        &["p.dl:1:1:", "Referencing undefined component Nope"],
    );
    assert_fails(
        ".comp A<T> { .decl r(x: T) }\n.init a = A\n",
        &[
            "p.dl:2:1:",
            "Invalid number of type parameters for component A",
        ],
    );
    assert_fails(
        ".comp Base { .decl r(x: number) }\n.comp Sub : Base { .override r }\n.init s = Sub\n",
        &[
            "p.dl:2:1:",
            "Override of non-overridable relation r in component Sub",
        ],
    );
    assert_fails(
        ".comp A : B {}\n.comp B : A {}\n.init a = A\n",
        &["p.dl:1:1:", "Invalid cycle in inheritance for component A"],
    );
    assert_fails(
        ".comp A { .init a = A }\n.init a = A\n",
        &["p.dl:1:11:", "Component instantiation limit reached"],
    );
    assert_fails(
        ".override r\n",
        &["p.dl:1:1:", "`.override` outside a component"],
    );
}

// ---------------------------------------------------------------- subsumption

const LATTICES: &str = r#"
.decl edge(a: symbol, b: symbol, w: number)
.input edge

// shortest distance from s: a longer distance to the same node is dominated
.decl dist(n: symbol, d: number)
dist("s", 0).
dist(b, d + w) :- dist(a, d), edge(a, b, w).
dist(n, d1) <= dist(n, d2) :- d2 <= d1.

// shortest-path tree: the predecessor on a shortest path, the smallest on ties
.decl tree(n: symbol, pred: symbol, d: number)
tree("s", "s", 0).
tree(b, a, d + w) :- tree(a, _, d), edge(a, b, w).
tree(n, p, d1) <= tree(n, _, d2) :- d2 < d1.
tree(n, p1, d) <= tree(n, p2, d) :- p2 < p1.

.decl far(n: symbol)
far(n) :- dist(n, d), d > 5.

// maximal intervals (not recursive): one inside another is dominated
.decl interval(lo: number, hi: number)
.input interval
.decl maximal(lo: number, hi: number)
maximal(l, h) :- interval(l, h).
maximal(l1, h1) <= maximal(l2, h2) :- l2 <= l1, h1 <= h2.

.output dist, tree, far, maximal
"#;

#[test]
fn subsumption_keeps_the_best_tuples_of_recursive_and_plain_relations() {
    // s->a 4, s->b 1, b->a 2, a->c 1, b->c 5, c->s 1, c->d 3, s->e 2, b->e 1.
    let facts = [
        (
            "edge.facts",
            "s\ta\t4\ns\tb\t1\nb\ta\t2\na\tc\t1\nb\tc\t5\nc\ts\t1\nc\td\t3\ns\te\t2\nb\te\t1\n",
        ),
        ("interval.facts", "0\t10\n2\t5\n3\t12\n11\t12\n0\t10\n"),
    ];
    let out = run_stdout(LATTICES, &facts, "2");
    // s 0; b 1; a min(4, 1+2) = 3; c min(3+1, 1+5) = 4; d 4+3 = 7;
    // e min(2, 1+1) = 2; the cycle back to s gives 5, dominated by 0.
    assert_eq!(
        section(&out, "dist"),
        "a\t3\nb\t1\nc\t4\nd\t7\ne\t2\ns\t0\n"
    );
    // The same distances, with their predecessors; e is reached at 2 both
    // from s and from b, and the tie goes to the smaller name, b.
    assert_eq!(
        section(&out, "tree"),
        "a\tb\t3\nb\ts\t1\nc\ta\t4\nd\tc\t7\ne\tb\t2\ns\ts\t0\n"
    );
    // Later strata see only the surviving tuples: d at 7.
    assert_eq!(section(&out, "far"), "d\n");
    // (2,5) lies in (0,10) and (11,12) in (3,12); equal tuples are one tuple.
    assert_eq!(section(&out, "maximal"), "0\t10\n3\t12\n");
    // Deletion happens in rounds that run in parallel: the result must not
    // depend on the number of threads.
    assert_eq!(run_stdout(LATTICES, &facts, "1"), out);
}

#[test]
fn subsumption_with_anonymous_arguments_and_an_empty_body_relation() {
    // From Soufflé's own cases: `_` in the dominated atom, and a body that
    // never holds (my is empty), so nothing is deleted.
    let prog = r#"
        .decl e(x: number, y: number)
        e(1, 1). e(1, 2).
        e(_, x1) <= e(_, x2) :- x1 <= x2.
        .decl my(x: number)
        .decl mx(x: number)
        mx(1).
        mx(n) <= mx(n) :- my(n).
        .output e, mx
    "#;
    let out = run_stdout(prog, &[], "2");
    // e(1,1) is dominated by e(1,2) (1 <= 2); e(1,2) only by itself, which
    // does not count.
    assert_eq!(section(&out, "e"), "1\t2\n");
    assert_eq!(section(&out, "mx"), "1\n");
}

#[test]
fn subsumption_over_record_and_adt_patterns() {
    let prog = r#"
        .type Cost = D {w: number}
        .type Edge = [a: symbol, b: symbol]
        .decl edge(e: Edge, w: number)
        edge(["s", "t"], 10). edge(["s", "x"], 1). edge(["x", "y"], 1).
        edge(["y", "t"], 1). edge(["t", "u"], 1).
        .decl dist(e: Edge, c: Cost)
        dist(e, $D(w)) :- edge(e, w).
        dist([a, c], $D(w + v)) :- dist([a, b], $D(w)), edge([b, c], v).
        dist([a, b], $D(w)) <= dist([a, b], $D(v)) :- v < w.
        .output dist
    "#;
    // Cheapest costs: s->t is 10 directly but 3 by s->x->y->t, found two
    // iterations later, so a new tuple deletes an older one (and s->u, 11
    // by then, gives way to 4). Both atoms are record and ADT patterns.
    let out = run_stdout(prog, &[], "2");
    assert_eq!(
        section(&out, "dist"),
        "[s, t]\t$D(3)\n[s, u]\t$D(4)\n[s, x]\t$D(1)\n[s, y]\t$D(2)\n\
         [t, u]\t$D(1)\n[x, t]\t$D(2)\n[x, u]\t$D(3)\n[x, y]\t$D(1)\n\
         [y, t]\t$D(1)\n[y, u]\t$D(2)\n"
    );
}

#[test]
fn subsumption_errors_are_one_line_with_position() {
    assert_fails(
        ".decl a(x: number)\n.decl b(x: number)\na(x) <= b(y) :- x < y.\n",
        &[
            "p.dl:3:1:",
            "Subsumption must compare tuples from the same relation",
        ],
    );
    assert_fails(
        ".decl a()\na() <= a() :- true.\n",
        &[
            "p.dl:1:1:",
            "Subsumptive relation \"a\" must not be a nullary relation",
        ],
    );
    assert_fails(
        ".decl a(x: number, y: number) eqrel\na(x, y) <= a(y, x) :- x < y.\n",
        &["p.dl:1:1:", "subsumptive rules", "btree_delete"],
    );
}

// -------------------------------------------------------------------- autoinc

const NUMBERING: &str = r#"
.decl function(f: symbol)
.decl block(b: symbol)
.decl call(f: symbol, g: symbol)
.input function, block, call

// number every function, then every block, from one counter
.decl fn_id(f: symbol, id: number)
fn_id(f, autoinc()) :- function(f).
.decl block_id(b: symbol, id: number)
block_id(b, autoinc()) :- block(b).

.decl id(i: number)
id(i) :- fn_id(_, i).
id(i) :- block_id(_, i).
.decl summary(n: number, lo: number, hi: number)
summary(n, lo, hi) :- n = count : { id(_) }, lo = min i : { id(i) }, hi = max i : { id(i) }.
.decl shared(i: number)
shared(i) :- fn_id(f, i), fn_id(g, i), f != g.
shared(i) :- fn_id(_, i), block_id(_, i).

// the call graph over the numbers
.decl call_id(a: number, b: number)
call_id(a, b) :- call(f, g), fn_id(f, a), fn_id(g, b).
.decl calls(n: number)
calls(n) :- n = count : { call_id(_, _) }.
.output summary, shared, calls, fn_id, block_id
"#;

#[test]
fn autoinc_numbers_tuples_from_one_counter() {
    let facts = [
        ("function.facts", "main\nparse\nlex\n"),
        ("block.facts", "bb0\nbb1\n"),
        ("call.facts", "main\tparse\nparse\tlex\nlex\tparse\n"),
    ];
    let out = run_stdout(NUMBERING, &facts, "2");
    // One counter for the whole program, starting at 0: five derivations
    // take 0..4, each once. Which tuple gets which number depends on the
    // evaluation order (Soufflé's differs), so only that is checked.
    assert_eq!(section(&out, "summary"), "5\t0\t4\n");
    assert_eq!(section(&out, "shared"), "");
    assert_eq!(section(&out, "fn_id").lines().count(), 3);
    assert_eq!(section(&out, "calls"), "3\n");
    // The numbering is the same whatever the number of threads.
    assert_eq!(run_stdout(NUMBERING, &facts, "1"), out);
    assert_eq!(run_stdout(NUMBERING, &facts, "4"), out);
}

#[test]
fn autoinc_inside_record_terms() {
    let prog = r#"
        .type Tagged = [id: number, name: symbol]
        .decl name(n: symbol)
        name("a"). name("b"). name("c").
        .decl numbered(i: number, n: symbol)
        numbered(autoinc(), n) :- name(n).
        .decl tagged(t: Tagged)
        tagged([i, n]) :- numbered(i, n).
        .decl ids(i: number)
        ids(i) :- tagged([i, _]).
        .decl names(n: symbol)
        names(n) :- tagged([_, n]).
        .output ids, names
    "#;
    // three derivations take 0, 1, 2 (in some order), one per name
    let out = run_stdout(prog, &[], "2");
    assert_eq!(section(&out, "ids"), "0\n1\n2\n");
    assert_eq!(section(&out, "names"), "a\nb\nc\n");
    // as in Soufflé, the counter grounds nothing: neither a record holding
    // it nor a variable equated with it has a value
    assert_fails(
        ".type T = [a: number]\n.decl n(x: number)\nn(1).\n.decl a(x: T)\na([autoinc()]) :- n(_).\n",
        &["p.dl:5:3:", "Ungrounded record"],
    );
    assert_fails(
        ".type E = B {a: number}\n.decl n(x: number)\nn(1).\n.decl a(x: E)\na($B(autoinc())) :- n(_).\n",
        &["p.dl:5:3:", "Ungrounded ADT branch"],
    );
    assert_fails(
        ".decl n(x: number)\nn(1).\n.decl a(x: number)\na(x) :- n(_), x = autoinc() + 1.\n",
        &["p.dl:4:", "Ungrounded variable x"],
    );
    // the restrictions see a call inside a record too
    assert_fails(
        ".type T = [a: number]\n.decl a(x: T)\na([autoinc()]).\n",
        &["p.dl:3:4:", "Argument in fact is not constant"],
    );
    assert_fails(
        ".type T = [a: number]\n.decl a(x: T)\na([1]).\na([autoinc() + 1]) :- a([1]), a([2]).\n",
        &["p.dl:4:3:", "Ungrounded record"],
    );
    // `$` is the same counter (Soufflé's deprecated spelling)
    assert_fails(
        ".decl a(x: number)\na($).\n",
        &["p.dl:2:3:", "Argument in fact is not constant"],
    );
}

#[test]
fn autoinc_errors_are_one_line_with_position() {
    // As in Soufflé: a recursive rule would number new tuples forever.
    assert_fails(
        ".decl a(x: number)\na(1).\na(autoinc()) :- a(1).\n",
        &["p.dl:3:3:", "Auto-increment functor in a recursive rule"],
    );
    assert_fails(
        ".decl a(x: number)\na(autoinc()).\n",
        &["p.dl:2:3:", "Argument in fact is not constant"],
    );
    assert_fails(
        ".decl a(x: number)\n.decl b(x: number)\nb(1).\na(autoinc(1)) :- b(1).\n",
        &["p.dl:4:3:", "autoinc", "no arguments"],
    );
    // Inlining would call the counter once per use of the relation.
    assert_fails(
        ".decl a(x: number) inline\n.decl b(x: number)\nb(1).\na(autoinc()) :- b(1).\n\
         .decl c(x: number)\nc(x) :- a(x).\n.output c\n",
        &[
            "p.dl:4:3:",
            "Cannot inline clause containing a counter argument",
        ],
    );
}
