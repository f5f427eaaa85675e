//! Reading modules in a supervised child process, so that a crash inside LLVM (a segfault or
//! an abort in its bitcode reader on a corrupt file) ends in a one-line error naming the file
//! instead of taking llfacts down.
//!
//! The child is this binary: `extract` runs its own command line again with `--no-isolate`
//! (in a fork of this process, see [`set_fork_entry`]);
//! the commands that extract in memory run the hidden `__read` command, which streams the
//! facts back on stdout as they are made ([`FactSender`]). The child reports on fd 3 which
//! input it is reading, has read and has extracted, so the parent can name the input that
//! killed it. Its stderr goes through the parent, which passes on llfacts' own lines
//! (`llfacts: ...`, and the progress display) and drops what LLVM printed by itself. SIGINT,
//! SIGTERM and SIGHUP are passed on to the child; the parent then removes the child's
//! temporary output.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs::File;
use std::io::{IsTerminal, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd, RawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicI32, Ordering::SeqCst};

use anyhow::{Result, anyhow, bail};

use crate::facts::buf::FactBuf;
use crate::facts::writer::{discard_temporary, remove_temporaries};

/// The exit code after LLVM reported a fatal error (told apart from a plain error's 1).
pub const LLVM_FATAL_EXIT: i32 = 3;

/// What a reader crash or fatal error blames besides corruption: the input may come from an
/// LLVM newer than the one linked (`extract` checks that this names it).
pub const NOT_READABLE: &str = "the file is corrupt or from an LLVM newer than 22";

/// The reader process ended with `.0` as its exit code after its errors were printed (by
/// it, or for it by the supervisor): the command ends with the same code, printing nothing
/// more.
#[derive(Debug)]
pub struct Reported(pub i32);

impl std::fmt::Display for Reported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the reader process failed (exit code {})", self.0)
    }
}

impl std::error::Error for Reported {}

const STATUS_FD: RawFd = 3;
const STATUS_ENV: &str = "LLFACTS_STATUS_FD";
const TTY_ENV: &str = "LLFACTS_STDERR_TTY";

/// What a reader reports about one input.
#[derive(Clone, Copy)]
pub enum Event {
    Reading,
    Read,
    Done,
}

/// In a supervised child: tells the parent about input `index`. Elsewhere: nothing.
pub fn note(event: Event, index: usize) {
    static PIPE: OnceLock<Option<File>> = OnceLock::new();
    let pipe = PIPE.get_or_init(|| {
        let fd: RawFd = std::env::var(STATUS_ENV).ok()?.parse().ok()?;
        // SAFETY: the parent opened this descriptor for this use only.
        Some(unsafe { File::from_raw_fd(fd) })
    });
    if let Some(mut pipe) = pipe.as_ref() {
        let tag = match event {
            Event::Reading => 'r',
            Event::Read => 'R',
            Event::Done => 'd',
        };
        // One short write(2) to a pipe is atomic: lines from several threads do not mix.
        let _ = pipe.write_all(format!("{tag} {index}\n").as_bytes());
    }
}

/// Whether the supervising parent's stderr is a terminal (the child's is a pipe).
pub fn stderr_is_terminal() -> bool {
    std::env::var_os(TTY_ENV).is_some()
}

static CHILD: AtomicI32 = AtomicI32::new(0);
static CAUGHT: AtomicI32 = AtomicI32::new(0);
static WAKE: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_signal(sig: libc::c_int) {
    // Only async-signal-safe calls here.
    CAUGHT.store(sig, SeqCst);
    let child = CHILD.load(SeqCst);
    unsafe {
        if child > 0 {
            libc::kill(child, sig);
        } else {
            let b = [sig as u8];
            libc::write(WAKE.load(SeqCst), b.as_ptr().cast(), 1);
        }
    }
}

