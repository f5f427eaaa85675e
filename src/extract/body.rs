//! Function bodies: blocks, the CFG, and every instruction with its operands and attributes.

use llvm_sys::LLVMOpcode::{self, *};
use llvm_sys::core::*;
use llvm_sys::debuginfo::LLVMInstructionGetDebugLoc;
use llvm_sys::prelude::*;
use llvm_sys::{
    LLVMAtomicOrdering, LLVMAtomicRMWBinOp, LLVMIntPredicate, LLVMRealPredicate, LLVMTailCallKind,
};

use super::llvm::{self, PtrMap, bytes, name};
use super::{Worker, attrs, callconv_name, dominators};
use crate::fact;
use crate::facts::buf::{Escaped, Id, escape_into, num};
use crate::facts::registry::Rel;

/// LLVM's numbering of a function's values: unnamed parameters, blocks and non-void
/// instructions get consecutive slots, exactly as the IR printer shows them (`%0`, `%1`, ...).
pub struct Numbering {
    pub locals: PtrMap<LLVMValueRef, Id>,
    pub blocks: PtrMap<LLVMBasicBlockRef, Id>,
    /// Blocks in layout order with their instructions (debug-intrinsic calls excluded).
    pub layout: Vec<(LLVMBasicBlockRef, Vec<LLVMValueRef>)>,
}

impl Numbering {
    pub unsafe fn of(func_id: &Id, f: LLVMValueRef) -> Numbering {
        unsafe {
            let mut slot = 0usize;
            let mut spelled = Vec::new();
            let mut escaped = Vec::new();
            let mut label = |v: LLVMValueRef| -> Id {
                let n = name(v);
                if n.is_empty() {
                    slot += 1;
                    let mut buf = [0u8; 24];
                    let digits = crate::facts::buf::decimal(slot as i64 - 1, &mut buf);
                    return Id::concat(&[func_id.as_bytes(), b":%", digits]);
                }
                spelled.clear();
                llvm::push_llvm_name(&mut spelled, n);
                escaped.clear();
                escape_into(&spelled, &mut escaped);
                Id::concat(&[func_id.as_bytes(), b":%", &escaped])
            };
            let mut locals = PtrMap::default();
            let mut blocks = PtrMap::default();
            for p in llvm::params(f) {
                locals.insert(p, label(p));
            }
            let mut layout = Vec::new();
            for bb in llvm::blocks(f) {
                blocks.insert(bb, label(LLVMBasicBlockAsValue(bb)));
                let instrs = llvm::real_instructions(bb);
                for &i in &instrs {
                    if !llvm::type_is_void(LLVMTypeOf(i)) {
                        locals.insert(i, label(i));
                    }
                }
                layout.push((bb, instrs));
            }
            Numbering {
                locals,
                blocks,
                layout,
            }
        }
    }
}

/// LLVM's spelling of an opcode: its relation's name without `_instr` (see the registry).
pub fn opcode_name(op: LLVMOpcode) -> &'static str {
    let name = opcode_rel(op).info().name;
    name.strip_suffix("_instr").unwrap_or(name)
}

