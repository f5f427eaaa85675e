//! A fact set, held in memory (extracted by this run) or in a directory of `.facts` files
//! (from `llfacts extract` or another producer).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Result, anyhow, bail};

use super::buf::FactBuf;
use super::registry;
use super::row::{self, Row};
use super::writer::{FactDir, cause};

pub enum FactSet {
    Memory(FactBuf),
    /// A directory; each relation's file is read once, on first use.
    Dir(PathBuf, Vec<OnceLock<String>>),
}

impl FactSet {
    /// An existing fact directory, as `llfacts extract` writes it: a file for every relation.
    pub fn dir(dir: &Path) -> Result<FactSet> {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| anyhow!("{}: not a fact directory: {}", dir.display(), cause(&e)))?;
        let present: std::collections::HashSet<std::ffi::OsString> =
            entries.filter_map(|e| Some(e.ok()?.file_name())).collect();
        let missing: Vec<&str> = (registry::RELATIONS.iter().map(|r| r.name))
            .filter(|name| !present.contains(std::ffi::OsStr::new(&format!("{name}.facts"))))
            .collect();
        match missing.as_slice() {
            [] => {}
            _ if missing.len() == registry::count() => {
                bail!("{}: not a fact directory: no .facts file of llfacts", dir.display())
            }
            [first, rest @ ..] => bail!(
                "{}: incomplete fact directory: no {first}.facts{} (extract it again with this llfacts)",
                dir.display(),
                match rest.len() {
                    0 => String::new(),
                    n => format!(" and {n} more"),
                }
            ),
        }
        let texts = (0..registry::count()).map(|_| OnceLock::new()).collect();
        Ok(FactSet::Dir(dir.to_path_buf(), texts))
    }

    /// The text of relation `name`'s file: one tuple per line, escaped fields, tab-separated.
    pub fn text(&self, name: &str) -> Result<&str> {
        let i = registry::index_of(name)
            .ok_or_else(|| anyhow!("rules read relation `{name}`, which llfacts does not produce"))?;
        match self {
            FactSet::Memory(buf) => {
                Ok(std::str::from_utf8(buf.buffer(i)).expect("escaped facts are UTF-8"))
            }
            FactSet::Dir(dir, texts) => {
                if let Some(text) = texts[i].get() {
                    return Ok(text);
                }
                let path = dir.join(format!("{name}.facts"));
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| anyhow!("{}: {}", path.display(), cause(&e)))?;
                Ok(texts[i].get_or_init(|| text))
            }
        }
    }

    /// A relation's tuples as typed rows: `facts.rows::<rows::instr_function>()`.
    pub fn rows<'f, R: Row<'f>>(&'f self) -> Result<impl Iterator<Item = Result<R>> + 'f> {
        Ok(row::parse(self.text(R::RELATION)?))
    }

    /// Calls `f` with each tuple's fields (escaped), without copying them: for relations
    /// chosen at run time (a program's inputs).
    pub fn for_each_row(&self, name: &str, mut f: impl FnMut(&[&str]) -> Result<()>) -> Result<()> {
        let mut fields = Vec::new();
        for line in self.text(name)?.lines() {
            fields.clear();
            fields.extend(row::split_fields(line));
            f(&fields)?;
        }
        Ok(())
    }

    /// A directory holding these facts (as `on_disk` gives them) and the `extra` relations'
    /// files (relation → its text), made under `tmp` as links to the facts' files; it stays
    /// until `tmp` is removed.
    pub fn on_disk_with(
        &self,
        scratch: &Path,
        extra: &std::collections::BTreeMap<String, String>,
        tmp: &Path,
    ) -> Result<PathBuf> {
        let facts = self.on_disk(scratch)?;
        let dir = tempfile::Builder::new()
            .prefix("facts")
            .tempdir_in(tmp)
            .map_err(|e| anyhow!("{}: {}", tmp.display(), cause(&e)))?
            .keep();
        let read = |e: std::io::Error| anyhow!("{}: {}", facts.display(), cause(&e));
        for entry in std::fs::read_dir(&facts).map_err(read)? {
            let entry = entry.map_err(read)?;
            let file = std::path::absolute(entry.path()).map_err(read)?;
            std::os::unix::fs::symlink(&file, dir.join(entry.file_name())).map_err(read)?;
        }
        for (name, text) in extra {
            let path = dir.join(format!("{name}.facts"));
            let _ = std::fs::remove_file(&path);
            std::fs::write(&path, text).map_err(|e| anyhow!("{}: {}", path.display(), cause(&e)))?;
        }
        Ok(dir)
    }

    /// A directory holding these facts: the directory itself, or `scratch` written once.
    pub fn on_disk(&self, scratch: &Path) -> Result<PathBuf> {
        match self {
            FactSet::Dir(dir, _) => Ok(dir.clone()),
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
