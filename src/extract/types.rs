//! Type ids and type facts.
//!
//! A type id is LLVM's own spelling of the type (`i32`, `ptr addrspace(3)`, `[4 x i8]`,
//! `{ i32, ptr }`, `<vscale x 4 x i32>`, `i32 (ptr, ...)`), except that identified structs are
//! qualified by their module (`mod:%struct.S`) so ids stay unique across the
//! modules of one run. Sizes, alignments and field offsets come from LLVM's DataLayout for
//! the module, so they are exactly what LLVM computes.

use std::collections::BTreeMap;

use super::llvm::{PtrMap, PtrSet};
use std::rc::Rc;

use crate::facts::buf::Id;

use llvm_sys::LLVMTypeKind::*;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::*;

use super::llvm::{Handle, cstr};
use crate::fact;
use crate::facts::buf::{FactBuf, num};

/// Spells type ids, memoized per worker, and remembers which types were used.
pub struct TypeNamer<'a> {
    /// The raw (unescaped) module id, prefix of identified struct names.
    module_id: &'a [u8],
    spelled: PtrMap<LLVMTypeRef, Rc<[u8]>>,
    ids: PtrMap<LLVMTypeRef, Id>,
    pub used: PtrSet<Handle<LLVMTypeRef>>,
}

impl<'a> TypeNamer<'a> {
    pub fn new(module_id: &'a [u8]) -> Self {
        TypeNamer {
            module_id,
            spelled: PtrMap::default(),
            ids: PtrMap::default(),
            used: PtrSet::default(),
        }
    }

    /// The type's id, as written in facts.
    /// Borrowed, not cloned: this runs for nearly every value, and cloning an id is an
    /// atomic increment and decrement.
    pub fn id(&mut self, t: LLVMTypeRef) -> &Id {
        if !self.ids.contains_key(&t) {
            let id = Id::new(&self.spelling(t));
            self.ids.insert(t, id);
            self.used.insert(Handle(t));
        }
        &self.ids[&t]
    }

    /// The type's id before escaping (LLVM's spelling).
    pub fn spelling(&mut self, t: LLVMTypeRef) -> Rc<[u8]> {
        if let Some(s) = self.spelled.get(&t) {
            return s.clone();
        }
        let mut out = Vec::new();
        unsafe { self.spell(t, &mut out) };
        let s: Rc<[u8]> = out.into();
        self.spelled.insert(t, s.clone());
        s
    }

    unsafe fn spell(&mut self, t: LLVMTypeRef, out: &mut Vec<u8>) {
        unsafe {
            let kind = LLVMGetTypeKind(t);
            let simple: &[u8] = match kind {
                LLVMVoidTypeKind => b"void",
                LLVMHalfTypeKind => b"half",
                LLVMBFloatTypeKind => b"bfloat",
                LLVMFloatTypeKind => b"float",
                LLVMDoubleTypeKind => b"double",
                LLVMX86_FP80TypeKind => b"x86_fp80",
                LLVMFP128TypeKind => b"fp128",
                LLVMPPC_FP128TypeKind => b"ppc_fp128",
                LLVMLabelTypeKind => b"label",
                LLVMMetadataTypeKind => b"metadata",
                LLVMX86_AMXTypeKind => b"x86_amx",
                LLVMTokenTypeKind => b"token",
                _ => b"",
            };
            if !simple.is_empty() {
                out.extend_from_slice(simple);
                return;
            }
            match kind {
                LLVMIntegerTypeKind => {
                    out.push(b'i');
                    out.extend_from_slice(LLVMGetIntTypeWidth(t).to_string().as_bytes());
                }
                LLVMPointerTypeKind => {
                    out.extend_from_slice(b"ptr");
                    let space = LLVMGetPointerAddressSpace(t);
                    if space != 0 {
                        out.extend_from_slice(format!(" addrspace({space})").as_bytes());
                    }
                }
                LLVMArrayTypeKind => {
                    out.extend_from_slice(format!("[{} x ", LLVMGetArrayLength2(t)).as_bytes());
                    self.spell_ref(LLVMGetElementType(t), out);
                    out.push(b']');
                }
                LLVMVectorTypeKind | LLVMScalableVectorTypeKind => {
                    let scale = if kind == LLVMScalableVectorTypeKind {
                        "vscale x "
                    } else {
                        ""
                    };
                    out.extend_from_slice(
                        format!("<{scale}{} x ", LLVMGetVectorSize(t)).as_bytes(),
                    );
                    self.spell_ref(LLVMGetElementType(t), out);
                    out.push(b'>');
                }
                LLVMFunctionTypeKind => {
                    self.spell_ref(LLVMGetReturnType(t), out);
                    out.extend_from_slice(b" (");
                    let params = function_params(t);
                    for (i, p) in params.iter().enumerate() {
                        if i > 0 {
                            out.extend_from_slice(b", ");
                        }
                        self.spell_ref(*p, out);
                    }
                    if LLVMIsFunctionVarArg(t) != 0 {
                        out.extend_from_slice(if params.is_empty() { b"..." } else { b", ..." });
                    }
                    out.push(b')');
                }
                LLVMStructTypeKind => {
                    if LLVMIsLiteralStruct(t) == 0 {
                        out.extend_from_slice(self.module_id);
                        out.extend_from_slice(b":%");
                        let name = cstr(LLVMGetStructName(t));
                        if !name.is_empty() {
                            super::llvm::push_llvm_name(out, name);
                            return;
                        }
                        // An identified struct without a name: spell its body instead.
                    }
                    self.spell_struct_body(t, out);
                }
                LLVMTargetExtTypeKind => {
                    out.extend_from_slice(b"target(\"");
                    out.extend_from_slice(cstr(LLVMGetTargetExtTypeName(t)));
                    out.push(b'"');
                    for i in 0..LLVMGetTargetExtTypeNumTypeParams(t) {
                        out.extend_from_slice(b", ");
                        self.spell_ref(LLVMGetTargetExtTypeTypeParam(t, i), out);
                    }
                    for i in 0..LLVMGetTargetExtTypeNumIntParams(t) {
                        out.extend_from_slice(
                            format!(", {}", LLVMGetTargetExtTypeIntParam(t, i)).as_bytes(),
                        );
                    }
                    out.push(b')');
                }
                _ => out.extend_from_slice(format!("<unknown type kind {kind:?}>").as_bytes()),
            }
        }
    }

