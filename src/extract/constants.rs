//! Operands: variables resolve to their ids, constants get one id per use site
//! (`<site>#<operand index>`, nested elements `.<index>`) and their facts.

use llvm_sys::LLVMValueKind::*;
use llvm_sys::core::*;
use llvm_sys::prelude::*;

use super::Worker;
use super::llvm::{bytes, name, take_message};
use crate::fact;
use crate::facts::buf::{Id, num};

impl Worker<'_> {
    /// The operand id of `v` used at `site`, emitting constant facts when `v` is a constant.
    pub unsafe fn operand(&mut self, v: LLVMValueRef, site: Id) -> Id {
        unsafe {
            if let Some(id) = self.locals.get(&v) {
                return id.clone();
            }
            if LLVMValueIsBasicBlock(v) != 0 {
                if let Some(id) = self.blocks.get(&LLVMValueAsBasicBlock(v)) {
                    return id.clone();
                }
            }
            self.constant(v, &site);
            site
        }
    }

    unsafe fn constant(&mut self, v: LLVMValueRef, id: &Id) {
        unsafe {
            let ty = self.types.id(LLVMTypeOf(v));
            fact!(self.out, constant, id, &ty);
            match LLVMGetValueKind(v) {
                LLVMConstantIntValueKind => {
                    let bits = LLVMGetIntTypeWidth(LLVMTypeOf(v));
                    let text = if bits == 1 {
                        LLVMConstIntGetZExtValue(v).to_string()
                    } else if bits <= 64 {
                        LLVMConstIntGetSExtValue(v).to_string()
                    } else {
                        // Wider than the C API's 64-bit getters: LLVM prints it signed, exactly.
                        let printed = take_message(LLVMPrintValueToString(v));
                        String::from_utf8_lossy(after_type(&printed)).into_owned()
                    };
                    if let Some(n) = text.parse::<i64>().ok().and_then(num) {
                        fact!(self.out, integer_constant_value, id, n);
                    }
                    fact!(self.out, integer_constant, id, text);
                }
                LLVMConstantFPValueKind => {
                    let printed = take_message(LLVMPrintValueToString(v));
                    fact!(self.out, fp_constant, id, after_type(&printed));
                }
                LLVMConstantPointerNullValueKind => fact!(self.out, null_constant, id),
                LLVMUndefValueValueKind => fact!(self.out, undef_constant, id),
                LLVMPoisonValueKind => fact!(self.out, poison_constant, id),
                LLVMConstantAggregateZeroValueKind | LLVMConstantTargetNoneValueKind => {
                    fact!(self.out, zeroinitializer_constant, id)
                }
                LLVMConstantTokenNoneValueKind => fact!(self.out, token_none_constant, id),
                LLVMConstantArrayValueKind
                | LLVMConstantStructValueKind
                | LLVMConstantVectorValueKind => {
                    let kind = match LLVMGetValueKind(v) {
                        LLVMConstantArrayValueKind => "array",
                        LLVMConstantStructValueKind => "struct",
                        _ => "vector",
                    };
                    fact!(self.out, aggregate_constant, id, kind);
                    let n = LLVMGetNumOperands(v).max(0) as usize;
                    fact!(self.out, aggregate_constant_nelems, id, n as i32);
                    for i in 0..n {
                        let elem = self.operand(LLVMGetOperand(v, i as u32), id.child(b'.', i));
                        fact!(self.out, aggregate_constant_elem, id, i as i32, elem);
                    }
                }
                LLVMConstantDataArrayValueKind | LLVMConstantDataVectorValueKind => {
                    let is_array = LLVMGetValueKind(v) == LLVMConstantDataArrayValueKind;
                    fact!(
                        self.out,
                        aggregate_constant,
                        id,
                        if is_array { "array" } else { "vector" }
                    );
                    let t = LLVMTypeOf(v);
                    let n = if is_array {
                        LLVMGetArrayLength2(t) as usize
                    } else {
                        LLVMGetVectorSize(t) as usize
                    };
                    if let Some(count) = num(n) {
                        fact!(self.out, aggregate_constant_nelems, id, count);
                    }
                    if LLVMIsConstantString(v) != 0 {
                        // i8 arrays: the bytes are the elements, given as one escaped string.
                        let mut len = 0;
                        let data = bytes(LLVMGetAsString(v, &mut len), len);
                        fact!(self.out, string_constant, id, data);
                    } else {
                        for i in 0..n {
                            // Element access creates constants in the context: serialize it.
                            let elem = {
                                let _guard = self
                                    .m
                                    .context_lock
                                    .lock()
                                    .unwrap_or_else(|e| e.into_inner());
                                LLVMGetAggregateElement(v, i as u32)
                            };
                            let elem = self.operand(elem, id.child(b'.', i));
                            fact!(self.out, aggregate_constant_elem, id, i as i32, elem);
                        }
                    }
                }
                LLVMGlobalVariableValueKind
                | LLVMGlobalAliasValueKind
                | LLVMGlobalIFuncValueKind => {
                    let global = self.m.global_id(v).clone();
                    fact!(self.out, global_ref_constant, id, global);
                }
                LLVMFunctionValueKind => {
                    let func = self.m.global_id(v).clone();
                    fact!(self.out, function_ref_constant, id, func);
                }
                LLVMBlockAddressValueKind => {
                    let f = LLVMGetBlockAddressFunction(v);
                    let bb = LLVMGetBlockAddressBasicBlock(v);
                    let func = self.m.global_id(f).clone();
                    let block = self
                        .blockaddress_blocks
                        .entry(f)
                        .or_insert_with(|| super::body::Numbering::of(&func, f).blocks)[&bb]
                        .clone();
                    fact!(self.out, blockaddress_constant, id, func, block);
                }
                LLVMConstantExprValueKind => {
                    let opcode = LLVMGetConstOpcode(v);
                    fact!(
                        self.out,
                        constant_expr,
                        id,
                        super::body::opcode_name(opcode)
                    );
                    if opcode == llvm_sys::LLVMOpcode::LLVMGetElementPtr {
                        let src = self.types.id(LLVMGetGEPSourceElementType(v));
                        fact!(self.out, constant_expr_gep_source_type, id, src);
                        if LLVMIsInBounds(v) != 0 {
                            fact!(self.out, constant_expr_gep_inbounds, id);
                        }
                    }
                    for i in 0..LLVMGetNumOperands(v).max(0) as usize {
                        let op = self.operand(LLVMGetOperand(v, i as u32), id.child(b'.', i));
                        fact!(self.out, constant_expr_operand, id, i as i32, op);
                    }
                }
                LLVMInlineAsmValueKind => {
                    let (mut alen, mut clen) = (0, 0);
                    let asm = bytes(LLVMGetInlineAsmAsmString(v, &mut alen), alen);
                    let constraints = bytes(LLVMGetInlineAsmConstraintString(v, &mut clen), clen);
                    fact!(self.out, inline_asm, id, asm, constraints);
                    let flags = [
                        ("sideeffect", LLVMGetInlineAsmHasSideEffects(v) != 0),
                        ("alignstack", LLVMGetInlineAsmNeedsAlignedStack(v) != 0),
                        ("unwind", LLVMGetInlineAsmCanUnwind(v) != 0),
                        (
                            "inteldialect",
                            LLVMGetInlineAsmDialect(v)
                                == llvm_sys::LLVMInlineAsmDialect::LLVMInlineAsmDialectIntel,
                        ),
                    ];
                    for (flag, set) in flags {
                        if set {
                            fact!(self.out, inline_asm_flag, id, flag);
                        }
                    }
                }
                LLVMMetadataAsValueValueKind => {
                    let mut len = 0;
                    let text = bytes(LLVMGetMDString(v, &mut len), len as usize);
                    fact!(self.out, metadata_constant, id, text);
                }
                _ => {
                    // dso_local_equivalent, no_cfi and ptrauth have no C API kind of their own:
                    // record LLVM's spelling so nothing is dropped.
                    let printed = take_message(LLVMPrintValueToString(v));
                    fact!(self.out, other_constant, id, after_type(&printed));
                }
            }
        }
    }
}

/// `i128 5` → `5`: the text after the type LLVM prints first.
fn after_type(printed: &[u8]) -> &[u8] {
    // Types never contain a space outside brackets for the scalar types printed here; for
    // pointer-typed constants (`ptr dso_local_equivalent @f`) the first word is the type too.
    match printed.iter().position(|&b| b == b' ') {
        Some(i) => &printed[i + 1..],
        None => printed,
    }
}

/// The name of a global value as written in ids: `@name`, or `@N` for unnamed ones.
pub unsafe fn global_label(v: LLVMValueRef, unnamed_slot: usize) -> Vec<u8> {
    let n = unsafe { name(v) };
    let mut out = vec![b'@'];
    if n.is_empty() {
        out.extend_from_slice(unnamed_slot.to_string().as_bytes());
    } else {
        super::llvm::push_llvm_name(&mut out, n);
    }
    out
}
