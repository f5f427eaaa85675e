//! A fact set, held in memory (extracted by this run) or in a directory of `.facts` files
//! (from `llfacts extract` or another producer).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};

use super::buf::FactBuf;
use super::registry;
use super::writer::{FactDir, cause};

pub enum FactSet {
    Memory(FactBuf),
    Dir(PathBuf),
}

impl FactSet {
    /// An existing fact directory; it must exist.
    pub fn dir(dir: &Path) -> Result<FactSet> {
        if !dir.is_dir() {
            bail!("{}: not a fact directory", dir.display());
        }
        Ok(FactSet::Dir(dir.to_path_buf()))
    }

    /// The text of relation `name`'s file: one tuple per line, escaped fields, tab-separated.
    /// In memory, a relation llfacts does not produce is an error.
    pub fn text(&self, name: &str) -> Result<Cow<'_, str>> {
        match self {
            FactSet::Memory(buf) => {
                let i = registry::index_of(name).ok_or_else(|| {
                    anyhow!("rules read relation `{name}`, which llfacts does not produce")
                })?;
                Ok(Cow::Borrowed(
                    std::str::from_utf8(buf.buffer(i)).expect("escaped facts are UTF-8"),
                ))
            }
            FactSet::Dir(dir) => {
                let path = dir.join(format!("{name}.facts"));
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| anyhow!("{}: {}", path.display(), cause(&e)))?;
                Ok(Cow::Owned(text))
            }
        }
    }

    /// A relation's tuples as rows of (escaped) fields.
    pub fn rows(&self, name: &str) -> Result<Vec<Vec<String>>> {
        Ok(split_rows(&self.text(name)?))
    }

    /// Calls `f` with each tuple's fields (escaped), without copying them.
    pub fn for_each_row(&self, name: &str, mut f: impl FnMut(&[&str]) -> Result<()>) -> Result<()> {
        let text = self.text(name)?;
        let mut fields = Vec::new();
        for line in text.lines() {
            fields.clear();
            fields.extend(split_fields(line));
            f(&fields)?;
        }
        Ok(())
    }

    /// A directory holding these facts: the directory itself, or `scratch` written once.
    pub fn on_disk(&self, scratch: &Path) -> Result<PathBuf> {
        match self {
            FactSet::Dir(dir) => Ok(dir.clone()),
            FactSet::Memory(buf) => {
                if !scratch.exists() {
                    let mut out = FactDir::create(scratch)?;
                    out.append(buf)?;
                    out.commit()?;
                }
                Ok(scratch.to_path_buf())
            }
        }
    }
}

/// Tab-separated lines as rows of fields: the fact format and Soufflé's output format alike.
pub fn split_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|l| split_fields(l).map(str::to_string).collect())
        .collect()
}

fn split_fields(line: &str) -> std::str::Split<'_, char> {
    line.split('\t')
}