    unsafe fn spell_struct_body(&mut self, t: LLVMTypeRef, out: &mut Vec<u8>) {
        unsafe {
            let packed = LLVMIsPackedStruct(t) != 0;
            if packed {
                out.push(b'<');
            }
            let n = LLVMCountStructElementTypes(t);
            if n == 0 {
                out.extend_from_slice(b"{}");
            } else {
                out.extend_from_slice(b"{ ");
                for i in 0..n {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    self.spell_ref(LLVMStructGetTypeAtIndex(t, i), out);
                }
                out.extend_from_slice(b" }");
            }
            if packed {
                out.push(b'>');
            }
        }
    }

    unsafe fn spell_ref(&mut self, t: LLVMTypeRef, out: &mut Vec<u8>) {
        let s = self.spelling(t);
        out.extend_from_slice(&s);
    }
}

unsafe fn function_params(t: LLVMTypeRef) -> Vec<LLVMTypeRef> {
    unsafe {
        let n = LLVMCountParamTypes(t) as usize;
        let mut params = vec![std::ptr::null_mut(); n];
        LLVMGetParamTypes(t, params.as_mut_ptr());
        params
    }
}

/// The component types a type refers to directly.
unsafe fn components(t: LLVMTypeRef) -> Vec<LLVMTypeRef> {
    unsafe {
        match LLVMGetTypeKind(t) {
            LLVMArrayTypeKind | LLVMVectorTypeKind | LLVMScalableVectorTypeKind => {
                vec![LLVMGetElementType(t)]
            }
            LLVMFunctionTypeKind => {
                let mut v = vec![LLVMGetReturnType(t)];
                v.extend(function_params(t));
                v
            }
            LLVMStructTypeKind => (0..LLVMCountStructElementTypes(t))
                .map(|i| LLVMStructGetTypeAtIndex(t, i))
                .collect(),
            LLVMTargetExtTypeKind => (0..LLVMGetTargetExtTypeNumTypeParams(t))
                .map(|i| LLVMGetTargetExtTypeTypeParam(t, i))
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// Scalable vectors have no fixed size, and a target extension type may be laid out as one
/// (e.g. `target("aarch64.svcount")`) without the C API being able to tell: neither gets
/// size facts, nor does any aggregate containing them.
unsafe fn has_fixed_layout(t: LLVMTypeRef, seen: &mut PtrSet<LLVMTypeRef>) -> bool {
    unsafe {
        if matches!(
            LLVMGetTypeKind(t),
            LLVMScalableVectorTypeKind | LLVMTargetExtTypeKind
        ) {
            return false;
        }
        if !seen.insert(t) {
            return true;
        }
        components(t).into_iter().all(|c| has_fixed_layout(c, seen))
    }
}

/// Emits the facts of every used type and of every type they contain, in id order.
/// Runs on the coordinating thread only: DataLayout caches struct layouts as it goes.
/// Types already emitted in a run, keyed by data layout and type id: modules share
/// module-independent types (`i32`, `ptr`), whose facts are written once per layout.
pub type EmittedTypes = std::collections::HashSet<Vec<u8>>;

pub fn emit_type_facts(
    modules: &[(LLVMModuleRef, PtrSet<Handle<LLVMTypeRef>>)],
    module_id: &[u8],
    emitted: &mut EmittedTypes,
    out: &mut FactBuf,
) {
    // A module read in several contexts (shards) has each type once per context: each id
    // is emitted once, from the first shard that used it.
    let mut namers: Vec<TypeNamer> = modules.iter().map(|_| TypeNamer::new(module_id)).collect();
    let mut all: BTreeMap<Id, (usize, LLVMTypeRef)> = BTreeMap::new();
    for (s, (_, used)) in modules.iter().enumerate() {
        let mut stack: Vec<LLVMTypeRef> = used.iter().map(|h| h.0).collect();
        let mut seen = PtrSet::default();
        while let Some(t) = stack.pop() {
            if !seen.insert(t) {
                continue;
            }
            let id = namers[s].id(t).clone();
            if s == 0 {
                all.insert(id, (s, t));
            } else {
                all.entry(id).or_insert((s, t));
            }
            stack.extend(unsafe { components(t) });
        }
    }
    let layout_str = unsafe { cstr(LLVMGetDataLayoutStr(modules[0].0)) };
    for (id, (s, t)) in all {
        if emitted.insert([layout_str, b"\0", id.as_bytes()].concat()) {
            let layout = unsafe { LLVMGetModuleDataLayout(modules[s].0) };
            unsafe { emit_one(&mut namers[s], layout, &id, t, out) };
        }
    }
}

unsafe fn emit_one(
    namer: &mut TypeNamer,
    layout: LLVMTargetDataRef,
    id: &Id,
    t: LLVMTypeRef,
    out: &mut FactBuf,
) {
    unsafe {
        let kind = LLVMGetTypeKind(t);
        fact!(out, type_kind, id, kind_name(kind));
        match kind {
            LLVMIntegerTypeKind => {
                fact!(out, integer_type_width, id, LLVMGetIntTypeWidth(t) as i32)
            }
            LLVMHalfTypeKind | LLVMBFloatTypeKind => fact!(out, fp_type_width, id, 16),
            LLVMFloatTypeKind => fact!(out, fp_type_width, id, 32),
            LLVMDoubleTypeKind => fact!(out, fp_type_width, id, 64),
            LLVMX86_FP80TypeKind => fact!(out, fp_type_width, id, 80),
            LLVMFP128TypeKind | LLVMPPC_FP128TypeKind => fact!(out, fp_type_width, id, 128),
            LLVMPointerTypeKind => {
                fact!(
                    out,
                    pointer_type_addrspace,
                    id,
                    LLVMGetPointerAddressSpace(t) as i32
                )
            }
            LLVMArrayTypeKind => {
                let len = LLVMGetArrayLength2(t);
                fact!(out, array_type_elem, id, namer.id(LLVMGetElementType(t)));
                if let Some(n) = num(len) {
                    fact!(out, array_type_len, id, n);
                }
                fact!(out, array_type_len_text, id, len.to_string());
            }
            LLVMVectorTypeKind | LLVMScalableVectorTypeKind => {
                fact!(out, vector_type_elem, id, namer.id(LLVMGetElementType(t)));
                if let Some(n) = num(LLVMGetVectorSize(t)) {
                    fact!(out, vector_type_len, id, n);
                }
                if kind == LLVMScalableVectorTypeKind {
                    fact!(out, vector_type_scalable, id);
                }
            }
            LLVMFunctionTypeKind => {
                fact!(
                    out,
                    function_type_return,
                    id,
                    namer.id(LLVMGetReturnType(t))
                );
                let params = function_params(t);
                for (i, p) in params.iter().enumerate() {
                    fact!(out, function_type_param, id, i as i32, namer.id(*p));
                }
                fact!(out, function_type_nparams, id, params.len() as i32);
                if LLVMIsFunctionVarArg(t) != 0 {
                    fact!(out, function_type_varargs, id);
                }
            }
            LLVMStructTypeKind => struct_facts(namer, id, t, out),
            LLVMTargetExtTypeKind => target_ext_facts(namer, id, t, out),
            _ => {}
        }
        layout_facts(layout, id, t, out);
    }
}

/// The `type_kind` spelling of a kind.
fn kind_name(kind: llvm_sys::LLVMTypeKind) -> &'static str {
    match kind {
        LLVMVoidTypeKind => "void",
        LLVMHalfTypeKind
        | LLVMBFloatTypeKind
        | LLVMFloatTypeKind
        | LLVMDoubleTypeKind
        | LLVMX86_FP80TypeKind
        | LLVMFP128TypeKind
        | LLVMPPC_FP128TypeKind => "float",
        LLVMLabelTypeKind => "label",
        LLVMIntegerTypeKind => "integer",
        LLVMFunctionTypeKind => "function",
        LLVMStructTypeKind => "struct",
        LLVMArrayTypeKind => "array",
        LLVMPointerTypeKind => "pointer",
        LLVMVectorTypeKind | LLVMScalableVectorTypeKind => "vector",
        LLVMMetadataTypeKind => "metadata",
        LLVMTokenTypeKind => "token",
        LLVMX86_AMXTypeKind => "x86_amx",
        LLVMTargetExtTypeKind => "target_ext",
    }
}

/// Struct name, packing, and fields (opaque structs have none).
unsafe fn struct_facts(namer: &mut TypeNamer, id: &Id, t: LLVMTypeRef, out: &mut FactBuf) {
    unsafe {
        if LLVMIsLiteralStruct(t) != 0 {
            fact!(out, struct_type_literal, id);
        } else {
            fact!(out, struct_type_name, id, cstr(LLVMGetStructName(t)));
        }
        if LLVMIsPackedStruct(t) != 0 {
            fact!(out, struct_type_packed, id);
        }
        if LLVMIsOpaqueStruct(t) != 0 {
            fact!(out, struct_type_opaque, id);
        } else {
            let n = LLVMCountStructElementTypes(t);
            for i in 0..n {
                fact!(
                    out,
                    struct_type_field,
                    id,
                    i as i32,
                    namer.id(LLVMStructGetTypeAtIndex(t, i))
                );
            }
            fact!(out, struct_type_nfields, id, n as i32);
        }
    }
}

/// Target extension types: name, type parameters and integer parameters.
unsafe fn target_ext_facts(namer: &mut TypeNamer, id: &Id, t: LLVMTypeRef, out: &mut FactBuf) {
    unsafe {
        fact!(
            out,
            target_ext_type_name,
            id,
            cstr(LLVMGetTargetExtTypeName(t))
        );
        for i in 0..LLVMGetTargetExtTypeNumTypeParams(t) {
            fact!(
                out,
                target_ext_type_param,
                id,
                i as i32,
                namer.id(LLVMGetTargetExtTypeTypeParam(t, i))
            );
        }
        for i in 0..LLVMGetTargetExtTypeNumIntParams(t) {
            // Int params are unsigned; those beyond i32 keep their bit pattern.
            fact!(
                out,
                target_ext_type_int_param,
                id,
                i as i32,
                LLVMGetTargetExtTypeIntParam(t, i) as i32
            );
        }
    }
}

/// Sizes, alignments and field offsets from the data layout, for types whose layout is fixed.
unsafe fn layout_facts(layout: LLVMTargetDataRef, id: &Id, t: LLVMTypeRef, out: &mut FactBuf) {
    unsafe {
        if LLVMTypeIsSized(t) == 0 || !has_fixed_layout(t, &mut PtrSet::default()) {
            return;
        }
        let alloc = LLVMABISizeOfType(layout, t);
        if let Some(n) = num(alloc) {
            fact!(out, type_alloc_size, id, n);
        }
        fact!(out, type_alloc_size_text, id, alloc.to_string());
        if let Some(n) = num(LLVMStoreSizeOfType(layout, t)) {
            fact!(out, type_store_size, id, n);
        }
        if let Some(n) = num(LLVMSizeOfTypeInBits(layout, t)) {
            fact!(out, type_size_bits, id, n);
        }
        fact!(
            out,
            type_abi_align,
            id,
            LLVMABIAlignmentOfType(layout, t) as i32
        );
        fact!(
            out,
            type_pref_align,
            id,
            LLVMPreferredAlignmentOfType(layout, t) as i32
        );
        if LLVMGetTypeKind(t) == LLVMStructTypeKind {
            for i in 0..LLVMCountStructElementTypes(t) {
                let offset = LLVMOffsetOfElement(layout, t, i);
                if let Some(n) = num(offset) {
                    fact!(out, struct_type_field_offset, id, i as i32, n);
                }
                fact!(
                    out,
                    struct_type_field_offset_text,
                    id,
                    i as i32,
                    offset.to_string()
                );
            }
        }
    }
}
