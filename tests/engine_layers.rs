//! The engine's files depend on each other one way only, and the engine
//! imports nothing from the rest of the crate (docs/engine.md, "Internal map").
//!
//! Reads every `src/engine/**/*.rs`, takes its `mod` declarations, its `use`
//! declarations and any other `super::`/`crate::`/`self::` path, resolves them
//! to engine files, and fails on a cycle or on a path that leaves the engine.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module of the engine as the path of names below `engine` (`[]` is `mod.rs`).
type Module = Vec<String>;

fn module_of(rel: &Path) -> Module {
    let mut m: Module = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if m.last().map(String::as_str) == Some("mod") {
        m.pop();
    }
    m
}

fn read_engine(dir: &Path, base: &Path, out: &mut BTreeMap<Module, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            read_engine(&path, base, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            out.insert(module_of(path.strip_prefix(base).unwrap()), text);
        }
    }
}

/// The code without comments and without the contents of string and char literals.
fn strip(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == '*' && b[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                i += if b[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && next == Some('\\') {
            // escaped char literal: skip to the closing quote
            i += 2;
            while i < b.len() && b[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else if c == '\'' && b.get(i + 2) == Some(&'\'') {
            i += 3;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Expand one `use` tree (`a::{b, c::{d, e}}`) into flat paths of segments.
fn expand(tree: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let mut head: Vec<String> = prefix.to_vec();
        head.extend(
            tree[..open]
                .split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from),
        );
        let inner = &tree[open + 1..tree.rfind('}').unwrap()];
        let (mut depth, mut start) = (0, 0);
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&inner[start..i], &head, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        expand(&inner[start..], &head, out);
    } else if !tree.is_empty() {
        let mut p: Vec<String> = prefix.to_vec();
        let tree = tree.split(" as ").next().unwrap();
        p.extend(tree.split("::").map(|s| s.trim().to_string()));
        out.push(p);
    }
}

/// Every path a file names: its `use` trees, and the `super::`/`crate::`/`self::` paths elsewhere.
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = String::new();
    let mut i = 0;
    while i < code.len() {
        let at_word = code[i..].starts_with("use ")
            && (i == 0 || !code[..i].ends_with(|c: char| is_ident(c) || c == ':'));
        if at_word {
            let end = i + code[i..].find(';').unwrap();
            expand(&code[i + 4..end], &[], &mut out);
            i = end + 1;
        } else {
            let c = code[i..].chars().next().unwrap();
            rest.push(c);
            i += c.len_utf8();
        }
    }
    for key in ["super::", "crate::", "self::"] {
        let mut from = 0;
        while let Some(k) = rest[from..].find(key) {
            let s = from + k;
            from = s + key.len();
            if s > 0 && rest[..s].ends_with(|c: char| is_ident(c) || c == ':') {
                continue;
            }
            let end = rest[s..]
                .find(|c: char| !(is_ident(c) || c == ':'))
                .map_or(rest.len(), |e| s + e);
            let p: Vec<String> = rest[s..end]
                .split("::")
                .filter(|x| !x.is_empty())
                .map(String::from)
                .collect();
            out.push(p);
        }
    }
    out
}

/// Inline modules (`mod tests { … }`): the code outside them, and each one's name and body.
fn inline_mods(code: &str) -> (String, Vec<(String, String)>) {
    let mut outer = String::new();
    let mut inner = Vec::new();
    let mut rest = code;
    while let Some(k) = rest.find("mod ") {
        let after = &rest[k + 4..];
        let name_len = after.find(|c: char| !is_ident(c)).unwrap_or(after.len());
        let tail = after[name_len..].trim_start();
        let word_start = k == 0 || !rest[..k].ends_with(is_ident);
        if !(word_start && name_len > 0 && tail.starts_with('{')) {
            outer.push_str(&rest[..k + 4]);
            rest = after;
            continue;
        }
        let open = rest.len() - tail.len();
        let mut depth = 0;
        let mut close = rest.len();
        for (i, c) in rest[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = open + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        outer.push_str(&rest[..k]);
        inner.push((
            after[..name_len].to_string(),
            rest[open + 1..close].to_string(),
        ));
        rest = &rest[(close + 1).min(rest.len())..];
    }
    outer.push_str(rest);
    (outer, inner)
}

/// `mod name;` declarations.
fn mods(code: &str) -> Vec<String> {
    code.lines()
        .map(str::trim)
        .filter_map(|l| {
            let l = l.strip_prefix("pub ").unwrap_or(l);
            let name = l.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_string())
        })
        .collect()
}

/// The engine module a path leads to from `at`, `None` if outside code
/// (`std`, a dependency); `Err` if it leaves the engine into the crate.
fn resolve(
    at: &Module,
    path: &[String],
    modules: &BTreeSet<Module>,
) -> Result<Option<Module>, String> {
    let mut cur = at.clone();
    let mut segs = path.iter().peekable();
    match segs.peek().map(|s| s.as_str()) {
        Some("crate") => {
            segs.next();
            if segs.next().map(String::as_str) != Some("engine") {
                return Err(path.join("::"));
            }
            cur.clear();
        }
        Some("super") => {
            while segs.peek().map(|s| s.as_str()) == Some("super") {
                segs.next();
                if cur.pop().is_none() {
                    return Err(path.join("::"));
                }
            }
        }
        Some("self") => {
            segs.next();
        }
        Some(first) => {
            let mut child = cur.clone();
            child.push(first.to_string());
            if !modules.contains(&child) {
                return Ok(None);
            }
        }
        None => return Ok(None),
    }
    for s in segs {
        let mut child = cur.clone();
        child.push(s.clone());
        if !modules.contains(&child) {
            break;
        }
        cur = child;
    }
    Ok(Some(cur))
}

/// The dependency graph of the engine's files, or the paths that leave the engine.
fn graph(files: &BTreeMap<Module, String>) -> Result<BTreeMap<Module, BTreeSet<Module>>, String> {
    let modules: BTreeSet<Module> = files.keys().cloned().collect();
    let mut deps: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    let mut escapes = Vec::new();
    for (m, text) in files {
        let code = strip(text);
        let out = deps.entry(m.clone()).or_default();
        for name in mods(&code) {
            let mut child = m.clone();
            child.push(name);
            out.insert(child);
        }
        let (code, inline) = inline_mods(&code);
        let mut named = vec![(m.clone(), code)];
        for (name, body) in inline {
            let mut inner = m.clone();
            inner.push(name);
            named.push((inner, body));
        }
        let named_paths = named
            .iter()
            .flat_map(|(at, code)| paths(code).into_iter().map(move |p| (at, p)));
        for (at, p) in named_paths {
            match resolve(at, &p, &modules) {
                Ok(Some(target)) if target != *m => {
                    out.insert(target);
                }
                Ok(_) => {}
                Err(p) => escapes.push(format!("{}: {p}", m.join("/"))),
            }
        }
    }
    if escapes.is_empty() {
        Ok(deps)
    } else {
        Err(escapes.join(", "))
    }
}

/// A cycle of the graph, if there is one.
fn find_cycle(deps: &BTreeMap<Module, BTreeSet<Module>>) -> Option<Vec<Module>> {
    fn visit(
        m: &Module,
        deps: &BTreeMap<Module, BTreeSet<Module>>,
        state: &mut BTreeMap<Module, u8>,
        stack: &mut Vec<Module>,
    ) -> Option<Vec<Module>> {
        match state.get(m) {
            Some(2) => return None,
            Some(1) => {
                let at = stack.iter().position(|x| x == m).unwrap();
                let mut cycle = stack[at..].to_vec();
                cycle.push(m.clone());
                return Some(cycle);
            }
            _ => {}
        }
        state.insert(m.clone(), 1);
        stack.push(m.clone());
        for d in deps.get(m).into_iter().flatten() {
            if let Some(c) = visit(d, deps, state, stack) {
                return Some(c);
            }
        }
        stack.pop();
        state.insert(m.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in deps.keys() {
        if let Some(c) = visit(m, deps, &mut state, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

fn show(cycle: &[Module]) -> String {
    let names: Vec<String> = cycle
        .iter()
        .map(|m| {
            if m.is_empty() {
                "mod".into()
            } else {
                m.join("/")
            }
        })
        .collect();
    names.join(" -> ")
}

fn engine_files() -> BTreeMap<Module, String> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine");
    let mut files = BTreeMap::new();
    read_engine(&base, &base, &mut files);
    files
}

fn module(s: &str) -> Module {
    s.split('/')
        .filter(|x| !x.is_empty())
        .map(String::from)
        .collect()
}

#[test]
fn engine_files_depend_one_way_and_only_on_the_engine() {
    let files = engine_files();
    assert!(files.len() > 10, "engine files not found");
    let deps = graph(&files).unwrap_or_else(|e| panic!("paths leave the engine: {e}"));
    if let Some(c) = find_cycle(&deps) {
        panic!("import cycle in src/engine: {}", show(&c));
    }
    // the planner only describes plans; evaluation owns storage
    let planner = &deps[&module("planner")];
    assert!(
        !planner.contains(&module("storage")),
        "planner imports storage"
    );
    assert!(!planner.contains(&module("eval")), "planner imports eval");
}

#[test]
fn the_layer_check_sees_cycles_and_escapes() {
    let files = |v: &[(&str, &str)]| -> BTreeMap<Module, String> {
        v.iter().map(|(m, t)| (module(m), t.to_string())).collect()
    };
    // a use tree through a parent, and a plain path in code, make a cycle
    let fs = files(&[
        ("", "mod a;\nmod b;\n"),
        (
            "a",
            "use super::{b::{self, X as Y}};\n#[cfg(test)]\nmod tests {\n    use super::super::a;\n}\n",
        ),
        ("b", "fn f() { let s = \"super::a\"; super::a::g() }\n"),
    ]);
    let c = find_cycle(&graph(&fs).unwrap()).expect("cycle");
    assert_eq!(show(&c), "a -> b -> a");
    // nested modules, `crate::engine::` and comments
    let fs = files(&[
        ("", "mod s;\nmod ir;\n"),
        ("s", "mod p;\n// use super::s::p;\n"),
        ("s/p", "use crate::engine::ir::Rule;\nuse std::fmt;\n"),
        ("ir", "use crate::engine::s::p;\n"),
    ]);
    let c = find_cycle(&graph(&fs).unwrap()).expect("cycle");
    assert_eq!(show(&c), "ir -> s/p -> ir");
    let fs = files(&[("", "mod ir;\n"), ("ir", "use crate::relations::Rel;\n")]);
    assert_eq!(graph(&fs).unwrap_err(), "ir: crate::relations::Rel");
    let fs = files(&[
        ("", "mod a;\nmod b;\n"),
        ("a", "use super::b;\n"),
        ("b", ""),
    ]);
    assert!(find_cycle(&graph(&fs).unwrap()).is_none());
}
