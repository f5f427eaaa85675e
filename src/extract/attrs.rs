//! Attribute facts. The C API gives attribute kinds as numbers only, so names are resolved
//! through a table of LLVM 22's attribute names (`LLVMGetEnumAttributeKindForName`); a test
//! checks that every kind LLVM knows has a name here. Constant-range values go through a
//! small C++ helper, the one thing the C API cannot read, and so do `memory` and `captures`,
//! whose packed encodings LLVM changes between versions.

use std::collections::HashMap;
use std::sync::OnceLock;

use llvm_sys::core::*;
use llvm_sys::prelude::*;

use super::Worker;
use super::llvm::bytes;
use super::types::TypeNamer;
use crate::facts::buf::Id;
use crate::facts::registry::Rel;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Class {
    /// Presence only (`nounwind`).
    Enum,
    /// Carries an integer (`align 8`, `dereferenceable(16)`); the value is LLVM's encoding.
    Int,
    /// Carries a type (`byval(%T)`).
    Type,
    /// Carries a value whose encoding is LLVM's private business: constant ranges (`range`,
    /// `initializes`), which the C API cannot read, and packed sets whose layout changes
    /// between versions (`memory`'s locations, `captures`' components). Read as LLVM prints
    /// it, through `attr_text.cpp`.
    Printed,
}

const NAMES: &[(&str, Class)] = {
    use Class::*;
    &[
        ("allocalign", Enum),
        ("allocptr", Enum),
        ("alwaysinline", Enum),
        ("builtin", Enum),
        ("cold", Enum),
        ("convergent", Enum),
        ("coro_only_destroy_when_complete", Enum),
        ("coro_elide_safe", Enum),
        ("dead_on_return", Enum),
        ("dead_on_unwind", Enum),
        ("disable_sanitizer_instrumentation", Enum),
        ("fn_ret_thunk_extern", Enum),
        ("hot", Enum),
        ("hybrid_patchable", Enum),
        ("immarg", Enum),
        ("inreg", Enum),
        ("inlinehint", Enum),
        ("jumptable", Enum),
        ("minsize", Enum),
        ("mustprogress", Enum),
        ("naked", Enum),
        ("nest", Enum),
        ("noalias", Enum),
        ("nobuiltin", Enum),
        ("nocallback", Enum),
        ("nocreateundeforpoison", Enum),
        ("nocapture", Enum),
        ("nocf_check", Enum),
        ("nodivergencesource", Enum),
        ("noduplicate", Enum),
        ("noext", Enum),
        ("nofree", Enum),
        ("noimplicitfloat", Enum),
        ("noinline", Enum),
        ("nomerge", Enum),
        ("noprofile", Enum),
        ("norecurse", Enum),
        ("noredzone", Enum),
        ("noreturn", Enum),
        ("nosanitize_bounds", Enum),
        ("nosanitize_coverage", Enum),
        ("nosync", Enum),
        ("noundef", Enum),
        ("nounwind", Enum),
        ("nonlazybind", Enum),
        ("nonnull", Enum),
        ("null_pointer_is_valid", Enum),
        ("optforfuzzing", Enum),
        ("optdebug", Enum),
        ("optsize", Enum),
        ("optnone", Enum),
        ("presplitcoroutine", Enum),
        ("readnone", Enum),
        ("readonly", Enum),
        ("returned", Enum),
        ("returns_twice", Enum),
        ("signext", Enum),
        ("safestack", Enum),
        ("sanitize_address", Enum),
        ("sanitize_alloc_token", Enum),
        ("sanitize_hwaddress", Enum),
        ("sanitize_memtag", Enum),
        ("sanitize_memory", Enum),
        ("sanitize_numerical_stability", Enum),
        ("sanitize_realtime", Enum),
        ("sanitize_realtime_blocking", Enum),
        ("sanitize_thread", Enum),
        ("sanitize_type", Enum),
        ("shadowcallstack", Enum),
        ("skipprofile", Enum),
        ("speculatable", Enum),
        ("speculative_load_hardening", Enum),
        ("ssp", Enum),
        ("sspreq", Enum),
        ("sspstrong", Enum),
        ("strictfp", Enum),
        ("swiftasync", Enum),
        ("swifterror", Enum),
        ("swiftself", Enum),
        ("willreturn", Enum),
        ("writable", Enum),
        ("writeonly", Enum),
        ("zeroext", Enum),
        ("align", Int),
        ("alignstack", Int),
        ("allockind", Int),
        ("allocsize", Int),
        ("dereferenceable", Int),
        ("dereferenceable_or_null", Int),
        ("memory", Printed),
        ("nofpclass", Int),
        ("uwtable", Int),
        ("vscale_range", Int),
        ("captures", Printed),
        ("byref", Type),
        ("byval", Type),
        ("elementtype", Type),
        ("inalloca", Type),
        ("preallocated", Type),
        ("sret", Type),
        ("range", Printed),
        ("initializes", Printed),
    ]
};

