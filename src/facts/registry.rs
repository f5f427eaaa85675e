//! The relation registry: the one definition of every fact relation.
//!
//! The writer, `llfacts schema`, the files in `schema/` and the schema docs all derive from
//! the table below. To add a relation, add a line here, emit it from an `extract` module and
//! run `just schema` (the `schema_files_match_registry` test fails until you do).

/// A Soufflé attribute type. `Number` columns hold only values that fit a signed 32-bit
/// Soufflé `number`; anything larger goes to a symbol column (see `*_text` relations).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Symbol,
    Number,
}

impl Kind {
    pub fn souffle_name(self) -> &'static str {
        match self {
            Kind::Symbol => "symbol",
            Kind::Number => "number",
        }
    }
}

#[derive(Debug)]
pub struct Column {
    pub name: &'static str,
    pub kind: Kind,
}

#[derive(Debug)]
pub struct Relation {
    pub name: &'static str,
    pub group: &'static str,
    pub doc: &'static str,
    pub columns: &'static [Column],
}

/// Column kinds as they are spelled in the table.
#[allow(non_upper_case_globals)]
mod kinds {
    use super::Kind;
    pub const symbol: Kind = Kind::Symbol;
    pub const number: Kind = Kind::Number;
}

macro_rules! relations {
    ($( group $group:ident $gdoc:literal {
        $( $doc:literal $name:ident ( $( $col:ident : $kind:ident ),* $(,)? ) )*
    } )*) => {
        /// Handle of a relation: its index in [`RELATIONS`].
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u16)]
        pub enum Rel { $($( $name, )*)* }

        pub static RELATIONS: &[Relation] = &[ $($( Relation {
            name: stringify!($name),
            group: stringify!($group),
            doc: $doc,
            columns: &[ $( Column { name: stringify!($col), kind: kinds::$kind } ),* ],
        }, )*)* ];

        /// Relation groups in schema order: (file stem under `schema/`, description).
        pub static GROUPS: &[(&str, &str)] = &[ $( (stringify!($group), $gdoc) ),* ];

        /// Typed rows of every relation (see [`super::row`]).
        pub mod rows {
            $crate::row_structs! { $($( #[doc = $doc] $name( $( $col: $kind ),* ) )*)* }
        }
    };
}

impl Rel {
    pub fn info(self) -> &'static Relation {
        &RELATIONS[self as usize]
    }
}

/// Number of relations; sizes per-relation buffers.
pub fn count() -> usize {
    RELATIONS.len()
}

/// Every opcode as (LLVM's spelling, instruction class, its `<opcode>_instr` relation): the
/// spelling is the relation's name, the class its doc.
pub fn opcodes() -> impl Iterator<Item = (&'static str, &'static str)> {
    RELATIONS
        .iter()
        .filter(|r| r.group == "opcodes")
        .filter_map(|r| Some((r.name.strip_suffix("_instr")?, r.doc)))
}

/// The index of the relation called `name` (its position in [`RELATIONS`]).
pub fn index_of(name: &str) -> Option<usize> {
    RELATIONS.iter().position(|r| r.name == name)
}