/// On SIGINT, SIGTERM or SIGHUP: pass it on to the running child, whose supervisor then
/// cleans up and exits; with no child, remove this process's temporaries and exit 128+N.
/// SIGXFSZ is ignored (see below).
pub fn handle_signals() {
    let Ok((mut wake, w)) = std::io::pipe() else {
        return;
    };
    WAKE.store(w.into_raw_fd(), SeqCst);
    // The thread says when it runs: by then its start-up (which takes locks of the standard
    // library) is over, and a fork of this process (`fork_reader`) copies no lock held.
    let (started, running) = std::sync::mpsc::sync_channel::<()>(0);
    std::thread::spawn(move || {
        let _ = started.send(());
        let mut b = [0u8];
        if wake.read_exact(&mut b).is_ok() {
            remove_temporaries();
            unsafe { libc::_exit(128 + b[0] as i32) };
        }
    });
    let _ = running.recv();
    // Past the file size limit (`ulimit -f`) a write then fails (EFBIG) and is reported on
    // one line naming the file, rather than the signal ending the process.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(sig, std::ptr::null(), &mut old);
            if old.sa_sigaction == libc::SIG_IGN {
                continue; // nohup, or a background job: keep ignoring it
            }
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as *const () as usize;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// How a supervised reader ended.
struct Ended {
    status: ExitStatus,
    /// Inputs being read (parsed, verified), and being extracted, when it ended.
    reading: Vec<usize>,
    extracting: Vec<usize>,
    /// What `__read` sent: the facts and the inputs it skipped.
    received: Option<std::io::Result<(FactBuf, Vec<usize>)>>,
}

/// How a forked reader runs its command line (`args`, without the program name); returns
/// the exit code. Set by the binary (see [`set_fork_entry`]).
static FORK_ENTRY: OnceLock<fn(Vec<OsString>) -> i32> = OnceLock::new();

/// Lets `extract` run its reader as a fork of this process rather than a new one: starting
/// this binary again costs about 15 ms (loading it and running LLVM's static constructors),
/// as much as a tenth of a small module's extraction. Only `extract` forks: it supervises from the
/// main thread before any other thread but the signal thread exists, while the in-memory
/// commands supervise from inside a thread pool, which a fork would not take along.
pub fn set_fork_entry(entry: fn(Vec<OsString>) -> i32) {
    let _ = FORK_ENTRY.set(entry);
}

/// Starts the reader as a fork of this process: the child sets up its descriptors and
/// environment as `supervise` does for a new process, handles signals on its own, runs
/// `entry` and leaves with `_exit` (the parent's destructors are not its to run).
fn fork_reader(
    entry: fn(Vec<OsString>) -> i32,
    args: &[OsString],
    tty: bool,
    status: (RawFd, RawFd),
    stderr: (RawFd, RawFd),
) -> Result<libc::pid_t> {
    unsafe {
        // Until the child has its own handlers, a signal must not reach the parent's.
        let mut block: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut block);
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::sigaddset(&mut block, sig);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &block, &mut old);
        let parent = libc::getpid();
        let pid = libc::fork();
        if pid == 0 {
            // The child: one thread, this one.
            die_with_parent(parent);
            let (status_r, status_w) = status;
            let (stderr_r, stderr_w) = stderr;
            let ok = (if status_w == STATUS_FD {
                libc::fcntl(status_w, libc::F_SETFD, 0)
            } else {
                libc::dup2(status_w, STATUS_FD)
            }) >= 0
                && libc::dup2(stderr_w, 2) >= 0;
            if !ok {
                libc::_exit(1);
            }
            for fd in [status_r, stderr_r, stderr_w] {
                libc::close(fd);
            }
            if status_w != STATUS_FD {
                libc::close(status_w);
            }
            std::env::set_var(STATUS_ENV, STATUS_FD.to_string());
            if tty {
                std::env::set_var(TTY_ENV, "1");
            }
            CAUGHT.store(0, SeqCst);
            CHILD.store(0, SeqCst);
            // A fork's descriptor table is as large as its open descriptors need.
            crate::facts::writer::reserve_descriptors();
            handle_signals();
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            let argv = std::iter::once(OsString::from("llfacts"))
                .chain(args.iter().cloned())
                .collect();
            let code = entry(argv);
            let _ = std::io::stdout().flush();
            let _ = std::io::stderr().flush();
            libc::_exit(code);
        }
        if pid > 0 {
            CHILD.store(pid, SeqCst);
        }
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        if pid < 0 {
            bail!(
                "cannot start a reader process: {}",
                std::io::Error::last_os_error()
            );
        }
        Ok(pid)
    }
}

/// Has the kernel kill this reader when its supervisor dies, even by SIGKILL (a CI job's
/// timeout, say), so that no reader runs on unsupervised; its temporary output is then
/// removed by the next run into the same destination. The supervising thread waits for
/// the reader, so it outlives it. Async-signal-safe.
unsafe fn die_with_parent(parent: libc::pid_t) {
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if libc::getppid() != parent {
            libc::_exit(1); // the supervisor died before the request took effect
        }
    }
}