/// Kind number to (name, class) for the LLVM library we are linked against.
pub fn table() -> &'static HashMap<u32, (&'static str, Class)> {
    static TABLE: OnceLock<HashMap<u32, (&'static str, Class)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        NAMES
            .iter()
            .filter_map(|&(name, class)| {
                let kind = unsafe {
                    LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len())
                };
                (kind != 0).then_some((kind, (name, class)))
            })
            .collect()
    })
}

/// An integer attribute's value as LLVM prints it inside the parentheses: `uwtable`'s kind, the argument lists of `allocsize`/`vscale_range`,
/// `allockind`'s flags; other kinds (align, dereferenceable, ...) are plain numbers.
fn int_value(name: &str, v: u64) -> String {
    match name {
        "uwtable" => match v {
            1 => "sync".into(),
            2 => "async".into(),
            _ => v.to_string(),
        },
        "allocsize" => match (v >> 32, v & 0xffff_ffff) {
            (elem, 0xffff_ffff) => elem.to_string(),
            (elem, count) => format!("{elem},{count}"),
        },
        "vscale_range" => format!("{},{}", v >> 32, v & 0xffff_ffff),
        "allockind" => {
            let flags = [
                "alloc",
                "realloc",
                "free",
                "uninitialized",
                "zeroed",
                "aligned",
            ];
            let set: Vec<&str> = flags
                .iter()
                .enumerate()
                .filter(|(i, _)| v & (1 << i) != 0)
                .map(|(_, f)| *f)
                .collect();
            set.join(",")
        }
        _ => v.to_string(),
    }
}

/// Every attribute at `index` (function, return or parameter) as (name, value) pairs.
unsafe fn read(
    count: u32,
    fill: impl FnOnce(*mut LLVMAttributeRef),
    types: &mut TypeNamer,
) -> Vec<(Vec<u8>, Vec<u8>)> {
    if count == 0 {
        return Vec::new();
    }
    let mut attrs = vec![std::ptr::null_mut(); count as usize];
    fill(attrs.as_mut_ptr());
    attrs
        .into_iter()
        .map(|a| unsafe { describe(a, types) })
        .collect()
}

unsafe fn describe(a: LLVMAttributeRef, types: &mut TypeNamer) -> (Vec<u8>, Vec<u8>) {
    unsafe {
        if LLVMIsStringAttribute(a) != 0 {
            let (mut klen, mut vlen) = (0, 0);
            let k = bytes(LLVMGetStringAttributeKind(a, &mut klen), klen as usize).to_vec();
            let v = bytes(LLVMGetStringAttributeValue(a, &mut vlen), vlen as usize).to_vec();
            return (k, v);
        }
        let kind = LLVMGetEnumAttributeKind(a);
        let Some(&(name, class)) = table().get(&kind) else {
            return (format!("attr#{kind}").into_bytes(), Vec::new());
        };
        let value = match class {
            Class::Enum => Vec::new(),
            Class::Printed => printed_value(a),
            Class::Int => int_value(name, LLVMGetEnumAttributeValue(a)).into_bytes(),
            Class::Type => {
                let t = LLVMGetTypeAttributeValue(a);
                if t.is_null() {
                    Vec::new()
                } else {
                    types.spelling(t).to_vec()
                }
            }
        };
        (name.as_bytes().to_vec(), value)
    }
}

