//! Running out of memory ends like any other error: one line naming what llfacts was
//! working on, its temporary outputs removed, exit code 1. Rust's default is to abort (a
//! signal death, with a backtrace under `RUST_BACKTRACE`). The binary's global allocator
//! ([`ExitOnOom`]) checks every allocation; an allocation fails when the process passes its
//! address-space limit (`ulimit -v`), which is how CI and the benchmarks cap memory. (The
//! kernel's OOM killer, under overcommit, sends SIGKILL, which no process can handle.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};

/// The start of the line: `llfacts: ` and the files being worked on.
static PREFIX: OnceLock<Vec<u8>> = OnceLock::new();
/// Set by the first failure: one that follows (while exiting) ends the process at once.
static FAILED: AtomicBool = AtomicBool::new(false);

/// Names the files the command works on, for the line (the first call counts).
pub fn set_subject<P: AsRef<Path>>(files: &[P]) {
    let mut prefix = b"llfacts: ".to_vec();
    for (i, f) in files.iter().enumerate() {
        if i > 0 {
            prefix.extend_from_slice(b", ");
        }
        prefix.extend_from_slice(f.as_ref().as_os_str().as_bytes());
    }
    if !files.is_empty() {
        prefix.extend_from_slice(b": ");
    }
    let _ = PREFIX.set(prefix);
}

/// The system allocator, ending the process as above when an allocation fails.
pub struct ExitOnOom;

// SAFETY: every method forwards to `System` with the caller's arguments.
unsafe impl GlobalAlloc for ExitOnOom {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        checked(unsafe { System.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        checked(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        checked(unsafe { System.realloc(ptr, layout, new_size) }, new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[inline]
fn checked(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() {
        out_of_memory(size);
    }
    ptr
}

#[cold]
fn out_of_memory(size: usize) -> ! {
    if !FAILED.swap(true, SeqCst) {
        // Written without allocating.
        let prefix = PREFIX.get().map_or(&b"llfacts: "[..], |p| &p[..]);
        let mut digits = [0u8; 24];
        let mib = crate::facts::buf::decimal(size.div_ceil(1 << 20) as i64, &mut digits);
        for part in [
            prefix,
            b"out of memory (an allocation of ",
            mib,
            b" MiB failed)\n",
        ] {
            // SAFETY: writes a valid buffer to stderr.
            unsafe { libc::write(2, part.as_ptr().cast(), part.len()) };
        }
        crate::facts::writer::remove_temporaries();
    }
    // SAFETY: ends the process without running destructors or handlers that may allocate.
    unsafe { libc::_exit(1) }
}
