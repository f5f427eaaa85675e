//! The rule programs built into the binary, and where any program's text comes from.
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

/// Rule files embedded in the binary, by repository path.
const RULE_FILES: &[(&str, &str)] = &[
    ("rules/checks.dl", include_str!("../../rules/checks.dl")),
    (
        "rules/wellformed.dl",
        include_str!("../../rules/wellformed.dl"),
    ),
    ("rules/andersen.dl", include_str!("../../rules/andersen.dl")),
    (
        "rules/lib/models.dl",
        include_str!("../../rules/lib/models.dl"),
    ),
    (
        "rules/lib/andersen_prep.dl",
        include_str!("../../rules/lib/andersen_prep.dl"),
    ),
];

/// A rule program: built in (by repository path) or a user's file.
#[derive(Clone, Debug)]
pub enum RuleSource {
    Builtin(&'static str),
    File(PathBuf),
    /// A built-in program with user files included after it (more models, more rules).
    Extended(&'static str, Vec<PathBuf>),
}

impl RuleSource {
    /// A built-in program, extended by `extra` files if there are any.
    pub fn builtin_with(entry: &'static str, extra: &[PathBuf]) -> RuleSource {
        if extra.is_empty() {
            RuleSource::Builtin(entry)
        } else {
            RuleSource::Extended(entry, extra.to_vec())
        }
    }
}

impl fmt::Display for RuleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleSource::Builtin(path) => write!(f, "{path}"),
            RuleSource::File(path) => write!(f, "{}", path.display()),
            RuleSource::Extended(path, extra) => {
                write!(f, "{path}")?;
                extra
                    .iter()
                    .try_for_each(|e| write!(f, " + {}", e.display()))
            }
        }
    }
}

/// The program `llfacts analyze` evaluates before its native points-to solver: the
/// fixpoint-independent part of rules/andersen.dl, with the relations the solver reads as
/// outputs.
pub const ANDERSEN_PREP: &str = "rules/andersen_prep.generated.dl";

fn andersen_prep() -> String {
    let mut text = String::from(
        "#include \"../schema/llfacts.dl\"\n#include \"lib/models.dl\"\n#include \"lib/andersen_prep.dl\"\n",
    );
    for rel in super::andersen::PREP_OUTPUTS {
        text += &format!(".output {rel}\n");
    }
    text
}

/// Every embedded file a built-in program may include: the rules and the generated schema.
fn files() -> BTreeMap<String, String> {
    let mut files: BTreeMap<String, String> = RULE_FILES
        .iter()
        .map(|(path, text)| (path.to_string(), text.to_string()))
        .collect();
    files.insert(ANDERSEN_PREP.to_string(), andersen_prep());
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
            let dest = tree.join(&path);
            std::fs::create_dir_all(dest.parent().expect("a relative path"))?;
            std::fs::write(&dest, text).with_context(|| format!("writing {}", dest.display()))?;
        }
    }
    Ok(tree)
}

/// Parses and checks a program with the builtin engine's front end. Built-in programs and
/// their includes are read from memory; user files (and what they include) from the disk.
pub fn parse(source: &RuleSource) -> Result<Program> {
    match source {
        RuleSource::File(path) => Program::from_file(path),
        RuleSource::Builtin(entry) => Program::from_files(entry, &files()),
        RuleSource::Extended(..) => {
            let scratch = tempfile::Builder::new()
                .prefix("llfacts-")
                .tempdir()
                .context("creating a scratch directory")?;
            Program::from_file(on_disk(source, scratch.path())?)
        }
    }
}

/// The program as a file that `souffle` can read: built-in programs are laid out under
/// `scratch` with their includes (once), user files are used where they are.
pub fn on_disk(source: &RuleSource, scratch: &Path) -> Result<PathBuf> {
    match source {
        RuleSource::File(path) => Ok(path.clone()),
        RuleSource::Builtin(entry) => Ok(tree(scratch)?.join(entry)),
        RuleSource::Extended(entry, extra) => {
            // A wrapper beside the entry program includes it, then each user file.
            let tree = tree(scratch)?;
            let mut text = format!("#include \"{}\"\n", tree.join(entry).display());
            for file in extra {
                let file = std::path::absolute(file)
                    .with_context(|| format!("{}: cannot resolve", file.display()))?;
                if !file.is_file() {
                    anyhow::bail!("{}: no such rule file", file.display());
                }
                text += &format!("#include \"{}\"\n", file.display());
            }
            let wrapper = tree.join("extended.dl");
            std::fs::write(&wrapper, text)
                .with_context(|| format!("writing {}", wrapper.display()))?;
            Ok(wrapper)
        }
    }
}
