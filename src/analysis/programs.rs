//! Where a rule program's text comes from: the rule files built into the binary (every
//! `.dl` under `rules/`, embedded by `build.rs`), a user's file, or a built-in program with
//! user files added. Knows no analysis by name.
//!
//! Built-in programs keep their repository paths (`rules/checks.dl`), so their
//! `#include "../schema/llfacts.dl"` resolves against the generated schema exactly as it
//! does for `souffle -F facts rules/checks.dl` run from the repository root.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::engine::Program;
use crate::facts::schema;

include!(concat!(env!("OUT_DIR"), "/rule_files.rs"));

#[derive(Clone, Debug)]
enum Entry {
    Builtin(&'static str),
    File(PathBuf),
}

/// A rule program: its entry file, and user files included after it (more models, more
/// rules), with preprocessor definitions made before it (Soufflé's `-M`).
#[derive(Clone, Debug)]
pub struct RuleSource {
    entry: Entry,
    extra: Vec<PathBuf>,
    defines: Vec<(String, String)>,
}

impl RuleSource {
    /// A built-in program, by repository path (`rules/checks.dl`).
    pub fn builtin(path: &'static str) -> RuleSource {
        RuleSource {
            entry: Entry::Builtin(path),
            extra: vec![],
            defines: vec![],
        }
    }

    pub fn file(path: PathBuf) -> RuleSource {
        RuleSource {
            entry: Entry::File(path),
            extra: vec![],
            defines: vec![],
        }
    }

    /// The program with `extra` files included after it.
    pub fn with(mut self, extra: &[PathBuf]) -> RuleSource {
        self.extra.extend_from_slice(extra);
        self
    }

    /// The program with `#define NAME VALUE` for each pair before its text.
    pub fn defining(mut self, defines: Vec<(String, String)>) -> RuleSource {
        self.defines.extend(defines);
        self
    }

    /// Whether the entry file is read through a wrapper (user files, definitions).
    fn wrapped(&self) -> bool {
        !self.extra.is_empty() || !self.defines.is_empty()
    }

    /// The entry's path: a repository path for built-in programs.
    fn entry_path(&self) -> String {
        match &self.entry {
            Entry::Builtin(path) => path.to_string(),
            Entry::File(path) => path.display().to_string(),
        }
    }
}

impl fmt::Display for RuleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, value) in &self.defines {
            write!(f, "-M{name}={value} ")?;
        }
        write!(f, "{}", self.entry_path())?;
        self.extra
            .iter()
            .try_for_each(|e| write!(f, " + {}", e.display()))
    }
}

/// Every embedded file a built-in program may include: the rules and the generated schema.
fn files() -> BTreeMap<String, String> {
    let mut files: BTreeMap<String, String> = RULE_FILES
        .iter()
        .map(|(path, text)| (path.to_string(), text.to_string()))
        .collect();
    for (name, text) in schema::files() {
        files.insert(format!("schema/{name}"), text);
    }
    files
}

/// The built-in files laid out under `scratch/tree` (once).
fn tree(scratch: &Path) -> Result<PathBuf> {
    let tree = scratch.join("tree");
    if !tree.exists() {
        for (path, text) in files() {
            write(&tree.join(&path), &text)?;
        }
    }
    Ok(tree)
}

fn write(dest: &Path, text: &str) -> Result<()> {
    std::fs::create_dir_all(dest.parent().expect("a relative path"))?;
    std::fs::write(dest, text).with_context(|| format!("writing {}", dest.display()))
}

/// Parses and checks a program with the builtin engine's front end. Built-in programs and
/// their includes are read from memory; user files (and what they include) from the disk.
pub fn parse(source: &RuleSource) -> Result<Program> {
    if source.wrapped() {
        let scratch = tempfile::Builder::new()
            .prefix("llfacts-")
            .tempdir()
            .context("creating a scratch directory")?;
        return Program::from_file(on_disk(source, scratch.path())?);
    }
    match &source.entry {
        Entry::File(path) => Program::from_file(path),
        Entry::Builtin(path) => Program::from_files(path, &files()),
    }
}

/// The program as a file that `souffle` can read: built-in programs are laid
/// out under `scratch` with their includes (once), user files are used where they are.
pub fn on_disk(source: &RuleSource, scratch: &Path) -> Result<PathBuf> {
    let entry = match &source.entry {
        Entry::File(path) if !source.wrapped() => return Ok(path.clone()),
        Entry::File(path) => std::path::absolute(path)
            .with_context(|| format!("{}: cannot resolve", path.display()))?,
        Entry::Builtin(path) => tree(scratch)?.join(path),
    };
    if !source.wrapped() {
        return Ok(entry);
    }
    // A wrapper beside the entry program makes the definitions, includes it, then each
    // user file.
    let wrapper = tree(scratch)?.join("rules/extended.dl");
    write(&wrapper, &wrapper_text(&source.defines, &entry, &source.extra)?)?;
    Ok(wrapper)
}

/// A program that makes `defines`, then includes `entry` and each of `extra`.
fn wrapper_text(defines: &[(String, String)], entry: &Path, extra: &[PathBuf]) -> Result<String> {
    let mut text = String::new();
    for (name, value) in defines {
        text += &format!("#define {name} {value}\n");
    }
    text += &format!("#include \"{}\"\n", entry.display());
    for file in extra {
        let file = std::path::absolute(file)
            .with_context(|| format!("{}: cannot resolve", file.display()))?;
        if !file.is_file() {
            anyhow::bail!("{}: no such rule file", file.display());
        }
        text += &format!("#include \"{}\"\n", file.display());
    }
    Ok(text)
}

/// Soufflé's `-M` definitions (`"A=1 B=2"`; a name alone is defined as 1) as (name,
/// value) pairs; an error names a definition that is not `NAME` or `NAME=VALUE`.
pub fn parse_macros(text: &str) -> Result<Vec<(String, String)>> {
    text.split_whitespace()
        .map(|d| {
            let (name, value) = d.split_once('=').unwrap_or((d, "1"));
            let ident = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !ident {
                anyhow::bail!("-M: `{d}` is no macro definition (NAME=VALUE)");
            }
            Ok((name.to_string(), value.to_string()))
        })
        .collect()
}

/// A program file that makes `defines` and then includes `program`, written into `dir`.
pub fn defining(program: &Path, defines: &[(String, String)], dir: &Path) -> Result<PathBuf> {
    let program = std::path::absolute(program)
        .with_context(|| format!("{}: cannot resolve", program.display()))?;
    let wrapper = dir.join("defined.dl");
    write(&wrapper, &wrapper_text(defines, &program, &[])?)?;
    Ok(wrapper)
}
