//! Points-to constraints (relation group `pointsto`, contract in `docs/pointsto.md`).
//!
//! Nodes are the ids the other facts use: variables, and constants at their use site
//! (`<site>#<operand>`, nested `.i`, exactly as `constants` names them). The per-function
//! workers emit the constraints of each instruction right after its other facts; the
//! coordinating thread emits objects, global initializers and aliasees. Data layout
//! queries (sizes, field offsets) fill LLVM's struct layout cache, so they run under
//! `ModuleCtx::lock_context` and are memoized per worker.

use llvm_sys::LLVMOpcode::{self, *};
use llvm_sys::LLVMTypeKind::*;
use llvm_sys::LLVMValueKind::*;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::*;

use super::Worker;
use super::llvm::{self, PtrMap, name};
use crate::fact;
use crate::facts::buf::{Id, num};

/// Per-worker memo of type questions.
#[derive(Default)]
pub struct PtState {
    has_ptr: PtrMap<LLVMTypeRef, bool>,
    alloc_size: PtrMap<LLVMTypeRef, Option<u64>>,
    field_offsets: PtrMap<LLVMTypeRef, Vec<u64>>,
}

/// What a call's callee is, for the constraints it gets.
enum Callee {
    /// Inline asm: its pointer arguments escape, its pointer result is unknown.
    Asm,
    /// An intrinsic with a model of its own, or one that does not touch pointers.
    Modelled,
    /// Anything else (including unmodelled intrinsics that touch pointers): `pt_call`.
    Call,
}

/// Constants that point to nothing: skipped as aggregate elements and initializer leaves.
unsafe fn is_empty_constant(v: LLVMValueRef) -> bool {
    unsafe {
        matches!(
            LLVMGetValueKind(v),
            LLVMConstantPointerNullValueKind
                | LLVMUndefValueValueKind
                | LLVMPoisonValueKind
                | LLVMConstantAggregateZeroValueKind
                | LLVMConstantDataArrayValueKind
                | LLVMConstantDataVectorValueKind
                | LLVMConstantIntValueKind
                | LLVMConstantFPValueKind
                | LLVMConstantTokenNoneValueKind
                | LLVMConstantTargetNoneValueKind
        )
    }
}

/// A constant integer index as a signed value (none for wider than 64 bits or vectors).
unsafe fn const_index(v: LLVMValueRef) -> Option<i64> {
    unsafe {
        (LLVMGetValueKind(v) == LLVMConstantIntValueKind
            && LLVMGetIntTypeWidth(LLVMTypeOf(v)) <= 64)
            .then(|| LLVMConstIntGetSExtValue(v))
    }
}

/// What an integer's bytes come from (`pt_integer_origins`): memory it was loaded from and
/// pointers converted into it, each with the byte of the integer where its byte 0 lands.
#[derive(Default)]
struct IntegerOrigins {
    sources: Vec<(Id, i64)>,
    pointers: Vec<(Id, i64)>,
}

impl IntegerOrigins {
    fn is_empty(&self) -> bool {
        self.sources.is_empty() && self.pointers.is_empty()
    }
}

fn push_new<T: PartialEq>(items: &mut Vec<T>, item: T) {
    if !items.contains(&item) {
        items.push(item);
    }
}

