//! Metadata facts: TBAA access tags and the TBAA type-descriptor graph, and debug-info
//! types with the links from globals, functions and local variables to them.
//!
//! Node ids. LLVM numbers metadata (`!7`) over the whole module as it prints it, which a
//! module read in shards (`input.rs`) cannot reproduce: each context holds only the
//! function-local nodes of the bodies it read. A node's id is instead a hash of its
//! content: `mod:!tbaa:<16 hex>` and `mod:!di:<16 hex>`, a 64-bit FNV-1a over the node's
//! kind, its fields that are not operands (tag, line, size, offset, flags, ...) and its
//! operands (strings and integers by value, nodes by their own hash). TBAA nodes form a DAG
//! of uniqued nodes, hashed to any depth: equal ids are equal nodes. Debug-info types form
//! cycles (a member's scope is its struct, a list node points to itself), so they are hashed
//! through [`DI_DEPTH`] levels of composite types, and scopes that are not types (files,
//! compile units, subprograms, blocks) by their own fields and strings only: two nodes whose
//! content agrees that far share an id (the same type described twice, as linked modules
//! do; on SQLite no two nodes of one module share an id).
//!
//! Workers read metadata only through `metadata.cpp`, which reads the IR and creates no
//! values, so no call here needs `lock_context`. The DI types that globals, functions and
//! variables name are hashed once per context, in `ModuleCtx::new` ([`module_di_hashes`]).
//! Each worker records the TBAA and DI type nodes its facts name; the graph facts are
//! emitted once per module at its end (like the type facts), from the union over the
//! workers, in id order.
#![allow(clippy::missing_safety_doc)]

use std::collections::BTreeMap;

use llvm_sys::debuginfo::{
    LLVMDIFlagBitField, LLVMDITypeGetFlags, LLVMDITypeGetName, LLVMDITypeGetSizeInBits,
};
use llvm_sys::prelude::*;

use super::llvm::{Handle, PtrMap, PtrSet, bytes};
use super::{ModuleCtx, Worker};
use crate::fact;
use crate::facts::buf::{FactBuf, Id, num};

unsafe extern "C" {
    fn llfacts_instr_tbaa(i: LLVMValueRef, which: i32) -> LLVMMetadataRef;
    fn llfacts_md_num_operands(m: LLVMMetadataRef) -> u32;
    fn llfacts_md_operand(m: LLVMMetadataRef, k: u32) -> LLVMMetadataRef;
    fn llfacts_md_is_node(m: LLVMMetadataRef) -> i32;
    fn llfacts_md_string(m: LLVMMetadataRef, len: *mut usize) -> *const std::ffi::c_char;
    fn llfacts_md_int(m: LLVMMetadataRef, out: *mut i64) -> i32;
    fn llfacts_md_fields(m: LLVMMetadataRef, out: *mut u64) -> u32;
    fn llfacts_di_tag(m: LLVMMetadataRef) -> u32;
    fn llfacts_dwarf_tag_name(tag: u32, len: *mut usize) -> *const std::ffi::c_char;
    fn llfacts_di_is_container(m: LLVMMetadataRef) -> i32;
    fn llfacts_di_is_type(m: LLVMMetadataRef) -> i32;
    fn llfacts_di_type_class(m: LLVMMetadataRef) -> i32;
    fn llfacts_di_base_type(m: LLVMMetadataRef) -> LLVMMetadataRef;
    fn llfacts_di_elements(m: LLVMMetadataRef) -> LLVMMetadataRef;
    fn llfacts_di_identifier(m: LLVMMetadataRef, len: *mut usize) -> *const std::ffi::c_char;
    fn llfacts_di_type_scope(m: LLVMMetadataRef) -> LLVMMetadataRef;
    fn llfacts_demangle_type(s: *const std::ffi::c_char, len: usize) -> *mut std::ffi::c_char;
    fn llfacts_free(p: *mut std::ffi::c_char);
    fn llfacts_di_namespace(
        m: LLVMMetadataRef,
        len: *mut usize,
        scope: *mut LLVMMetadataRef,
    ) -> *const std::ffi::c_char;
    fn llfacts_di_subrange_count(m: LLVMMetadataRef, out: *mut i64) -> i32;
    pub fn llfacts_di_variable_type(m: LLVMMetadataRef) -> LLVMMetadataRef;
    fn llfacts_function_di_type(f: LLVMValueRef) -> LLVMMetadataRef;
    fn llfacts_global_di_vars(g: LLVMValueRef, out: *mut LLVMMetadataRef, max: u32) -> u32;
    pub fn llfacts_dbg_record(
        r: LLVMDbgRecordRef,
        variable: *mut LLVMMetadataRef,
        address: *mut i32,
        plain: *mut i32,
    ) -> LLVMValueRef;
}

