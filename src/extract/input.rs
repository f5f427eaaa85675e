//! Parsing input: reads a `.bc` or `.ll` file into an LLVM module through LLVM's C API.
//!
//! LLVM's default diagnostic handler prints `error: ...` and calls `exit(1)` on malformed
//! bitcode, so every module is parsed in a context of its own with a handler that records
//! the message instead. The module is verified before anyone walks it: the extractor may rely
//! on the IR invariants (every block has a terminator, operand kinds are as LangRef says).
//!
//! The bitcode reader's own debug-info check is switched off: it prints the verifier's dump
//! to stderr and aborts on a broken module. [`Input::parse`] verifies instead, and drops
//! invalid debug info with a one-line warning as LLVM would. LLVM's fatal errors end the
//! process with one line naming the file (exit code `isolate::LLVM_FATAL_EXIT`); crashes are
//! caught by `isolate`.
//!
//! Reading and verifying are LLVM's serial part (on SQLite `-O0`, 185 ms and 50 ms of a
//! 0.9 s extraction), so a lone bitcode input from the LLVM we link is read in shards
//! ([`Input::shards`]): one context per thread loads the module lazily (the module-level
//! part, about 3% of the reading), reads the bodies of the functions it owns, and verifies
//! that partial module, all contexts at once. LLVM allows distinct contexts on distinct
//! threads; nothing is shared but the input's bytes, which LLVM only reads. Reading a body
//! lazily is the same code `LLVMParseBitcodeInContext2` runs (it loads lazily, then
//! materializes all); what `materializeAll` does after the bodies is done per shard
//! (`shards.cpp`), and the verifier's checks across functions are made across shards (a
//! subprogram attached to two functions, an intrinsic whose address is taken or that
//! nothing uses). Anything unusual sends the input to the ordinary reading, which gives
//! LLVM's exact messages: the fast path is only for inputs that read cleanly.
//!
//! Why not verify the functions of one module in parallel (`LLVMVerifyFunction` per
//! function on the workers, as the module is shared): LLVM's verifier (lib/IR/Verifier.cpp)
//! is not read-only on shared state. Checking an intrinsic call's signature
//! (`Intrinsic::matchIntrinsicSignature`) may create types in the context
//! (`IntegerType::get`, `VectorType::get*` for extended/truncated/half-vector arguments),
//! and naming an intrinsic overloaded on an unnamed struct calls
//! `Module::getUniqueIntrinsicName`, which inserts into the module's maps; funclet checks
//! create the context's `ConstantTokenNone`; `StructType::isSized` caches a bit in the shared
//! type with a plain read-modify-write. Two verifiers at once, or one beside a worker that
//! looks types up, race on those tables. It would not pay either: a fresh verifier per
//! function walks the compile unit's debug metadata again each time (SQLite `-O0 -g`: 815 ms
//! for its 2,527 functions against 114 ms for the module), and the checks that span
//! functions (one subprogram per function, compile units listed in `llvm.dbg.cu`,
//! `llvm.localrecover` indices) live only in `LLVMVerifyModule`'s verifier. Shards get the
//! parallelism without sharing: each verifier runs alone in its own context.

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_void};
use std::path::{Path, PathBuf};
use std::ptr;
use std::sync::Arc;
use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use anyhow::{Result, anyhow, bail};

use crate::isolate::{LLVM_FATAL_EXIT, NOT_READABLE};
use llvm_sys::analysis::{LLVMVerifierFailureAction, LLVMVerifyModule};
use llvm_sys::bit_reader::{LLVMGetBitcodeModuleInContext2, LLVMParseBitcodeInContext2};
use rayon::prelude::*;

use super::RUN;
use super::llvm::{self, take_message};
use llvm_sys::core::*;
use llvm_sys::debuginfo::LLVMStripModuleDebugInfo;
use llvm_sys::error_handling::LLVMInstallFatalErrorHandler;
use llvm_sys::ir_reader::LLVMParseIRInContext2;
use llvm_sys::prelude::*;
use llvm_sys::support::LLVMParseCommandLineOptions;
use llvm_sys::{LLVMDiagnosticSeverity, LLVMModule};

/// A parsed, verified module that owns its LLVM context.
pub struct Module {
    context: LLVMContextRef,
    module: LLVMModuleRef,
    _diagnostics: Box<Diagnostics>,
    /// One-line warnings, each naming the file.
    pub warnings: Vec<String>,
    /// The file's bytes, when the module reads its function bodies from them lazily.
    _bytes: Option<Arc<Vec<u8>>>,
}

