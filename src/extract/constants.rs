//! Operands: variables resolve to their ids, constants get one id per use site
//! (`<site>#<operand index>`, nested elements `.<index>`) and their facts.

use llvm_sys::LLVMValueKind::*;
use llvm_sys::core::*;
use llvm_sys::prelude::*;

use std::rc::Rc;

use super::Worker;
use super::llvm::{bytes, name, take_message};
use crate::fact;
use crate::facts::buf::{Escaped, Id, decimal, num, unescape};

impl Worker<'_> {
    /// The operand id of `v` used at `site`, emitting constant facts when `v` is a constant.
    /// The site id is made only for constants: most operands are variables.
    pub unsafe fn operand(&mut self, v: LLVMValueRef, site: impl FnOnce() -> Id) -> Id {
        unsafe {
            if let Some(id) = self.locals.get(&v) {
                return id.clone();
            }
            if LLVMValueIsBasicBlock(v) != 0
                && let Some(id) = self.blocks.get(&LLVMValueAsBasicBlock(v))
            {
                return id.clone();
            }
            let site = site();
            self.constant(v, &site);
            site
        }
    }

    unsafe fn constant(&mut self, v: LLVMValueRef, id: &Id) {
        unsafe {
            let ty = self.types.id(LLVMTypeOf(v));
            fact!(self.out, constant, id, ty);
            let spelled = self.spelling(v);
            fact!(self.out, constant_text, id, &spelled.text[..]);
            fact!(self.out, constant_key, id, &spelled.key[..]);
            match LLVMGetValueKind(v) {
                LLVMConstantIntValueKind => {
                    let bits = LLVMGetIntTypeWidth(LLVMTypeOf(v));
                    if bits <= 64 {
                        // i1 is printed unsigned (`true` is 1), wider types signed.
                        let value = if bits == 1 {
                            LLVMConstIntGetZExtValue(v) as i64
                        } else {
                            LLVMConstIntGetSExtValue(v)
                        };
                        if let Some(n) = num(value) {
                            fact!(self.out, integer_constant_value, id, n);
                        }
                        let mut digits = [0; 24];
                        let text = decimal(value, &mut digits);
                        fact!(self.out, integer_constant, id, Escaped(text));
                    } else {
                        // Wider than the C API's 64-bit getters: LLVM prints it signed, exactly.
                        let printed = self.print_value(v);
                        let text = String::from_utf8_lossy(after_type(&printed)).into_owned();
                        if let Some(n) = text.parse::<i64>().ok().and_then(num) {
                            fact!(self.out, integer_constant_value, id, n);
                        }
                        fact!(self.out, integer_constant, id, text);
                    }
                }
                LLVMConstantFPValueKind => {
                    fact!(self.out, fp_constant, id, after_type(&spelled.text));
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
                        let elem = self.operand(LLVMGetOperand(v, i as u32), || id.child(b'.', i));
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
                                let _guard = self.m.lock_context();
                                LLVMGetAggregateElement(v, i as u32)
                            };
                            let elem = self.operand(elem, || id.child(b'.', i));
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
                    let (func, block) = self.blockaddress(v);
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
                        let n = LLVMGetNumOperands(v) - 1;
                        fact!(self.out, constant_expr_gep_nindices, id, n);
                    }
                    // The C API reads wrap flags of instructions only: take them from the text.
                    for flag in expr_flags(&spelled.text, super::body::opcode_name(opcode)) {
                        fact!(self.out, constant_expr_flag, id, flag);
                    }
                    for i in 0..LLVMGetNumOperands(v).max(0) as usize {
                        let op = self.operand(LLVMGetOperand(v, i as u32), || id.child(b'.', i));
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
                    let printed = self.print_value(v);
                    fact!(self.out, other_constant, id, after_type(&printed));
                }
            }
        }
    }
}

/// Longest spelling written to `constant_text`; longer ones are cut and end in `...`, so a
/// multi-megabyte initializer does not become one field (`constant_key` covers all of it).
pub const TEXT_CAP: usize = 1024;

/// A constant's spelling (capped) and canonical key, computed once per constant per worker.
pub struct Spelling {
    pub text: Box<[u8]>,
    pub key: [u8; 16],
}

