//! Thin, read-only helpers over LLVM's C API used by the fact emitters.
//!
//! Thread safety: the per-function workers call only functions that read the IR (names,
//! operands, types, flags, attributes, debug locations). Calls that create values in the
//! context (element access of ConstantData*, MetadataAsValue wrappers of MDNode operands,
//! DataLayout struct layouts) happen only on the coordinating thread.

use std::ffi::{CStr, c_char};

use llvm_sys::core::*;
use llvm_sys::prelude::*;

/// A raw LLVM handle that may cross threads (see the module note on what is called where).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Handle<T>(pub T);
unsafe impl<T> Send for Handle<T> {}
unsafe impl<T> Sync for Handle<T> {}

pub unsafe fn bytes<'a>(ptr: *const c_char, len: usize) -> &'a [u8] {
    if ptr.is_null() {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(ptr as *const u8, len) }
    }
}

pub unsafe fn cstr<'a>(ptr: *const c_char) -> &'a [u8] {
    if ptr.is_null() {
        &[]
    } else {
        unsafe { CStr::from_ptr(ptr).to_bytes() }
    }
}

pub unsafe fn name<'a>(v: LLVMValueRef) -> &'a [u8] {
    let mut len = 0;
    unsafe { bytes(LLVMGetValueName2(v, &mut len), len) }
}

/// Owned copy of an LLVM-allocated message (`LLVMPrint*ToString`).
pub unsafe fn take_message(ptr: *mut c_char) -> Vec<u8> {
    let out = unsafe { cstr(ptr).to_vec() };
    if !ptr.is_null() {
        unsafe { LLVMDisposeMessage(ptr) };
    }
    out
}

macro_rules! list {
    ($fn_name:ident, $parent:ty, $item:ty, $first:ident, $next:ident) => {
        pub unsafe fn $fn_name(p: $parent) -> Vec<$item> {
            let mut out = Vec::new();
            let mut cur = unsafe { $first(p) };
            while !cur.is_null() {
                out.push(cur);
                cur = unsafe { $next(cur) };
            }
            out
        }
    };
}

list!(
    functions,
    LLVMModuleRef,
    LLVMValueRef,
    LLVMGetFirstFunction,
    LLVMGetNextFunction
);
list!(
    globals,
    LLVMModuleRef,
    LLVMValueRef,
    LLVMGetFirstGlobal,
    LLVMGetNextGlobal
);
list!(
    aliases,
    LLVMModuleRef,
    LLVMValueRef,
    LLVMGetFirstGlobalAlias,
    LLVMGetNextGlobalAlias
);
list!(
    ifuncs,
    LLVMModuleRef,
    LLVMValueRef,
    LLVMGetFirstGlobalIFunc,
    LLVMGetNextGlobalIFunc
);
list!(
    blocks,
    LLVMValueRef,
    LLVMBasicBlockRef,
    LLVMGetFirstBasicBlock,
    LLVMGetNextBasicBlock
);
list!(
    instructions,
    LLVMBasicBlockRef,
    LLVMValueRef,
    LLVMGetFirstInstruction,
    LLVMGetNextInstruction
);
list!(
    params,
    LLVMValueRef,
    LLVMValueRef,
    LLVMGetFirstParam,
    LLVMGetNextParam
);

pub unsafe fn operands(v: LLVMValueRef) -> Vec<LLVMValueRef> {
    unsafe {
        let n = LLVMGetNumOperands(v).max(0) as u32;
        (0..n).map(|i| LLVMGetOperand(v, i)).collect()
    }
}

pub unsafe fn is_declaration(f: LLVMValueRef) -> bool {
    unsafe { LLVMIsDeclaration(f) != 0 }
}

/// `llvm.dbg.*` intrinsics: LLVM 22 turns older producers' calls into debug records on
/// reading, so these are rarely seen; any left (a declaration, a call in text IR that was not
/// upgraded) is skipped.
pub fn is_debug_intrinsic_name(name: &[u8]) -> bool {
    name.starts_with(b"llvm.dbg.")
}

pub unsafe fn is_debug_intrinsic_call(instr: LLVMValueRef) -> bool {
    unsafe {
        if LLVMIsACallInst(instr).is_null() {
            return false;
        }
        let callee = LLVMGetCalledValue(instr);
        !callee.is_null()
            && !LLVMIsAFunction(callee).is_null()
            && is_debug_intrinsic_name(name(callee))
    }
}

/// The users of `v` (instructions or constants), one per use.
pub unsafe fn users(v: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    unsafe {
        let mut u = LLVMGetFirstUse(v);
        while !u.is_null() {
            out.push(LLVMGetUser(u));
            u = LLVMGetNextUse(u);
        }
    }
    out
}

/// The instructions of a block (debug-intrinsic calls excluded).
pub unsafe fn real_instructions(bb: LLVMBasicBlockRef) -> Vec<LLVMValueRef> {
    let mut all = unsafe { instructions(bb) };
    all.retain(|&i| unsafe { !is_debug_intrinsic_call(i) });
    all
}

/// A debug-info file name made absolute with its directory when it is relative.
pub fn source_path(dir: &[u8], file: &[u8]) -> Vec<u8> {
    if dir.is_empty() || file.starts_with(b"/") {
        file.to_vec()
    } else {
        [dir, b"/", file].concat()
    }
}

pub unsafe fn type_is_void(t: LLVMTypeRef) -> bool {
    unsafe { LLVMGetTypeKind(t) == llvm_sys::LLVMTypeKind::LLVMVoidTypeKind }
}

/// Appends `name` spelled as LLVM's printer spells it after `%` or `@`: bare when it is made
/// of `[A-Za-z0-9._-]` and does not start with a digit, else quoted with `\XX` escapes for
/// unprintable bytes, `\` and `"`. This keeps `%"2"` (a name) apart from `%2` (a slot).
pub fn push_llvm_name(out: &mut Vec<u8>, name: &[u8]) {
    let bare = name.first().is_some_and(|c| !c.is_ascii_digit())
        && name
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_'));
    if bare {
        out.extend_from_slice(name);
        return;
    }
    out.push(b'"');
    for &c in name {
        if (0x20..0x7f).contains(&c) && c != b'\\' && c != b'"' {
            out.push(c);
        } else {
            out.extend_from_slice(format!("\\{c:02X}").as_bytes());
        }
    }
    out.push(b'"');
}

/// Hash maps keyed by LLVM pointers (see `fasthash`).
pub type PtrMap<K, V> = crate::fasthash::FastMap<K, V>;
pub type PtrSet<K> = crate::fasthash::FastSet<K>;

#[cfg(test)]
mod tests {
    use super::push_llvm_name;

    fn spell(name: &[u8]) -> String {
        let mut out = Vec::new();
        push_llvm_name(&mut out, name);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn names_are_spelled_like_llvm_prints_them() {
        assert_eq!(spell(b"main"), "main");
        assert_eq!(spell(b"struct.S"), "struct.S");
        assert_eq!(spell(b"2"), "\"2\"");
        assert_eq!(spell(b"with space"), "\"with space\"");
        assert_eq!(spell(b"tab\tq\"b\\\xff"), "\"tab\\09q\\22b\\5C\\FF\"");
    }
}