#[derive(Default)]
struct Diagnostics {
    errors: Vec<String>,
    warnings: Vec<String>,
}

// SAFETY: the context and module are owned exclusively by this value; LLVM permits using a
// context from any thread as long as no two threads use it at the same time without care.
// Concurrent read-only walks are arranged by `extract` (see its safety note).
unsafe impl Send for Module {}
unsafe impl Sync for Module {}

impl Module {
    pub fn raw(&self) -> *mut LLVMModule {
        self.module
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        unsafe {
            LLVMDisposeModule(self.module);
            LLVMContextDispose(self.context);
        }
    }
}

const BITCODE_MAGIC: &[u8] = b"BC\xC0\xDE";
const BITCODE_WRAPPER_MAGIC: &[u8] = b"\xDE\xC0\x17\x0B";

extern "C" fn record_diagnostic(info: LLVMDiagnosticInfoRef, sink: *mut c_void) {
    unsafe {
        let sink = &mut *(sink as *mut Diagnostics);
        let list = match LLVMGetDiagInfoSeverity(info) {
            LLVMDiagnosticSeverity::LLVMDSError => &mut sink.errors,
            LLVMDiagnosticSeverity::LLVMDSWarning => &mut sink.warnings,
            _ => return,
        };
        let text = LLVMGetDiagInfoDescription(info);
        list.push(CStr::from_ptr(text).to_string_lossy().into_owned());
        LLVMDisposeMessage(text);
    }
}

thread_local! {
    /// What this thread is reading, for the fatal-error handler: `FILE: LLVM's ... reader`.
    static READING: RefCell<Option<String>> = const { RefCell::new(None) };
}

extern "C" fn on_fatal_error(reason: *const c_char) {
    let reason = unsafe { CStr::from_ptr(reason) }.to_string_lossy();
    let what = READING.with(|r| r.borrow().clone());
    let what = what.unwrap_or_else(|| "an input: LLVM".into());
    eprintln!(
        "llfacts: {what} failed (LLVM ERROR: {}); {NOT_READABLE}",
        first_line(&reason)
    );
    crate::facts::writer::remove_temporaries();
    // Other threads may be inside LLVM: leave without running destructors.
    unsafe { libc::_exit(LLVM_FATAL_EXIT) }
}

/// Process-wide LLVM settings, once (see the module comment).
fn init_llvm() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| unsafe {
        let args = [
            c"llfacts".as_ptr(),
            c"-disable-auto-upgrade-debug-info".as_ptr(),
        ];
        LLVMParseCommandLineOptions(args.len() as i32, args.as_ptr(), ptr::null());
        LLVMInstallFatalErrorHandler(Some(on_fatal_error));
    });
}

/// Runs `f` with the fatal-error handler knowing which file this thread reads.
fn reading<T>(what: String, f: impl FnOnce() -> T) -> T {
    READING.with(|r| *r.borrow_mut() = Some(what));
    let out = f();
    READING.with(|r| *r.borrow_mut() = None);
    out
}

/// An input file's bytes, checked to be worth handing to LLVM.
pub struct Input {
    path: PathBuf,
    bytes: Arc<Vec<u8>>,
    is_bitcode: bool,
}

/// Reads one input. Errors name the file and the cause on one line.
pub fn read(path: &Path) -> Result<Input> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| anyhow!("{shown}: {}", io_cause(&e)))?;
    if meta.is_dir() {
        bail!("{shown}: is a directory, expected a .bc or .ll file");
    }
    let bytes = std::fs::read(path).map_err(|e| anyhow!("{shown}: {}", io_cause(&e)))?;
    let is_bitcode = bytes.starts_with(BITCODE_MAGIC) || bytes.starts_with(BITCODE_WRAPPER_MAGIC);
    let says_bitcode = path.extension().is_some_and(|e| e == "bc");
    // (LLVM would read zero bytes as an empty module: a pipe that gave nothing, say.)
    if bytes.is_empty() {
        bail!("{shown}: empty file, neither LLVM bitcode nor LLVM assembly");
    }
    if says_bitcode && !is_bitcode {
        bail!(
            "{shown}: not LLVM bitcode (the file does not start with the bitcode magic 'BC' 0xC0DE)"
        );
    }
    Ok(Input {
        path: path.to_path_buf(),
        bytes: Arc::new(bytes),
        is_bitcode,
    })
}

impl Input {
    fn reader(&self) -> String {
        let reader = if self.is_bitcode {
            "bitcode reader"
        } else {
            "IR parser"
        };
        format!("{}: LLVM's {reader}", self.path.display())
    }