relations! {
group module "Modules: one per input file." {
    "An input module; `path` is the input file as given, `source_file` LLVM's source_filename."
    module(module: symbol, path: symbol, source_file: symbol)
    "The module's target triple."
    module_target_triple(module: symbol, triple: symbol)
    "The module's data layout string; type sizes below are computed from it."
    module_data_layout(module: symbol, layout: symbol)
    "Module-level inline assembly (`module asm`), one tuple per module that has any."
    module_inline_asm(module: symbol, asm: symbol)
}

group types "The type system. Type ids are LLVM's own spelling; identified structs are module-qualified (`mod:%struct.S`)." {
    "Every type that occurs. `kind` is one of: void, integer, float, label, metadata, token, pointer, array, vector, function, struct, target_ext, x86_amx."
    type_kind(ty: symbol, kind: symbol)
    "Integer types and their bit width."
    integer_type_width(ty: symbol, bits: number)
    "Floating-point types and their bit width (half 16, bfloat 16, float 32, double 64, x86_fp80 80, fp128 128, ppc_fp128 128)."
    fp_type_width(ty: symbol, bits: number)
    "Pointer types and their address space."
    pointer_type_addrspace(ty: symbol, addrspace: number)
    "Array types: element type."
    array_type_elem(ty: symbol, elem: symbol)
    "Array types: number of elements, when it fits a number."
    array_type_len(ty: symbol, len: number)
    "Array types: number of elements as exact decimal text (always present)."
    array_type_len_text(ty: symbol, len: symbol)
    "Vector types: element type."
    vector_type_elem(ty: symbol, elem: symbol)
    "Vector types: number of elements (the minimum, for scalable vectors)."
    vector_type_len(ty: symbol, len: number)
    "Scalable vector types (`<vscale x N x T>`)."
    vector_type_scalable(ty: symbol)
    "Function types: return type."
    function_type_return(ty: symbol, ret: symbol)
    "Function types: parameter type by index."
    function_type_param(ty: symbol, index: number, param: symbol)
    "Function types: number of fixed parameters."
    function_type_nparams(ty: symbol, n: number)
    "Function types that take varargs."
    function_type_varargs(ty: symbol)
    "Identified struct types and their name (without the module qualifier)."
    struct_type_name(ty: symbol, name: symbol)
    "Literal (unnamed, structurally uniqued) struct types."
    struct_type_literal(ty: symbol)
    "Packed struct types."
    struct_type_packed(ty: symbol)
    "Opaque struct types (no body)."
    struct_type_opaque(ty: symbol)
    "Struct types: field type by index."
    struct_type_field(ty: symbol, index: number, field: symbol)
    "Struct types: number of fields."
    struct_type_nfields(ty: symbol, n: number)
    "Struct types: byte offset of a field, from the module's data layout."
    struct_type_field_offset(ty: symbol, index: number, offset: number)
    "Struct types: byte offset of a field as exact decimal text (always present)."
    struct_type_field_offset_text(ty: symbol, index: number, offset: symbol)
    "Target extension types: name (e.g. `spirv.Image`)."
    target_ext_type_name(ty: symbol, name: symbol)
    "Target extension types: type parameter by index."
    target_ext_type_param(ty: symbol, index: number, param: symbol)
    "Target extension types: integer parameter by index."
    target_ext_type_int_param(ty: symbol, index: number, value: number)
    "Sized types with a fixed layout (not scalable vectors or target extension types, nor aggregates of them): allocation size in bytes (LLVM's alloc size, with tail padding), when it fits."
    type_alloc_size(ty: symbol, bytes: number)
    "Sized types: allocation size in bytes as exact decimal text (always present)."
    type_alloc_size_text(ty: symbol, bytes: symbol)
    "Sized types: store size in bytes (no tail padding), when it fits."
    type_store_size(ty: symbol, bytes: number)
    "Sized types: size in bits, when it fits."
    type_size_bits(ty: symbol, bits: number)
    "Sized types: ABI alignment in bytes."
    type_abi_align(ty: symbol, bytes: number)
    "Sized types: preferred alignment in bytes."
    type_pref_align(ty: symbol, bytes: number)
}

group globals "Global variables, aliases and ifuncs. Ids are `module:@name`; names link modules." {
    "Global variables and their module."
    global_var(global: symbol, module: symbol)
    "Global variable name (without `@`); equal names across modules denote the same symbol at link time."
    global_var_name(global: symbol, name: symbol)
    "Demangled global variable name (Itanium C++ ABI, e.g. `_ZTIi` is `typeinfo for int`); only names that demangle have one, so C names have none."
    global_var_demangled(global: symbol, name: symbol)
    "The global's value type: the pointee type that opaque pointers erase."
    global_var_value_type(global: symbol, ty: symbol)
    "Linkage: external, private, internal, weak, weak_odr, linkonce, linkonce_odr, common, appending, extern_weak, available_externally."
    global_var_linkage(global: symbol, linkage: symbol)
    "Visibility: default, hidden, protected."
    global_var_visibility(global: symbol, visibility: symbol)
    "DLL storage class, when not default: dllimport, dllexport."
    global_var_dll_storage(global: symbol, class: symbol)
    "Thread-local globals: generaldynamic, localdynamic, initialexec, localexec."
    global_var_thread_local(global: symbol, mode: symbol)
    "Globals declared `constant`."
    global_var_constant(global: symbol)
    "Globals declared `externally_initialized`."
    global_var_externally_initialized(global: symbol)
    "Explicit section."
    global_var_section(global: symbol, section: symbol)
    "Explicit alignment in bytes."
    global_var_align(global: symbol, bytes: number)
    "Address space."
    global_var_addrspace(global: symbol, addrspace: number)
    "unnamed_addr or local_unnamed_addr."
    global_var_unnamed_addr(global: symbol, kind: symbol)
    "Comdat the global belongs to."
    global_var_comdat(global: symbol, comdat: symbol)
    "Initializer, as a constant operand id (absent for declarations)."
    global_var_initializer(global: symbol, init: symbol)
    "Global aliases and their module."
    alias(alias: symbol, module: symbol)
    "Alias name (without `@`)."
    alias_name(alias: symbol, name: symbol)
    "The alias's value type."
    alias_value_type(alias: symbol, ty: symbol)
    "Alias linkage."
    alias_linkage(alias: symbol, linkage: symbol)
    "Alias visibility."
    alias_visibility(alias: symbol, visibility: symbol)
    "Thread-local aliases."
    alias_thread_local(alias: symbol, mode: symbol)
    "Alias unnamed_addr or local_unnamed_addr."
    alias_unnamed_addr(alias: symbol, kind: symbol)
    "The aliasee, as a constant operand id."
    alias_aliasee(alias: symbol, aliasee: symbol)
    "IFuncs and their module."
    ifunc(ifunc: symbol, module: symbol)
    "IFunc name (without `@`)."
    ifunc_name(ifunc: symbol, name: symbol)
    "IFunc value type (a function type)."
    ifunc_value_type(ifunc: symbol, ty: symbol)
    "IFunc linkage."
    ifunc_linkage(ifunc: symbol, linkage: symbol)
    "IFunc visibility."
    ifunc_visibility(ifunc: symbol, visibility: symbol)
    "The resolver, as a constant operand id."
    ifunc_resolver(ifunc: symbol, resolver: symbol)
}

group functions "Functions (definitions and declarations), parameters and attributes." {
    "Every function and its module. Ids are `module:@name`."
    function(func: symbol, module: symbol)
    "Functions with a body."
    function_definition(func: symbol)
    "Functions without a body (declarations, intrinsics included)."
    function_declaration(func: symbol)
    "Function name (without `@`); equal names across modules link."
    function_name(func: symbol, name: symbol)
    "Demangled function name (Itanium C++ ABI, e.g. `_ZN2ns1fEd` is `ns::f(double)`); only names that demangle have one, so C names and intrinsics have none."
    function_demangled(func: symbol, name: symbol)
    "Function signature: a function type id."
    function_signature(func: symbol, ty: symbol)
    "Function linkage."
    function_linkage(func: symbol, linkage: symbol)
    "Function visibility."
    function_visibility(func: symbol, visibility: symbol)
    "Function DLL storage class, when not default."
    function_dll_storage(func: symbol, class: symbol)
    "Calling convention: ccc, fastcc, coldcc, ... or `cc N` for numbered ones."
    function_callconv(func: symbol, cc: symbol)
    "Garbage collector name."
    function_gc(func: symbol, gc: symbol)
    "Personality function, as a constant operand id."
    function_personality(func: symbol, personality: symbol)
    "Explicit section."
    function_section(func: symbol, section: symbol)
    "Explicit alignment in bytes."
    function_align(func: symbol, bytes: number)
    "unnamed_addr or local_unnamed_addr."
    function_unnamed_addr(func: symbol, kind: symbol)
    "Comdat the function belongs to."
    function_comdat(func: symbol, comdat: symbol)
    "Source file and line of a function's definition, from its debug info (DISubprogram)."
    function_debug_loc(func: symbol, file: symbol, line: number)
    "Names of LLVM intrinsics (`llvm.*`) among functions."
    function_intrinsic(func: symbol)
    "Formal parameter by index: a variable id (definitions only)."
    function_param(func: symbol, index: number, param: symbol)
    "Number of formal parameters."
    function_nparams(func: symbol, n: number)
    "Function attributes as (name, value): enum attributes have value \"\" (`nounwind`); integer ones the text LLVM prints in parentheses (`align` \"16\", `memory` \"argmem: read\", `uwtable` \"async\", `allocsize` \"0,1\", `allockind` \"alloc,zeroed\", `range` \"i32 0, 10\", `initializes` \"(0, 4), (8, 12)\"); type ones a type id (`byval`); string ones their value (`frame-pointer` \"all\")."
    function_attr(func: symbol, attr: symbol, value: symbol)
    "Return value attributes."
    function_ret_attr(func: symbol, attr: symbol, value: symbol)
    "Parameter attributes by parameter index (e.g. `byval` with its type id, `align` with \"8\")."
    function_param_attr(func: symbol, index: number, attr: symbol, value: symbol)
}

group blocks "Basic blocks and the control-flow graph." {
    "Basic blocks and their function. Ids are `module:@func:%label`."
    block(block: symbol, func: symbol)
    "Position of a block in its function's layout (0 is the entry)."
    block_index(block: symbol, index: number)
    "The entry block of each defined function."
    function_entry_block(func: symbol, block: symbol)
    "CFG edge from a block's terminator to a successor (once per distinct successor)."
    block_succ(block: symbol, succ: symbol)
    "CFG edge seen from the successor: `pred` branches to `block`."
    block_pred(block: symbol, pred: symbol)
    "The immediate dominator of each block its function's entry reaches, but the entry: the closest block that every path from the entry to `block` passes through (Cooper, Harvey and Kennedy's algorithm over `block_succ`)."
    block_idom(block: symbol, idom: symbol)
    "The terminator instruction of each block."
    block_terminator(block: symbol, instr: symbol)
    "The first instruction of each block."
    block_first_instr(block: symbol, instr: symbol)
    "The label of each block as LLVM prints it (`%if.then`, `%\"a b\"`, or `%3` for unnamed blocks), as in `variable_name`."
    block_name(block: symbol, label: symbol)
}

group instructions "Instructions: position, result, source location. Ids are `module:@func:%block:N`." {
    "Every instruction with its opcode (LLVM's spelling, e.g. `getelementptr`)."
    instr(instr: symbol, opcode: symbol)
    "The function containing an instruction."
    instr_function(instr: symbol, func: symbol)
    "The block containing an instruction."
    instr_block(instr: symbol, block: symbol)
    "Position of an instruction in its function (0-based, in layout order)."
    instr_index(instr: symbol, index: number)
    "The next instruction in the same block."
    instr_next(instr: symbol, next: symbol)
    "Control-flow successors of an instruction: the next one in its block, and from a terminator the first instruction of each successor block."
    instr_successor(instr: symbol, succ: symbol)
    "The variable an instruction defines (non-void instructions only)."
    instr_result(instr: symbol, var: symbol)
    "The result type of every instruction (`void` for those without a result)."
    instr_result_type(instr: symbol, ty: symbol)
    "Source file, line and column from the debug location, when debug info exists."
    instr_debug_loc(instr: symbol, file: symbol, line: number, column: number)
    "Every operand of an instruction by position, as LLVM orders them (callee last for calls)."
    instr_operand(instr: symbol, index: number, operand: symbol)
    "Number of operands."
    instr_noperands(instr: symbol, n: number)
    "Instructions marked `volatile` (load, store, cmpxchg, atomicrmw)."
    instr_volatile(instr: symbol)
    "Explicit alignment in bytes (alloca, load, store, cmpxchg, atomicrmw)."
    instr_align(instr: symbol, bytes: number)
    "Atomic ordering (load, store, fence, atomicrmw; cmpxchg success ordering): unordered, monotonic, acquire, release, acq_rel, seq_cst."
    instr_ordering(instr: symbol, ordering: symbol)
    "Synchronization scope of atomic instructions: `system` or `singlethread` (other named scopes are reported as `system`; the C API exposes only this distinction)."
    instr_syncscope(instr: symbol, scope: symbol)
    "No signed wrap flag (add, sub, mul, shl, trunc)."
    instr_nsw(instr: symbol)
    "No unsigned wrap flag (add, sub, mul, shl, trunc)."
    instr_nuw(instr: symbol)
    "Exact flag (udiv, sdiv, lshr, ashr)."
    instr_exact(instr: symbol)
    "Disjoint flag (or)."
    instr_disjoint(instr: symbol)
    "Non-negative flag (zext, uitofp)."
    instr_nneg(instr: symbol)
    "Same-sign flag (icmp): both operands have the same sign, else the result is poison."
    instr_samesign(instr: symbol)
    "Fast-math flags, one tuple each: nnan, ninf, nsz, arcp, contract, afn, reassoc (float operations, fcmp, fptrunc, fpext, and phi, select and calls of float type)."
    instr_fmf(instr: symbol, flag: symbol)
}

group opcodes "One unary relation per LLVM 22 opcode, `<opcode>_instr(instr)`, with the opcode's instruction class as its comment." {
    "Every LLVM 22 opcode (LLVM's spelling) and its instruction class as the Language Reference groups them: terminator, unary, integer binary, float binary, bitwise binary, vector, aggregate, memory, conversion, other. One tuple per opcode, whatever the input."
    opcode_class(opcode: symbol, class: symbol)
    "terminator" ret_instr(instr: symbol)
    "terminator" br_instr(instr: symbol)
    "terminator" switch_instr(instr: symbol)
    "terminator" indirectbr_instr(instr: symbol)
    "terminator" invoke_instr(instr: symbol)
    "terminator" resume_instr(instr: symbol)
    "terminator" unreachable_instr(instr: symbol)
    "terminator" cleanupret_instr(instr: symbol)
    "terminator" catchret_instr(instr: symbol)
    "terminator" catchswitch_instr(instr: symbol)
    "terminator" callbr_instr(instr: symbol)
    "unary" fneg_instr(instr: symbol)
    "integer binary" add_instr(instr: symbol)
    "float binary" fadd_instr(instr: symbol)
    "integer binary" sub_instr(instr: symbol)
    "float binary" fsub_instr(instr: symbol)
    "integer binary" mul_instr(instr: symbol)
    "float binary" fmul_instr(instr: symbol)
    "integer binary" udiv_instr(instr: symbol)
    "integer binary" sdiv_instr(instr: symbol)
    "float binary" fdiv_instr(instr: symbol)
    "integer binary" urem_instr(instr: symbol)
    "integer binary" srem_instr(instr: symbol)
    "float binary" frem_instr(instr: symbol)
    "bitwise binary" shl_instr(instr: symbol)
    "bitwise binary" lshr_instr(instr: symbol)
    "bitwise binary" ashr_instr(instr: symbol)
    "bitwise binary" and_instr(instr: symbol)
    "bitwise binary" or_instr(instr: symbol)
    "bitwise binary" xor_instr(instr: symbol)
    "memory" alloca_instr(instr: symbol)
    "memory" load_instr(instr: symbol)
    "memory" store_instr(instr: symbol)
    "memory" getelementptr_instr(instr: symbol)
    "memory" fence_instr(instr: symbol)
    "memory" cmpxchg_instr(instr: symbol)
    "memory" atomicrmw_instr(instr: symbol)
    "conversion" trunc_instr(instr: symbol)
    "conversion" zext_instr(instr: symbol)
    "conversion" sext_instr(instr: symbol)
    "conversion" fptoui_instr(instr: symbol)
    "conversion" fptosi_instr(instr: symbol)
    "conversion" uitofp_instr(instr: symbol)
    "conversion" sitofp_instr(instr: symbol)
    "conversion" fptrunc_instr(instr: symbol)
    "conversion" fpext_instr(instr: symbol)
    "conversion" ptrtoint_instr(instr: symbol)
    "conversion" ptrtoaddr_instr(instr: symbol)
    "conversion" inttoptr_instr(instr: symbol)
    "conversion" bitcast_instr(instr: symbol)
    "conversion" addrspacecast_instr(instr: symbol)
    "other" cleanuppad_instr(instr: symbol)
    "other" catchpad_instr(instr: symbol)
    "other" icmp_instr(instr: symbol)
    "other" fcmp_instr(instr: symbol)
    "other" phi_instr(instr: symbol)
    "other" call_instr(instr: symbol)
    "other" select_instr(instr: symbol)
    "other" va_arg_instr(instr: symbol)
    "vector" extractelement_instr(instr: symbol)
    "vector" insertelement_instr(instr: symbol)
    "vector" shufflevector_instr(instr: symbol)
    "aggregate" extractvalue_instr(instr: symbol)
    "aggregate" insertvalue_instr(instr: symbol)
    "other" landingpad_instr(instr: symbol)
    "other" freeze_instr(instr: symbol)
}

group operations "Named operands and attributes of each instruction family." {
    "Binary operators (integer, float and bitwise): first operand."
    binop_lhs(instr: symbol, operand: symbol)
    "Binary operators: second operand."
    binop_rhs(instr: symbol, operand: symbol)
    "Unary operators (fneg) and freeze: the operand."
    unop_operand(instr: symbol, operand: symbol)
    "Conversions: the operand converted."
    cast_from(instr: symbol, operand: symbol)
    "Conversions: the source type."
    cast_from_type(instr: symbol, ty: symbol)
    "Conversions: the destination type."
    cast_to_type(instr: symbol, ty: symbol)
    "icmp and fcmp: first operand."
    cmp_lhs(instr: symbol, operand: symbol)
    "icmp and fcmp: second operand."
    cmp_rhs(instr: symbol, operand: symbol)
    "icmp and fcmp: predicate (eq, ne, ugt, ..., oeq, one, ord, uno, true, false, ...)."
    cmp_predicate(instr: symbol, predicate: symbol)
    "alloca: the allocated type (the pointee type that opaque pointers erase)."
    alloca_type(instr: symbol, ty: symbol)
    "alloca: the element count operand."
    alloca_count(instr: symbol, operand: symbol)
    "load: the address operand."
    load_addr(instr: symbol, operand: symbol)
    "load: the type loaded (the access type)."
    load_type(instr: symbol, ty: symbol)
    "store: the value stored."
    store_value(instr: symbol, operand: symbol)
    "store: the address operand."
    store_addr(instr: symbol, operand: symbol)
    "store: the type stored (the access type)."
    store_type(instr: symbol, ty: symbol)
    "getelementptr: the base pointer operand."
    gep_base(instr: symbol, operand: symbol)
    "getelementptr: the source element type."
    gep_source_type(instr: symbol, ty: symbol)
    "getelementptr: the index operand at each position (0 indexes the base pointer)."
    gep_index(instr: symbol, index: number, operand: symbol)
    "getelementptr: number of indices."
    gep_nindices(instr: symbol, n: number)
    "getelementptr: the type each index position steps into (position 0: the source element type)."
    gep_index_type(instr: symbol, index: number, ty: symbol)
    "getelementptr: the `inbounds` flag."
    gep_inbounds(instr: symbol)
    "getelementptr: the `nusw` flag (no unsigned-signed wrap), when it is not implied by `inbounds`."
    gep_nusw(instr: symbol)
    "getelementptr: the `nuw` flag (no unsigned wrap)."
    gep_nuw(instr: symbol)
    "extractvalue and insertvalue: the aggregate operand."
    aggregate_base(instr: symbol, operand: symbol)
    "extractvalue and insertvalue: the constant index path, by position."
    aggregate_index(instr: symbol, position: number, index: number)
    "extractvalue and insertvalue: length of the index path."
    aggregate_nindices(instr: symbol, n: number)
    "insertvalue: the value inserted."
    insertvalue_value(instr: symbol, operand: symbol)
    "extractelement, insertelement: the vector operand; shufflevector: the first vector."
    vector_base(instr: symbol, operand: symbol)
    "extractelement, insertelement: the index operand."
    vector_index(instr: symbol, operand: symbol)
    "insertelement: the element inserted."
    insertelement_value(instr: symbol, operand: symbol)
    "shufflevector: the second vector."
    shufflevector_second(instr: symbol, operand: symbol)
    "shufflevector: the mask element at each position; -1 stands for poison."
    shufflevector_mask(instr: symbol, position: number, elem: number)
    "select: the condition."
    select_cond(instr: symbol, operand: symbol)
    "select: the value when true."
    select_true(instr: symbol, operand: symbol)
    "select: the value when false."
    select_false(instr: symbol, operand: symbol)
    "phi: incoming value and block, by position."
    phi_incoming(instr: symbol, position: number, value: symbol, block: symbol)
    "phi: number of incoming pairs."
    phi_nincoming(instr: symbol, n: number)
    "call, invoke and callbr: the callee operand (a function constant for direct calls, a variable or constant expression otherwise, or inline asm)."
    call_callee(instr: symbol, operand: symbol)
    "call, invoke and callbr: the function called, when the callee is a function directly."
    call_direct(instr: symbol, func: symbol)
    "call, invoke and callbr: the call's function type (opaque pointers erase it from the callee)."
    call_fn_type(instr: symbol, ty: symbol)
    "call, invoke and callbr: actual argument by index."
    call_arg(instr: symbol, index: number, operand: symbol)
    "call, invoke and callbr: number of actual arguments."
    call_nargs(instr: symbol, n: number)
    "call, invoke and callbr: calling convention."
    call_callconv(instr: symbol, cc: symbol)
    "call: tail call marker: tail, musttail or notail."
    call_tail(instr: symbol, kind: symbol)
    "Call-site function attributes."
    call_attr(instr: symbol, attr: symbol, value: symbol)
    "Call-site return attributes."
    call_ret_attr(instr: symbol, attr: symbol, value: symbol)
    "Call-site argument attributes by argument index."
    call_arg_attr(instr: symbol, index: number, attr: symbol, value: symbol)
    "Operand bundles: bundle position, tag, operand position and operand."
    call_bundle_operand(instr: symbol, bundle: number, tag: symbol, index: number, operand: symbol)
    "Operand bundle tags by position (also for bundles without operands)."
    call_bundle(instr: symbol, bundle: number, tag: symbol)
    "invoke: the normal destination."
    invoke_normal_dest(instr: symbol, block: symbol)
    "invoke: the unwind destination."
    invoke_unwind_dest(instr: symbol, block: symbol)
    "callbr: the default destination."
    callbr_default_dest(instr: symbol, block: symbol)
    "callbr: indirect destinations by position."
    callbr_indirect_dest(instr: symbol, position: number, block: symbol)
    "ret: the returned value."
    ret_value(instr: symbol, operand: symbol)
    "ret without a value."
    ret_void(instr: symbol)
    "br: the condition of a conditional branch."
    br_cond(instr: symbol, operand: symbol)
    "br: the target when the condition is true."
    br_true_dest(instr: symbol, block: symbol)
    "br: the target when the condition is false."
    br_false_dest(instr: symbol, block: symbol)
    "br: the target of an unconditional branch."
    br_dest(instr: symbol, block: symbol)
    "switch: the value switched on."
    switch_value(instr: symbol, operand: symbol)
    "switch: the default destination."
    switch_default_dest(instr: symbol, block: symbol)
    "switch: case value and destination, by position. Since LLVM 22 case values are not operands; their constants' sites are `<instr>#case<position>`."
    switch_case(instr: symbol, position: number, value: symbol, block: symbol)
    "switch: number of cases."
    switch_ncases(instr: symbol, n: number)
    "indirectbr: the address operand."
    indirectbr_addr(instr: symbol, operand: symbol)
    "indirectbr: possible destinations by position."
    indirectbr_dest(instr: symbol, position: number, block: symbol)
    "indirectbr: number of possible destinations (labels)."
    indirectbr_ndests(instr: symbol, n: number)
    "resume: the exception value."
    resume_value(instr: symbol, operand: symbol)
    "landingpad: the cleanup flag."
    landingpad_cleanup(instr: symbol)
    "landingpad: clauses by position; kind is catch or filter."
    landingpad_clause(instr: symbol, position: number, kind: symbol, operand: symbol)
    "landingpad: number of clauses."
    landingpad_nclauses(instr: symbol, n: number)
    "catchswitch: the parent pad operand (a `none` token constant at top level)."
    catchswitch_parent(instr: symbol, operand: symbol)
    "catchswitch: handler blocks by position."
    catchswitch_handler(instr: symbol, position: number, block: symbol)
    "catchswitch and cleanupret: the unwind destination, when not `unwind to caller`."
    unwind_dest(instr: symbol, block: symbol)
    "catchpad and cleanuppad: the parent (a catchswitch, a pad, or the `none` token)."
    pad_parent(instr: symbol, operand: symbol)
    "catchpad and cleanuppad: arguments by position."
    pad_arg(instr: symbol, position: number, operand: symbol)
    "catchret and cleanupret: the pad they leave."
    pad_exit_from(instr: symbol, operand: symbol)
    "catchret: the destination."
    catchret_dest(instr: symbol, block: symbol)
    "cmpxchg: the address operand."
    cmpxchg_addr(instr: symbol, operand: symbol)
    "cmpxchg: the value compared."
    cmpxchg_cmp(instr: symbol, operand: symbol)
    "cmpxchg: the new value."
    cmpxchg_new(instr: symbol, operand: symbol)
    "cmpxchg: the type of the value in memory."
    cmpxchg_type(instr: symbol, ty: symbol)
    "cmpxchg: the failure ordering (the success ordering is `instr_ordering`)."
    cmpxchg_failure_ordering(instr: symbol, ordering: symbol)
    "cmpxchg: the weak flag."
    cmpxchg_weak(instr: symbol)
    "atomicrmw: the operation (xchg, add, sub, and, nand, or, xor, max, min, umax, umin, fadd, fsub, fmax, fmin, uinc_wrap, udec_wrap)."
    atomicrmw_operation(instr: symbol, operation: symbol)
    "atomicrmw: the address operand."
    atomicrmw_addr(instr: symbol, operand: symbol)
    "atomicrmw: the value operand."
    atomicrmw_value(instr: symbol, operand: symbol)
    "atomicrmw: the type of the value in memory."
    atomicrmw_type(instr: symbol, ty: symbol)
    "va_arg: the va_list operand."
    va_arg_list(instr: symbol, operand: symbol)
    "va_arg: the argument type read."
    va_arg_type(instr: symbol, ty: symbol)
}

group operands "Operands: variables (SSA values) and constants, each with a type." {
    "Variables: instruction results and formal parameters, with their function. Ids are `module:@func:%name`."
    variable(var: symbol, func: symbol)
    "The type of a variable."
    variable_type(var: symbol, ty: symbol)
    "The IR name of a variable as LLVM prints it (`%x`, `%\"a b\"`, or `%7` for unnamed values)."
    variable_name(var: symbol, name: symbol)
    "Source-level variable names from debug info (llvm.dbg.declare/value records), with the declaration line."
    variable_source_name(var: symbol, name: symbol, line: number)
    "The declaration column of each source-level name in `variable_source_name` (from the debug location of its llvm.dbg record; 0 when unknown)."
    variable_source_column(var: symbol, name: symbol, line: number, column: number)
    "Constants, one per use site. Ids are the site they occur at, `<instr or global>#<operand path>` (`<instr>#case<N>` for switch case values)."
    constant(constant: symbol, ty: symbol)
    "LLVM's spelling of each constant as an operand, type first (`i32 -1`, `ptr getelementptr inbounds (i8, ptr @g, i64 4)`, `ptr @g`, `metadata !3`), cut to its first 1024 bytes followed by `...` when longer (see `constant_key`). Unnamed identified structs, which LLVM numbers across the whole module, are spelled by body as in type ids (`%{ i16 }`)."
    constant_text(constant: symbol, text: symbol)
    "A canonical key per constant: a 64-bit FNV-1a hash of its full spelling, as 16 hex digits. Equal constants in a module have equal keys (LLVM uniques constants, so equal means equal spelling); join on it to compare constants, at any length."
    constant_key(constant: symbol, key: symbol)
    "Integer constants: exact decimal value (signed interpretation), for any width."
    integer_constant(constant: symbol, value: symbol)
    "Integer constants whose signed value fits a 32-bit number."
    integer_constant_value(constant: symbol, value: number)
    "Floating-point constants and their LLVM literal (decimal, or LLVM's hexadecimal forms 0x, 0xK, 0xL, 0xM, 0xH, 0xR)."
    fp_constant(constant: symbol, literal: symbol)
    "The null pointer constant."
    null_constant(constant: symbol)
    "undef."
    undef_constant(constant: symbol)
    "poison."
    poison_constant(constant: symbol)
    "zeroinitializer of an aggregate or vector type."
    zeroinitializer_constant(constant: symbol)
    "The `none` token."
    token_none_constant(constant: symbol)
    "References to a global variable, alias or ifunc (by global id)."
    global_ref_constant(constant: symbol, global: symbol)
    "References to a function (by function id)."
    function_ref_constant(constant: symbol, func: symbol)
    "Constant arrays, structs and vectors; kind is array, struct or vector."
    aggregate_constant(constant: symbol, kind: symbol)
    "Elements of aggregate constants by index."
    aggregate_constant_elem(constant: symbol, index: number, elem: symbol)
    "Aggregate constants: number of elements."
    aggregate_constant_nelems(constant: symbol, n: number)
    "Constant arrays of i8 that LLVM stores as strings (`c\"...\"`): the bytes, escaped."
    string_constant(constant: symbol, bytes: symbol)
    "blockaddress constants: function and block."
    blockaddress_constant(constant: symbol, func: symbol, block: symbol)
    "Constant expressions and their opcode (getelementptr, ptrtoint, add, ...)."
    constant_expr(constant: symbol, opcode: symbol)
    "Constant expression operands by index (nested to any depth)."
    constant_expr_operand(constant: symbol, index: number, operand: symbol)
    "getelementptr constant expressions: source element type."
    constant_expr_gep_source_type(constant: symbol, ty: symbol)
    "getelementptr constant expressions: the inbounds flag."
    constant_expr_gep_inbounds(constant: symbol)
    "getelementptr constant expressions: number of indices."
    constant_expr_gep_nindices(constant: symbol, n: number)
    "Constant expression flags as LLVM prints them after the opcode: nsw, nuw, exact, disjoint, nneg (arithmetic and casts); inbounds, nusw, nuw and `inrange(lo, hi)` (getelementptr)."
    constant_expr_flag(constant: symbol, flag: symbol)
    "Inline assembly callees: asm text and constraint string."
    inline_asm(constant: symbol, asm: symbol, constraints: symbol)
    "Inline assembly flags: sideeffect, alignstack, unwind, inteldialect."
    inline_asm_flag(constant: symbol, flag: symbol)
    "Metadata operands (e.g. intrinsic arguments); `text` is the MDString when it is one, else empty."
    metadata_constant(constant: symbol, text: symbol)
    "Other constants (dso_local_equivalent, no_cfi, ptrauth): LLVM's kind name for them."
    other_constant(constant: symbol, kind: symbol)
}

group metadata "Type metadata: TBAA (struct-path form, as clang emits from -O1 on) and debug-info types (-g). Node ids are content hashes, `mod:!tbaa:<16 hex>` and `mod:!di:<16 hex>` (see extract/metadata.rs): the same in every run, for every -j; equal TBAA ids are the same node, and debug-info nodes whose content agrees through 4 levels of composite types share an id." {
    "Instructions with a struct-path `!tbaa` access tag (loads, stores, atomics, memcpy/memset calls): the base type node, the access type node, and the byte offset of the access in the base type (tags whose offset does not fit a number are left out)."
    instr_tbaa(instr: symbol, base: symbol, access: symbol, offset: number)
    "Instructions whose access tag has the constant flag (a fourth operand, non-zero): the memory accessed is immutable."
    instr_tbaa_const(instr: symbol)
    "`!tbaa.struct` of an aggregate copy (memcpy): by position, a byte range (offset, size) of the copied struct and its access type node."
    instr_tbaa_struct(instr: symbol, index: number, offset: number, size: number, access: symbol)
    "TBAA type nodes reachable from the access tags, with their name (`int`, `any pointer`, `omnipotent char`, a struct's tag name, `_ZTS1S` in C++; empty for an anonymous struct)."
    tbaa_type(node: symbol, name: symbol)
    "TBAA type nodes that C++ names by a type's mangled name (`_ZTSN3geo5PointE`): the type as C++ spells it (`geo::Point`), by LLVM's demangler."
    tbaa_type_cxx(node: symbol, name: symbol)
    "TBAA type nodes' members by index: the member's type node and byte offset. A struct type node lists its fields (an array field as its element type); a scalar type node has one member, its parent, at offset 0."
    tbaa_member(node: symbol, index: number, member: symbol, offset: number)
    "TBAA root nodes (`Simple C/C++ TBAA`): type nodes without a parent."
    tbaa_root(node: symbol)
    "Debug-info type nodes reachable from the links below, with their DWARF tag (DW_TAG_base_type, DW_TAG_pointer_type, DW_TAG_typedef, DW_TAG_const_type, DW_TAG_structure_type, DW_TAG_union_type, DW_TAG_array_type, DW_TAG_enumeration_type, DW_TAG_subroutine_type, ...) and name (empty when unnamed)."
    di_type(node: symbol, tag: symbol, name: symbol)
    "The ODR identifier of a C++ composite debug-info type: the mangled name of its type info (`_ZTSN2ns6WidgetE`), which is also the name of its TBAA type node."
    di_type_identifier(node: symbol, identifier: symbol)
    "The namespaces and types a debug-info type is declared in, outermost first, joined by `::` (`ns::Outer<int>`; an anonymous namespace is `(anonymous namespace)`); none at file scope or inside a function."
    di_type_scope(node: symbol, scope: symbol)
    "Debug-info types' size in bits, when not zero (declarations and `void` have none)."
    di_type_size(node: symbol, bits: number)
    "The type a debug-info type is made from: a pointer's, reference's or typedef's base, a qualifier's (const, volatile, restrict, atomic) type, an array's element type, an enumeration's underlying type. `void *` has none."
    di_type_base(node: symbol, base: symbol)
    "Data members (DW_TAG_member, and DW_TAG_inheritance for base classes) of structs, unions and classes: position in the composite's elements, name, type, and offset in bits (bit-fields at their bit)."
    di_member(composite: symbol, index: number, name: symbol, ty: symbol, offset: number)
    "Bit-field members (by the position in `di_member`): their width in bits."
    di_member_bitfield(composite: symbol, index: number, bits: number)
    "Array types: element count of each dimension (by position in the elements; dimensions of unknown size have none)."
    di_array_count(node: symbol, dim: number, len: number)
    "Subroutine types (DW_TAG_subroutine_type): the element types by position, 0 the return type (absent for `void`), then the parameters (a variadic function's trailing null has none)."
    di_subroutine_elem(node: symbol, index: number, ty: symbol)
    "Global variables' debug-info type (from their DIGlobalVariableExpression)."
    global_var_di_type(global: symbol, ty: symbol)
    "Functions' debug-info subroutine type (their DISubprogram's type): join with `di_subroutine_elem` for the return (index 0) and parameter (index i + 1) types."
    function_di_type(func: symbol, ty: symbol)
    "Source-level variables' debug-info type, per name as in `variable_source_name`: `how` is `address` when the variable is its storage (llvm.dbg.declare: what it points to has the type), `value` when it holds the value (llvm.dbg.value/assign), `expression` when the record's DIExpression is not empty (a fragment of the variable, an offset or a dereference: the type is not the value's)."
    variable_di_type(var: symbol, name: symbol, how: symbol, ty: symbol)
}

group pointsto "Points-to constraints (docs/pointsto.md): nodes are variables and constant use sites whose type holds a pointer; objects are allocation sites; every constraint names its instruction (or global, for initializers)." {
    "Pointer nodes: variables and constant use sites whose type holds a pointer; `func` is the function they occur in, or the global (alias) whose initializer (aliasee) holds them."
    pt_node(node: symbol, func: symbol)
    "Memory objects the extractor knows, by allocation site: kind `stack` (alloca instruction), `global` (global variable), `function`."
    pt_object(obj: symbol, kind: symbol)
    "Object sizes in bytes, when known and below 2^31 (alloca of a constant count, globals of a sized type)."
    pt_object_size(obj: symbol, bytes: number)
    "Nodes of struct, array or vector type (stored and loaded whole)."
    pt_node_aggregate(node: symbol)
    "Pointer leaves of a global's initializer at their byte offset in the global (-1 beyond 32 bits)."
    pt_initializer(global: symbol, offset: number, node: symbol)
    "`node = &obj` (offset 0): alloca, and global or function references at a use site."
    pt_address_of(instr: symbol, node: symbol, obj: symbol)
    "`to = from`: phi, select, casts, freeze, aggregate and vector operations, elements into aggregate constants, pass-through intrinsics."
    pt_copy(instr: symbol, to: symbol, from: symbol)
    "`to = base + offset` bytes: getelementptr with constant indices, and extractvalue of a wide integer from an integer node (`pt_int_call_result`), and `<instr>+<n>` nodes for the part of an integer a constant shift moves (stored at, or read from, `base + offset`); `path` is the indices joined with `.`."
    pt_field(instr: symbol, to: symbol, base: symbol, offset: number, path: symbol)
    "getelementptr with a non-constant or vector index, or an offset beyond 32 bits: `to` points somewhere into what `base` points to."
    pt_offset_unknown(instr: symbol, to: symbol, base: symbol)
    "For a `pt_offset_unknown` getelementptr whose non-constant indices all step over sized types: `to = base + offset + i * stride` bytes for some integer `i` (`stride`: the greatest common divisor of those types' sizes)."
    pt_offset_stride(instr: symbol, offset: number, stride: number)
    "`to = *addr`: load of a pointer node, the old value of atomicrmw xchg and cmpxchg, masked loads and gathers."
    pt_load(instr: symbol, to: symbol, addr: symbol)
    "`*addr = value`: store of a pointer node, atomicrmw xchg, the new value of cmpxchg, masked stores and scatters; and a store of an integer at least as wide as a pointer that a ptrtoint or ptrtoaddr instruction made of `value`, directly or through phi, select, freeze, bitcast and (little-endian) zext, trunc, or and shifts by whole bytes (`store i64 (ptrtoint ptr %p to i64), ptr %slot`)."
    pt_store(instr: symbol, addr: symbol, value: symbol)
    "`*dst = *src` (all contents): llvm.memcpy*, llvm.memmove*, llvm.va_copy; and a store of an integer (or integer vector) at least as wide as a pointer that loads gave, directly or through phi, select, freeze, bitcast and (little-endian) zext, trunc, or and shifts by whole bytes (`store i64 (load i64, ptr %src), ptr %dst`: LLVM's small memcpys from -O1 on; a shifted part is copied to or from a `pt_field` node at its byte); a constant `src` is the load's operand site."
    pt_memcpy(instr: symbol, dst: symbol, src: symbol)
    "A pointer node turned into an integer (ptrtoint, ptrtoaddr, or an argument of inline asm): what it points to escapes, unless `pt_address_unexposed` holds."
    pt_ptr_to_int(instr: symbol, node: symbol)
    "A `pt_ptr_to_int` instruction whose integer never becomes a pointer again: everything computed from it is only compared, used as a getelementptr index or a memory intrinsic's length, or subtracted from another address (C's pointer subtraction). Its node's objects do not escape through it."
    pt_address_unexposed(instr: symbol)
    "A pointer node made from an integer or from nowhere the extractor can see (inttoptr, ifunc references, inline asm results)."
    pt_int_to_ptr(instr: symbol, node: symbol)
    "A `pt_int_to_ptr` (inttoptr) of an integer at least as wide as a pointer that a load from `addr` gave, directly or through phi, select, freeze, bitcast and (little-endian) zext, trunc, or and shifts by whole bytes: `to` may be any pointer that memory holds, as a load of a pointer would give."
    pt_int_load(instr: symbol, to: symbol, addr: symbol)
    "llvm.va_start(list) in variadic function `func`."
    pt_va_start(instr: symbol, list: symbol, func: symbol)
    "va_arg of a pointer node from `list`."
    pt_va_arg(instr: symbol, to: symbol, list: symbol)
    "Exception pads (landingpad, catchpad, cleanuppad): `to` receives the caught exception."
    pt_exception(instr: symbol, to: symbol)
    "Calls (call, invoke, callbr) other than inline asm and modelled intrinsics; `callee` is the callee operand's node."
    pt_call(instr: symbol, callee: symbol)
    "Pointer-node actual arguments of a call by index."
    pt_call_arg(instr: symbol, index: number, node: symbol)
    "The result of a call that returns a pointer node."
    pt_call_result(instr: symbol, node: symbol)
    "Pointer-node formal parameters of defined functions by index."
    pt_param(func: symbol, index: number, node: symbol)
    "`ret` of a pointer node in function `func`."
    pt_return(instr: symbol, func: symbol, node: symbol)
    "Integer (or integer vector) formal parameters at least as wide as a pointer, of defined functions by index: `node` points to the memory its bytes were loaded from (`pt_int_call_arg`)."
    pt_int_param(func: symbol, index: number, node: symbol)
    "An integer (or integer vector) actual argument at least as wide as a pointer, by the memory that holds its bytes: `addr` is the address a load of it read, directly or through phi, select, freeze, bitcast and (little-endian) zext, trunc, or and shifts by whole bytes, or an integer node (`pt_int_param`, `pt_int_call_result`) it came from."
    pt_int_call_arg(instr: symbol, index: number, addr: symbol)
    "The result of a call that returns an integer (or integer vector) at least as wide as a pointer: `node` points to the memory that held the returned bytes (`pt_int_return`)."
    pt_int_call_result(instr: symbol, node: symbol)
    "`ret` of an integer (or integer vector) at least as wide as a pointer in function `func`, by the memory that holds its bytes, as `pt_int_call_arg` names it."
    pt_int_return(instr: symbol, func: symbol, addr: symbol)
}
}