unsafe extern "C" {
    /// `src/extract/attr_text.cpp`: the attribute as the IR prints it, e.g. `range(i32 0, 10)`.
    fn llfacts_attribute_as_string(a: LLVMAttributeRef) -> *mut std::ffi::c_char;
}

/// What LLVM prints inside the attribute's parentheses (`i32 0, 10`, `read, argmem: write`,
/// `address, provenance`).
unsafe fn printed_value(a: LLVMAttributeRef) -> Vec<u8> {
    let text = unsafe { super::llvm::take_message(llfacts_attribute_as_string(a)) };
    match text.iter().position(|&c| c == b'(') {
        Some(open) if text.ends_with(b")") => text[open + 1..text.len() - 1].to_vec(),
        _ => text,
    }
}

/// What carries an attribute list.
#[derive(Clone, Copy)]
pub enum Site {
    Function(LLVMValueRef),
    Call(LLVMValueRef),
}

impl Site {
    unsafe fn read(self, index: u32, types: &mut TypeNamer) -> Vec<(Vec<u8>, Vec<u8>)> {
        unsafe {
            match self {
                Site::Function(f) => read(
                    LLVMGetAttributeCountAtIndex(f, index),
                    |p| LLVMGetAttributesAtIndex(f, index, p),
                    types,
                ),
                Site::Call(c) => read(
                    LLVMGetCallSiteAttributeCount(c, index),
                    |p| LLVMGetCallSiteAttributes(c, index, p),
                    types,
                ),
            }
        }
    }
}

impl Worker<'_> {
    /// Function, return and per-parameter attributes of `site`, into the three relations
    /// given (function_attr, function_ret_attr, function_param_attr or the call_* ones).
    pub unsafe fn attributes(&mut self, id: &Id, site: Site, nparams: u32, rels: (Rel, Rel, Rel)) {
        unsafe {
            for (k, v) in site.read(llvm_sys::LLVMAttributeFunctionIndex, &mut self.types) {
                self.out.emit(rels.0, (id, k, v));
            }
            for (k, v) in site.read(llvm_sys::LLVMAttributeReturnIndex, &mut self.types) {
                self.out.emit(rels.1, (id, k, v));
            }
            for p in 0..nparams {
                for (k, v) in site.read(p + 1, &mut self.types) {
                    self.out.emit(rels.2, (id, p as i32, k, v));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn integer_attributes_read_like_llvm_prints_them() {
        use super::int_value;
        assert_eq!(int_value("uwtable", 2), "async");
        assert_eq!(int_value("allocsize", 0xffff_ffff), "0");
        assert_eq!(int_value("allocsize", (1 << 32) | 2), "1,2");
        assert_eq!(int_value("vscale_range", (1 << 32) | 16), "1,16");
        assert_eq!(
            int_value("allockind", 1 | 8 | 32),
            "alloc,uninitialized,aligned"
        );
        assert_eq!(int_value("align", 16), "16");
    }

    #[test]
    fn every_llvm_attribute_kind_has_a_name() {
        // One past the last kind (LLVM's EndAttrKinds sentinel).
        let last = unsafe { llvm_sys::core::LLVMGetLastEnumAttributeKind() };
        let table = super::table();
        let missing: Vec<u32> = (1..last).filter(|k| !table.contains_key(k)).collect();
        assert!(
            missing.is_empty(),
            "attribute kinds without a name: {missing:?} (last is {last})"
        );
    }
}