/// A getelementptr's landing: constant part, index path, and the stride of its
/// non-constant indices (0 when all are constants).
struct GepOffset {
    offset: i32,
    path: String,
    stride: u64,
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn is_aggregate_type(t: LLVMTypeRef) -> bool {
    matches!(
        unsafe { LLVMGetTypeKind(t) },
        LLVMStructTypeKind | LLVMArrayTypeKind | LLVMVectorTypeKind | LLVMScalableVectorTypeKind
    )
}

/// Types whose size the data layout can give without a scalable or opaque part.
unsafe fn fixed_layout(t: LLVMTypeRef, depth: u32) -> bool {
    unsafe {
        if depth > 64 {
            return false;
        }
        match LLVMGetTypeKind(t) {
            LLVMScalableVectorTypeKind
            | LLVMTargetExtTypeKind
            | LLVMVoidTypeKind
            | LLVMLabelTypeKind
            | LLVMMetadataTypeKind
            | LLVMTokenTypeKind
            | LLVMFunctionTypeKind => false,
            LLVMStructTypeKind => {
                if LLVMIsOpaqueStruct(t) != 0 {
                    return false;
                }
                (0..LLVMCountStructElementTypes(t))
                    .all(|i| fixed_layout(LLVMStructGetTypeAtIndex(t, i), depth + 1))
            }
            LLVMArrayTypeKind | LLVMVectorTypeKind => {
                fixed_layout(LLVMGetElementType(t), depth + 1)
            }
            _ => true,
        }
    }
}

/// Whether a function named `n` is an intrinsic whose effect on pointers is modelled here
/// or that has none (its arguments are not stored anywhere and its result is not a pointer
/// into memory the rules know about).
fn no_pointer_effect(n: &[u8]) -> bool {
    const PREFIXES: &[&[u8]] = &[
        b"llvm.lifetime.",
        b"llvm.invariant.start",
        b"llvm.invariant.end",
        b"llvm.memset.",
        b"llvm.memset.inline.",
        b"llvm.experimental.memset.pattern",
        b"llvm.va_end",
        b"llvm.objectsize.",
        b"llvm.prefetch",
        b"llvm.stackrestore",
        b"llvm.var.annotation",
        b"llvm.assume",
        b"llvm.experimental.noalias.scope.decl",
        b"llvm.dbg.",
        b"llvm.is.constant.",
        b"llvm.eh.typeid.for",
        b"llvm.instrprof.",
        b"llvm.pseudoprobe",
        b"llvm.sideeffect",
        b"llvm.donothing",
        b"llvm.trap",
        b"llvm.debugtrap",
        b"llvm.ubsantrap",
        b"llvm.clear_cache",
        b"llvm.allow.",
    ];
    PREFIXES.iter().any(|p| n.starts_with(p))
}

fn is_memcpy_like(n: &[u8]) -> bool {
    n.starts_with(b"llvm.memcpy.")
        || n.starts_with(b"llvm.memmove.")
        || n == b"llvm.va_copy"
        || n.starts_with(b"llvm.va_copy.")
}

fn is_va_start(n: &[u8]) -> bool {
    n == b"llvm.va_start" || n.starts_with(b"llvm.va_start.")
}

/// Intrinsics that return their first argument (a pointer), possibly with bits changed.
fn is_pass_through(n: &[u8]) -> bool {
    const PREFIXES: &[&[u8]] = &[
        b"llvm.ptrmask.",
        b"llvm.launder.invariant.group.",
        b"llvm.strip.invariant.group.",
        b"llvm.threadlocal.address.",
        b"llvm.ssa.copy.",
        b"llvm.expect.",
        b"llvm.expect.with.probability.",
        b"llvm.ptr.annotation.",
    ];
    PREFIXES.iter().any(|p| n.starts_with(p))
}

/// Whether `v` is an address as an integer: a `ptrtoint` or `ptrtoaddr`, instruction or
/// constant expression.
unsafe fn is_address_integer(v: LLVMValueRef) -> bool {
    unsafe {
        let opcode = if !LLVMIsAInstruction(v).is_null() {
            LLVMGetInstructionOpcode(v)
        } else if !LLVMIsAConstantExpr(v).is_null() {
            LLVMGetConstOpcode(v)
        } else {
            return false;
        };
        matches!(opcode, LLVMPtrToInt | LLVMPtrToAddr)
    }
}

/// An entry of a relative lookup table, `X - Y` of two addresses (under a `trunc`): the
/// pointer constant `X` and its operand path below the entry.
unsafe fn relative_entry(c: LLVMValueRef) -> Option<(LLVMValueRef, &'static [usize])> {
    unsafe {
        if LLVMIsAConstantExpr(c).is_null() {
            return None;
        }
        let (sub, path): (_, &[usize]) = match LLVMGetConstOpcode(c) {
            LLVMTrunc => (LLVMGetOperand(c, 0), &[0, 0, 0]),
            _ => (c, &[0, 0]),
        };
        let difference = !LLVMIsAConstantExpr(sub).is_null()
            && LLVMGetConstOpcode(sub) == LLVMSub
            && is_address_integer(LLVMGetOperand(sub, 0))
            && is_address_integer(LLVMGetOperand(sub, 1));
        difference.then(|| (LLVMGetOperand(LLVMGetOperand(sub, 0), 0), path))
    }
}

/// Whether `a` is an `alloca` that is only loaded from and stored to: a local variable at -O0.
unsafe fn is_local_slot(a: LLVMValueRef) -> bool {
    unsafe {
        if LLVMIsAAllocaInst(a).is_null() {
            return false;
        }
        llvm::users(a).into_iter().all(|user| match LLVMGetInstructionOpcode(user) {
            LLVMLoad => true,
            LLVMStore => LLVMGetOperand(user, 0) != a,
            _ => false,
        })
    }
}

/// Whether the integer that `ptrtoint`/`ptrtoaddr` instruction `i` makes may become a
/// pointer again (the address is exposed). It is not when every value computed from it
/// (integer arithmetic, casts, `phi`, `select`, `freeze`, `llvm.expect`, `llvm.umin` and
/// the like, and loads of a local variable's stack slot it is stored to) is only compared,
/// switched or branched on, used as a getelementptr index or as a memory intrinsic's
/// length, or subtracted from another address, which is C's pointer subtraction (a
/// distance, no address); anything else, `inttoptr` included, exposes it. The unsound
/// choices of this reading: docs/pointsto.md.
unsafe fn address_exposed(i: LLVMValueRef) -> bool {
    unsafe {
        let mut seen = vec![i];
        let mut todo = vec![i];
        while let Some(v) = todo.pop() {
            for user in llvm::users(v) {
                if LLVMIsAInstruction(user).is_null() {
                    return true;
                }
                let follow = match LLVMGetInstructionOpcode(user) {
                    LLVMICmp | LLVMSwitch | LLVMBr | LLVMGetElementPtr => false,
                    // -O0 keeps locals in stack slots: follow the slot's loads instead.
                    LLVMStore if LLVMGetOperand(user, 0) == v => {
                        let slot = LLVMGetOperand(user, 1);
                        if !is_local_slot(slot) {
                            return true;
                        }
                        for load in llvm::users(slot) {
                            if LLVMGetInstructionOpcode(load) != LLVMLoad || seen.contains(&load) {
                                continue;
                            }
                            // a pointer loaded from the slot is the address itself
                            if LLVMGetTypeKind(LLVMTypeOf(load)) != LLVMIntegerTypeKind {
                                return true;
                            }
                            seen.push(load);
                            todo.push(load);
                        }
                        false
                    }
                    LLVMSub
                        if is_address_integer(LLVMGetOperand(user, 0))
                            && is_address_integer(LLVMGetOperand(user, 1)) =>
                    {
                        false
                    }
                    LLVMAdd | LLVMSub | LLVMMul | LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem
                    | LLVMShl | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor | LLVMTrunc
                    | LLVMZExt | LLVMSExt | LLVMBitCast | LLVMFreeze | LLVMPHI | LLVMSelect => {
                        true
                    }
                    LLVMCall => {
                        let callee = LLVMGetCalledValue(user);
                        if LLVMIsAFunction(callee).is_null() || LLVMGetIntrinsicID(callee) == 0 {
                            return true;
                        }
                        let n = name(callee);
                        const LOCAL: &[&[u8]] =
                            &[b"llvm.memcpy.", b"llvm.memmove.", b"llvm.memset.", b"llvm.assume"];
                        const COMPUTED: &[&[u8]] = &[
                            b"llvm.expect.",
                            b"llvm.umin.",
                            b"llvm.umax.",
                            b"llvm.smin.",
                            b"llvm.smax.",
                            b"llvm.abs.",
                        ];
                        if COMPUTED.iter().any(|p| n.starts_with(p)) {
                            true
                        } else if LOCAL.iter().any(|p| n.starts_with(p)) {
                            false
                        } else {
                            return true;
                        }
                    }
                    _ => return true,
                };
                if follow && !seen.contains(&user) {
                    seen.push(user);
                    todo.push(user);
                }
            }
        }
        false
    }
}

impl Worker<'_> {
    /// Whether `t` holds a pointer anywhere (ptr, vectors of ptr, aggregates containing one).
    pub(super) unsafe fn pt_has_ptr(&mut self, t: LLVMTypeRef) -> bool {
        unsafe {
            if let Some(&b) = self.pt.has_ptr.get(&t) {
                return b;
            }
            let b = match LLVMGetTypeKind(t) {
                LLVMPointerTypeKind => true,
                LLVMArrayTypeKind | LLVMVectorTypeKind | LLVMScalableVectorTypeKind => {
                    self.pt_has_ptr(LLVMGetElementType(t))
                }
                LLVMStructTypeKind => {
                    let mut any = false;
                    for i in 0..LLVMCountStructElementTypes(t) {
                        if self.pt_has_ptr(LLVMStructGetTypeAtIndex(t, i)) {
                            any = true;
                            break;
                        }
                    }
                    any
                }
                _ => false,
            };
            self.pt.has_ptr.insert(t, b);
            b
        }
    }

