//! Soufflé's warnings, in its words and its format: deprecated syntax (noted
//! by the parser), `.pragma` keys set twice or unknown, relations with no
//! rules or facts, `btree_delete` relations with no subsumptive rule, and
//! variables that occur only once (or, named `_x`, more than once). They change
//! nothing; the caller decides whether to print them (`llfacts run
//! --no-warn` does not).
//!
//! Each is rendered as Soufflé prints it: `Warning: MESSAGE in file F at line
//! L`, the source line, and a line of `-` with `^` under the column; sorted
//! by position, duplicates dropped.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::decls::Decls;
use super::scope::lit_terms;
use crate::engine::ast::{Atom, Loc, Source, Term};

/// Soufflé's options, which `.pragma` may set; other keys get a warning.
pub const PRAGMA_KEYS: [&str; 24] = [
    "auto-schedule",
    "compile",
    "debug-report",
    "disable-transformers",
    "dl-program",
    "fact-dir",
    "generate",
    "include-dir",
    "index-stats",
    "inline-exclude",
    "jobs",
    "legacy",
    "libraries",
    "library-dir",
    "macro",
    "magic-transform",
    "magic-transform-exclude",
    "no-preprocessor",
    "no-warn",
    "output-dir",
    "profile",
    "provenance",
    "show",
    "verbose",
];

/// One warning: a message at a position, and further notes (message and
/// position) printed after it.
struct Warning {
    loc: Loc,
    msg: String,
    notes: Vec<(String, Loc)>,
}

/// The warnings of `src` (components already expanded), rendered.
pub fn collect(src: &Source, decls: &Decls) -> Vec<String> {
    let mut out = Vec::new();
    // as in Soufflé, `.pragma "legacy"` silences the deprecation warnings
    if !src.pragmas.iter().any(|(k, _, _)| k == "legacy") {
        for (loc, msg) in &src.deprecated {
            out.push(warn(loc, msg.clone()));
        }
    }
    pragmas(src, &mut out);
    relations(src, decls, &mut out);
    singletons(src, &mut out);
    out.sort_by(|a, b| {
        let key = |w: &Warning| (w.loc.file.clone(), w.loc.line, w.loc.col);
        key(a).cmp(&key(b)).then_with(|| a.msg.cmp(&b.msg))
    });
    let mut rendered: Vec<String> = out.iter().map(|w| render(w, &src.texts)).collect();
    rendered.dedup();
    rendered
}

fn warn(loc: &Loc, msg: String) -> Warning {
    Warning {
        loc: loc.clone(),
        msg,
        notes: vec![],
    }
}

fn pragmas(src: &Source, out: &mut Vec<Warning>) {
    let mut seen: HashMap<&str, &Loc> = HashMap::new();
    for (k, _, loc) in &src.pragmas {
        if !PRAGMA_KEYS.contains(&k.as_str()) {
            out.push(warn(loc, format!("unknown pragma key `{k}` (ignored)")));
        }
        if let Some(prev) = seen.insert(k, loc) {
            out.push(Warning {
                loc: loc.clone(),
                msg: format!("overriding previous pragma for key `{k}`"),
                notes: vec![(format!("previous pragma for key `{k}`"), prev.clone())],
            });
        }
    }
}

/// `No rules/facts defined for relation R` (not for inputs), and `No
/// subsumptive rule for relation R` (a `btree_delete` relation without one).
fn relations(src: &Source, decls: &Decls, out: &mut Vec<Warning>) {
    let mut defined: HashSet<&str> = src
        .clauses
        .iter()
        .flat_map(|c| c.heads.iter().map(|h| h.name.as_str()))
        .collect();
    let subsumed: HashSet<&str> = src
        .subsumptions
        .iter()
        .map(|s| s.dominated.name.as_str())
        .collect();
    defined.extend(subsumed.iter().copied());
    for d in &src.decls {
        let input = decls
            .rel_index
            .get(&d.name)
            .is_some_and(|r| !decls.rels[*r].inputs.is_empty());
        if !defined.contains(d.name.as_str()) && !input {
            out.push(warn(
                &d.name_loc,
                format!("No rules/facts defined for relation {}", d.name),
            ));
        }
        if d.qualifiers.iter().any(|(q, _)| q == "btree_delete")
            && !subsumed.contains(d.name.as_str())
        {
            out.push(warn(
                &d.name_loc,
                format!("No subsumptive rule for relation {}", d.name),
            ));
        }
    }
}

/// One clause as Soufflé sees it: a head and the body literals' terms (a
/// subsumptive rule `R(a) <= R(b) :- body` has head `R(a)` and body
/// `R(a), R(b), body`).
struct Flat<'a> {
    head: &'a Atom,
    body: Vec<&'a Term>,
}

