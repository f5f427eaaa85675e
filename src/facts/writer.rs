//! Output directories: one `<relation>.facts` file per relation (or `<relation>.csv` for
//! analysis results), written into a fresh directory beside the destination and renamed into
//! place only when everything succeeded. The same for single files ([`write_file`]: reports,
//! DOT graphs) and for the outputs of a rule program, which join the files of their
//! directory ([`FactDir::merge`]).
//!
//! A temporary is named `.<dest>.llfacts-tmp-<PID>` (`.old` appended to it holds the replaced
//! output during the final renames). Every failure removes it: errors by `Drop`, signals and
//! LLVM's fatal errors by [`remove_temporaries`], a crashed reader process by its supervisor
//! ([`discard_temporary`]), and a run killed outright by the next run into the same
//! destination, once that PID no longer runs.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

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
    /// A staging directory's destination was created for it (see [`FactDir::staging`]).
    created: bool,
}

impl FactDir {
    /// Prepares a temporary directory next to `dest` holding an empty file per relation.
    pub fn create(dest: &Path) -> Result<FactDir> {
        let mut dir = Self::begin(dest)?;
        dir.create_files()?;
        Ok(dir)
    }

    /// The same with the given file names.
    fn with_files(dest: &Path, names: impl Iterator<Item = String>) -> Result<FactDir> {
        let mut dir = Self::begin(dest)?;
        dir.add_files(names)?;
        Ok(dir)
    }

    /// Prepares the temporary directory next to `dest`, still empty: [`FactDir::create_files`]
    /// may then run on another thread, beside the parsing.
    pub fn begin(dest: &Path) -> Result<FactDir> {
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
        let tmp = temp_path(dest, std::process::id())?;
        remove_stale(dest);
        Self::start(dest, tmp, false)
    }

    /// Registers `tmp` as `dest`'s temporary and creates it; `created`: `dest` was made for
    /// this run (removed again, if empty, on failure).
    fn start(dest: &Path, tmp: PathBuf, created: bool) -> Result<FactDir> {
        let _ = fs::remove_dir_all(&tmp);
        // Registered before it exists: a signal between the two must still remove it.
        live().push((dest.to_path_buf(), tmp.clone(), created));
        let dir = FactDir {
            dest: dest.to_path_buf(),
            tmp,
            files: Vec::new(),
            counts: vec![0; RELATIONS.len()],
            committed: false,
            created,
        };
        fs::create_dir(&dir.tmp).map_err(|e| {
            let shown = dest.display();
            anyhow!("{shown}: cannot write output directory: {}", cause(&e))
        })?;
        Ok(dir)
    }

    /// Creates an empty file per relation.
    pub fn create_files(&mut self) -> Result<()> {
        self.add_files(RELATIONS.iter().map(|r| format!("{}.facts", r.name)))
    }

    fn add_files(&mut self, names: impl Iterator<Item = String>) -> Result<()> {
        for name in names {
            let file = File::create(self.tmp.join(&name))
                .map_err(|e| anyhow!("{}: {}", self.dest.join(&name).display(), cause(&e)))?;
            // Small: a buffer per file (326 of them) is resident once written through, and
            // a run's chunk of a relation this large or larger skips it anyway.
            self.files
                .push((name, BufWriter::with_capacity(1 << 13, file)));
        }
        Ok(())
    }