/// The `<opcode>_instr` relation of each opcode.
fn opcode_rel(op: LLVMOpcode) -> Rel {
    match op {
        LLVMRet => Rel::ret_instr,
        LLVMBr => Rel::br_instr,
        LLVMSwitch => Rel::switch_instr,
        LLVMIndirectBr => Rel::indirectbr_instr,
        LLVMInvoke => Rel::invoke_instr,
        LLVMUnreachable => Rel::unreachable_instr,
        LLVMCallBr => Rel::callbr_instr,
        LLVMFNeg => Rel::fneg_instr,
        LLVMAdd => Rel::add_instr,
        LLVMFAdd => Rel::fadd_instr,
        LLVMSub => Rel::sub_instr,
        LLVMFSub => Rel::fsub_instr,
        LLVMMul => Rel::mul_instr,
        LLVMFMul => Rel::fmul_instr,
        LLVMUDiv => Rel::udiv_instr,
        LLVMSDiv => Rel::sdiv_instr,
        LLVMFDiv => Rel::fdiv_instr,
        LLVMURem => Rel::urem_instr,
        LLVMSRem => Rel::srem_instr,
        LLVMFRem => Rel::frem_instr,
        LLVMShl => Rel::shl_instr,
        LLVMLShr => Rel::lshr_instr,
        LLVMAShr => Rel::ashr_instr,
        LLVMAnd => Rel::and_instr,
        LLVMOr => Rel::or_instr,
        LLVMXor => Rel::xor_instr,
        LLVMAlloca => Rel::alloca_instr,
        LLVMLoad => Rel::load_instr,
        LLVMStore => Rel::store_instr,
        LLVMGetElementPtr => Rel::getelementptr_instr,
        LLVMTrunc => Rel::trunc_instr,
        LLVMZExt => Rel::zext_instr,
        LLVMSExt => Rel::sext_instr,
        LLVMFPToUI => Rel::fptoui_instr,
        LLVMFPToSI => Rel::fptosi_instr,
        LLVMUIToFP => Rel::uitofp_instr,
        LLVMSIToFP => Rel::sitofp_instr,
        LLVMFPTrunc => Rel::fptrunc_instr,
        LLVMFPExt => Rel::fpext_instr,
        LLVMPtrToInt => Rel::ptrtoint_instr,
        LLVMPtrToAddr => Rel::ptrtoaddr_instr,
        LLVMIntToPtr => Rel::inttoptr_instr,
        LLVMBitCast => Rel::bitcast_instr,
        LLVMAddrSpaceCast => Rel::addrspacecast_instr,
        LLVMICmp => Rel::icmp_instr,
        LLVMFCmp => Rel::fcmp_instr,
        LLVMPHI => Rel::phi_instr,
        LLVMCall => Rel::call_instr,
        LLVMSelect => Rel::select_instr,
        LLVMVAArg => Rel::va_arg_instr,
        LLVMExtractElement => Rel::extractelement_instr,
        LLVMInsertElement => Rel::insertelement_instr,
        LLVMShuffleVector => Rel::shufflevector_instr,
        LLVMExtractValue => Rel::extractvalue_instr,
        LLVMInsertValue => Rel::insertvalue_instr,
        LLVMFreeze => Rel::freeze_instr,
        LLVMFence => Rel::fence_instr,
        LLVMAtomicCmpXchg => Rel::cmpxchg_instr,
        LLVMAtomicRMW => Rel::atomicrmw_instr,
        LLVMResume => Rel::resume_instr,
        LLVMLandingPad => Rel::landingpad_instr,
        LLVMCleanupRet => Rel::cleanupret_instr,
        LLVMCatchRet => Rel::catchret_instr,
        LLVMCatchPad => Rel::catchpad_instr,
        LLVMCleanupPad => Rel::cleanuppad_instr,
        LLVMCatchSwitch => Rel::catchswitch_instr,
        // Never present in parsed modules: reserved for passes.
        LLVMUserOp1 | LLVMUserOp2 => Rel::call_instr,
    }
}

fn ordering_name(o: LLVMAtomicOrdering) -> Option<&'static str> {
    use LLVMAtomicOrdering::*;
    Some(match o {
        LLVMAtomicOrderingNotAtomic => return None,
        LLVMAtomicOrderingUnordered => "unordered",
        LLVMAtomicOrderingMonotonic => "monotonic",
        LLVMAtomicOrderingAcquire => "acquire",
        LLVMAtomicOrderingRelease => "release",
        LLVMAtomicOrderingAcquireRelease => "acq_rel",
        LLVMAtomicOrderingSequentiallyConsistent => "seq_cst",
    })
}

fn rmw_name(op: LLVMAtomicRMWBinOp) -> &'static str {
    use LLVMAtomicRMWBinOp::*;
    match op {
        LLVMAtomicRMWBinOpXchg => "xchg",
        LLVMAtomicRMWBinOpAdd => "add",
        LLVMAtomicRMWBinOpSub => "sub",
        LLVMAtomicRMWBinOpAnd => "and",
        LLVMAtomicRMWBinOpNand => "nand",
        LLVMAtomicRMWBinOpOr => "or",
        LLVMAtomicRMWBinOpXor => "xor",
        LLVMAtomicRMWBinOpMax => "max",
        LLVMAtomicRMWBinOpMin => "min",
        LLVMAtomicRMWBinOpUMax => "umax",
        LLVMAtomicRMWBinOpUMin => "umin",
        LLVMAtomicRMWBinOpFAdd => "fadd",
        LLVMAtomicRMWBinOpFSub => "fsub",
        LLVMAtomicRMWBinOpFMax => "fmax",
        LLVMAtomicRMWBinOpFMin => "fmin",
        LLVMAtomicRMWBinOpUIncWrap => "uinc_wrap",
        LLVMAtomicRMWBinOpUDecWrap => "udec_wrap",
        LLVMAtomicRMWBinOpUSubCond => "usub_cond",
        LLVMAtomicRMWBinOpUSubSat => "usub_sat",
        LLVMAtomicRMWBinOpFMaximum => "fmaximum",
        LLVMAtomicRMWBinOpFMinimum => "fminimum",
    }
}

fn icmp_name(p: LLVMIntPredicate) -> &'static str {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntEQ => "eq",
        LLVMIntNE => "ne",
        LLVMIntUGT => "ugt",
        LLVMIntUGE => "uge",
        LLVMIntULT => "ult",
        LLVMIntULE => "ule",
        LLVMIntSGT => "sgt",
        LLVMIntSGE => "sge",
        LLVMIntSLT => "slt",
        LLVMIntSLE => "sle",
    }
}