    /// Parses and verifies the whole module in one context.
    pub fn parse(&self) -> Result<Module> {
        init_llvm();
        reading(self.reader(), || unsafe {
            parse_and_verify(&self.path, &self.bytes, self.is_bitcode)
        })
    }

    /// The module read in `shards` contexts at once (see [`Shard`]). The functions that are
    /// not `llvm.dbg.*` declarations, in module order, form runs of [`RUN`]; each run has its
    /// bodies read in one context only, whichever claims it first: a context that loads
    /// slowly (say, it also read a large function that a global's `blockaddress` names, which
    /// the lazy loader materializes in every context) claims fewer. `None` when this input is
    /// not read so (bitcode from another LLVM, which the reader upgrades, or anything
    /// unusual: a reader warning or error, a verifier complaint, a check that needs the
    /// whole module); [`Input::parse`] then reads it as usual and gives the exact error or
    /// warnings.
    pub fn shards(&self, shards: usize) -> Option<Read> {
        if !self.is_bitcode || shards < 2 || !self.is_from_linked_llvm() {
            return None;
        }
        init_llvm();
        let next = AtomicUsize::new(0);
        let mut read: Vec<Option<Shard>> = Vec::new();
        (0..shards)
            .into_par_iter()
            .map(|_| reading(self.reader(), || unsafe { self.shard(&next) }))
            .collect_into_vec(&mut read);
        let read: Vec<Shard> = read.into_iter().collect::<Option<_>>()?;
        let runs: usize = read.iter().map(|r| r.runs.len()).sum();
        let mut owner = vec![usize::MAX; runs];
        for (s, r) in read.iter().enumerate() {
            for &run in &r.runs {
                *owner.get_mut(run)? = s;
            }
        }
        if owner.contains(&usize::MAX) {
            return None;
        }
        // What the verifier checks across functions, now across shards.
        let n = read[0].intrinsic_used.len();
        if read
            .iter()
            .any(|r| r.intrinsic_used.len() != n || r.intrinsic_address_taken)
        {
            return None;
        }
        // An intrinsic declaration used nowhere may be one that `materializeAll` would have
        // upgraded and deleted.
        if (0..n).any(|i| read.iter().all(|r| r.intrinsic_used[i] == Some(false))) {
            return None;
        }
        let mut keys: Vec<u64> = read
            .iter()
            .flat_map(|r| r.subprograms.iter().copied())
            .collect();
        keys.sort_unstable();
        if keys.windows(2).any(|w| w[0] == w[1]) {
            return None;
        }
        Some(Read {
            shards: read.into_iter().map(|r| r.module).collect(),
            owner,
        })
    }

    /// Whether the bitcode's producer is the LLVM we link (`LLVM22.`): older producers'
    /// modules are upgraded while read, which the ordinary reading does as LLVM intends.
    fn is_from_linked_llvm(&self) -> bool {
        let producer = unsafe {
            take_message(llfacts_bitcode_producer(
                self.bytes.as_ptr() as *const c_char,
                self.bytes.len(),
            ))
        };
        producer.starts_with(format!("LLVM{}.", linked_llvm_version().0).as_bytes())
    }

