//! Module-level facts: the module itself, global variables, aliases, ifuncs and function
//! headers (signature, linkage, attributes). Bodies are in `body`.

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{
    LLVMDLLStorageClass, LLVMLinkage, LLVMThreadLocalMode, LLVMUnnamedAddr, LLVMVisibility,
};

use super::llvm::{self, bytes, cstr, name};
use super::{Worker, attrs, callconv_name};
use crate::fact;
use crate::facts::buf::Id;
use crate::facts::registry::Rel;

fn linkage_name(l: LLVMLinkage) -> &'static str {
    use LLVMLinkage::*;
    match l {
        LLVMExternalLinkage => "external",
        LLVMAvailableExternallyLinkage => "available_externally",
        LLVMLinkOnceAnyLinkage => "linkonce",
        LLVMLinkOnceODRLinkage => "linkonce_odr",
        LLVMLinkOnceODRAutoHideLinkage => "linkonce_odr_autohide",
        LLVMWeakAnyLinkage => "weak",
        LLVMWeakODRLinkage => "weak_odr",
        LLVMAppendingLinkage => "appending",
        LLVMInternalLinkage => "internal",
        LLVMPrivateLinkage => "private",
        LLVMDLLImportLinkage => "dllimport",
        LLVMDLLExportLinkage => "dllexport",
        LLVMExternalWeakLinkage => "extern_weak",
        LLVMGhostLinkage => "ghost",
        LLVMCommonLinkage => "common",
        LLVMLinkerPrivateLinkage => "linker_private",
        LLVMLinkerPrivateWeakLinkage => "linker_private_weak",
    }
}

/// The Itanium C++ demangling of a symbol name, when it is a mangled name (`_Z...`).
fn demangle(name: &[u8]) -> Option<String> {
    if !name.starts_with(b"_Z") {
        return None;
    }
    cpp_demangle::Symbol::new(name).ok()?.demangle().ok()
}

fn visibility_name(v: LLVMVisibility) -> &'static str {
    match v {
        LLVMVisibility::LLVMDefaultVisibility => "default",
        LLVMVisibility::LLVMHiddenVisibility => "hidden",
        LLVMVisibility::LLVMProtectedVisibility => "protected",
    }
}

fn thread_local_name(m: LLVMThreadLocalMode) -> Option<&'static str> {
    use LLVMThreadLocalMode::*;
    Some(match m {
        LLVMNotThreadLocal => return None,
        LLVMGeneralDynamicTLSModel => "generaldynamic",
        LLVMLocalDynamicTLSModel => "localdynamic",
        LLVMInitialExecTLSModel => "initialexec",
        LLVMLocalExecTLSModel => "localexec",
    })
}

fn dll_storage_name(c: LLVMDLLStorageClass) -> Option<&'static str> {
    match c {
        LLVMDLLStorageClass::LLVMDefaultStorageClass => None,
        LLVMDLLStorageClass::LLVMDLLImportStorageClass => Some("dllimport"),
        LLVMDLLStorageClass::LLVMDLLExportStorageClass => Some("dllexport"),
    }
}

fn unnamed_addr_name(u: LLVMUnnamedAddr) -> Option<&'static str> {
    match u {
        LLVMUnnamedAddr::LLVMNoUnnamedAddr => None,
        LLVMUnnamedAddr::LLVMLocalUnnamedAddr => Some("local_unnamed_addr"),
        LLVMUnnamedAddr::LLVMGlobalUnnamedAddr => Some("unnamed_addr"),
    }
}