impl Worker<'_> {
    /// LLVM's text of a value. Printing is not read-only: the elements of a constant data
    /// array or vector are printed through constants created in the context (a crash when
    /// two workers printed float vectors at once), so it runs under the context lock.
    pub(super) unsafe fn print_value(&self, v: LLVMValueRef) -> Vec<u8> {
        let _guard = self.m.lock_context();
        unsafe { take_message(LLVMPrintValueToString(v)) }
    }

    /// LLVM's spelling of a constant. LLVM uniques constants, so the pointer is the cache key.
    unsafe fn spelling(&mut self, v: LLVMValueRef) -> Rc<Spelling> {
        unsafe {
            if let Some(s) = self.spellings.get(&v) {
                return s.clone();
            }
            let full = match self.simple_value(v) {
                // Printing costs microseconds (and a pass over the whole module and function
                // for each blockaddress): the most frequent constants are spelled here.
                Some(value) => [&self.type_text(LLVMTypeOf(v))[..], b" ", &value].concat(),
                None if LLVMGetValueKind(v) == LLVMMetadataAsValueValueKind => {
                    metadata_operand(self.print_value(v))
                }
                None => {
                    let printed = self.print_value(v);
                    self.name_unnamed_structs(printed)
                }
            };
            let spelled = Rc::new(Spelling {
                key: hex_key(fnv1a(&full)),
                text: capped(full),
            });
            self.spellings.insert(v, spelled.clone());
            spelled
        }
    }

    /// Printed without its module, an unnamed identified struct is `%"type 0x<address>"`,
    /// which changes from run to run: spell it as its type id does, `%{ <body> }`.
    unsafe fn name_unnamed_structs(&mut self, printed: Vec<u8>) -> Vec<u8> {
        const MARK: &[u8] = b"%\"type 0x";
        if !printed.windows(MARK.len()).any(|w| w == MARK) {
            return printed;
        }
        let mut out = Vec::with_capacity(printed.len());
        let mut rest = &printed[..];
        while let Some(at) = rest.windows(MARK.len()).position(|w| w == MARK) {
            out.extend_from_slice(&rest[..at]);
            let digits = &rest[at + MARK.len()..];
            let len = digits.iter().take_while(|c| c.is_ascii_hexdigit()).count();
            let address = std::str::from_utf8(&digits[..len]).ok();
            match address.and_then(|a| usize::from_str_radix(a, 16).ok()) {
                Some(address) if digits.get(len) == Some(&b'"') => {
                    let spelled = self.types.spelling(address as LLVMTypeRef);
                    out.extend_from_slice(&spelled[self.m.raw_id.len() + 1..]);
                    rest = &digits[len + 1..];
                }
                _ => {
                    out.extend_from_slice(MARK);
                    rest = digits;
                }
            }
        }
        out.extend_from_slice(rest);
        out
    }

    /// What LLVM prints after the type for integers up to 64 bits, null, undef, poison,
    /// zeroinitializer, `none` and global references (whose own printing would be their
    /// whole definition); None for the rest.
    unsafe fn simple_value(&mut self, v: LLVMValueRef) -> Option<Vec<u8>> {
        unsafe {
            let word: &[u8] = match LLVMGetValueKind(v) {
                LLVMConstantIntValueKind => {
                    return match LLVMGetIntTypeWidth(LLVMTypeOf(v)) {
                        1 if LLVMConstIntGetZExtValue(v) != 0 => Some(b"true".to_vec()),
                        1 => Some(b"false".to_vec()),
                        2..=64 => Some(LLVMConstIntGetSExtValue(v).to_string().into_bytes()),
                        _ => None,
                    };
                }
                LLVMGlobalVariableValueKind
                | LLVMGlobalAliasValueKind
                | LLVMGlobalIFuncValueKind
                | LLVMFunctionValueKind => {
                    let id = self.m.global_id(v).as_bytes();
                    return Some(id[self.m.id.as_bytes().len() + 1..].to_vec());
                }
                LLVMBlockAddressValueKind => {
                    let (func, block) = self.blockaddress(v);
                    let (func, block) = (func.as_bytes(), block.as_bytes());
                    let func_label = &func[self.m.id.as_bytes().len() + 1..];
                    let block_label = &block[func.len() + 1..];
                    // Ids hold LLVM's labels escaped; printing gives them as they are.
                    let raw = |label: &[u8]| unescape(std::str::from_utf8(label).ok()?);
                    let (f, b) = (raw(func_label)?, raw(block_label)?);
                    return Some([&b"blockaddress("[..], &f, b", ", &b, b")"].concat());
                }
                LLVMConstantArrayValueKind => return self.simple_array(v),
                LLVMConstantPointerNullValueKind => b"null",
                LLVMUndefValueValueKind => b"undef",
                LLVMPoisonValueKind => b"poison",
                LLVMConstantAggregateZeroValueKind => b"zeroinitializer",
                LLVMConstantTokenNoneValueKind => b"none",
                _ => return None,
            };
            Some(word.to_vec())
        }
    }

    /// `[T a, T b, ...]` for an array whose elements are all simple values (say, a
    /// computed-goto table of blockaddresses); None for the rest.
    unsafe fn simple_array(&mut self, v: LLVMValueRef) -> Option<Vec<u8>> {
        unsafe {
            let element = self.type_text(LLVMGetElementType(LLVMTypeOf(v)));
            let mut out = vec![b'['];
            for i in 0..LLVMGetNumOperands(v) {
                let value = self.simple_value(LLVMGetOperand(v, i as u32))?;
                // A global's label comes from its id, escaped: leave such names to LLVM.
                if value.contains(&b'\\') {
                    return None;
                }
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                out.extend_from_slice(&element);
                out.push(b' ');
                out.extend_from_slice(&value);
            }
            out.push(b']');
            Some(out)
        }
    }

    /// The function and block ids a blockaddress names; a function's blocks are numbered
    /// once per worker.
    unsafe fn blockaddress(&mut self, v: LLVMValueRef) -> (Id, Id) {
        unsafe {
            let f = LLVMGetBlockAddressFunction(v);
            let bb = LLVMGetBlockAddressBasicBlock(v);
            let func = self.m.global_id(f).clone();
            let block = self
                .blockaddress_blocks
                .entry(f)
                .or_insert_with(|| super::body::Numbering::of(&func, f).blocks)[&bb]
                .clone();
            (func, block)
        }
    }

    /// A type as LLVM prints it, once per type per worker.
    unsafe fn type_text(&mut self, t: LLVMTypeRef) -> Rc<[u8]> {
        if let Some(text) = self.type_texts.get(&t) {
            return text.clone();
        }
        let identified = unsafe {
            LLVMGetTypeKind(t) == llvm_sys::LLVMTypeKind::LLVMStructTypeKind
                && LLVMIsLiteralStruct(t) == 0
        };
        let text: Rc<[u8]> = if identified {
            // LLVM prints an identified struct as its definition (`%S = type {...}`).
            self.types.spelling(t)[self.m.raw_id.len() + 1..].into()
        } else {
            let printed = unsafe { take_message(LLVMPrintTypeToString(t)) };
            unsafe { self.name_unnamed_structs(printed) }.into()
        };
        self.type_texts.insert(t, text.clone());
        text
    }
}