/// Waits for a forked reader.
fn wait_forked(pid: libc::pid_t) -> std::io::Result<ExitStatus> {
    let mut status = 0;
    loop {
        if unsafe { libc::waitpid(pid, &mut status, 0) } >= 0 {
            return Ok(ExitStatus::from_raw(status));
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Runs this binary with `args` and waits (as a fork of this process when `fork` and the
/// binary allows it, see [`set_fork_entry`]). `output`: the destination the child writes (its
/// temporary is removed afterwards, whatever happened).
fn supervise(args: &[OsString], forward: bool, output: Option<&Path>, fork: bool) -> Result<Ended> {
    let (status_r, status_w) = std::io::pipe()?;
    let tty = forward && (std::io::stderr().is_terminal() || stderr_is_terminal());
    if let Some(&entry) = FORK_ENTRY.get().filter(|_| fork && output.is_some()) {
        let (stderr_r, stderr_w) = std::io::pipe()?;
        let pid = fork_reader(
            entry,
            args,
            tty,
            (status_r.as_raw_fd(), status_w.as_raw_fd()),
            (stderr_r.as_raw_fd(), stderr_w.as_raw_fd()),
        )?;
        drop((status_w, stderr_w));
        let (status, (reading, extracting)) = std::thread::scope(|s| {
            s.spawn(move || filter_stderr(stderr_r, forward, tty));
            let status_thread = s.spawn(move || read_status(status_r));
            let status = wait_forked(pid);
            CHILD.store(0, SeqCst);
            (status, status_thread.join().expect("status reader"))
        });
        return finish(output, pid as u32, status, reading, extracting, None);
    }
    let exe = std::env::current_exe().map_err(|e| anyhow!("cannot find llfacts itself: {e}"))?;
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .env(STATUS_ENV, STATUS_FD.to_string())
        .stdin(Stdio::inherit())
        .stdout(if output.is_some() {
            Stdio::inherit()
        } else {
            Stdio::piped()
        })
        .stderr(Stdio::piped());
    if tty {
        cmd.env(TTY_ENV, "1");
    }
    let w = status_w.as_raw_fd();
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            die_with_parent(parent);
            // dup2 clears close-on-exec on the copy; fd 3 itself needs it cleared by hand.
            let r = if w == STATUS_FD {
                libc::fcntl(w, libc::F_SETFD, 0)
            } else {
                libc::dup2(w, STATUS_FD)
            };
            if r < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| anyhow!("cannot start a reader process: {e}"))?;
    let pid = child.id();
    CHILD.store(pid as i32, SeqCst);
    drop(status_w);
    let stderr = child.stderr.take().expect("piped");
    let stdout = child.stdout.take();
    let (status, (reading, extracting), out) = std::thread::scope(|s| {
        s.spawn(move || filter_stderr(stderr, forward, tty));
        let status_thread = s.spawn(move || read_status(status_r));
        let out_thread = s.spawn(move || {
            let mut r = std::io::BufReader::with_capacity(1 << 20, stdout?);
            let received = receive(&mut r);
            // Whatever is left, so that the child never blocks on a full pipe.
            let _ = std::io::copy(&mut r, &mut std::io::sink());
            Some(received)
        });
        let status = child.wait();
        CHILD.store(0, SeqCst);
        let progress = status_thread.join().expect("status reader");
        (status, progress, out_thread.join().expect("stdout reader"))
    });
    finish(output, pid, status, reading, extracting, out)
}

/// After the reader ended: its temporary removed, a caught signal passed on as our exit.
fn finish(
    output: Option<&Path>,
    pid: u32,
    status: std::io::Result<ExitStatus>,
    reading: Vec<usize>,
    extracting: Vec<usize>,
    out: Option<std::io::Result<(FactBuf, Vec<usize>)>>,
) -> Result<Ended> {
    if let Some(dest) = output {
        discard_temporary(dest, pid);
    }
    let sig = CAUGHT.load(SeqCst);
    if sig != 0 {
        remove_temporaries();
        // The user interrupted the process, not this command: it ends here, as the signal
        // would have ended it, whichever thread supervises (a pool's, for the analyses).
        std::process::exit(128 + sig);
    }
    Ok(Ended {
        status: status?,
        reading,
        extracting,
        received: out,
    })
}

/// Which inputs were being read and extracted when the status pipe closed.
fn read_status(pipe: std::io::PipeReader) -> (Vec<usize>, Vec<usize>) {
    let mut text = String::new();
    let _ = std::io::BufReader::new(pipe).read_to_string(&mut text);
    let (mut reading, mut extracting) = (BTreeSet::new(), BTreeSet::new());
    for line in text.lines() {
        let Some((tag, index)) = line.split_once(' ') else {
            continue;
        };
        let Ok(i) = index.parse::<usize>() else {
            continue;
        };
        match tag {
            "r" => {
                reading.insert(i);
            }
            "R" => {
                reading.remove(&i);
                extracting.insert(i);
            }
            _ => {
                extracting.remove(&i);
            }
        }
    }
    (
        reading.into_iter().collect(),
        extracting.into_iter().collect(),
    )
}

/// Passes on the child's own lines, and on a terminal its progress display; drops the rest
/// (LLVM's verifier dumps, `LLVM ERROR:` lines, crash noise).
fn filter_stderr(mut from: impl Read, forward: bool, tty: bool) {
    let mut pending: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 8192];
    let mut err = std::io::stderr();
    loop {
        let n = match from.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        pending.extend_from_slice(&chunk[..n]);
        // Segments end before a '\r' or after a '\n'; a trailing partial one waits.
        let mut start = 0;
        for i in 0..pending.len() {
            let end = match pending[i] {
                b'\n' => i + 1,
                b'\r' if i > start => i,
                _ => continue,
            };
            if forward && keep_segment(&pending[start..end], tty) {
                let _ = err.write_all(&pending[start..end]);
            }
            start = end;
        }
        pending.drain(..start);
    }
    if forward && keep_segment(&pending, tty) {
        let _ = err.write_all(&pending);
    }
}

fn keep_segment(seg: &[u8], tty: bool) -> bool {
    let clear = b"\x1b[2K";
    let body = seg.strip_prefix(b"\r").unwrap_or(seg);
    let text = body.strip_prefix(clear).unwrap_or(body);
    text.starts_with(b"llfacts:")
        || (tty && seg.starts_with(b"\r") && (text.starts_with(b"[") || text.is_empty()))
}

/// `SIGSEGV` for 11.
fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTRAP => "SIGTRAP",
        _ => return format!("signal {sig}"),
    };
    name.to_string()
}

