//! Compiles `src/extract/attr_text.cpp`, `src/extract/shards.cpp` and
//! `src/extract/metadata.cpp`, the C++ entry points
//! the extractor needs (see there), against the same LLVM as llvm-sys; and embeds the rule
//! files of `rules/` with a typed row struct per declared relation (`analysis::programs`,
//! `analysis::rows`), so that a new rule file needs no list to be edited.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    embed_rules();
    let prefix = std::env::var("LLVM_SYS_221_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    println!("cargo:rerun-if-env-changed=LLVM_SYS_221_PREFIX");
    println!("cargo:rerun-if-changed=src/extract/attr_text.cpp");
    println!("cargo:rerun-if-changed=src/extract/shards.cpp");
    println!("cargo:rerun-if-changed=src/extract/metadata.cpp");
    let mut build = cc::Build::new();
    // A fresh machine has gcc but maybe no g++; LLVM's own clang++ comes with clang-22.
    let clangxx = std::path::Path::new(&prefix).join("bin/clang++");
    if std::env::var_os("CXX").is_none() && clangxx.exists() {
        build.compiler(clangxx);
    }
    build
        .cpp(true)
        .std("c++17")
        .include(format!("{prefix}/include"))
        .extra_warnings(false)
        .flag_if_supported("-fno-exceptions")
        .define("_GNU_SOURCE", None)
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        .file("src/extract/attr_text.cpp")
        .file("src/extract/shards.cpp")
        .file("src/extract/metadata.cpp")
        .compile("llfacts_attr_text");
}

/// Every `.dl` file under `rules/`, by repository path (`rules/lib/models.dl`), sorted.
fn rule_files() -> Vec<(String, PathBuf)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).expect("rules/") {
            let p = e.expect("rules/").path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "dl") {
                out.push(p);
            }
        }
    }
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo"));
    let mut files = Vec::new();
    walk(&root.join("rules"), &mut files);
    let mut files: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&root).expect("under the root").to_string_lossy().replace('\\', "/");
            (rel, p)
        })
        .collect();
    files.sort();
    files
}

/// `$OUT_DIR/rule_files.rs` (the embedded texts) and `$OUT_DIR/rule_rows.rs` (a module per
/// file, `rules/lib/models.dl` → `lib_models`, with a row struct per `.decl` whose columns
/// are all of Soufflé's primitive types, and the file's `.output` relations as `OUTPUTS`).
fn embed_rules() {
    println!("cargo:rerun-if-changed=rules");
    let files = rule_files();
    let mut embedded = String::from("pub(crate) const RULE_FILES: &[(&str, &str)] = &[\n");
    let mut rows = String::new();
    for (rel, path) in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        writeln!(embedded, "    ({rel:?}, include_str!({:?})),", path.display().to_string()).unwrap();
        let text = std::fs::read_to_string(path).expect("a rule file");
        let module = rel
            .trim_start_matches("rules/")
            .trim_end_matches(".dl")
            .replace(['/', '-', '.'], "_");
        let mut decls = String::new();
        let mut outputs = Vec::new();
        for line in text.lines() {
            if let Some(decl) = row_decl(line) {
                writeln!(decls, "        {decl}").unwrap();
            }
            if let Some(rest) = line.trim().strip_prefix(".output ") {
                outputs.push(rest.split(|c: char| c.is_whitespace() || c == '(').next().unwrap());
            }
        }
        if !decls.is_empty() || !outputs.is_empty() {
            writeln!(rows, "/// Rows of `{rel}`'s relations.\npub mod {module} {{\n    /// The relations `{rel}` outputs, in its order.\n    pub const OUTPUTS: &[&str] = &{outputs:?};\n    crate::row_structs! {{\n{decls}    }}\n}}").unwrap();
        }
    }
    embedded.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo"));
    std::fs::write(out.join("rule_files.rs"), embedded).expect("OUT_DIR");
    std::fs::write(out.join("rule_rows.rs"), rows).expect("OUT_DIR");
}

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// `name(a: symbol, b: number)` for a one-line `.decl` of primitive columns.
fn row_decl(line: &str) -> Option<String> {
    let rest = line.trim().strip_prefix(".decl")?.trim();
    let (name, rest) = rest.split_once('(')?;
    let (cols, _) = rest.split_once(')')?;
    let name = name.trim();
    let mut out = Vec::new();
    for col in cols.split(',').filter(|c| !c.trim().is_empty()) {
        let (col, ty) = col.split_once(':')?;
        let ty = ty.trim();
        if !["symbol", "number", "unsigned", "float"].contains(&ty) {
            return None;
        }
        let col = col.trim();
        // Column names that are Rust keywords become raw identifiers (`r#type`).
        let raw = if KEYWORDS.contains(&col) { "r#" } else { "" };
        out.push(format!("{raw}{col}: {ty}"));
    }
    Some(format!("{name}({})", out.join(", ")))
}