fn fcmp_name(p: LLVMRealPredicate) -> &'static str {
    use LLVMRealPredicate::*;
    match p {
        LLVMRealPredicateFalse => "false",
        LLVMRealOEQ => "oeq",
        LLVMRealOGT => "ogt",
        LLVMRealOGE => "oge",
        LLVMRealOLT => "olt",
        LLVMRealOLE => "ole",
        LLVMRealONE => "one",
        LLVMRealORD => "ord",
        LLVMRealUNO => "uno",
        LLVMRealUEQ => "ueq",
        LLVMRealUGT => "ugt",
        LLVMRealUGE => "uge",
        LLVMRealULT => "ult",
        LLVMRealULE => "ule",
        LLVMRealUNE => "une",
        LLVMRealPredicateTrue => "true",
    }
}

const FAST_MATH: &[(u32, &str)] = &[
    (llvm_sys::LLVMFastMathNoNaNs, "nnan"),
    (llvm_sys::LLVMFastMathNoInfs, "ninf"),
    (llvm_sys::LLVMFastMathNoSignedZeros, "nsz"),
    (llvm_sys::LLVMFastMathAllowReciprocal, "arcp"),
    (llvm_sys::LLVMFastMathAllowContract, "contract"),
    (llvm_sys::LLVMFastMathApproxFunc, "afn"),
    (llvm_sys::LLVMFastMathAllowReassoc, "reassoc"),
];