    /// One shard: the module loaded lazily in a context of its own, the bodies of the runs
    /// it claims (`next` counts the runs claimed by all) read, verified. LLVM may use
    /// distinct contexts on distinct threads at once.
    unsafe fn shard(&self, next: &AtomicUsize) -> Option<Shard> {
        unsafe {
            let context = LLVMContextCreate();
            let mut diagnostics: Box<Diagnostics> = Box::default();
            let sink = &mut *diagnostics as *mut Diagnostics as *mut c_void;
            LLVMContextSetDiagnosticHandler(context, Some(record_diagnostic), sink);
            let name = CString::new(self.path.as_os_str().as_encoded_bytes()).unwrap_or_default();
            // The module owns the buffer, which points into `self.bytes`: the module keeps
            // those alive (`Module::_bytes`).
            let buf = LLVMCreateMemoryBufferWithMemoryRange(
                self.bytes.as_ptr() as *const c_char,
                self.bytes.len(),
                name.as_ptr(),
                0,
            );
            let mut module: LLVMModuleRef = ptr::null_mut();
            if LLVMGetBitcodeModuleInContext2(context, buf, &mut module) != 0 || module.is_null() {
                LLVMContextDispose(context);
                return None;
            }
            let owned = Module {
                context,
                module,
                _diagnostics: diagnostics,
                warnings: Vec::new(),
                _bytes: Some(self.bytes.clone()),
            };
            let mut shard = Shard {
                module: owned,
                runs: Vec::new(),
                subprograms: Vec::new(),
                intrinsic_used: Vec::new(),
                intrinsic_address_taken: false,
            };
            let functions: Vec<LLVMValueRef> = llvm::functions(module)
                .into_iter()
                .filter(|&f| !llvm::is_debug_intrinsic_name(llvm::name(f)))
                .collect();
            let mut mine = Vec::new();
            loop {
                let run = next.fetch_add(1, Relaxed);
                if run * RUN >= functions.len() {
                    break;
                }
                for &f in &functions[run * RUN..((run + 1) * RUN).min(functions.len())] {
                    if !llvm::is_declaration(f) {
                        if !take_message(llfacts_materialize(f)).is_empty() {
                            return None;
                        }
                        mine.push(f);
                    }
                }
                shard.runs.push(run);
            }
            if !take_message(llfacts_finish_module(module)).is_empty() {
                return None;
            }
            // Uses of intrinsics, now that this shard's bodies are in.
            for f in llvm::functions(module)
                .into_iter()
                .filter(|&f| !llvm::is_debug_intrinsic_name(llvm::name(f)))
            {
                let intrinsic = llvm::name(f).starts_with(b"llvm.") && llvm::is_declaration(f);
                shard
                    .intrinsic_used
                    .push(intrinsic.then(|| !LLVMGetFirstUse(f).is_null()));
                shard.intrinsic_address_taken |= llfacts_intrinsic_address_taken(f) != 0;
            }
            let d = &shard.module._diagnostics;
            if !d.errors.is_empty() || !d.warnings.is_empty() || verify(module).is_err() {
                return None;
            }
            shard.subprograms = mine
                .iter()
                .map(|&f| llfacts_subprogram_key(f))
                .filter(|&k| k != 0)
                .collect();
            Some(shard)
        }
    }
}

/// A module as read: in one context, or in several at once (see [`Input::shards`]).
pub struct Read {
    pub shards: Vec<Module>,
    /// Per run of [`RUN`] functions, the shard that read its bodies (empty: all in shard 0).
    pub owner: Vec<usize>,
}

/// One context's part of a module read in several: the module, lazily loaded, with the
/// bodies of the functions this shard owns; and what the checks across shards need.
struct Shard {
    module: Module,
    /// The runs whose bodies this shard read.
    runs: Vec<usize>,
    /// `llfacts_subprogram_key` of each owned function with a subprogram.
    subprograms: Vec<u64>,
    /// Per function (as `Input::shards` counts them): for an intrinsic declaration,
    /// whether this shard uses it.
    intrinsic_used: Vec<Option<bool>>,
    intrinsic_address_taken: bool,
}

unsafe extern "C" {
    fn llfacts_bitcode_producer(data: *const c_char, len: usize) -> *mut c_char;
    fn llfacts_materialize(f: LLVMValueRef) -> *mut c_char;
    fn llfacts_finish_module(m: LLVMModuleRef) -> *mut c_char;
    fn llfacts_subprogram_key(f: LLVMValueRef) -> u64;
    fn llfacts_intrinsic_address_taken(f: LLVMValueRef) -> i32;
}