/// Metadata prints as itself (`!7 = !{!8}`, `!"text"`); as an operand LLVM writes
/// `metadata !7`, `metadata !"text"`.
fn metadata_operand(printed: Vec<u8>) -> Vec<u8> {
    let numbered = printed.get(1).is_some_and(u8::is_ascii_digit);
    let end = match printed.windows(3).position(|w| w == b" = ") {
        Some(p) if numbered => p,
        _ => printed.len(),
    };
    [&b"metadata "[..], &printed[..end]].concat()
}

pub(super) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

pub(super) fn hex_key(h: u64) -> [u8; 16] {
    let mut out = [0; 16];
    for (i, o) in out.iter_mut().enumerate() {
        *o = b"0123456789abcdef"[(h >> (60 - 4 * i)) as usize & 15];
    }
    out
}

/// `text`, or its first [`TEXT_CAP`] bytes (not splitting a UTF-8 sequence) and `...`.
fn capped(mut text: Vec<u8>) -> Box<[u8]> {
    if text.len() > TEXT_CAP {
        let mut end = TEXT_CAP;
        while end > 0 && text[end] & 0xc0 == 0x80 {
            end -= 1;
        }
        text.truncate(end);
        text.extend_from_slice(b"...");
    }
    text.into()
}

/// The flags LLVM prints between a constant expression's opcode and its operands:
/// `ptr getelementptr inbounds inrange(-8, 16) (` → `inbounds`, `inrange(-8, 16)`.
fn expr_flags<'a>(text: &'a [u8], opcode: &str) -> Vec<&'a [u8]> {
    let pattern = [b" ", opcode.as_bytes(), b" "].concat();
    let Some(at) = text.windows(pattern.len()).position(|w| w == pattern) else {
        return Vec::new();
    };
    let mut rest = &text[at + pattern.len()..];
    let mut flags = Vec::new();
    while !rest.is_empty() && !rest.starts_with(b"(") {
        let end = if rest.starts_with(b"inrange(") {
            rest.iter()
                .position(|&c| c == b')')
                .map_or(rest.len(), |p| p + 1)
        } else {
            rest.iter().position(|&c| c == b' ').unwrap_or(rest.len())
        };
        flags.push(&rest[..end]);
        rest = rest[end..].strip_prefix(b" ").unwrap_or(&rest[end..]);
    }
    flags
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expression_flags_are_read_from_the_spelling() {
        let t = b"i64 add nuw nsw (i64 ptrtoint (ptr @g to i64), i64 1)";
        assert_eq!(expr_flags(t, "add"), vec![&b"nuw"[..], b"nsw"]);
        let t = b"ptr getelementptr inbounds inrange(-8, 16) (i8, ptr @v, i64 8)";
        assert_eq!(
            expr_flags(t, "getelementptr"),
            vec![&b"inbounds"[..], b"inrange(-8, 16)"]
        );
        assert!(expr_flags(b"i64 ptrtoint (ptr @g to i64)", "ptrtoint").is_empty());
    }

    #[test]
    fn long_spellings_are_capped_and_keys_are_fixed() {
        assert_eq!(&*capped(b"i32 1".to_vec()), b"i32 1");
        let long = capped(vec![b'x'; TEXT_CAP + 10]);
        assert_eq!(long.len(), TEXT_CAP + 3);
        assert!(long.ends_with(b"x..."));
        // FNV-1a 64 of the empty string and of "a" (published test vectors).
        assert_eq!(&hex_key(fnv1a(b"")), b"cbf29ce484222325");
        assert_eq!(&hex_key(fnv1a(b"a")), b"af63dc4c8601ec8c");
    }
}