/// The MDString operand `k` of a node, if it has one.
pub unsafe fn md_string_operand<'a>(m: LLVMMetadataRef, k: u32) -> Option<&'a [u8]> {
    unsafe {
        if k >= llfacts_md_num_operands(m) {
            return None;
        }
        let op = llfacts_md_operand(m, k);
        let mut len = 0;
        let p = llfacts_md_string(op, &mut len);
        (!p.is_null()).then(|| bytes(p, len))
    }
}

/// How deep debug-info nodes are hashed (see the module comment): through at most
/// `DI_DEPTH` composite types (structs, unions, classes, arrays, enumerations: every cycle
/// passes through one), and at most `DI_CHAIN` other nodes (pointers, qualifiers, typedefs,
/// members, subroutine types, tuples) from one composite to the next. Unnamed nodes carry
/// little content of their own, so a depth counted in nodes would cut `void (*)(int **)`
/// from `void (*)(char **)` before reaching the `int` and the `char`.
pub const DI_DEPTH: u8 = 4;
const DI_CHAIN: u8 = 12;
/// A bound on TBAA hashing, against a malformed cyclic graph (the verifier rejects cycles
/// only along the paths that accesses take).
const TBAA_DEPTH: u8 = 64;

const TAG_MEMBER: u32 = 0x0d;
const TAG_INHERITANCE: u32 = 0x1c;
const TAG_SUBRANGE: u32 = 0x21;

/// DI type classes from `llfacts_di_type_class`.
const DERIVED: i32 = 2;
const COMPOSITE: i32 = 3;
const SUBROUTINE: i32 = 4;

/// The metadata nodes a worker's facts name, whose graph facts come at the module's end.
#[derive(Default)]
pub struct Used {
    pub tbaa: PtrSet<Handle<LLVMMetadataRef>>,
    pub di: PtrSet<Handle<LLVMMetadataRef>>,
}

impl Used {
    pub fn extend(&mut self, other: Used) {
        self.tbaa.extend(other.tbaa);
        self.di.extend(other.di);
    }
}

/// A worker's memo of content hashes and the nodes it used.
#[derive(Default)]
pub struct MdState {
    tbaa_hashes: PtrMap<LLVMMetadataRef, u64>,
    di_hashes: PtrMap<(LLVMMetadataRef, u8, u8), u64>,
    /// Access tags seen: (base id, access id, offset if it fits, constant flag), or None
    /// for a tag that is not in struct-path form. Tags recur across a function's accesses.
    tags: PtrMap<LLVMMetadataRef, Option<Tag>>,
    pub used: Used,
}

type Tag = (Id, Id, Option<i32>, bool);