impl Worker<'_> {
    /// Emits a defined function's blocks, instructions and variables. Returns the number of
    /// instructions.
    pub unsafe fn function_body(&mut self, func: &Id, f: LLVMValueRef) -> usize {
        unsafe {
            let numbering = Numbering::of(func, f);
            self.locals = numbering.locals;
            self.blocks = numbering.blocks;
            if let Some((bb, _)) = numbering.layout.first() {
                // Blocks are operands (of br, switch, ...) of type `label`.
                self.types.id(LLVMTypeOf(LLVMBasicBlockAsValue(*bb)));
            }

            for (index, p) in llvm::params(f).into_iter().enumerate() {
                let var = self.locals[&p].clone();
                self.variable(func, p, &var);
                fact!(self.out, function_param, func, index as i32, &var);
                self.pt_param(func, index, p, &var);
            }

            let position: PtrMap<LLVMBasicBlockRef, usize> =
                (numbering.layout.iter().enumerate()).map(|(i, (bb, _))| (*bb, i)).collect();
            let mut succ_of: Vec<Vec<usize>> = vec![Vec::new(); numbering.layout.len()];
            let mut index_in_func = 0usize;
            for (bb_index, (bb, instrs)) in numbering.layout.iter().enumerate() {
                let block = self.blocks[bb].clone();
                fact!(self.out, block, &block, func);
                fact!(self.out, block_index, &block, bb_index as i32);
                let label = Escaped(&block.as_bytes()[func.as_bytes().len() + 1..]);
                fact!(self.out, block_name, &block, label);
                if bb_index == 0 {
                    fact!(self.out, function_entry_block, func, &block);
                }
                let ids: Vec<Id> = (0..instrs.len()).map(|k| block.child(b':', k)).collect();
                if let Some(first) = ids.first() {
                    fact!(self.out, block_first_instr, &block, first);
                }
                for (k, &instr) in instrs.iter().enumerate() {
                    let id = &ids[k];
                    fact!(self.out, instr_function, id, func);
                    fact!(self.out, instr_block, id, &block);
                    if let Some(n) = num(index_in_func) {
                        fact!(self.out, instr_index, id, n);
                    }
                    if let Some(next) = ids.get(k + 1) {
                        fact!(self.out, instr_next, id, next);
                        fact!(self.out, instr_successor, id, next);
                    }
                    self.instruction(func, id, instr);
                    index_in_func += 1;
                }
                let term = LLVMGetBasicBlockTerminator(*bb);
                if !term.is_null() {
                    fact!(self.out, block_terminator, &block, ids.last().unwrap());
                    let mut seen = Vec::new();
                    for s in 0..LLVMGetNumSuccessors(term) {
                        let succ = LLVMGetSuccessor(term, s);
                        if seen.contains(&succ) {
                            continue;
                        }
                        seen.push(succ);
                        succ_of[bb_index].push(position[&succ]);
                        let succ_id = &self.blocks[&succ];
                        fact!(self.out, block_succ, &block, succ_id);
                        fact!(self.out, block_pred, succ_id, &block);
                        // Every block has an instruction (its terminator): the first is `:0`.
                        let first = succ_id.child(b':', 0);
                        fact!(self.out, instr_successor, ids.last().unwrap(), first);
                    }
                }
            }
            for (b, idom) in dominators::immediate_dominators(&succ_of).into_iter().enumerate() {
                if let Some(d) = idom {
                    let (block, dom) = (numbering.layout[b].0, numbering.layout[d].0);
                    fact!(self.out, block_idom, &self.blocks[&block], &self.blocks[&dom]);
                }
            }
            index_in_func
        }
    }

    unsafe fn variable(&mut self, func: &Id, v: LLVMValueRef, var: &Id) {
        unsafe {
            let ty = self.types.id(LLVMTypeOf(v));
            fact!(self.out, variable, var, func);
            fact!(self.out, variable_type, var, ty);
            fact!(
                self.out,
                variable_name,
                var,
                Escaped(&var.as_bytes()[func.as_bytes().len() + 1..])
            );
            if let Some(names) = self.m.source_names.get(&llvm::Handle(v)) {
                for n in names {
                    fact!(self.out, variable_source_name, var, &n.name[..], n.line);
                    let (name, line, column) = (&n.name[..], n.line, n.column);
                    fact!(self.out, variable_source_column, var, name, line, column);
                    if !n.ty.0.is_null() {
                        let ty = self.md.di_id(&self.m.id, &self.m.di_hashes, n.ty.0);
                        let how = match (n.plain, n.address) {
                            (false, _) => "expression",
                            (true, true) => "address",
                            (true, false) => "value",
                        };
                        fact!(self.out, variable_di_type, var, name, how, &ty);
                    }
                }
            }
        }
    }

    unsafe fn block_of(&self, bb: LLVMBasicBlockRef) -> Id {
        self.blocks[&bb].clone()
    }

    unsafe fn instruction(&mut self, func: &Id, id: &Id, instr: LLVMValueRef) {
        unsafe {
            let opcode = LLVMGetInstructionOpcode(instr);
            fact!(self.out, instr, id, opcode_name(opcode));
            self.out.emit(opcode_rel(opcode), (id,));

            let ty = self.types.id(LLVMTypeOf(instr));
            fact!(self.out, instr_result_type, id, ty);
            let result = self.locals.get(&instr).cloned();
            if let Some(var) = &result {
                fact!(self.out, instr_result, id, var);
                self.variable(func, instr, var);
            }
            self.debug_loc(id, instr);
            self.tbaa(id, instr);

            // Operand ids, by LLVM's operand position.
            let raw_ops = llvm::operands(instr);
            let ops: Vec<Id> = raw_ops
                .iter()
                .enumerate()
                .map(|(k, &v)| self.operand(v, || id.child(b'#', k)))
                .collect();
            for (k, op) in ops.iter().enumerate() {
                fact!(self.out, instr_operand, id, k as i32, op);
            }
            fact!(self.out, instr_noperands, id, ops.len() as i32);

            self.flags(id, instr, opcode);
            if !self.terminator(id, instr, opcode, &ops) {
                self.operation(id, instr, opcode, &raw_ops, &ops);
            }
            self.pt_instruction(func, id, instr, opcode, &raw_ops, &ops, result.as_ref());
        }
    }

    unsafe fn debug_loc(&mut self, id: &Id, instr: LLVMValueRef) {
        unsafe {
            if LLVMInstructionGetDebugLoc(instr).is_null() {
                return;
            }
            let mut len = 0;
            let file = bytes(LLVMGetDebugLocFilename(instr, &mut len), len as usize);
            let mut dlen = 0;
            let dir = bytes(LLVMGetDebugLocDirectory(instr, &mut dlen), dlen as usize);
            let path = llvm::source_path(dir, file);
            let line = LLVMGetDebugLocLine(instr) as i32;
            let column = LLVMGetDebugLocColumn(instr) as i32;
            fact!(self.out, instr_debug_loc, id, path, line, column);
        }
    }

    /// The named operands and targets of a terminator; false for other instructions.
    unsafe fn terminator(
        &mut self,
        id: &Id,
        instr: LLVMValueRef,
        opcode: LLVMOpcode,
        ops: &[Id],
    ) -> bool {
        unsafe {
            match opcode {
                LLVMRet => match ops.first() {
                    Some(v) => fact!(self.out, ret_value, id, v),
                    None => fact!(self.out, ret_void, id),
                },
                LLVMBr => {
                    if LLVMIsConditional(instr) != 0 {
                        fact!(self.out, br_cond, id, &ops[0]);
                        let (t, f) = (
                            self.block_of(LLVMGetSuccessor(instr, 0)),
                            self.block_of(LLVMGetSuccessor(instr, 1)),
                        );
                        fact!(self.out, br_true_dest, id, t);
                        fact!(self.out, br_false_dest, id, f);
                    } else {
                        let d = self.block_of(LLVMGetSuccessor(instr, 0));
                        fact!(self.out, br_dest, id, d);
                    }
                }
                LLVMSwitch => {
                    fact!(self.out, switch_value, id, &ops[0]);
                    let d = self.block_of(LLVMGetSwitchDefaultDest(instr));
                    fact!(self.out, switch_default_dest, id, d);
                    // LLVM 22 keeps case values beside the operands (condition, default,
                    // then one destination per case), so a case value's site is `#case<c>`.
                    let ncases = LLVMGetNumSuccessors(instr) as usize - 1;
                    for c in 0..ncases {
                        let dest = self.block_of(LLVMGetSuccessor(instr, (c + 1) as u32));
                        let v = LLVMGetSwitchCaseValue(instr, (c + 1) as u32);
                        let site = || {
                            let mut buf = [0u8; 24];
                            let digits = crate::facts::buf::decimal(c as i64, &mut buf);
                            Id::concat(&[id.as_bytes(), b"#case", digits])
                        };
                        let value = self.operand(v, site);
                        fact!(self.out, switch_case, id, c as i32, &value, dest);
                    }
                    fact!(self.out, switch_ncases, id, ncases as i32);
                }
                LLVMIndirectBr => {
                    fact!(self.out, indirectbr_addr, id, &ops[0]);
                    for s in 0..LLVMGetNumSuccessors(instr) {
                        let d = self.block_of(LLVMGetSuccessor(instr, s));
                        fact!(self.out, indirectbr_dest, id, s as i32, d);
                    }
                    let n = LLVMGetNumSuccessors(instr) as i32;
                    fact!(self.out, indirectbr_ndests, id, n);
                }
                LLVMResume => fact!(self.out, resume_value, id, &ops[0]),
                LLVMUnreachable => {}
                LLVMCleanupRet => {
                    fact!(self.out, pad_exit_from, id, &ops[0]);
                    let unwind = LLVMGetUnwindDest(instr);
                    if !unwind.is_null() {
                        let d = self.block_of(unwind);
                        fact!(self.out, unwind_dest, id, d);
                    }
                }
                LLVMCatchRet => {
                    fact!(self.out, pad_exit_from, id, &ops[0]);
                    let d = self.block_of(LLVMGetSuccessor(instr, 0));
                    fact!(self.out, catchret_dest, id, d);
                }
                LLVMCatchSwitch => {
                    fact!(self.out, catchswitch_parent, id, &ops[0]);
                    let n = LLVMGetNumHandlers(instr) as usize;
                    let mut handlers = vec![std::ptr::null_mut(); n];
                    LLVMGetHandlers(instr, handlers.as_mut_ptr());
                    for (k, h) in handlers.into_iter().enumerate() {
                        let d = self.block_of(h);
                        fact!(self.out, catchswitch_handler, id, k as i32, d);
                    }
                    let unwind = LLVMGetUnwindDest(instr);
                    if !unwind.is_null() {
                        let d = self.block_of(unwind);
                        fact!(self.out, unwind_dest, id, d);
                    }
                }
                _ => return false,
            }
            true
        }
    }

    /// The named operands of calls (invoke and callbr included) and of every instruction that
    /// is not a terminator.
    unsafe fn operation(
        &mut self,
        id: &Id,
        instr: LLVMValueRef,
        opcode: LLVMOpcode,
        raw_ops: &[LLVMValueRef],
        ops: &[Id],
    ) {
        unsafe {
            match opcode {
                LLVMCall | LLVMInvoke | LLVMCallBr => {
                    self.call(id, instr, opcode, ops);
                }
                LLVMCatchPad | LLVMCleanupPad => {
                    // Funclet pads: arguments first, the parent pad last.
                    let nargs = LLVMGetNumArgOperands(instr) as usize;
                    for (k, op) in ops.iter().take(nargs).enumerate() {
                        fact!(self.out, pad_arg, id, k as i32, op);
                    }
                    fact!(self.out, pad_parent, id, ops.last().unwrap());
                }
                LLVMFNeg | LLVMFreeze => fact!(self.out, unop_operand, id, &ops[0]),
                LLVMAdd | LLVMFAdd | LLVMSub | LLVMFSub | LLVMMul | LLVMFMul | LLVMUDiv
                | LLVMSDiv | LLVMFDiv | LLVMURem | LLVMSRem | LLVMFRem | LLVMShl | LLVMLShr
                | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor => {
                    fact!(self.out, binop_lhs, id, &ops[0]);
                    fact!(self.out, binop_rhs, id, &ops[1]);
                }
                LLVMAlloca => {
                    let t = self.types.id(LLVMGetAllocatedType(instr));
                    fact!(self.out, alloca_type, id, t);
                    fact!(self.out, alloca_count, id, &ops[0]);
                }
                LLVMLoad => {
                    fact!(self.out, load_addr, id, &ops[0]);
                    let t = self.types.id(LLVMTypeOf(instr));
                    fact!(self.out, load_type, id, t);
                }
                LLVMStore => {
                    fact!(self.out, store_value, id, &ops[0]);
                    fact!(self.out, store_addr, id, &ops[1]);
                    let t = self.types.id(LLVMTypeOf(raw_ops[0]));
                    fact!(self.out, store_type, id, t);
                }
                LLVMGetElementPtr => self.gep(id, instr, raw_ops, ops),
                LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPToUI | LLVMFPToSI | LLVMUIToFP
                | LLVMSIToFP | LLVMFPTrunc | LLVMFPExt | LLVMPtrToInt | LLVMPtrToAddr
                | LLVMIntToPtr | LLVMBitCast | LLVMAddrSpaceCast => {
                    fact!(self.out, cast_from, id, &ops[0]);
                    let from = self.types.id(LLVMTypeOf(raw_ops[0]));
                    fact!(self.out, cast_from_type, id, from);
                    let to = self.types.id(LLVMTypeOf(instr));
                    fact!(self.out, cast_to_type, id, to);
                }
                LLVMICmp | LLVMFCmp => {
                    fact!(self.out, cmp_lhs, id, &ops[0]);
                    fact!(self.out, cmp_rhs, id, &ops[1]);
                    let pred = if opcode == LLVMICmp {
                        icmp_name(LLVMGetICmpPredicate(instr))
                    } else {
                        fcmp_name(LLVMGetFCmpPredicate(instr))
                    };
                    fact!(self.out, cmp_predicate, id, pred);
                }
                LLVMPHI => {
                    let n = LLVMCountIncoming(instr);
                    for k in 0..n {
                        let b = self.block_of(LLVMGetIncomingBlock(instr, k));
                        fact!(self.out, phi_incoming, id, k as i32, &ops[k as usize], b);
                    }
                    fact!(self.out, phi_nincoming, id, n as i32);
                }
                LLVMSelect => {
                    fact!(self.out, select_cond, id, &ops[0]);
                    fact!(self.out, select_true, id, &ops[1]);
                    fact!(self.out, select_false, id, &ops[2]);
                }
                LLVMVAArg => {
                    fact!(self.out, va_arg_list, id, &ops[0]);
                    let t = self.types.id(LLVMTypeOf(instr));
                    fact!(self.out, va_arg_type, id, t);
                }
                LLVMExtractElement => {
                    fact!(self.out, vector_base, id, &ops[0]);
                    fact!(self.out, vector_index, id, &ops[1]);
                }
                LLVMInsertElement => {
                    fact!(self.out, vector_base, id, &ops[0]);
                    fact!(self.out, insertelement_value, id, &ops[1]);
                    fact!(self.out, vector_index, id, &ops[2]);
                }
                LLVMShuffleVector => {
                    fact!(self.out, vector_base, id, &ops[0]);
                    fact!(self.out, shufflevector_second, id, &ops[1]);
                    for k in 0..LLVMGetNumMaskElements(instr) {
                        fact!(
                            self.out,
                            shufflevector_mask,
                            id,
                            k as i32,
                            LLVMGetMaskValue(instr, k)
                        );
                    }
                }
                LLVMExtractValue | LLVMInsertValue => {
                    fact!(self.out, aggregate_base, id, &ops[0]);
                    if opcode == LLVMInsertValue {
                        fact!(self.out, insertvalue_value, id, &ops[1]);
                    }
                    let n = LLVMGetNumIndices(instr) as usize;
                    let indices = std::slice::from_raw_parts(LLVMGetIndices(instr), n);
                    for (k, &ix) in indices.iter().enumerate() {
                        fact!(self.out, aggregate_index, id, k as i32, ix as i32);
                    }
                    fact!(self.out, aggregate_nindices, id, n as i32);
                }
                LLVMLandingPad => {
                    if LLVMIsCleanup(instr) != 0 {
                        fact!(self.out, landingpad_cleanup, id);
                    }
                    for k in 0..LLVMGetNumClauses(instr) as usize {
                        let is_filter = LLVMGetTypeKind(LLVMTypeOf(raw_ops[k]))
                            == llvm_sys::LLVMTypeKind::LLVMArrayTypeKind;
                        let kind = if is_filter { "filter" } else { "catch" };
                        fact!(self.out, landingpad_clause, id, k as i32, kind, &ops[k]);
                    }
                    let n = LLVMGetNumClauses(instr) as i32;
                    fact!(self.out, landingpad_nclauses, id, n);
                }
                LLVMFence => {}
                LLVMAtomicCmpXchg => {
                    fact!(self.out, cmpxchg_addr, id, &ops[0]);
                    fact!(self.out, cmpxchg_cmp, id, &ops[1]);
                    fact!(self.out, cmpxchg_new, id, &ops[2]);
                    let t = self.types.id(LLVMTypeOf(raw_ops[1]));
                    fact!(self.out, cmpxchg_type, id, t);
                    if let Some(o) = ordering_name(LLVMGetCmpXchgFailureOrdering(instr)) {
                        fact!(self.out, cmpxchg_failure_ordering, id, o);
                    }
                    if LLVMGetWeak(instr) != 0 {
                        fact!(self.out, cmpxchg_weak, id);
                    }
                }
                LLVMAtomicRMW => {
                    fact!(
                        self.out,
                        atomicrmw_operation,
                        id,
                        rmw_name(LLVMGetAtomicRMWBinOp(instr))
                    );
                    fact!(self.out, atomicrmw_addr, id, &ops[0]);
                    fact!(self.out, atomicrmw_value, id, &ops[1]);
                    let t = self.types.id(LLVMTypeOf(raw_ops[1]));
                    fact!(self.out, atomicrmw_type, id, t);
                }
                _ => {}
            }
        }
    }

    /// Flags, alignment, volatility, ordering and sync scope, for the opcodes that have them.
    unsafe fn flags(&mut self, id: &Id, instr: LLVMValueRef, opcode: LLVMOpcode) {
        unsafe {
            match opcode {
                LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMTrunc => {
                    if LLVMGetNSW(instr) != 0 {
                        fact!(self.out, instr_nsw, id);
                    }
                    if LLVMGetNUW(instr) != 0 {
                        fact!(self.out, instr_nuw, id);
                    }
                }
                LLVMUDiv | LLVMSDiv | LLVMLShr | LLVMAShr if LLVMGetExact(instr) != 0 => {
                    fact!(self.out, instr_exact, id);
                }
                LLVMOr if LLVMGetIsDisjoint(instr) != 0 => {
                    fact!(self.out, instr_disjoint, id);
                }
                LLVMZExt | LLVMUIToFP if LLVMGetNNeg(instr) != 0 => {
                    fact!(self.out, instr_nneg, id);
                }
                LLVMICmp if LLVMGetICmpSameSign(instr) != 0 => {
                    fact!(self.out, instr_samesign, id);
                }
                _ => {}
            }
            if LLVMCanValueUseFastMathFlags(instr) != 0 {
                let fmf = LLVMGetFastMathFlags(instr);
                for &(bit, flag) in FAST_MATH {
                    if fmf & bit != 0 {
                        fact!(self.out, instr_fmf, id, flag);
                    }
                }
            }
            let memory = matches!(
                opcode,
                LLVMLoad | LLVMStore | LLVMAtomicCmpXchg | LLVMAtomicRMW
            );
            if memory && LLVMGetVolatile(instr) != 0 {
                fact!(self.out, instr_volatile, id);
            }
            if memory || opcode == LLVMAlloca {
                fact!(self.out, instr_align, id, LLVMGetAlignment(instr) as i32);
            }
            let ordering = match opcode {
                LLVMLoad | LLVMStore | LLVMFence | LLVMAtomicRMW => {
                    ordering_name(LLVMGetOrdering(instr))
                }
                LLVMAtomicCmpXchg => ordering_name(LLVMGetCmpXchgSuccessOrdering(instr)),
                _ => None,
            };
            if let Some(o) = ordering {
                fact!(self.out, instr_ordering, id, o);
                let scope = if LLVMIsAtomicSingleThread(instr) != 0 {
                    "singlethread"
                } else {
                    "system"
                };
                fact!(self.out, instr_syncscope, id, scope);
            }
        }
    }

    unsafe fn call(&mut self, id: &Id, instr: LLVMValueRef, opcode: LLVMOpcode, ops: &[Id]) {
        unsafe {
            // CallBase operands: args, bundle operands, [dests], callee (always last).
            let callee = LLVMGetCalledValue(instr);
            fact!(self.out, call_callee, id, ops.last().unwrap());
            if !LLVMIsAFunction(callee).is_null() {
                let f = self.m.global_id(callee).clone();
                fact!(self.out, call_direct, id, f);
            }
            let fnty = self.types.id(LLVMGetCalledFunctionType(instr));
            fact!(self.out, call_fn_type, id, fnty);
            let nargs = LLVMGetNumArgOperands(instr) as usize;
            for (k, op) in ops.iter().take(nargs).enumerate() {
                fact!(self.out, call_arg, id, k as i32, op);
            }
            fact!(self.out, call_nargs, id, nargs as i32);
            fact!(
                self.out,
                call_callconv,
                id,
                callconv_name(LLVMGetInstructionCallConv(instr))
            );
            if opcode == LLVMCall {
                use LLVMTailCallKind::*;
                let tail = match LLVMGetTailCallKind(instr) {
                    LLVMTailCallKindNone => None,
                    LLVMTailCallKindTail => Some("tail"),
                    LLVMTailCallKindMustTail => Some("musttail"),
                    LLVMTailCallKindNoTail => Some("notail"),
                };
                if let Some(t) = tail {
                    fact!(self.out, call_tail, id, t);
                }
            }
            let rels = (Rel::call_attr, Rel::call_ret_attr, Rel::call_arg_attr);
            self.attributes(id, attrs::Site::Call(instr), nargs as u32, rels);
            let mut next_op = nargs;
            for b in 0..LLVMGetNumOperandBundles(instr) {
                let bundle = LLVMGetOperandBundleAtIndex(instr, b);
                let mut len = 0;
                let tag = bytes(LLVMGetOperandBundleTag(bundle, &mut len), len).to_vec();
                fact!(self.out, call_bundle, id, b as i32, &tag[..]);
                for k in 0..LLVMGetNumOperandBundleArgs(bundle) {
                    fact!(
                        self.out,
                        call_bundle_operand,
                        id,
                        b as i32,
                        &tag[..],
                        k as i32,
                        &ops[next_op]
                    );
                    next_op += 1;
                }
                LLVMDisposeOperandBundle(bundle);
            }
            match opcode {
                LLVMInvoke => {
                    let (n, u) = (
                        self.block_of(LLVMGetNormalDest(instr)),
                        self.block_of(LLVMGetUnwindDest(instr)),
                    );
                    fact!(self.out, invoke_normal_dest, id, n);
                    fact!(self.out, invoke_unwind_dest, id, u);
                }
                LLVMCallBr => {
                    let d = self.block_of(LLVMGetCallBrDefaultDest(instr));
                    fact!(self.out, callbr_default_dest, id, d);
                    for k in 0..LLVMGetCallBrNumIndirectDests(instr) {
                        let d = self.block_of(LLVMGetCallBrIndirectDest(instr, k));
                        fact!(self.out, callbr_indirect_dest, id, k as i32, d);
                    }
                }
                _ => {}
            }
        }
    }

    unsafe fn gep(&mut self, id: &Id, instr: LLVMValueRef, raw_ops: &[LLVMValueRef], ops: &[Id]) {
        unsafe {
            fact!(self.out, gep_base, id, &ops[0]);
            let source = LLVMGetGEPSourceElementType(instr);
            let source_id = self.types.id(source);
            fact!(self.out, gep_source_type, id, source_id);
            let flags = LLVMGEPGetNoWrapFlags(instr);
            if flags & llvm_sys::LLVMGEPFlagInBounds != 0 {
                fact!(self.out, gep_inbounds, id);
            }
            // `inbounds` implies `nusw`; LLVM prints (and we record) `nusw` only without it.
            if flags & llvm_sys::LLVMGEPFlagNUSW != 0 && flags & llvm_sys::LLVMGEPFlagInBounds == 0
            {
                fact!(self.out, gep_nusw, id);
            }
            if flags & llvm_sys::LLVMGEPFlagNUW != 0 {
                fact!(self.out, gep_nuw, id);
            }
            fact!(self.out, gep_nindices, id, (ops.len() - 1) as i32);
            // The type addressed after applying indices 0..=k.
            let mut cur = Some(source);
            for k in 1..ops.len() {
                fact!(self.out, gep_index, id, (k - 1) as i32, &ops[k]);
                if k >= 2 {
                    cur = cur.and_then(|t| step_into(t, raw_ops[k]));
                }
                if let Some(t) = cur {
                    let tid = self.types.id(t);
                    fact!(self.out, gep_index_type, id, (k - 1) as i32, tid);
                }
            }
        }
    }
}