/// A reader that did not end normally: the inputs to blame, each with its one-line error
/// (`None` when the child printed it already: an LLVM fatal error).
fn crashed(inputs: &[PathBuf], ended: &Ended) -> Option<Vec<(usize, Option<String>)>> {
    let cause = match (ended.status.signal(), ended.status.code()) {
        (Some(sig), _) => signal_name(sig),
        (None, Some(LLVM_FATAL_EXIT)) => String::new(),
        _ => return None,
    };
    let (suspects, reading) = if !ended.reading.is_empty() {
        (&ended.reading, true)
    } else {
        (&ended.extracting, false)
    };
    let blamed = if suspects.len() > 1 {
        // Several inputs were being read in parallel: read each alone to see which it was.
        let alone: Vec<usize> = (suspects.iter().copied())
            .filter(|&i| crashes_alone(&inputs[i]))
            .collect();
        if alone.is_empty() {
            suspects.clone()
        } else {
            alone
        }
    } else {
        suspects.clone()
    };
    let line = |i: usize| -> Option<String> {
        if cause.is_empty() {
            return None;
        }
        let file = inputs[i].display();
        Some(if !reading {
            format!(
                "{file}: llfacts crashed while extracting facts ({cause}); please report this bug"
            )
        } else if inputs[i].extension().is_some_and(|e| e == "ll") {
            format!("{file}: LLVM's IR parser crashed ({cause}); {NOT_READABLE}")
        } else {
            format!("{file}: LLVM's bitcode reader crashed ({cause}); {NOT_READABLE}")
        })
    };
    if blamed.is_empty() {
        return Some(vec![]);
    }
    Some(blamed.into_iter().map(|i| (i, line(i))).collect())
}

fn crashes_alone(input: &Path) -> bool {
    let args = (command_lines().read)(&ReadLine {
        inputs: &[input.to_path_buf()],
        jobs: 1,
        quiet: true,
        keep_going: false,
        skip: &[],
    });
    supervise(&args, false, None, false)
        .is_ok_and(|e| e.status.signal().is_some() || e.status.code() == Some(LLVM_FATAL_EXIT))
}

/// Runs the reader child until it ends without a crash; with `keep_going`, every input that
/// crashed one is reported and left out of the next. `args(skip)` is the child's command line.
fn run_reader(
    inputs: &[PathBuf],
    keep_going: bool,
    output: Option<&Path>,
    args: impl Fn(&[usize]) -> Vec<OsString>,
) -> Result<Ended> {
    let mut skip: Vec<usize> = Vec::new();
    loop {
        let ended = supervise(&args(&skip), true, output, true)?;
        let Some(blamed) = crashed(inputs, &ended) else {
            return Ok(ended);
        };
        if blamed.is_empty() {
            let cause = ended
                .status
                .signal()
                .map_or("a fatal error".into(), signal_name);
            bail!("the reader process crashed ({cause}) outside any input; please report this bug");
        }
        for (_, line) in &blamed {
            if let Some(line) = line {
                eprintln!("llfacts: {line}");
            }
        }
        if !keep_going {
            return Err(Reported(1).into());
        }
        skip.extend(blamed.iter().map(|(i, _)| *i));
    }
}

