//! Output directories: one `<relation>.facts` file per relation (or `<relation>.csv` for
//! analysis results), written into a fresh directory beside the destination and renamed into
//! place only when everything succeeded.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};

use crate::facts::buf::FactBuf;
use crate::facts::registry::RELATIONS;

pub struct FactDir {
    dest: PathBuf,
    tmp: PathBuf,
    /// File names and writers, in registry order for fact directories.
    files: Vec<(String, BufWriter<File>)>,
    counts: Vec<u64>,
    committed: bool,
}

impl FactDir {
    /// Prepares a temporary directory next to `dest` holding an empty file per relation.
    pub fn create(dest: &Path) -> Result<FactDir> {
        Self::with_files(dest, RELATIONS.iter().map(|r| format!("{}.facts", r.name)))
    }

    /// The same with the given file names.
    fn with_files(dest: &Path, names: impl Iterator<Item = String>) -> Result<FactDir> {
        let shown = dest.display();
        if dest.exists() && !dest.is_dir() {
            bail!("{shown}: exists and is not a directory");
        }
        let parent = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&parent).map_err(|e| {
            anyhow!(
                "{shown}: cannot create parent directory {}: {}",
                parent.display(),
                cause(&e)
            )
        })?;
        let name = dest
            .file_name()
            .ok_or_else(|| anyhow!("{shown}: not a directory name"))?;
        let tmp = parent.join(format!(
            ".{}.llfacts-tmp-{}",
            name.to_string_lossy(),
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&tmp);
        fs::create_dir(&tmp)
            .map_err(|e| anyhow!("{shown}: cannot write output directory: {}", cause(&e)))?;
        let mut dir = FactDir {
            dest: dest.to_path_buf(),
            tmp,
            files: Vec::new(),
            counts: vec![0; RELATIONS.len()],
            committed: false,
        };
        for name in names {
            let path = dir.tmp.join(&name);
            let file =
                File::create(&path).map_err(|e| anyhow!("{}: {}", path.display(), cause(&e)))?;
            dir.files
                .push((name, BufWriter::with_capacity(1 << 16, file)));
        }
        Ok(dir)
    }

    /// Appends a buffer's tuples.
    pub fn append(&mut self, facts: &FactBuf) -> Result<()> {
        for (i, (name, f)) in self.files.iter_mut().enumerate() {
            f.write_all(facts.buffer(i)).map_err(|e| {
                anyhow!("{}: {}", self.tmp.join(name.as_str()).display(), cause(&e))
            })?;
        }
        for (i, c) in self.counts.iter_mut().enumerate() {
            *c += facts.count(i);
        }
        Ok(())
    }

    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Flushes every file and moves the directory into place, replacing an old one.
    pub fn commit(mut self) -> Result<()> {
        let shown = self.dest.display().to_string();
        for (name, f) in self.files.drain(..) {
            f.into_inner()
                .map_err(|e| anyhow!("{shown}/{name}: {}", cause(e.error())))?;
        }
        if self.dest.exists() {
            let old = self.tmp.with_extension("old");
            fs::rename(&self.dest, &old)
                .map_err(|e| anyhow!("{shown}: cannot replace: {}", cause(&e)))?;
            if let Err(e) = fs::rename(&self.tmp, &self.dest) {
                let _ = fs::rename(&old, &self.dest);
                bail!("{shown}: cannot replace: {}", cause(&e));
            }
            let _ = fs::remove_dir_all(&old);
        } else {
            fs::rename(&self.tmp, &self.dest)
                .map_err(|e| anyhow!("{shown}: cannot create: {}", cause(&e)))?;
        }
        self.committed = true;
        Ok(())
    }
}

impl Drop for FactDir {
    fn drop(&mut self) {
        if !self.committed {
            self.files.clear();
            let _ = fs::remove_dir_all(&self.tmp);
        }
    }
}

/// Writes result relations as `<name>.csv` files (Soufflé's output format: tab-separated,
/// fields as given) into `dest`, replacing it whole.
pub fn write_results(dest: &Path, relations: &[(&str, &[Vec<String>])]) -> Result<()> {
    let mut dir = FactDir::with_files(dest, relations.iter().map(|(n, _)| format!("{n}.csv")))?;
    for ((_, rows), (name, f)) in relations.iter().zip(dir.files.iter_mut()) {
        for row in rows.iter() {
            writeln!(f, "{}", row.join("\t"))
                .map_err(|e| anyhow!("{}/{name}: {}", dest.display(), cause(&e)))?;
        }
    }
    dir.commit()
}

pub fn cause(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => {
            let s = e.to_string();
            s.split(" (os error").next().unwrap_or(&s).to_string()
        }
    }
}