    /// Whether `t` is an integer (or integer vector) type at least as wide as a pointer: a
    /// value that may carry a pointer's bytes through memory.
    unsafe fn pt_wide_integer(&self, t: LLVMTypeRef) -> bool {
        unsafe {
            let element = match LLVMGetTypeKind(t) {
                LLVMVectorTypeKind => LLVMGetElementType(t),
                _ => t,
            };
            let layout = self.layout();
            LLVMGetTypeKind(element) == LLVMIntegerTypeKind
                && LLVMSizeOfTypeInBits(layout, t) >= 8 * LLVMPointerSize(layout) as u64
        }
    }

    /// Whether `t` may carry a pointer's bytes without being a pointer node: a wide integer,
    /// or a struct without pointers that holds one (`{ i64, i64 }`, how the ABI returns a
    /// 16-byte struct of unions).
    unsafe fn pt_int_carrier(&mut self, t: LLVMTypeRef) -> bool {
        unsafe {
            if LLVMGetTypeKind(t) != LLVMStructTypeKind {
                return self.pt_wide_integer(t);
            }
            let n = LLVMCountStructElementTypes(t);
            !self.pt_has_ptr(t)
                && (0..n).any(|i| self.pt_wide_integer(LLVMStructGetTypeAtIndex(t, i)))
        }
    }

    /// Where an integer value (stored, passed, returned, or turned into a pointer) comes
    /// from, directly or through `phi`, `select`, `freeze` and `bitcast` (and on
    /// little-endian targets, where a byte's place in the integer is its place in memory,
    /// `zext`, `trunc`, `or`, and shifts by whole bytes): the addresses it was loaded from
    /// (`load`s of an integer carrier, `pt_int_carrier`), and the pointers it was made of
    /// (`ptrtoint` and `ptrtoaddr`, instructions or constant expressions), each with the
    /// byte of the value where its byte 0 lands (`shl i128 %p, 64`: 8; `lshr`: negative).
    /// Stored, the first is a memory copy through an integer, which is how LLVM lowers small
    /// `memcpy`s from -O1 on (`store i64 (load i64, ptr %src), ptr %dst`), so the pointers
    /// in `*src` move to `*dst`; the second stores the pointer itself, which is how LLVM
    /// 22's InstCombine writes a `std::unique_ptr` into a vector's buffer (`store i64
    /// (ptrtoint ptr %p to i64), ptr %slot`, loaded back as `ptr`). An integer node
    /// (`is_int_node`) is a source: it points to the memory that holds its bytes. `value` is
    /// named `id` where it is used; a constant address or pointer is named by its use site
    /// (`<instr>#0`, `<instr>#0.0`), whose constraints that instruction emits.
    unsafe fn pt_integer_origins(&mut self, value: LLVMValueRef, id: &Id) -> IntegerOrigins {
        unsafe {
            let mut origins = IntegerOrigins::default();
            // most values (every argument, return and store) carry no pointer bytes
            if !self.pt_int_carrier(LLVMTypeOf(value)) {
                return origins;
            }
            let mut seen = Vec::new();
            // (value, its id as a constant at its use, where its byte 0 lands)
            let mut todo = vec![(value, Some(id.clone()), 0i64)];
            let little_endian = LLVMByteOrder(self.layout()) == LLVMByteOrdering::LLVMLittleEndian;
            let width = LLVMSizeOfTypeInBits(self.layout(), LLVMTypeOf(value)).div_ceil(8) as i64;
            while let Some((v, site, at)) = todo.pop() {
                // a part shifted wholly out of the value carries nothing (and a loop that
                // shifts stops here)
                let bytes = LLVMSizeOfTypeInBits(self.layout(), LLVMTypeOf(v)).div_ceil(8);
                let inside = at < width && at + bytes as i64 > 0;
                if !inside || seen.contains(&(v, at)) || !self.pt_int_carrier(LLVMTypeOf(v)) {
                    continue;
                }
                seen.push((v, at));
                if self.is_int_node(v) {
                    if let Some(node) = self.locals.get(&v) {
                        push_new(&mut origins.sources, (node.clone(), at));
                    }
                    continue;
                }
                if LLVMIsAInstruction(v).is_null() {
                    let cast = !LLVMIsAConstantExpr(v).is_null()
                        && matches!(LLVMGetConstOpcode(v), LLVMPtrToInt | LLVMPtrToAddr);
                    let cast = cast && !is_empty_constant(LLVMGetOperand(v, 0));
                    if let Some(p) = site.filter(|_| cast).map(|s| s.child(b'.', 0)) {
                        push_new(&mut origins.pointers, (p, at));
                    }
                    continue;
                }
                let operand = |k: u32| {
                    let op = LLVMGetOperand(v, k);
                    let constant = !LLVMIsAConstantExpr(op).is_null();
                    let site = constant.then(|| self.instruction_id(v)).flatten();
                    (op, site.map(|u| u.child(b'#', k as usize)), at)
                };
                let opcode = LLVMGetInstructionOpcode(v);
                match opcode {
                    LLVMLoad => {
                        if let Some(src) = self.first_operand_node(v) {
                            push_new(&mut origins.sources, (src, at));
                        }
                    }
                    LLVMPHI => todo.extend((0..LLVMCountIncoming(v)).map(operand)),
                    LLVMSelect => todo.extend([operand(1), operand(2)]),
                    LLVMFreeze | LLVMBitCast => todo.push(operand(0)),
                    // -O2 builds `{fmt}`'s 16-byte argument values as `zext (ptrtoint)`
                    LLVMZExt | LLVMTrunc if little_endian => todo.push(operand(0)),
                    LLVMOr if little_endian => todo.extend([operand(0), operand(1)]),
                    LLVMShl | LLVMLShr | LLVMAShr if little_endian => {
                        let bytes = self.shift_bytes(LLVMGetOperand(v, 1));
                        if let Some(bytes) = bytes {
                            let (op, site, at) = operand(0);
                            let at = if opcode == LLVMShl { at + bytes } else { at - bytes };
                            todo.push((op, site, at));
                        }
                    }
                    LLVMPtrToInt | LLVMPtrToAddr => {
                        if let Some(p) = self.first_operand_node(v) {
                            push_new(&mut origins.pointers, (p, at));
                        }
                    }
                    _ => {}
                }
            }
            origins
        }
    }

    /// A constant shift amount in whole bytes, if it is one and shifts within the value.
    unsafe fn shift_bytes(&self, amount: LLVMValueRef) -> Option<i64> {
        unsafe {
            if LLVMGetValueKind(amount) != LLVMConstantIntValueKind {
                return None;
            }
            let bits = LLVMGetIntTypeWidth(LLVMTypeOf(amount));
            // the C API's getters take at most 64 bits; a wider amount is read as printed
            let shift = if bits <= 64 {
                LLVMConstIntGetZExtValue(amount)
            } else {
                let printed = self.print_value(amount);
                let digits = printed.rsplit(|&b| b == b' ').next()?;
                std::str::from_utf8(digits).ok()?.parse().ok()?
            };
            (shift % 8 == 0 && shift < u64::from(bits)).then_some((shift / 8) as i64)
        }
    }

