//! Parsing input: reads a `.bc` or `.ll` file into an LLVM module through LLVM's C API.
//!
//! LLVM's default diagnostic handler prints `error: ...` and calls `exit(1)` on malformed
//! bitcode, so every module is parsed in a context of its own with a handler that records
//! the message instead. The module is verified before anyone walks it: the extractor may rely
//! on the IR invariants (every block has a terminator, operand kinds are as LangRef says).

use std::ffi::{CStr, CString, c_char, c_void};
use std::path::Path;
use std::ptr;

use anyhow::{Result, anyhow, bail};
use llvm_sys::analysis::{LLVMVerifierFailureAction, LLVMVerifyModule};
use llvm_sys::bit_reader::LLVMParseBitcodeInContext2;
use llvm_sys::core::*;
use llvm_sys::ir_reader::LLVMParseIRInContext;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMDiagnosticSeverity, LLVMModule};

/// A parsed, verified module that owns its LLVM context.
pub struct Module {
    context: LLVMContextRef,
    module: LLVMModuleRef,
    _diagnostics: Box<Vec<String>>,
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
        if LLVMGetDiagInfoSeverity(info) != LLVMDiagnosticSeverity::LLVMDSError {
            return;
        }
        let text = LLVMGetDiagInfoDescription(info);
        let messages = &mut *(sink as *mut Vec<String>);
        messages.push(CStr::from_ptr(text).to_string_lossy().into_owned());
        LLVMDisposeMessage(text);
    }
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

    unsafe {
        let context = LLVMContextCreate();
        let mut diagnostics: Box<Vec<String>> = Box::default();
        let sink = &mut *diagnostics as *mut Vec<String> as *mut c_void;
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
                diagnostics.push(text);
            }
            failed
        };
        if failed || module.is_null() {
            let cause = diagnostics
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
        let owned = Module {
            context,
            module,
            _diagnostics: diagnostics,
        };
        let mut message: *mut c_char = ptr::null_mut();
        if LLVMVerifyModule(
            module,
            LLVMVerifierFailureAction::LLVMReturnStatusAction,
            &mut message,
        ) != 0
        {
            let text = CStr::from_ptr(message).to_string_lossy().into_owned();
            LLVMDisposeMessage(message);
            bail!("{shown}: invalid LLVM IR: {}", first_line(&text));
        }
        if !message.is_null() {
            LLVMDisposeMessage(message);
        }
        // LLVM 19 keeps debug variables as records that the C API cannot iterate; turning
        // them back into llvm.dbg.* calls lets `extract` read source variable names.
        if LLVMIsNewDbgInfoFormat(module) != 0 {
            LLVMSetIsNewDbgInfoFormat(module, 0);
        }
        Ok(owned)
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