/// The reader's command lines, as the binary spells them: its flags are defined once, with
/// its command-line parser. Set by the binary (see [`set_command_lines`]).
pub struct CommandLines {
    /// The in-memory commands' reader (`__read`).
    pub read: fn(&ReadLine) -> Vec<OsString>,
    /// `extract`'s command line `argv` (without the program name), run again in the reader:
    /// reading in-process, skipping the inputs `skip`.
    pub rerun: fn(argv: &[OsString], skip: &[usize]) -> Vec<OsString>,
}

/// What the in-memory commands' reader is asked to do.
pub struct ReadLine<'a> {
    pub inputs: &'a [PathBuf],
    pub jobs: usize,
    pub quiet: bool,
    pub keep_going: bool,
    /// Inputs (by index) that crashed an earlier reader.
    pub skip: &'a [usize],
}

static COMMAND_LINES: OnceLock<CommandLines> = OnceLock::new();

pub fn set_command_lines(lines: CommandLines) {
    let _ = COMMAND_LINES.set(lines);
}

fn command_lines() -> &'static CommandLines {
    COMMAND_LINES
        .get()
        .expect("the binary sets the reader's command lines")
}

/// `extract` under supervision: `argv` is its command line (without the program name),
/// which the child runs again with `--no-isolate`. Returns the child's exit code.
pub fn extract(argv: &[OsString], inputs: &[PathBuf], out: &Path, keep_going: bool) -> Result<i32> {
    let ended = run_reader(inputs, keep_going, Some(out), |skip| {
        (command_lines().rerun)(argv, skip)
    })?;
    Ok(ended.status.code().unwrap_or(1))
}

/// The in-memory extraction of the analyses, under supervision: the hidden `__read`
/// command's facts and skipped inputs.
pub fn to_memory(
    inputs: &[PathBuf],
    quiet: bool,
    keep_going: bool,
    jobs: usize,
) -> Result<(FactBuf, Vec<usize>)> {
    let ended = run_reader(inputs, keep_going, None, |skip| {
        (command_lines().read)(&ReadLine {
            inputs,
            jobs,
            quiet,
            keep_going,
            skip,
        })
    })?;
    if !ended.status.success() {
        // The child printed its one-line error.
        return Err(Reported(ended.status.code().unwrap_or(1)).into());
    }
    match ended.received {
        Some(Ok(received)) => Ok(received),
        _ => bail!("internal error: the reader process sent malformed facts"),
    }
}

/// The `__read` command's output, streamed while extraction goes on (the parent decodes
/// in parallel): frames of facts, each `1` then [`FactBuf::write_to`], then `0` and the
/// skipped inputs.
pub struct FactSender(std::io::BufWriter<std::io::Stdout>);

impl Default for FactSender {
    fn default() -> Self {
        Self::new()
    }
}

impl FactSender {
    pub fn new() -> Self {
        FactSender(std::io::BufWriter::with_capacity(
            1 << 20,
            std::io::stdout(),
        ))
    }

    pub fn send(&mut self, facts: &FactBuf) -> Result<()> {
        self.0.write_all(&[1])?;
        facts.write_to(&mut self.0)?;
        Ok(())
    }

    pub fn finish(mut self, skipped: &[usize]) -> Result<()> {
        self.0.write_all(&[0])?;
        self.0.write_all(&(skipped.len() as u64).to_le_bytes())?;
        for &i in skipped {
            self.0.write_all(&(i as u64).to_le_bytes())?;
        }
        self.0.flush()?;
        Ok(())
    }
}

/// Reads what [`FactSender`] wrote.
fn receive(r: &mut dyn Read) -> std::io::Result<(FactBuf, Vec<usize>)> {
    let mut all = FactBuf::new();
    let mut tag = [0u8];
    loop {
        r.read_exact(&mut tag)?;
        match tag[0] {
            1 => all.append(FactBuf::read_from(r)?),
            0 => break,
            _ => return Err(std::io::ErrorKind::InvalidData.into()),
        }
    }
    let mut word = [0u8; 8];
    r.read_exact(&mut word)?;
    (0..u64::from_le_bytes(word))
        .map(|_| {
            r.read_exact(&mut word)?;
            Ok(u64::from_le_bytes(word) as usize)
        })
        .collect::<std::io::Result<_>>()
        .map(|skipped| (all, skipped))
}