/// The value of a constant struct index: an integer, or (in vector GEPs) a splat vector of
/// one, read without creating constants (see the thread-safety note in `llvm`).
unsafe fn constant_index(index: LLVMValueRef) -> Option<u32> {
    use llvm_sys::LLVMValueKind::*;
    unsafe {
        match LLVMGetValueKind(index) {
            LLVMConstantIntValueKind => u32::try_from(LLVMConstIntGetZExtValue(index)).ok(),
            LLVMConstantAggregateZeroValueKind => Some(0),
            LLVMConstantVectorValueKind => constant_index(LLVMGetOperand(index, 0)),
            LLVMConstantDataVectorValueKind => {
                // Raw element data in host byte order; struct indices are i32 vectors.
                let mut len = 0;
                let data = bytes(LLVMGetAsString(index, &mut len), len);
                let width = LLVMGetIntTypeWidth(LLVMGetElementType(LLVMTypeOf(index))) as usize / 8;
                match width {
                    4 => data
                        .get(..4)
                        .map(|b| u32::from_ne_bytes(b.try_into().unwrap())),
                    8 => data.get(..8).and_then(|b| {
                        u32::try_from(u64::from_ne_bytes(b.try_into().unwrap())).ok()
                    }),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// The type reached by indexing into `t` with `index` (struct fields need a constant index).
unsafe fn step_into(t: LLVMTypeRef, index: LLVMValueRef) -> Option<LLVMTypeRef> {
    use llvm_sys::LLVMTypeKind::*;
    unsafe {
        match LLVMGetTypeKind(t) {
            LLVMArrayTypeKind | LLVMVectorTypeKind | LLVMScalableVectorTypeKind => {
                Some(LLVMGetElementType(t))
            }
            LLVMStructTypeKind => {
                let field = constant_index(index)?;
                (field < LLVMCountStructElementTypes(t)).then(|| LLVMStructGetTypeAtIndex(t, field))
            }
            _ => None,
        }
    }
}