    /// The node for `base + offset` bytes: `base` itself at 0, else a node of `instr`'s
    /// own (`<instr>+<n>`, the `n`-th it makes), a field of `base` at that offset.
    unsafe fn pt_offset_node(
        &mut self,
        instr: &Id,
        func: &Id,
        base: &Id,
        offset: i64,
        made: &mut usize,
    ) -> Option<Id> {
        if offset == 0 {
            return Some(base.clone());
        }
        let offset = num(offset)?;
        let node = instr.child(b'+', *made);
        *made += 1;
        fact!(self.out, pt_node, &node, func);
        let path = offset.to_string();
        fact!(self.out, pt_field, instr, &node, base, offset, path);
        Some(node)
    }

    /// The nodes for the memory whose bytes an integer's first bytes (a pointer's worth) are:
    /// its sources at byte 0 or shifted down from further in (an `lshr` reading the upper
    /// half). A source shifted up (its first bytes beyond the pointer) is the low bytes of
    /// no pointer.
    unsafe fn pt_leading_sources(
        &mut self,
        instr: &Id,
        func: &Id,
        origins: &IntegerOrigins,
        made: &mut usize,
    ) -> Vec<Id> {
        let mut nodes = Vec::new();
        for (src, at) in origins.sources.iter().filter(|(_, at)| *at <= 0) {
            if let Some(node) = unsafe { self.pt_offset_node(instr, func, src, -at, made) } {
                nodes.push(node);
            }
        }
        nodes
    }

    /// Whether `v` is an integer node: a parameter or the result of a call that may reach a
    /// definition (not an intrinsic, not inline asm) of a type that may carry a pointer's
    /// bytes (`pt_int_carrier`), or a wide integer extracted from such a result. It stands
    /// for the memory its bytes were loaded from: `pt_int_param`, `pt_int_call_result`.
    unsafe fn is_int_node(&mut self, v: LLVMValueRef) -> bool {
        unsafe {
            if !self.pt_int_carrier(LLVMTypeOf(v)) {
                return false;
            }
            if !LLVMIsAArgument(v).is_null() {
                return true;
            }
            if LLVMIsAInstruction(v).is_null() {
                return false;
            }
            match LLVMGetInstructionOpcode(v) {
                LLVMCall | LLVMInvoke | LLVMCallBr => {
                    let callee = LLVMGetCalledValue(v);
                    LLVMIsAInlineAsm(callee).is_null()
                        && (LLVMIsAFunction(callee).is_null() || LLVMGetIntrinsicID(callee) == 0)
                }
                LLVMExtractValue => {
                    self.pt_wide_integer(LLVMTypeOf(v)) && self.is_int_node(LLVMGetOperand(v, 0))
                }
                _ => false,
            }
        }
    }

    /// The byte offset of the element at `indices` in aggregate type `t`.
    unsafe fn pt_element_offset(&mut self, mut t: LLVMTypeRef, indices: &[u32]) -> Option<u64> {
        unsafe {
            let mut offset = 0;
            for &k in indices {
                if LLVMGetTypeKind(t) == LLVMStructTypeKind {
                    offset += self.pt_field_offset(t, k)?;
                    t = LLVMStructGetTypeAtIndex(t, k);
                } else {
                    t = LLVMGetElementType(t);
                    offset += u64::from(k) * self.pt_alloc_size(t)?;
                }
            }
            Some(offset)
        }
    }

    /// The node of instruction `i`'s operand 0: the local it names, or its use site
    /// (`<instr>#0`) when it is a constant.
    unsafe fn first_operand_node(&self, i: LLVMValueRef) -> Option<Id> {
        unsafe {
            match self.locals.get(&LLVMGetOperand(i, 0)) {
                Some(id) => Some(id.clone()),
                None => self.instruction_id(i).map(|site| site.child(b'#', 0)),
            }
        }
    }

    /// The id of instruction `i` of the function being read (`<block>:<index>`).
    unsafe fn instruction_id(&self, i: LLVMValueRef) -> Option<Id> {
        unsafe {
            let bb = LLVMGetInstructionParent(i);
            let k = llvm::real_instructions(bb).iter().position(|&x| x == i)?;
            Some(self.blocks.get(&bb)?.child(b':', k))
        }
    }

    unsafe fn layout(&self) -> LLVMTargetDataRef {
        unsafe { LLVMGetModuleDataLayout(self.m.raw()) }
    }

    /// The alloc size of `t` (none for unsized or scalable types).
    unsafe fn pt_alloc_size(&mut self, t: LLVMTypeRef) -> Option<u64> {
        unsafe {
            if let Some(&s) = self.pt.alloc_size.get(&t) {
                return s;
            }
            let s = if fixed_layout(t, 0) {
                let _guard = self.m.lock_context();
                (LLVMTypeIsSized(t) != 0).then(|| LLVMABISizeOfType(self.layout(), t))
            } else {
                None
            };
            self.pt.alloc_size.insert(t, s);
            s
        }
    }

    /// The byte offset of field `i` of struct `t` (`t` must have a fixed layout).
    unsafe fn pt_field_offset(&mut self, t: LLVMTypeRef, i: u32) -> Option<u64> {
        unsafe {
            if !self.pt.field_offsets.contains_key(&t) {
                self.pt_alloc_size(t)?;
                let _guard = self.m.lock_context();
                let layout = self.layout();
                let offsets = (0..LLVMCountStructElementTypes(t))
                    .map(|k| LLVMOffsetOfElement(layout, t, k))
                    .collect();
                self.pt.field_offsets.insert(t, offsets);
            }
            self.pt.field_offsets[&t].get(i as usize).copied()
        }
    }

    /// `pt_node` (and `pt_node_aggregate`) for a node of type `t`.
    unsafe fn pt_node(&mut self, node: &Id, func: &Id, t: LLVMTypeRef) {
        fact!(self.out, pt_node, node, func);
        if is_aggregate_type(t) {
            fact!(self.out, pt_node_aggregate, node);
        }
    }