/// FNV-1a 64, fed piecewise.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, b: &[u8]) {
        for &c in b {
            self.0 = (self.0 ^ c as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
}

unsafe fn md_string<'a>(m: LLVMMetadataRef) -> Option<&'a [u8]> {
    unsafe {
        let mut len = 0;
        let p = llfacts_md_string(m, &mut len);
        (!p.is_null()).then(|| bytes(p, len))
    }
}

unsafe fn md_int(m: LLVMMetadataRef) -> Option<i64> {
    let mut v = 0;
    (unsafe { llfacts_md_int(m, &mut v) } != 0).then_some(v)
}

unsafe fn is_node(m: LLVMMetadataRef) -> bool {
    !m.is_null() && unsafe { llfacts_md_is_node(m) } != 0
}

unsafe fn operands(m: LLVMMetadataRef) -> Vec<LLVMMetadataRef> {
    unsafe {
        let n = llfacts_md_num_operands(m);
        (0..n).map(|k| llfacts_md_operand(m, k)).collect()
    }
}

/// Hashes what a node is apart from the nodes it names; `child` hashes each named node.
unsafe fn hash_node(m: LLVMMetadataRef, mut child: impl FnMut(LLVMMetadataRef) -> u64) -> u64 {
    unsafe {
        let mut h = Fnv::new();
        let mut fields = [0u64; 8];
        let n = llfacts_md_fields(m, fields.as_mut_ptr()) as usize;
        for f in &fields[..n] {
            h.u64(*f);
        }
        for op in operands(m) {
            if op.is_null() {
                h.bytes(b"0");
            } else if let Some(s) = md_string(op) {
                h.bytes(b"s");
                h.u64(s.len() as u64);
                h.bytes(s);
            } else if let Some(v) = md_int(op) {
                h.bytes(b"i");
                h.u64(v as u64);
            } else if is_node(op) {
                h.bytes(b"n");
                h.u64(child(op));
            } else {
                h.bytes(b"?"); // a value (a global's address, a non-integer constant)
            }
        }
        h.0
    }
}

impl MdState {
    unsafe fn tbaa_hash(&mut self, m: LLVMMetadataRef, depth: u8) -> u64 {
        if let Some(&h) = self.tbaa_hashes.get(&m) {
            return h;
        }
        let h = unsafe {
            hash_node(m, |op| {
                if depth == 0 {
                    0
                } else {
                    self.tbaa_hash(op, depth - 1)
                }
            })
        };
        self.tbaa_hashes.insert(m, h);
        h
    }

    /// `depth` composite types may still be entered, and `chain` other nodes before the
    /// next composite (see [`DI_DEPTH`]).
    unsafe fn di_hash(&mut self, m: LLVMMetadataRef, depth: u8, chain: u8) -> u64 {
        if let Some(&h) = self.di_hashes.get(&(m, depth, chain)) {
            return h;
        }
        let next = unsafe {
            if llfacts_di_is_container(m) != 0 {
                None
            } else if llfacts_di_type_class(m) == COMPOSITE {
                depth.checked_sub(1).map(|d| (d, DI_CHAIN))
            } else {
                chain.checked_sub(1).map(|c| (depth, c))
            }
        };
        let h = unsafe {
            hash_node(m, |op| match next {
                Some((d, c)) => self.di_hash(op, d, c),
                None => 0,
            })
        };
        self.di_hashes.insert((m, depth, chain), h);
        h
    }

    /// What an access tag says, for [`Worker::tbaa`].
    unsafe fn tag(&mut self, module: &Id, tag: LLVMMetadataRef) -> Option<Tag> {
        unsafe {
            if !is_node(tag) {
                return None;
            }
            let (base, access, offset) = struct_path_tag(tag)?;
            let (base, access) = (self.tbaa_id(module, base), self.tbaa_id(module, access));
            let constant = llfacts_md_num_operands(tag) >= 4
                && md_int(llfacts_md_operand(tag, 3)).is_some_and(|c| c != 0);
            Some((base, access, num(offset), constant))
        }
    }

    pub unsafe fn tbaa_id(&mut self, module: &Id, m: LLVMMetadataRef) -> Id {
        self.used.tbaa.insert(Handle(m));
        let h = unsafe { self.tbaa_hash(m, TBAA_DEPTH) };
        Id::concat(&[module.as_bytes(), b":!tbaa:", &super::constants::hex_key(h)])
    }

    /// The id of a DI node: its hash from `pre` (the module's, see [`module_di_hashes`]),
    /// or computed here.
    pub unsafe fn di_id(&mut self, module: &Id, pre: &DiHashes, m: LLVMMetadataRef) -> Id {
        self.used.di.insert(Handle(m));
        let h = match pre.get(&Handle(m)) {
            Some(&h) => h,
            None => unsafe { self.di_hash(m, DI_DEPTH, DI_CHAIN) },
        };
        Id::concat(&[module.as_bytes(), b":!di:", &super::constants::hex_key(h)])
    }
}

impl Worker<'_> {
    /// `instr_tbaa`, `instr_tbaa_const` and `instr_tbaa_struct` of one instruction.
    pub unsafe fn tbaa(&mut self, id: &Id, instr: LLVMValueRef) {
        unsafe {
            let module = &self.m.id;
            let tag = llfacts_instr_tbaa(instr, 0);
            if !tag.is_null() {
                let known = match self.md.tags.get(&tag) {
                    Some(known) => known.clone(),
                    None => {
                        let known = self.md.tag(module, tag);
                        self.md.tags.insert(tag, known.clone());
                        known
                    }
                };
                if let Some((base, access, offset, constant)) = known {
                    if let Some(offset) = offset {
                        fact!(self.out, instr_tbaa, id, &base, &access, offset);
                    }
                    if constant {
                        fact!(self.out, instr_tbaa_const, id);
                    }
                }
            }
            let ts = llfacts_instr_tbaa(instr, 1);
            if !is_node(ts) {
                return;
            }
            let ops = operands(ts);
            for (k, triple) in ops.chunks_exact(3).enumerate() {
                let (Some(offset), Some(size)) = (md_int(triple[0]), md_int(triple[1])) else {
                    continue;
                };
                let (Some(offset), Some(size)) = (num(offset), num(size)) else {
                    continue;
                };
                if !is_node(triple[2]) {
                    continue;
                }
                // The tag's access type; an old scalar tag is its own type.
                let access = match struct_path_tag(triple[2]) {
                    Some((_, access, _)) => access,
                    None => triple[2],
                };
                let access = self.md.tbaa_id(module, access);
                fact!(
                    self.out,
                    instr_tbaa_struct,
                    id,
                    k as i32,
                    offset,
                    size,
                    &access
                );
            }
        }
    }

    /// `global_var_di_type` of a global variable.
    pub unsafe fn global_di(&mut self, id: &Id, g: LLVMValueRef) {
        unsafe {
            let mut vars = [std::ptr::null_mut(); 8];
            let n = llfacts_global_di_vars(g, vars.as_mut_ptr(), vars.len() as u32) as usize;
            for &v in &vars[..n.min(vars.len())] {
                let ty = llfacts_di_variable_type(v);
                if !ty.is_null() {
                    let ty = self.md.di_id(&self.m.id, &self.m.di_hashes, ty);
                    fact!(self.out, global_var_di_type, id, &ty);
                }
            }
        }
    }

    /// `function_di_type` of a function with a DISubprogram.
    pub unsafe fn function_di(&mut self, id: &Id, f: LLVMValueRef) {
        unsafe {
            let ty = llfacts_function_di_type(f);
            if !ty.is_null() {
                let ty = self.md.di_id(&self.m.id, &self.m.di_hashes, ty);
                fact!(self.out, function_di_type, id, &ty);
            }
        }
    }
}

