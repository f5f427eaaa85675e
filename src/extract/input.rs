//! Parsing input: reads a `.bc` or `.ll` file into an LLVM module through LLVM's C API.
//!
//! LLVM's default diagnostic handler prints `error: ...` and calls `exit(1)` on malformed
//! bitcode, so every module is parsed in a context of its own with a handler that records
//! the message instead. The module is verified before anyone walks it: the extractor may rely
//! on the IR invariants (every block has a terminator, operand kinds are as LangRef says).
//!
//! The bitcode reader's own debug-info check is switched off: it prints the verifier's dump
//! to stderr and aborts on a broken module. `load` verifies instead, and drops invalid debug
//! info with a one-line warning as LLVM would. LLVM's fatal errors end the process with one
//! line naming the file (exit code `isolate::LLVM_FATAL_EXIT`); crashes are caught by `isolate`.

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_void};
use std::path::Path;
use std::ptr;
use std::sync::Once;

use anyhow::{Result, anyhow, bail};

use crate::isolate::LLVM_FATAL_EXIT;
use llvm_sys::analysis::{LLVMVerifierFailureAction, LLVMVerifyModule};
use llvm_sys::bit_reader::LLVMParseBitcodeInContext2;
use llvm_sys::core::*;
use llvm_sys::debuginfo::LLVMStripModuleDebugInfo;
use llvm_sys::error_handling::LLVMInstallFatalErrorHandler;
use llvm_sys::ir_reader::LLVMParseIRInContext;
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
        "llfacts: {what} failed (LLVM ERROR: {}); the file is corrupt or not from LLVM 19",
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

/// Reads, parses and verifies one input. Errors name the file and the cause on one line.
pub fn load(path: &Path) -> Result<Module> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| anyhow!("{shown}: {}", io_cause(&e)))?;
    if meta.is_dir() {
        bail!("{shown}: is a directory, expected a .bc or .ll file");
    }
    let bytes = std::fs::read(path).map_err(|e| anyhow!("{shown}: {}", io_cause(&e)))?;
    let is_bitcode = bytes.starts_with(BITCODE_MAGIC) || bytes.starts_with(BITCODE_WRAPPER_MAGIC);
    let says_bitcode = path.extension().is_some_and(|e| e == "bc");
    if says_bitcode && !is_bitcode {
        if bytes.is_empty() {
            bail!("{shown}: empty file, not LLVM bitcode");
        }
        bail!(
            "{shown}: not LLVM bitcode (the file does not start with the bitcode magic 'BC' 0xC0DE)"
        );
    }

    init_llvm();
    let reader = if is_bitcode {
        "bitcode reader"
    } else {
        "IR parser"
    };
    reading(format!("{shown}: LLVM's {reader}"), || unsafe {
        parse_and_verify(path, &bytes, is_bitcode)
    })
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
            if std::str::from_utf8(&bytes).is_err() && !looks_textual(&bytes) {
                LLVMContextDispose(context);
                bail!("{shown}: neither LLVM bitcode nor LLVM assembly text (binary data)");
            }
            // Takes ownership of the buffer; the copy adds the NUL terminator the lexer needs.
            let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
                bytes.as_ptr() as *const c_char,
                bytes.len(),
                name.as_ptr(),
            );
            let mut message: *mut c_char = ptr::null_mut();
            let failed = LLVMParseIRInContext(context, buf, &mut module, &mut message) != 0;
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
                anyhow!("{shown}: invalid LLVM bitcode: {cause}")
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
        // LLVM 19 keeps debug variables as records that the C API cannot iterate; turning
        // them back into llvm.dbg.* calls lets `extract` read source variable names.
        if LLVMIsNewDbgInfoFormat(module) != 0 {
            LLVMSetIsNewDbgInfoFormat(module, 0);
        }
        Ok(owned)
    }
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