/// `Variable x only occurs once`: over the clauses of one rule (several heads,
/// or the alternatives of a disjunction), a variable that is in no head and
/// at most once in each body, at its first position; and `Variable _x marked
/// as singleton but occurs more than once` per clause, at its last position.
/// Names starting with `_` are never singletons.
fn singletons(src: &Source, out: &mut Vec<Warning>) {
    // clauses of one rule share their position, as in Soufflé
    let mut rules: BTreeMap<(String, u32, u32), Vec<Flat<'_>>> = BTreeMap::new();
    let key = |l: &Loc| (l.file.to_string(), l.line, l.col);
    for c in &src.clauses {
        for h in &c.heads {
            let body = c.body.iter().flat_map(lit_terms).collect();
            rules
                .entry(key(&c.loc))
                .or_default()
                .push(Flat { head: h, body });
        }
    }
    for s in &src.subsumptions {
        let mut body: Vec<&Term> = s.dominated.args.iter().collect();
        body.extend(&s.dominating.args);
        body.extend(s.body.iter().flat_map(lit_terms));
        rules.entry(key(&s.loc)).or_default().push(Flat {
            head: &s.dominated,
            body,
        });
    }
    for flats in rules.values() {
        let mut in_head: HashSet<String> = HashSet::new();
        for f in flats {
            for t in &f.head.args {
                var_locs(t, &mut |v, _| {
                    in_head.insert(v.to_string());
                });
            }
        }
        let mut more_than_once: HashSet<String> = HashSet::new();
        let mut once: BTreeSet<String> = BTreeSet::new();
        let mut first: HashMap<String, Loc> = HashMap::new();
        for f in flats {
            let mut count: BTreeMap<String, usize> = BTreeMap::new();
            for t in &f.body {
                var_locs(t, &mut |v, l| {
                    *count.entry(v.to_string()).or_default() += 1;
                    let e = first.entry(v.to_string()).or_insert_with(|| l.clone());
                    if (l.line, l.col) < (e.line, e.col) {
                        *e = l.clone();
                    }
                });
            }
            for (v, n) in count {
                if v.starts_with('_') || in_head.contains(&v) {
                    continue;
                }
                if n == 1 && !more_than_once.contains(&v) {
                    once.insert(v);
                } else {
                    once.remove(&v);
                    more_than_once.insert(v);
                }
            }
        }
        for v in once {
            out.push(warn(&first[&v], format!("Variable {v} only occurs once")));
        }
        // `_x` used as a variable
        for f in flats {
            let mut count: BTreeMap<String, (usize, Loc)> = BTreeMap::new();
            let terms = f.head.args.iter().chain(f.body.iter().copied());
            for t in terms {
                var_locs(t, &mut |v, l| {
                    if v.starts_with('_') {
                        let e = count.entry(v.to_string()).or_insert((0, l.clone()));
                        e.0 += 1;
                        e.1 = l.clone();
                    }
                });
            }
            for (v, (n, l)) in count {
                if n > 1 {
                    out.push(warn(
                        &l,
                        format!("Variable {v} marked as singleton but occurs more than once"),
                    ));
                }
            }
        }
    }
}

/// Every variable occurrence in `t` (aggregates included), with its position.
fn var_locs(t: &Term, f: &mut dyn FnMut(&str, &Loc)) {
    match t {
        Term::Var(v, l) => f(v, l),
        Term::Agg(agg) => {
            if let Some(tg) = &agg.target {
                var_locs(tg, f);
            }
            for l in &agg.body {
                for t in lit_terms(l) {
                    var_locs(t, f);
                }
            }
        }
        Term::Bin(_, a, b, _) => {
            var_locs(a, f);
            var_locs(b, f);
        }
        Term::Un(_, a, _) | Term::As(a, _, _) => var_locs(a, f),
        Term::Call(_, args, _) | Term::Record(args, _) | Term::Branch(_, args, _) => {
            args.iter().for_each(|a| var_locs(a, f))
        }
        _ => {}
    }
}

/// `Warning: MSG in file F at line L`, the line, and the caret line; each
/// note the same way without `Warning: `.
fn render(w: &Warning, texts: &BTreeMap<String, String>) -> String {
    let mut s = format!("Warning: {} in {}\n", w.msg, extloc(&w.loc, texts));
    for (msg, loc) in &w.notes {
        s.push_str(&format!("{msg} in {}\n", extloc(loc, texts)));
    }
    s
}

/// Soufflé's extended location: the file and line, the source line, and a
/// line of `-` as long as the line plus one with `^` at the column; only
/// `F:L:C` when the file is not at hand.
fn extloc(loc: &Loc, texts: &BTreeMap<String, String>) -> String {
    // a line past the end (after `#line`) shows empty, as in Soufflé
    let line = texts.get(&*loc.file).map(|t| {
        t.split('\n')
            .nth(loc.line.saturating_sub(1) as usize)
            .unwrap_or("")
    });
    let Some(line) = line else {
        return format!("{}:{}:{}", loc.file, loc.line, loc.col);
    };
    let line = line.strip_suffix('\r').unwrap_or(line);
    let carets: String = (1..=line.chars().count() + 1)
        .map(|i| if i == loc.col as usize { '^' } else { '-' })
        .collect();
    format!("file {} at line {}\n{line}\n{carets}", loc.file, loc.line)
}