/// Content hashes of DI type nodes, by node.
pub type DiHashes = PtrMap<Handle<LLVMMetadataRef>, u64>;

/// The hashes of the DI types that the module's links name (globals', functions' and local
/// variables' types), computed once per context with one memo: a worker's memo lasts one
/// run of functions, and the types of locals recur across runs (on SQLite -O0 -g, hashing
/// in the workers alone made extraction 20% slower).
pub unsafe fn module_di_hashes(
    m: LLVMModuleRef,
    names: &PtrMap<Handle<LLVMValueRef>, Vec<super::SourceName>>,
) -> DiHashes {
    unsafe {
        let mut st = MdState::default();
        let mut roots: Vec<LLVMMetadataRef> = Vec::new();
        for f in super::llvm::functions(m) {
            roots.push(llfacts_function_di_type(f));
        }
        for g in super::llvm::globals(m) {
            let mut vars = [std::ptr::null_mut(); 8];
            let n = llfacts_global_di_vars(g, vars.as_mut_ptr(), vars.len() as u32) as usize;
            roots.extend(
                vars[..n.min(vars.len())]
                    .iter()
                    .map(|&v| llfacts_di_variable_type(v)),
            );
        }
        // In node order, not the map's: the memo makes any order give the same hashes, but
        // a fixed one keeps the work the same from run to run.
        let mut locals: Vec<(usize, LLVMMetadataRef)> = Vec::new();
        for list in names.values() {
            locals.extend(list.iter().map(|n| (n.ty.0 as usize, n.ty.0)));
        }
        locals.sort_unstable();
        roots.extend(locals.into_iter().map(|(_, t)| t));
        let mut out = DiHashes::default();
        for t in roots {
            if !t.is_null() && !out.contains_key(&Handle(t)) {
                out.insert(Handle(t), st.di_hash(t, DI_DEPTH, DI_CHAIN));
            }
        }
        out
    }
}

/// A struct-path access tag's (base type, access type, offset); None for the old scalar
/// form (`!{!"int", !parent}`), whose first operand is a string (LLVM's readers upgrade
/// such tags to `!{T, T, i64 0}`, so they come only from modules built in memory).
unsafe fn struct_path_tag(tag: LLVMMetadataRef) -> Option<(LLVMMetadataRef, LLVMMetadataRef, i64)> {
    unsafe {
        if llfacts_md_num_operands(tag) < 3 {
            return None;
        }
        let (base, access) = (llfacts_md_operand(tag, 0), llfacts_md_operand(tag, 1));
        if !is_node(base) || !is_node(access) {
            return None;
        }
        Some((base, access, md_int(llfacts_md_operand(tag, 2))?))
    }
}

