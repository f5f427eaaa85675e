//! The module graph of a source tree, from its `mod` declarations, `use`s and paths: for
//! the layer tests (`architecture.rs`, `engine_layers.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module as the path of names below its tree's root (`[]` is the root's `mod.rs`).
pub type Module = Vec<String>;

pub fn module_of(rel: &Path) -> Module {
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

/// Every `.rs` file under `dir`, by module.
pub fn read_tree(dir: &Path, base: &Path, out: &mut BTreeMap<Module, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            read_tree(&path, base, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            out.insert(module_of(path.strip_prefix(base).unwrap()), text);
        }
    }
}

/// The code without comments and without the contents of string and char literals.
pub fn strip(src: &str) -> String {
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

pub fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Expand one `use` tree (`a::{b, c::{d, e}}`) into flat paths of segments.
pub fn expand(tree: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
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
pub fn paths(code: &str) -> Vec<Vec<String>> {
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
pub fn inline_mods(code: &str) -> (String, Vec<(String, String)>) {
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
pub fn mods(code: &str) -> Vec<String> {
    code.lines()
        .map(str::trim)
        .filter_map(|l| {
            let l = l.strip_prefix("pub ").unwrap_or(l);
            let name = l.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_string())
        })
        .collect()
}

/// The module a path leads to from `at`, `None` if outside code (`std`, a dependency);
/// `Err` if it leaves the tree, whose root is `crate::<root>` (`root` empty: the crate).
fn resolve(
    at: &Module,
    path: &[String],
    modules: &BTreeSet<Module>,
    root: &[&str],
) -> Result<Option<Module>, String> {
    let mut cur = at.clone();
    let mut segs = path.iter().peekable();
    match segs.peek().map(|s| s.as_str()) {
        Some("crate") => {
            segs.next();
            for r in root {
                if segs.next().map(String::as_str) != Some(*r) {
                    return Err(path.join("::"));
                }
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

/// The dependency graph of a tree's files (`mod` declarations, `use`s and paths), or the
/// paths that leave it; `root` as for `resolve`.
pub fn graph(
    files: &BTreeMap<Module, String>,
    root: &[&str],
) -> Result<BTreeMap<Module, BTreeSet<Module>>, String> {
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
            match resolve(at, &p, &modules, root) {
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
pub fn find_cycle(deps: &BTreeMap<Module, BTreeSet<Module>>) -> Option<Vec<Module>> {
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

pub fn show(cycle: &[Module]) -> String {
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

pub fn module(s: &str) -> Module {
    s.split('/')
        .filter(|x| !x.is_empty())
        .map(String::from)
        .collect()
}