    /// Appends a buffer's tuples.
    pub fn append(&mut self, facts: &FactBuf) -> Result<()> {
        for (i, (name, f)) in self.files.iter_mut().enumerate() {
            f.write_all(facts.buffer(i)).map_err(|e| {
                anyhow!("{}: {}", self.dest.join(name.as_str()).display(), cause(&e))
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
            let old = old_path(&self.tmp);
            fs::rename(&self.dest, &old)
                .map_err(|e| anyhow!("{shown}: cannot replace: {}", cause(&e)))?;
            if let Err(e) = fs::rename(&self.tmp, &self.dest) {
                let _ = fs::rename(&old, &self.dest);
                bail!("{shown}: cannot replace: {}", cause(&e));
            }
            remove_output(&old);
        } else {
            fs::rename(&self.tmp, &self.dest)
                .map_err(|e| anyhow!("{shown}: cannot create: {}", cause(&e)))?;
        }
        self.committed = true;
        Ok(())
    }

    /// A temporary inside `dir` (`.llfacts-tmp-<PID>`), for outputs that join `dir`'s files
    /// ([`FactDir::merge`]) rather than replace them; `dir` is created if absent, and
    /// removed again, if still empty, when nothing is merged.
    pub fn staging(dir: &Path) -> Result<FactDir> {
        let shown = dir.display();
        if dir.exists() && !dir.is_dir() {
            bail!("{shown}: exists and is not a directory");
        }
        let created = !dir.exists();
        fs::create_dir_all(dir)
            .map_err(|e| anyhow!("{shown}: cannot create output directory: {}", cause(&e)))?;
        const PREFIX: &str = ".llfacts-tmp-";
        remove_stale_in(dir, PREFIX, dir);
        let tmp = dir.join(format!("{PREFIX}{}", std::process::id()));
        Self::start(dir, tmp, created)
    }

    /// The temporary directory, for a writer of its own (a rule engine's outputs).
    pub fn path(&self) -> &Path {
        &self.tmp
    }

    /// Moves what was written into the staging temporary into `dest`, file by file,
    /// replacing files of the same name and keeping the others: `llfacts run -D DIR`
    /// adds to DIR as Soufflé does, and no file there is ever half-written.
    pub fn merge(mut self) -> Result<()> {
        self.files.clear();
        move_entries(&self.tmp, &self.dest)?;
        let _ = fs::remove_dir_all(&self.tmp);
        self.committed = true;
        Ok(())
    }
}

/// Moves every file under `from` to the same place under `to`.
fn move_entries(from: &Path, to: &Path) -> Result<()> {
    let entries = fs::read_dir(from).map_err(|e| anyhow!("{}: {}", from.display(), cause(&e)))?;
    for entry in entries {
        let entry = entry.map_err(|e| anyhow!("{}: {}", from.display(), cause(&e)))?;
        let target = to.join(entry.file_name());
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            fs::create_dir_all(&target)
                .map_err(|e| anyhow!("{}: {}", target.display(), cause(&e)))?;
            move_entries(&entry.path(), &target)?;
        } else {
            fs::rename(entry.path(), &target)
                .map_err(|e| anyhow!("{}: {}", target.display(), cause(&e)))?;
        }
    }
    Ok(())
}

/// Writes a whole file, through a temporary beside `path` renamed over it once complete:
/// `path` is never half-written, and a failure leaves what was there.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = temp_path(path, std::process::id())?;
    remove_stale(path);
    live().push((path.to_path_buf(), tmp.clone(), false));
    let written = fs::write(&tmp, bytes).and_then(|()| fs::rename(&tmp, path));
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    live().retain(|(_, t, _)| *t != tmp);
    written.map_err(|e| anyhow!("{}: {}", path.display(), cause(&e)))
}

/// Whether [`write_file`] can put a file at `path`: its directory exists, and `path` is no
/// directory. For a command to check before it writes other outputs.
pub fn check_file_destination(path: &Path) -> Result<()> {
    if path.is_dir() {
        bail!("{}: is a directory", path.display());
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        bail!("{}: no such directory", parent.display());
    }
    Ok(())
}

/// Removes a file, or a directory with what it holds.
fn remove_path(path: &Path) {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => drop(fs::remove_dir_all(path)),
        Ok(_) => drop(fs::remove_file(path)),
        Err(_) => {}
    }
}

impl Drop for FactDir {
    fn drop(&mut self) {
        if !self.committed {
            self.files.clear();
            let _ = fs::remove_dir_all(&self.tmp);
            if self.created {
                let _ = fs::remove_dir(&self.dest);
            }
        }
        live().retain(|(_, t, _)| *t != self.tmp);
    }
}

/// Removes a replaced output, its files in parallel: unlinking a file drops its cached
/// pages, which on a large output takes as long as a small input's extraction.
fn remove_output(dir: &Path) {
    use rayon::prelude::*;
    if let Ok(entries) = fs::read_dir(dir) {
        let files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        files.par_iter().for_each(|f| {
            let _ = fs::remove_file(f);
        });
    }
    // Whatever is left (say, a directory someone put there).
    let _ = fs::remove_dir_all(dir);
}

/// The temporaries this process has open: (destination, temporary, whether the destination
/// was created for this run and goes again if left empty).
static LIVE: Mutex<Vec<(PathBuf, PathBuf, bool)>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<(PathBuf, PathBuf, bool)>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The temporary directory process `pid` writes `dest` in.
pub fn temp_path(dest: &Path, pid: u32) -> Result<PathBuf> {
    let name = dest
        .file_name()
        .ok_or_else(|| anyhow!("{}: not a directory name", dest.display()))?;
    Ok(dest.with_file_name(format!(".{}.llfacts-tmp-{pid}", name.to_string_lossy())))
}

/// Where `commit` keeps the replaced output between its two renames.
fn old_path(tmp: &Path) -> PathBuf {
    let mut s = tmp.as_os_str().to_owned();
    s.push(".old");
    s.into()
}