unsafe fn tag_name(tag: u32) -> Vec<u8> {
    unsafe {
        let mut len = 0;
        let p = llfacts_dwarf_tag_name(tag, &mut len);
        let name = bytes(p, len);
        if name.is_empty() {
            format!("DW_TAG_{tag:#x}").into_bytes()
        } else {
            name.to_vec()
        }
    }
}

unsafe fn di_name<'a>(m: LLVMMetadataRef) -> &'a [u8] {
    unsafe {
        let mut len = 0;
        bytes(LLVMDITypeGetName(m, &mut len), len)
    }
}

/// The namespaces and types `m` is declared in, outermost first, joined by `::` as C++
/// spells a qualified name; none at file scope or inside a function.
unsafe fn di_scope(m: LLVMMetadataRef) -> Option<Vec<u8>> {
    unsafe {
        let mut names: Vec<&[u8]> = Vec::new();
        let mut scope = llfacts_di_type_scope(m);
        // (a bound for malformed metadata whose scopes form a cycle)
        while !scope.is_null() && names.len() < 64 {
            if llfacts_di_is_type(scope) != 0 {
                names.push(di_name(scope));
                scope = llfacts_di_type_scope(scope);
            } else {
                let (mut len, mut outer) = (0, std::ptr::null_mut());
                let name = bytes(llfacts_di_namespace(scope, &mut len, &mut outer), len);
                names.push(if name.is_empty() { b"(anonymous namespace)" } else { name });
                scope = outer;
            }
        }
        names.reverse();
        (!names.is_empty()).then(|| names.join(&b"::"[..]))
    }
}

/// The graph facts of the TBAA and DI type nodes the workers used, reached from them, once
/// per id, in id order. `used` is per shard (context); ids do not depend on the shard.
pub unsafe fn emit_metadata_facts(ctxs: &[ModuleCtx], used: Vec<Used>, out: &mut FactBuf) {
    unsafe {
        let module = &ctxs[0].id;
        let mut states: Vec<MdState> = used.iter().map(|_| MdState::default()).collect();

        // TBAA: every type node reachable from the tags' types, through members.
        let mut tbaa: BTreeMap<Id, (usize, LLVMMetadataRef)> = BTreeMap::new();
        for (s, u) in used.iter().enumerate() {
            let mut stack: Vec<LLVMMetadataRef> = u.tbaa.iter().map(|h| h.0).collect();
            let mut seen = PtrSet::default();
            while let Some(m) = stack.pop() {
                if !seen.insert(m) {
                    continue;
                }
                let id = states[s].tbaa_id(module, m);
                tbaa.entry(id).or_insert((s, m));
                stack.extend(tbaa_members(m).into_iter().map(|(_, member, _)| member));
            }
        }
        for (id, (s, m)) in &tbaa {
            let st = &mut states[*s];
            let ops = llfacts_md_num_operands(*m);
            let name = if ops > 0 {
                md_string(llfacts_md_operand(*m, 0)).unwrap_or(b"")
            } else {
                b""
            };
            fact!(out, tbaa_type, id, name);
            if let Some(cxx) = name.strip_prefix(b"_ZTS").and_then(|t| demangle_type(t)) {
                fact!(out, tbaa_type_cxx, id, cxx);
            }
            if ops <= 1 {
                fact!(out, tbaa_root, id);
            }
            for (k, member, offset) in tbaa_members(*m) {
                let member = st.tbaa_id(module, member);
                if let Some(offset) = num(offset) {
                    fact!(out, tbaa_member, id, k as i32, &member, offset);
                }
            }
        }

        // Debug info: every type node reachable from the links, through base types,
        // members' types, and subroutine types' elements.
        let mut di: BTreeMap<Id, (usize, LLVMMetadataRef)> = BTreeMap::new();
        for (s, u) in used.iter().enumerate() {
            let mut stack: Vec<LLVMMetadataRef> = u.di.iter().map(|h| h.0).collect();
            let mut seen = PtrSet::default();
            while let Some(m) = stack.pop() {
                if m.is_null() || !seen.insert(m) || llfacts_di_is_type(m) == 0 {
                    continue;
                }
                let id = states[s].di_id(module, &ctxs[s].di_hashes, m);
                di.entry(id).or_insert((s, m));
                stack.extend(di_edges(m));
            }
        }
        for (id, (s, m)) in &di {
            let (st, m, pre) = (&mut states[*s], *m, &ctxs[*s].di_hashes);
            fact!(out, di_type, id, tag_name(llfacts_di_tag(m)), di_name(m));
            let mut len = 0;
            let identifier = bytes(llfacts_di_identifier(m, &mut len), len);
            if !identifier.is_empty() {
                fact!(out, di_type_identifier, id, identifier);
            }
            if let Some(scope) = di_scope(m) {
                fact!(out, di_type_scope, id, scope);
            }
            if let Some(bits) = num(LLVMDITypeGetSizeInBits(m)).filter(|&b| b > 0) {
                fact!(out, di_type_size, id, bits);
            }
            let class = llfacts_di_type_class(m);
            if class == DERIVED || class == COMPOSITE {
                let base = llfacts_di_base_type(m);
                if !base.is_null() && llfacts_di_is_type(base) != 0 {
                    let base = st.di_id(module, pre, base);
                    fact!(out, di_type_base, id, &base);
                }
            }
            let elements = llfacts_di_elements(m);
            if !is_node(elements) {
                continue;
            }
            for (k, e) in operands(elements).into_iter().enumerate() {
                if class == SUBROUTINE {
                    if !e.is_null() && llfacts_di_is_type(e) != 0 {
                        let e = st.di_id(module, pre, e);
                        fact!(out, di_subroutine_elem, id, k as i32, &e);
                    }
                    continue;
                }
                let tag = if e.is_null() { 0 } else { llfacts_di_tag(e) };
                if tag == TAG_MEMBER || tag == TAG_INHERITANCE {
                    let ty = llfacts_di_base_type(e);
                    let offset = llvm_sys::debuginfo::LLVMDITypeGetOffsetInBits(e);
                    if ty.is_null() || llfacts_di_is_type(ty) == 0 {
                        continue;
                    }
                    let ty = st.di_id(module, pre, ty);
                    if let Some(offset) = num(offset) {
                        fact!(out, di_member, id, k as i32, di_name(e), &ty, offset);
                    }
                    if LLVMDITypeGetFlags(e) & LLVMDIFlagBitField != 0
                        && let Some(bits) = num(LLVMDITypeGetSizeInBits(e))
                    {
                        fact!(out, di_member_bitfield, id, k as i32, bits);
                    }
                } else if tag == TAG_SUBRANGE {
                    let mut count = 0;
                    if llfacts_di_subrange_count(e, &mut count) != 0
                        && let Some(count) = num(count)
                    {
                        fact!(out, di_array_count, id, k as i32, count);
                    }
                }
            }
        }
    }
}