    /// Where a getelementptr with source element type `src` and `indices` lands: its
    /// constant byte offset, its index path when every index is a constant, and the
    /// greatest common divisor of the strides of its non-constant indices (0 when there
    /// are none); none when a struct index is not a constant, a type has no fixed layout,
    /// or the offset exceeds i32.
    unsafe fn pt_gep_offset(
        &mut self,
        src: LLVMTypeRef,
        indices: &[LLVMValueRef],
    ) -> Option<GepOffset> {
        unsafe {
            let mut path = String::new();
            let mut offset: i128 = 0;
            let mut stride: u64 = 0;
            let mut cur = src;
            for (k, &ix) in indices.iter().enumerate() {
                let c = const_index(ix);
                if k > 0 {
                    path.push('.');
                }
                if let Some(c) = c {
                    path.push_str(&c.to_string());
                }
                let elem = match (k, LLVMGetTypeKind(cur)) {
                    (0, _) => cur,
                    (_, LLVMStructTypeKind) => {
                        let field = u32::try_from(c?).ok()?;
                        if field >= LLVMCountStructElementTypes(cur) {
                            return None;
                        }
                        offset += self.pt_field_offset(cur, field)? as i128;
                        cur = LLVMStructGetTypeAtIndex(cur, field);
                        continue;
                    }
                    (_, LLVMArrayTypeKind | LLVMVectorTypeKind) => {
                        cur = LLVMGetElementType(cur);
                        cur
                    }
                    _ => return None,
                };
                match c {
                    Some(0) => {}
                    Some(c) => offset += c as i128 * self.pt_alloc_size(elem)? as i128,
                    // A zero-size element counts as a stride of one byte, so that a stride of
                    // 0 always means constant indices.
                    None => stride = gcd(stride, self.pt_alloc_size(elem)?.max(1)),
                }
            }
            Some(GepOffset {
                offset: i32::try_from(offset).ok()?,
                path,
                stride,
            })
        }
    }

    /// `pt_field` for `to = gep base, indices` with constant indices, else
    /// `pt_offset_unknown` (and `pt_offset_stride` when its variable indices step by a
    /// known stride).
    unsafe fn pt_gep(
        &mut self,
        site: &Id,
        to: &Id,
        base: &Id,
        result_ty: LLVMTypeRef,
        src: LLVMTypeRef,
        indices: &[LLVMValueRef],
    ) {
        unsafe {
            let scalar = LLVMGetTypeKind(result_ty) == LLVMPointerTypeKind;
            match scalar.then(|| self.pt_gep_offset(src, indices)).flatten() {
                Some(g) if g.stride == 0 => {
                    fact!(self.out, pt_field, site, to, base, g.offset, g.path)
                }
                Some(g) => {
                    fact!(self.out, pt_offset_unknown, site, to, base);
                    if let Ok(stride) = i32::try_from(g.stride) {
                        fact!(self.out, pt_offset_stride, site, g.offset, stride);
                    }
                }
                None => fact!(self.out, pt_offset_unknown, site, to, base),
            }
        }
    }

    /// Constraints of the constant `v` used with id `id` (an operand site, or an element of
    /// one): its node when pointer-typed, and what it points to. `site` is the instruction
    /// (or global, alias) the constant belongs to, `func` its function (or that global).
    /// Non-pointer constants are walked only for the `ptrtoint`s inside them.
    pub(super) unsafe fn pt_constant(&mut self, v: LLVMValueRef, id: &Id, site: &Id, func: &Id) {
        unsafe {
            let t = LLVMTypeOf(v);
            let ptr = self.pt_has_ptr(t);
            let kind = LLVMGetValueKind(v);
            if !ptr
                && !matches!(
                    kind,
                    LLVMConstantExprValueKind
                        | LLVMConstantArrayValueKind
                        | LLVMConstantStructValueKind
                        | LLVMConstantVectorValueKind
                )
            {
                return;
            }
            if ptr {
                self.pt_node(id, func, t);
            }
            match kind {
                LLVMGlobalVariableValueKind | LLVMFunctionValueKind => {
                    let obj = self.m.global_id(v).clone();
                    fact!(self.out, pt_address_of, site, id, obj);
                }
                LLVMGlobalAliasValueKind => self.pt_alias_ref(v, id, site),
                LLVMGlobalIFuncValueKind => fact!(self.out, pt_int_to_ptr, site, id),
                LLVMBlockAddressValueKind => {
                    let obj = self.m.global_id(LLVMGetBlockAddressFunction(v)).clone();
                    fact!(self.out, pt_address_of, site, id, obj);
                }
                LLVMConstantArrayValueKind
                | LLVMConstantStructValueKind
                | LLVMConstantVectorValueKind => {
                    for i in 0..LLVMGetNumOperands(v).max(0) as u32 {
                        let e = LLVMGetOperand(v, i);
                        let eid = id.child(b'.', i as usize);
                        self.pt_constant(e, &eid, site, func);
                        if ptr && !is_empty_constant(e) && self.pt_has_ptr(LLVMTypeOf(e)) {
                            fact!(self.out, pt_copy, site, id, &eid);
                        }
                    }
                }
                LLVMConstantExprValueKind => self.pt_constant_expr(v, id, site, func, ptr),
                LLVMConstantPointerNullValueKind
                | LLVMUndefValueValueKind
                | LLVMPoisonValueKind
                | LLVMConstantAggregateZeroValueKind
                | LLVMConstantTargetNoneValueKind => {}
                _ => {
                    // dso_local_equivalent / no_cfi / ptrauth wrap a global; anything else
                    // pointer-typed is unknown to the analysis.
                    let inner = if LLVMGetNumOperands(v) > 0 {
                        LLVMGetOperand(v, 0)
                    } else {
                        std::ptr::null_mut()
                    };
                    let target = !inner.is_null()
                        && matches!(
                            LLVMGetValueKind(inner),
                            LLVMGlobalVariableValueKind | LLVMFunctionValueKind
                        );
                    if target {
                        let obj = self.m.global_id(inner).clone();
                        fact!(self.out, pt_address_of, site, id, obj);
                    } else if ptr {
                        fact!(self.out, pt_int_to_ptr, site, id);
                    }
                }
            }
        }
    }