unsafe fn parse_and_verify(path: &Path, bytes: &[u8], is_bitcode: bool) -> Result<Module> {
    let shown = path.display();
    unsafe {
        let context = LLVMContextCreate();
        let mut diagnostics: Box<Diagnostics> = Box::default();
        let sink = &mut *diagnostics as *mut Diagnostics as *mut c_void;
        LLVMContextSetDiagnosticHandler(context, Some(record_diagnostic), sink);
        let mut module: LLVMModuleRef = ptr::null_mut();
        let name = CString::new(path.as_os_str().as_encoded_bytes()).unwrap_or_default();
        let failed = if is_bitcode {
            let buf = LLVMCreateMemoryBufferWithMemoryRange(
                bytes.as_ptr() as *const c_char,
                bytes.len(),
                name.as_ptr(),
                0,
            );
            let failed = LLVMParseBitcodeInContext2(context, buf, &mut module) != 0;
            LLVMDisposeMemoryBuffer(buf);
            failed
        } else {
            if std::str::from_utf8(bytes).is_err() && !looks_textual(bytes) {
                LLVMContextDispose(context);
                bail!("{shown}: neither LLVM bitcode nor LLVM assembly text (binary data)");
            }
            // The copy adds the NUL terminator the lexer needs.
            let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
                bytes.as_ptr() as *const c_char,
                bytes.len(),
                name.as_ptr(),
            );
            let mut message: *mut c_char = ptr::null_mut();
            let failed = LLVMParseIRInContext2(context, buf, &mut module, &mut message) != 0;
            LLVMDisposeMemoryBuffer(buf);
            if !message.is_null() {
                let text = CStr::from_ptr(message).to_string_lossy().into_owned();
                LLVMDisposeMessage(message);
                diagnostics.errors.push(text);
            }
            failed
        };
        if failed || module.is_null() {
            let cause = diagnostics
                .errors
                .first()
                .map(|m| first_line(m))
                .unwrap_or("could not be parsed");
            let cause = strip_location_prefix(cause, path);
            let err = if is_bitcode {
                let versions = if cause.contains("Producer:") {
                    String::new()
                } else {
                    producer_and_reader(bytes)
                };
                anyhow!("{shown}: invalid LLVM bitcode: {cause}{versions}")
            } else {
                anyhow!("{shown}: invalid LLVM assembly: {cause}")
            };
            LLVMContextDispose(context);
            return Err(err);
        }
        let mut warnings: Vec<String> = (diagnostics.warnings.iter())
            .map(|w| format!("{shown}: {}", first_line(w)))
            .collect();
        let mut owned = Module {
            context,
            module,
            _diagnostics: diagnostics,
            warnings: Vec::new(),
            _bytes: None,
        };
        if let Err(problem) = verify(module) {
            // What LLVM's reader does: a module whose only fault is its debug info is kept
            // without it.
            LLVMStripModuleDebugInfo(module);
            if let Err(problem) = verify(module) {
                bail!("{shown}: invalid LLVM IR: {problem}");
            }
            warnings.push(format!("{shown}: invalid debug info dropped ({problem})"));
        }
        owned.warnings = warnings;
        Ok(owned)
    }
}

/// ` (Producer: 'LLVM99.0' Reader: 'LLVM 22.1.8')`, as LLVM's reader words it, for a
/// failure LLVM reports without it; empty when the producer cannot be read.
fn producer_and_reader(bytes: &[u8]) -> String {
    let producer = unsafe {
        take_message(llfacts_bitcode_producer(
            bytes.as_ptr() as *const c_char,
            bytes.len(),
        ))
    };
    if producer.is_empty() {
        return String::new();
    }
    let (major, minor, patch) = linked_llvm_version();
    format!(
        " (Producer: '{}' Reader: 'LLVM {major}.{minor}.{patch}')",
        String::from_utf8_lossy(&producer)
    )
}

/// The version of the LLVM linked in: major, minor, patch.
pub fn linked_llvm_version() -> (u32, u32, u32) {
    let (mut major, mut minor, mut patch) = (0, 0, 0);
    unsafe { LLVMGetVersion(&mut major, &mut minor, &mut patch) };
    (major, minor, patch)
}

/// The verifier's first complaint.
unsafe fn verify(module: LLVMModuleRef) -> Result<(), String> {
    unsafe {
        let mut message: *mut c_char = ptr::null_mut();
        let failed = LLVMVerifyModule(
            module,
            LLVMVerifierFailureAction::LLVMReturnStatusAction,
            &mut message,
        ) != 0;
        let text = if message.is_null() {
            String::new()
        } else {
            let text = CStr::from_ptr(message).to_string_lossy().into_owned();
            LLVMDisposeMessage(message);
            text
        };
        if failed {
            Err(first_line(&text).to_string())
        } else {
            Ok(())
        }
    }
}

/// Text IR that is not UTF-8 is still fine if it is mostly printable (names may hold any byte).
fn looks_textual(bytes: &[u8]) -> bool {
    let printable = bytes
        .iter()
        .filter(|&&b| b >= 0x20 || b == b'\n' || b == b'\t' || b == b'\r');
    printable.count() * 10 >= bytes.len() * 9
}

fn first_line(s: &str) -> &str {
    s.lines().find(|l| !l.trim().is_empty()).unwrap_or(s).trim()
}

/// LLVM prefixes text-IR errors with `path:line:col: error:`; keep `line:col` and the message.
fn strip_location_prefix<'a>(cause: &'a str, path: &Path) -> std::borrow::Cow<'a, str> {
    let p = path.to_string_lossy();
    match cause
        .strip_prefix(p.as_ref())
        .and_then(|r| r.strip_prefix(':'))
    {
        Some(rest) => rest.replacen(" error: ", " ", 1).into(),
        None => cause.into(),
    }
}

fn io_cause(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn messages_name_the_llvm_linked() {
        let major = super::linked_llvm_version().0;
        assert_eq!(major, 22);
        assert!(crate::isolate::NOT_READABLE.ends_with(&format!("newer than {major}")));
    }
}