/// Removes process `pid`'s temporary for `dest`; if it died between the two renames of
/// `commit`, puts the previous output back.
pub fn discard_temporary(dest: &Path, pid: u32) {
    if let Ok(tmp) = temp_path(dest, pid) {
        discard(dest, &tmp);
    }
}

/// Removes the temporary `tmp` of `dest`, restoring a previous output caught mid-replace.
fn discard(dest: &Path, tmp: &Path) {
    remove_path(tmp);
    let old = old_path(tmp);
    if old.exists() && (dest.exists() || fs::rename(&old, dest).is_err()) {
        remove_path(&old);
    }
}

/// Removes this process's temporaries (on a signal or a fatal error; the process then exits).
pub fn remove_temporaries() {
    // The lock is held only for a push or a retain; a thread that panicked or stopped while
    // holding it must not hang the exit, so give up after a while.
    let mut tries = 0;
    let live = loop {
        match LIVE.try_lock() {
            Ok(live) => break live,
            Err(std::sync::TryLockError::Poisoned(e)) => break e.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) if tries < 100 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            Err(std::sync::TryLockError::WouldBlock) => return,
        }
    };
    for (dest, tmp, created) in live.iter() {
        // Other threads may still be creating files in it: remove until it is gone (on a
        // loaded machine a writer thread can refill it many times before it stops).
        for _ in 0..500 {
            discard(dest, tmp);
            if !tmp.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        if *created {
            let _ = fs::remove_dir(dest);
        }
    }
}

/// Temporaries for `dest` left by runs that were killed: their PID no longer runs.
fn remove_stale(dest: &Path) {
    let (Some(name), Some(parent)) = (dest.file_name(), dest.parent()) else {
        return;
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    remove_stale_in(
        parent,
        &format!(".{}.llfacts-tmp-", name.to_string_lossy()),
        dest,
    );
}

/// The entries `<prefix><PID>` (and `.old`) of `dir` whose PID no longer runs.
fn remove_stale_in(dir: &Path, prefix: &str, dest: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(rest) = file.to_str().and_then(|f| f.strip_prefix(prefix)) else {
            continue;
        };
        let pid = rest.strip_suffix(".old").unwrap_or(rest);
        match pid.parse::<u32>() {
            Ok(pid) if pid != std::process::id() && !process_exists(pid) => {
                discard(dest, &dir.join(format!("{prefix}{pid}")))
            }
            _ => {}
        }
    }
}

/// Descriptors a fact directory keeps open at once: one per relation, and some to spare.
const DESCRIPTORS: i32 = 512;

/// Grows this process's descriptor table for a fact directory's files while the process
/// has one thread. Linux grows the table of a process with several threads only after an
/// RCU grace period (about 10 ms here, as long as extracting a small module), which
/// opening the output files would otherwise wait for. Call it before any thread starts.
pub fn reserve_descriptors() {
    // SAFETY: duplicating and closing a descriptor of our own.
    unsafe {
        let fd = libc::fcntl(2, libc::F_DUPFD_CLOEXEC, DESCRIPTORS - 1);
        if fd >= 0 {
            libc::close(fd);
        }
    }
}

/// Whether a process with this id runs (it may be another program that reused the id:
/// its temporary is then kept, the safe mistake). A zombie does not: a reader killed with
/// its supervisor waits as one until its new parent reaps it, which some inits never do.
pub fn process_exists(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) {
        // `PID (COMMAND) STATE ...`; the command may hold parentheses
        return !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
    }
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Writes one `<relation>.csv` file per relation (Soufflé's output format: tab-separated,
/// fields as given) into `dest`, replaced whole as fact directories are; `emit` writes a
/// relation's lines.
pub fn write_relations(
    dest: &Path,
    relations: &[&str],
    mut emit: impl FnMut(&str, &mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let mut dir = FactDir::with_files(dest, relations.iter().map(|n| format!("{n}.csv")))?;
    for (rel, (name, f)) in relations.iter().zip(dir.files.iter_mut()) {
        emit(rel, f).map_err(|e| anyhow!("{}/{name}: {}", dest.display(), cause(&e)))?;
    }
    dir.commit()
}

pub fn cause(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ if e.raw_os_error() == Some(libc::ENOTDIR) => "not a directory".into(),
        _ if e.raw_os_error() == Some(libc::EFBIG) => {
            "file too large (over the file size limit, `ulimit -f`)".into()
        }
        _ => {
            let s = e.to_string();
            s.split(" (os error").next().unwrap_or(&s).to_string()
        }
    }
}