    unsafe fn pt_constant_expr(
        &mut self,
        v: LLVMValueRef,
        id: &Id,
        site: &Id,
        func: &Id,
        ptr: bool,
    ) {
        unsafe {
            let opcode = LLVMGetConstOpcode(v);
            let n = LLVMGetNumOperands(v).max(0) as u32;
            let ops: Vec<LLVMValueRef> = (0..n).map(|i| LLVMGetOperand(v, i)).collect();
            let ids: Vec<Id> = (0..n as usize).map(|i| id.child(b'.', i)).collect();
            for (op, oid) in ops.iter().zip(&ids) {
                self.pt_constant(*op, oid, site, func);
            }
            match opcode {
                LLVMGetElementPtr => {
                    let src = LLVMGetGEPSourceElementType(v);
                    self.pt_gep(site, id, &ids[0], LLVMTypeOf(v), src, &ops[1..]);
                }
                LLVMBitCast | LLVMAddrSpaceCast if ptr => {
                    fact!(self.out, pt_copy, site, id, &ids[0]);
                }
                LLVMPtrToInt | LLVMPtrToAddr => fact!(self.out, pt_ptr_to_int, site, &ids[0]),
                // An integer constant is an absolute address, no object's (as null is).
                LLVMIntToPtr if is_empty_constant(ops[0]) => {}
                LLVMIntToPtr => fact!(self.out, pt_int_to_ptr, site, id),
                LLVMExtractElement | LLVMInsertElement | LLVMShuffleVector if ptr => {
                    for (op, oid) in ops.iter().zip(&ids) {
                        if self.pt_has_ptr(LLVMTypeOf(*op)) && !is_empty_constant(*op) {
                            fact!(self.out, pt_copy, site, id, oid);
                        }
                    }
                }
                _ if ptr => fact!(self.out, pt_int_to_ptr, site, id),
                _ => {}
            }
        }
    }

    /// A reference to alias `a` at `id`: the address of the aliasee's object when the alias
    /// (through alias chains) names a global object, else a copy of the aliasee's node
    /// (`mod:@a#aliasee`, whose constraints the alias itself carries).
    unsafe fn pt_alias_ref(&mut self, a: LLVMValueRef, id: &Id, site: &Id) {
        unsafe {
            let mut cur = a;
            for _ in 0..64 {
                let target = LLVMAliasGetAliasee(cur);
                match LLVMGetValueKind(target) {
                    LLVMGlobalAliasValueKind => cur = target,
                    LLVMGlobalVariableValueKind | LLVMFunctionValueKind => {
                        let obj = self.m.global_id(target).clone();
                        fact!(self.out, pt_address_of, site, id, obj);
                        return;
                    }
                    _ => break,
                }
            }
            let from = Id::concat(&[self.m.global_id(cur).as_bytes(), b"#aliasee"]);
            fact!(self.out, pt_copy, site, id, from);
        }
    }

    /// Coordinating thread: the object of a global variable and its initializer's pointer
    /// leaves, by byte offset.
    pub(super) unsafe fn pt_global_var(&mut self, g: LLVMValueRef, id: &Id, init_id: Option<&Id>) {
        unsafe {
            fact!(self.out, pt_object, id, "global");
            if let Some(n) = self.pt_alloc_size(LLVMGlobalGetValueType(g)).and_then(num) {
                fact!(self.out, pt_object_size, id, n);
            }
            if let Some(init_id) = init_id {
                self.pt_init_walk(LLVMGetInitializer(g), init_id, Some(0), id);
            }
        }
    }

    /// The pointer leaves of initializer constant `c` (id `cid`) at byte `offset` of global
    /// `g`: structs, arrays and vectors flattened through the data layout; `None` when an
    /// offset is unknown (a scalable or opaque part), written as -1.
    unsafe fn pt_init_walk(&mut self, c: LLVMValueRef, cid: &Id, offset: Option<i64>, g: &Id) {
        unsafe {
            let t = LLVMTypeOf(c);
            let has_ptr = self.pt_has_ptr(t);
            match LLVMGetValueKind(c) {
                // No pointer leaf below, but maybe the entries of a relative lookup table,
                // which go to -1: no offsets to compute.
                LLVMConstantStructValueKind
                | LLVMConstantArrayValueKind
                | LLVMConstantVectorValueKind
                    if !has_ptr =>
                {
                    for i in 0..LLVMGetNumOperands(c).max(0) as u32 {
                        let e = LLVMGetOperand(c, i);
                        self.pt_init_walk(e, &cid.child(b'.', i as usize), None, g);
                    }
                }
                LLVMConstantStructValueKind => {
                    for i in 0..LLVMGetNumOperands(c).max(0) as u32 {
                        let at = offset.zip(self.pt_field_offset(t, i));
                        let at = at.map(|(o, f)| o + f as i64);
                        self.pt_init_walk(
                            LLVMGetOperand(c, i),
                            &cid.child(b'.', i as usize),
                            at,
                            g,
                        );
                    }
                }
                LLVMConstantArrayValueKind | LLVMConstantVectorValueKind => {
                    let size = self.pt_alloc_size(LLVMGetElementType(t));
                    for i in 0..LLVMGetNumOperands(c).max(0) as u32 {
                        let at = offset.zip(size).map(|(o, s)| o + i as i64 * s as i64);
                        self.pt_init_walk(
                            LLVMGetOperand(c, i),
                            &cid.child(b'.', i as usize),
                            at,
                            g,
                        );
                    }
                }
                _ if is_empty_constant(c) => {}
                _ if has_ptr => {
                    let at = offset.and_then(num).unwrap_or(-1);
                    fact!(self.out, pt_initializer, g, at, cid);
                    self.pt_constant(c, cid, g, g);
                }
                _ => match relative_entry(c) {
                    // A relative lookup table holds its targets for `llvm.load.relative`,
                    // at an offset it computes: -1. The difference exposes neither address.
                    Some((target, path)) => {
                        let tid = path.iter().fold(cid.clone(), |id, &k| id.child(b'.', k));
                        self.pt_constant(target, &tid, g, g);
                        fact!(self.out, pt_initializer, g, -1, &tid);
                    }
                    // Only the ptrtoints inside constant expressions.
                    None => self.pt_constant(c, cid, g, g),
                },
            }
        }
    }

    /// Coordinating thread: the aliasee's node carries its constraints, site the alias.
    pub(super) unsafe fn pt_alias(&mut self, a: LLVMValueRef, id: &Id, aliasee_id: &Id) {
        unsafe { self.pt_constant(LLVMAliasGetAliasee(a), aliasee_id, id, id) }
    }

    /// Coordinating thread: every function is an object.
    pub(super) fn pt_function(&mut self, id: &Id) {
        fact!(self.out, pt_object, id, "function");
    }

    /// Pointer parameters of a definition.
    pub(super) unsafe fn pt_param(&mut self, func: &Id, index: usize, p: LLVMValueRef, var: &Id) {
        unsafe {
            let t = LLVMTypeOf(p);
            if self.pt_has_ptr(t) {
                self.pt_node(var, func, t);
                fact!(self.out, pt_param, func, index as i32, var);
            } else if self.is_int_node(p) {
                fact!(self.out, pt_node, var, func);
                fact!(self.out, pt_int_param, func, index as i32, var);
            }
        }
    }