/// The C++ spelling of a type's Itanium mangling (`N3geo5PointE`: `geo::Point`).
unsafe fn demangle_type(mangled: &[u8]) -> Option<Vec<u8>> {
    unsafe {
        let p = llfacts_demangle_type(mangled.as_ptr().cast(), mangled.len());
        if p.is_null() {
            return None;
        }
        let name = std::ffi::CStr::from_ptr(p).to_bytes().to_vec();
        llfacts_free(p);
        Some(name)
    }
}

/// A TBAA type node's members as (index, member type node, offset): the (type, offset)
/// pairs after the name; a scalar type's one member is its parent at offset 0.
unsafe fn tbaa_members(m: LLVMMetadataRef) -> Vec<(usize, LLVMMetadataRef, i64)> {
    unsafe {
        let ops = operands(m);
        if ops.len() < 2 || md_string(ops[0]).is_none() {
            return Vec::new();
        }
        ops[1..]
            .chunks(2)
            .enumerate()
            .filter(|(_, pair)| is_node(pair[0]))
            .map(|(k, pair)| {
                (
                    k,
                    pair[0],
                    pair.get(1).and_then(|&o| md_int(o)).unwrap_or(0),
                )
            })
            .collect()
    }
}

/// The DI type nodes a type's graph facts name.
unsafe fn di_edges(m: LLVMMetadataRef) -> Vec<LLVMMetadataRef> {
    unsafe {
        let mut out = vec![llfacts_di_base_type(m)];
        let elements = llfacts_di_elements(m);
        if is_node(elements) {
            for e in operands(elements) {
                if e.is_null() {
                    continue;
                }
                if llfacts_di_type_class(m) == SUBROUTINE {
                    out.push(e);
                } else if matches!(llfacts_di_tag(e), TAG_MEMBER | TAG_INHERITANCE) {
                    out.push(llfacts_di_base_type(e));
                }
            }
        }
        out
    }
}