impl Worker<'_> {
    /// The module's facts, then its global variables, aliases and ifuncs.
    pub unsafe fn globals(&mut self, path: &[u8]) {
        unsafe {
            let m = self.m.raw();
            self.module_facts(path);
            for g in llvm::globals(m) {
                self.global_var(g);
            }
            for a in llvm::aliases(m) {
                self.alias(a);
            }
            for i in llvm::ifuncs(m) {
                self.ifunc(i);
            }
        }
    }

    unsafe fn module_facts(&mut self, path: &[u8]) {
        unsafe {
            let m = self.m.raw();
            let id = self.m.id.clone();
            let mut len = 0;
            let source = bytes(LLVMGetSourceFileName(m, &mut len), len);
            fact!(self.out, module, &id, path, source);
            let triple = cstr(LLVMGetTarget(m));
            if !triple.is_empty() {
                fact!(self.out, module_target_triple, &id, triple);
            }
            let layout = cstr(LLVMGetDataLayoutStr(m));
            fact!(self.out, module_data_layout, &id, layout);
            let asm = bytes(LLVMGetModuleInlineAsm(m, &mut len), len);
            if !asm.is_empty() {
                fact!(self.out, module_inline_asm, &id, asm);
            }
        }
    }

    unsafe fn global_var(&mut self, g: LLVMValueRef) {
        unsafe {
            let id = &self.m.global_id(g).clone();
            fact!(self.out, global_var, id, &self.m.id);
            fact!(self.out, global_var_name, id, name(g));
            if let Some(d) = demangle(name(g)) {
                fact!(self.out, global_var_demangled, id, d);
            }
            let value_ty = self.types.id(LLVMGlobalGetValueType(g));
            fact!(self.out, global_var_value_type, id, value_ty);
            self.global_di(id, g);
            fact!(
                self.out,
                global_var_linkage,
                id,
                linkage_name(LLVMGetLinkage(g))
            );
            fact!(
                self.out,
                global_var_visibility,
                id,
                visibility_name(LLVMGetVisibility(g))
            );
            if let Some(c) = dll_storage_name(LLVMGetDLLStorageClass(g)) {
                fact!(self.out, global_var_dll_storage, id, c);
            }
            if let Some(mode) = thread_local_name(LLVMGetThreadLocalMode(g)) {
                fact!(self.out, global_var_thread_local, id, mode);
            }
            if LLVMIsGlobalConstant(g) != 0 {
                fact!(self.out, global_var_constant, id);
            }
            if LLVMIsExternallyInitialized(g) != 0 {
                fact!(self.out, global_var_externally_initialized, id);
            }
            let section = cstr(LLVMGetSection(g));
            if !section.is_empty() {
                fact!(self.out, global_var_section, id, section);
            }
            let align = LLVMGetAlignment(g);
            if align != 0 {
                fact!(self.out, global_var_align, id, align as i32);
            }
            let space = LLVMGetPointerAddressSpace(LLVMTypeOf(g));
            fact!(self.out, global_var_addrspace, id, space as i32);
            if let Some(u) = unnamed_addr_name(LLVMGetUnnamedAddress(g)) {
                fact!(self.out, global_var_unnamed_addr, id, u);
            }
            if let Some(c) = self.m.comdat_name(g) {
                fact!(self.out, global_var_comdat, id, c);
            }
            let init = LLVMGetInitializer(g);
            let init_id = (!init.is_null()).then(|| {
                let op = self.operand(init, || Id::concat(&[id.as_bytes(), b"#init"]));
                fact!(self.out, global_var_initializer, id, &op);
                op
            });
            self.pt_global_var(g, id, init_id.as_ref());
        }
    }

    unsafe fn alias(&mut self, a: LLVMValueRef) {
        unsafe {
            let id = &self.m.global_id(a).clone();
            fact!(self.out, alias, id, &self.m.id);
            fact!(self.out, alias_name, id, name(a));
            let ty = self.types.id(LLVMGlobalGetValueType(a));
            fact!(self.out, alias_value_type, id, ty);
            fact!(self.out, alias_linkage, id, linkage_name(LLVMGetLinkage(a)));
            fact!(
                self.out,
                alias_visibility,
                id,
                visibility_name(LLVMGetVisibility(a))
            );
            if let Some(mode) = thread_local_name(LLVMGetThreadLocalMode(a)) {
                fact!(self.out, alias_thread_local, id, mode);
            }
            if let Some(u) = unnamed_addr_name(LLVMGetUnnamedAddress(a)) {
                fact!(self.out, alias_unnamed_addr, id, u);
            }
            let op = self.operand(LLVMAliasGetAliasee(a), || {
                Id::concat(&[id.as_bytes(), b"#aliasee"])
            });
            fact!(self.out, alias_aliasee, id, &op);
            self.pt_alias(a, id, &op);
        }
    }

    unsafe fn ifunc(&mut self, i: LLVMValueRef) {
        unsafe {
            let id = &self.m.global_id(i).clone();
            fact!(self.out, ifunc, id, &self.m.id);
            fact!(self.out, ifunc_name, id, name(i));
            let ty = self.types.id(LLVMGlobalGetValueType(i));
            fact!(self.out, ifunc_value_type, id, ty);
            fact!(self.out, ifunc_linkage, id, linkage_name(LLVMGetLinkage(i)));
            fact!(
                self.out,
                ifunc_visibility,
                id,
                visibility_name(LLVMGetVisibility(i))
            );
            let op = self.operand(LLVMGetGlobalIFuncResolver(i), || {
                Id::concat(&[id.as_bytes(), b"#resolver"])
            });
            fact!(self.out, ifunc_resolver, id, op);
        }
    }

    /// Everything about a function except its body.
    pub unsafe fn function_header(&mut self, f: LLVMValueRef) {
        unsafe {
            let id = &self.m.global_id(f).clone();
            let fname = name(f);
            fact!(self.out, function, id, &self.m.id);
            self.pt_function(id);
            if llvm::is_declaration(f) {
                fact!(self.out, function_declaration, id);
            } else {
                fact!(self.out, function_definition, id);
            }
            fact!(self.out, function_name, id, fname);
            if let Some(d) = demangle(fname) {
                fact!(self.out, function_demangled, id, d);
            }
            let sp = llvm_sys::debuginfo::LLVMGetSubprogram(f);
            if !sp.is_null() {
                use llvm_sys::debuginfo::*;
                let file = LLVMDIScopeGetFile(sp);
                let (mut flen, mut dlen) = (0, 0);
                let path = if file.is_null() {
                    Vec::new()
                } else {
                    let name = bytes(LLVMDIFileGetFilename(file, &mut flen), flen as usize);
                    let dir = bytes(LLVMDIFileGetDirectory(file, &mut dlen), dlen as usize);
                    llvm::source_path(dir, name)
                };
                fact!(
                    self.out,
                    function_debug_loc,
                    id,
                    path,
                    LLVMDISubprogramGetLine(sp) as i32
                );
            }
            self.function_di(id, f);
            if fname.starts_with(b"llvm.") {
                fact!(self.out, function_intrinsic, id);
            }
            let sig = self.types.id(LLVMGlobalGetValueType(f));
            fact!(self.out, function_signature, id, sig);
            fact!(
                self.out,
                function_linkage,
                id,
                linkage_name(LLVMGetLinkage(f))
            );
            fact!(
                self.out,
                function_visibility,
                id,
                visibility_name(LLVMGetVisibility(f))
            );
            if let Some(c) = dll_storage_name(LLVMGetDLLStorageClass(f)) {
                fact!(self.out, function_dll_storage, id, c);
            }
            fact!(
                self.out,
                function_callconv,
                id,
                callconv_name(LLVMGetFunctionCallConv(f))
            );
            let gc = cstr(LLVMGetGC(f));
            if !gc.is_empty() {
                fact!(self.out, function_gc, id, gc);
            }
            if LLVMHasPersonalityFn(f) != 0 {
                let op = self.operand(LLVMGetPersonalityFn(f), || {
                    Id::concat(&[id.as_bytes(), b"#personality"])
                });
                fact!(self.out, function_personality, id, op);
            }
            let section = cstr(LLVMGetSection(f));
            if !section.is_empty() {
                fact!(self.out, function_section, id, section);
            }
            let align = LLVMGetAlignment(f);
            if align != 0 {
                fact!(self.out, function_align, id, align as i32);
            }
            if let Some(u) = unnamed_addr_name(LLVMGetUnnamedAddress(f)) {
                fact!(self.out, function_unnamed_addr, id, u);
            }
            if let Some(c) = self.m.comdat_name(f) {
                fact!(self.out, function_comdat, id, c);
            }
            let nparams = LLVMCountParams(f);
            fact!(self.out, function_nparams, id, nparams as i32);
            let rels = (
                Rel::function_attr,
                Rel::function_ret_attr,
                Rel::function_param_attr,
            );
            self.attributes(id, attrs::Site::Function(f), nparams, rels);
        }
    }
}