    /// The constraints of one instruction. `ops` are the operand ids (`raw` the values),
    /// `result` the instruction's variable, if any.
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn pt_instruction(
        &mut self,
        func: &Id,
        id: &Id,
        instr: LLVMValueRef,
        opcode: LLVMOpcode,
        raw: &[LLVMValueRef],
        ops: &[Id],
        result: Option<&Id>,
    ) {
        unsafe {
            let rt = LLVMTypeOf(instr);
            let res_ptr = result.is_some() && self.pt_has_ptr(rt);
            let is_pad = matches!(opcode, LLVMLandingPad | LLVMCatchPad | LLVMCleanupPad);
            if let Some(r) = result.filter(|_| res_ptr || is_pad) {
                self.pt_node(r, func, rt);
            }
            let res = |r: Option<&Id>| r.cloned().unwrap_or_else(|| id.clone());
            // Operand positions the constraints below name: their constants get walked.
            let mut used: Vec<usize> = Vec::new();
            let ptr_op = |w: &mut Self, k: usize| -> bool { w.pt_has_ptr(LLVMTypeOf(raw[k])) };
            match opcode {
                LLVMAlloca => {
                    let r = res(result);
                    fact!(self.out, pt_object, id, "stack");
                    fact!(self.out, pt_address_of, id, &r, id);
                    let count = const_index(raw[0]).and_then(|c| u64::try_from(c).ok());
                    let size = self.pt_alloc_size(LLVMGetAllocatedType(instr));
                    if let Some(bytes) = count
                        .zip(size)
                        .and_then(|(c, s)| c.checked_mul(s))
                        .and_then(num)
                    {
                        fact!(self.out, pt_object_size, id, bytes);
                    }
                }
                LLVMLoad if res_ptr => {
                    fact!(self.out, pt_load, id, res(result), &ops[0]);
                    used.push(0);
                }
                LLVMStore if ptr_op(self, 0) => {
                    fact!(self.out, pt_store, id, &ops[1], &ops[0]);
                    used.extend([0, 1]);
                }
                // a wide integer load may be one half of a copy through an integer
                LLVMLoad if self.pt_wide_integer(rt) => used.push(0),
                LLVMStore => {
                    // `*(dst + at) = src's bytes` for a source whose byte 0 lands at `at`
                    // (from `src - at` when negative), and `*(dst + at) = p` for a whole
                    // pointer
                    let origins = self.pt_integer_origins(raw[0], &ops[0]);
                    let mut made = 0;
                    for (src, at) in &origins.sources {
                        let (dst, src) = if *at >= 0 {
                            (self.pt_offset_node(id, func, &ops[1], *at, &mut made), Some(src.clone()))
                        } else {
                            (Some(ops[1].clone()), self.pt_offset_node(id, func, src, -at, &mut made))
                        };
                        if let Some((dst, src)) = dst.zip(src) {
                            fact!(self.out, pt_memcpy, id, &dst, &src);
                        }
                    }
                    for (pointer, at) in origins.pointers.iter().filter(|(_, at)| *at >= 0) {
                        if let Some(dst) = self.pt_offset_node(id, func, &ops[1], *at, &mut made) {
                            fact!(self.out, pt_store, id, &dst, pointer);
                        }
                    }
                    if !origins.is_empty() {
                        used.push(1);
                    }
                }
                LLVMGetElementPtr => {
                    let src = LLVMGetGEPSourceElementType(instr);
                    self.pt_gep(id, &res(result), &ops[0], rt, src, &raw[1..]);
                    used.push(0);
                }
                LLVMPtrToInt | LLVMPtrToAddr if ptr_op(self, 0) => {
                    fact!(self.out, pt_ptr_to_int, id, &ops[0]);
                    if !address_exposed(instr) {
                        fact!(self.out, pt_address_unexposed, id);
                    }
                    used.push(0);
                }
                LLVMIntToPtr if is_empty_constant(raw[0]) => {}
                LLVMIntToPtr => {
                    let r = res(result);
                    fact!(self.out, pt_int_to_ptr, id, &r);
                    // an integer loaded from memory carries what that memory holds: -O2
                    // copies a union of a pointer and an integer (Lua's `TValue`) as `i64`
                    let origins = self.pt_integer_origins(raw[0], &ops[0]);
                    for src in &self.pt_leading_sources(id, func, &origins, &mut 0) {
                        fact!(self.out, pt_int_load, id, &r, src);
                    }
                }
                // an element of a `{ i64, i64 }` result is at its offset in that memory
                LLVMExtractValue if !res_ptr && self.is_int_node(instr) => {
                    let r = res(result);
                    fact!(self.out, pt_node, &r, func);
                    let n = LLVMGetNumIndices(instr) as usize;
                    let indices = std::slice::from_raw_parts(LLVMGetIndices(instr), n);
                    let path: Vec<String> = indices.iter().map(u32::to_string).collect();
                    let path = path.join(".");
                    let offset = self.pt_element_offset(LLVMTypeOf(raw[0]), indices);
                    match offset.and_then(num) {
                        Some(offset) => fact!(self.out, pt_field, id, &r, &ops[0], offset, path),
                        None => fact!(self.out, pt_offset_unknown, id, &r, &ops[0]),
                    }
                }
                LLVMBitCast | LLVMAddrSpaceCast | LLVMFreeze | LLVMExtractValue
                | LLVMExtractElement
                    if res_ptr =>
                {
                    fact!(self.out, pt_copy, id, res(result), &ops[0]);
                    used.push(0);
                }
                LLVMPHI | LLVMSelect | LLVMInsertValue | LLVMInsertElement | LLVMShuffleVector
                    if res_ptr =>
                {
                    let r = res(result);
                    let sources: Vec<usize> = match opcode {
                        LLVMPHI => (0..LLVMCountIncoming(instr) as usize).collect(),
                        LLVMSelect => vec![1, 2],
                        _ => vec![0, 1],
                    };
                    let mut seen: Vec<&Id> = Vec::new();
                    for k in sources {
                        if !ptr_op(self, k) || seen.contains(&&ops[k]) {
                            continue;
                        }
                        seen.push(&ops[k]);
                        fact!(self.out, pt_copy, id, &r, &ops[k]);
                        used.push(k);
                    }
                }
                LLVMRet if !ops.is_empty() && ptr_op(self, 0) => {
                    fact!(self.out, pt_return, id, func, &ops[0]);
                    used.push(0);
                }
                LLVMRet if !ops.is_empty() => {
                    let origins = self.pt_integer_origins(raw[0], &ops[0]);
                    for src in &self.pt_leading_sources(id, func, &origins, &mut 0) {
                        fact!(self.out, pt_int_return, id, func, src);
                    }
                }
                LLVMVAArg if res_ptr => {
                    fact!(self.out, pt_va_arg, id, res(result), &ops[0]);
                    used.push(0);
                }
                LLVMLandingPad | LLVMCatchPad | LLVMCleanupPad => {
                    fact!(self.out, pt_exception, id, res(result));
                }
                LLVMAtomicRMW
                    if LLVMGetAtomicRMWBinOp(instr)
                        == llvm_sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpXchg
                        && ptr_op(self, 1) =>
                {
                    fact!(self.out, pt_load, id, res(result), &ops[0]);
                    fact!(self.out, pt_store, id, &ops[0], &ops[1]);
                    used.extend([0, 1]);
                }
                LLVMAtomicCmpXchg if ptr_op(self, 2) => {
                    fact!(self.out, pt_load, id, res(result), &ops[0]);
                    fact!(self.out, pt_store, id, &ops[0], &ops[2]);
                    used.extend([0, 2]);
                }
                LLVMCall | LLVMInvoke | LLVMCallBr => {
                    self.pt_call(func, id, instr, raw, ops, result, res_ptr, &mut used);
                }
                _ => {}
            }
            used.sort_unstable();
            used.dedup();
            // Constants in the named positions, plus constant expressions and aggregates
            // anywhere (for the ptrtoint inside them and the pointers they compute).
            for (k, &v) in raw.iter().enumerate() {
                if LLVMIsAConstant(v).is_null() {
                    continue;
                }
                let walk = used.binary_search(&k).is_ok()
                    || matches!(
                        LLVMGetValueKind(v),
                        LLVMConstantExprValueKind
                            | LLVMConstantArrayValueKind
                            | LLVMConstantStructValueKind
                            | LLVMConstantVectorValueKind
                    );
                if walk {
                    self.pt_constant(v, &ops[k], id, func);
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    unsafe fn pt_call(
        &mut self,
        func: &Id,
        id: &Id,
        instr: LLVMValueRef,
        raw: &[LLVMValueRef],
        ops: &[Id],
        result: Option<&Id>,
        res_ptr: bool,
        used: &mut Vec<usize>,
    ) {
        unsafe {
            let callee = LLVMGetCalledValue(instr);
            let nargs = LLVMGetNumArgOperands(instr) as usize;
            let mut kind = Callee::Call;
            if !LLVMIsAInlineAsm(callee).is_null() {
                kind = Callee::Asm;
            } else if !LLVMIsAFunction(callee).is_null() && LLVMGetIntrinsicID(callee) != 0 {
                let n = name(callee);
                let arg_ptr =
                    |w: &mut Self, k: usize| k < nargs && w.pt_has_ptr(LLVMTypeOf(raw[k]));
                if is_memcpy_like(n) && nargs >= 2 {
                    fact!(self.out, pt_memcpy, id, &ops[0], &ops[1]);
                    used.extend([0, 1]);
                    kind = Callee::Modelled;
                } else if is_va_start(n) && nargs >= 1 {
                    fact!(self.out, pt_va_start, id, &ops[0], func);
                    used.push(0);
                    kind = Callee::Modelled;
                } else if is_pass_through(n) && nargs >= 1 {
                    if res_ptr && arg_ptr(self, 0) {
                        fact!(self.out, pt_copy, id, result.unwrap(), &ops[0]);
                        used.push(0);
                    }
                    kind = Callee::Modelled;
                } else if (n.starts_with(b"llvm.masked.load.")
                    || n.starts_with(b"llvm.masked.gather.")
                    || n.starts_with(b"llvm.masked.expandload."))
                    && nargs >= 1
                {
                    if res_ptr {
                        let r = result.unwrap();
                        fact!(self.out, pt_load, id, r, &ops[0]);
                        used.push(0);
                        // The pass-through operand (last) fills masked-off lanes.
                        let last = nargs - 1;
                        if last > 0 && arg_ptr(self, last) {
                            fact!(self.out, pt_copy, id, r, &ops[last]);
                            used.push(last);
                        }
                    }
                    kind = Callee::Modelled;
                } else if (n.starts_with(b"llvm.masked.store.")
                    || n.starts_with(b"llvm.masked.scatter.")
                    || n.starts_with(b"llvm.masked.compressstore."))
                    && nargs >= 2
                {
                    if arg_ptr(self, 0) {
                        fact!(self.out, pt_store, id, &ops[1], &ops[0]);
                        used.extend([0, 1]);
                    }
                    kind = Callee::Modelled;
                } else if n.starts_with(b"llvm.load.relative.") {
                    // `table + *(i32 *)(table + offset)`: a pointer rebuilt from an integer
                    // in the table, which holds its targets (`relative_entry`).
                    if res_ptr {
                        let r = result.unwrap();
                        fact!(self.out, pt_int_to_ptr, id, r);
                        if arg_ptr(self, 0) {
                            fact!(self.out, pt_int_load, id, r, &ops[0]);
                            used.push(0);
                        }
                    }
                    kind = Callee::Modelled;
                } else if no_pointer_effect(n) {
                    kind = Callee::Modelled;
                } else {
                    // Unmodelled intrinsics that touch no pointer need nothing.
                    let touches = res_ptr || (0..nargs).any(|k| arg_ptr(self, k));
                    if !touches {
                        kind = Callee::Modelled;
                    }
                }
            }
            match kind {
                Callee::Modelled => {}
                Callee::Asm => {
                    for k in 0..nargs {
                        if self.pt_has_ptr(LLVMTypeOf(raw[k])) {
                            fact!(self.out, pt_ptr_to_int, id, &ops[k]);
                            used.push(k);
                        }
                    }
                    if res_ptr {
                        fact!(self.out, pt_int_to_ptr, id, result.unwrap());
                    }
                }
                Callee::Call => {
                    let last = ops.len() - 1;
                    fact!(self.out, pt_call, id, &ops[last]);
                    used.push(last);
                    for k in 0..nargs {
                        if self.pt_has_ptr(LLVMTypeOf(raw[k])) {
                            fact!(self.out, pt_call_arg, id, k as i32, &ops[k]);
                            used.push(k);
                        }
                    }
                    if res_ptr {
                        fact!(self.out, pt_call_result, id, result.unwrap());
                    }
                    // Integers that may carry a pointer's bytes (a union returned or passed
                    // by value as `i64` or `i128`) go by the memory that holds them.
                    let mut made = 0;
                    for k in 0..nargs {
                        let origins = self.pt_integer_origins(raw[k], &ops[k]);
                        for src in &self.pt_leading_sources(id, func, &origins, &mut made) {
                            fact!(self.out, pt_int_call_arg, id, k as i32, src);
                        }
                    }
                    if let Some(r) = result.filter(|_| self.is_int_node(instr)) {
                        fact!(self.out, pt_node, r, func);
                        fact!(self.out, pt_int_call_result, id, r);
                    }
                }
            }
        }
    }
}
