//! The integrity-constraint rules `rules/checks.dl` and `rules/wellformed.dl`: silent on every
//! real module, and each check proven to fire on facts corrupted on purpose.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::*;

const CHECKS: &str = "rules/checks.dl";
const WELLFORMED: &str = "rules/wellformed.dl";

/// Runs a rule program with the builtin engine; returns the rows of `rel`.
fn run(program: &Path, facts: &Path, out: &Path, rel: &str) -> Vec<Vec<String>> {
    let o = llfacts()
        .args(["run", "--engine", "builtin", "-F"])
        .arg(facts)
        .arg("-D")
        .arg(out)
        .arg(program)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}: {}",
        program.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(out.join(format!("{rel}.csv"))).unwrap();
    text.lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

fn violations(rules: &str, facts: &Path, out: &Path) -> Vec<Vec<String>> {
    let rows = run(&repo().join(rules), facts, out, "violation");
    for r in &rows {
        assert_eq!(r.len(), 3, "{rules}: malformed violation row {r:?}");
    }
    rows
}

#[test]
fn real_modules_produce_no_violations() {
    let dir = scratch("checks-real");
    let facts = dir.join("facts");
    extract_ok(&all_fixtures(), &facts, &["-q"]);
    for rules in [CHECKS, WELLFORMED] {
        let rows = violations(rules, &facts, &dir.join(rules.replace('/', "_")));
        assert!(
            rows.is_empty(),
            "{rules} reports {} violations on valid modules, first: {:#?}",
            rows.len(),
            &rows[..rows.len().min(10)]
        );
    }
}

/// A valid module with one instance of each family the checks look at. Instructions of
/// `@ops` are `m:@ops:%entry:N` in order (0 add, 1 fadd, 2 fneg, 3 trunc, ...).
const MODULE: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

%S = type { i32, [4 x i16], ptr }

declare i32 @callee(i32, ptr)
declare i32 @vcallee(i32, ...)
declare void @vfn()
declare i32 @__gxx_personality_v0(...)
declare i32 @__CxxFrameHandler3(...)

define i32 @ops(i32 %a, i32 %b, double %x, ptr %p, <4 x i32> %v, i1 %c) {
entry:
  %add = add i32 %a, %b                                   ; 0
  %fadd = fadd double %x, %x                              ; 1
  %fneg = fneg double %fadd                               ; 2
  %tr = trunc i32 %add to i8                              ; 3
  %zx = zext i8 %tr to i64                                ; 4
  %sx = sext i8 %tr to i16                                ; 5
  %ft = fptrunc double %x to float                        ; 6
  %fe = fpext float %ft to double                         ; 7
  %fi = fptosi double %x to i32                           ; 8
  %if = sitofp i32 %a to float                            ; 9
  %pi = ptrtoint ptr %p to i64                            ; 10
  %ip = inttoptr i64 %pi to ptr                           ; 11
  %bc = bitcast <4 x i32> %v to <2 x i64>                 ; 12
  %asc = addrspacecast ptr %p to ptr addrspace(1)         ; 13
  %cmp = icmp slt i32 %a, %b                              ; 14
  %vcmp = icmp eq <4 x i32> %v, %v                        ; 15
  %fcmp = fcmp olt double %x, %fe                         ; 16
  %sel = select i1 %c, i32 %a, i32 %b                     ; 17
  %ld = load i32, ptr %p                                  ; 18
  store i32 %sel, ptr %p                                  ; 19
  %al = alloca %S                                         ; 20
  %gep = getelementptr %S, ptr %al, i64 0, i32 1, i64 2   ; 21
  %agg = load %S, ptr %al                                 ; 22
  %ev = extractvalue %S %agg, 1, 3                        ; 23
  %iv = insertvalue %S %agg, i16 %ev, 1, 0                ; 24
  %ee = extractelement <4 x i32> %v, i64 0                ; 25
  %ie = insertelement <4 x i32> %v, i32 %ld, i64 1        ; 26
  %call = call i32 @callee(i32 %ld, ptr %p)               ; 27
  %vc = call i32 (i32, ...) @vcallee(i32 %call, double %x) ; 28
  %fr = freeze i32 %vc                                    ; 29
  br i1 %cmp, label %then, label %join                    ; 30
then:
  br label %join
join:
  %ph = phi i32 [ %add, %entry ], [ %fr, %then ]
  ret i32 %ph
}

define i32 @sw(i32 %x) {
entry:
  switch i32 %x, label %def [ i32 1, label %two
                              i32 2, label %two ]
two:
  %r = phi i32 [ 7, %entry ], [ 7, %entry ]
  ret i32 %r
def:
  ret i32 0
}

define void @inv() personality ptr @__gxx_personality_v0 {
entry:
  invoke void @vfn() to label %ok unwind label %lp
ok:
  ret void
lp:
  %lpv = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %lpv
}

define void @misc(ptr %p, i32 %x, <4 x i32> %v, ptr %ap) {
entry:
  %old = atomicrmw add ptr %p, i32 %x seq_cst                                 ; 0
  %pair = cmpxchg ptr %p, i32 %x, i32 %old seq_cst seq_cst                    ; 1
  %va = va_arg ptr %ap, i32                                                   ; 2
  %sh = shufflevector <4 x i32> %v, <4 x i32> %v, <2 x i32> <i32 0, i32 5>    ; 3
  indirectbr ptr blockaddress(@misc, %next), [label %next]                    ; 4
next:
  fence acquire
  ret void
}

define void @fl() personality ptr @__CxxFrameHandler3 {
entry:
  invoke void @vfn() to label %done unwind label %dispatch
dispatch:
  %cs = catchswitch within none [label %handler] unwind label %cleanup
handler:
  %cp = catchpad within %cs [ptr null, i32 64, ptr null]
  catchret from %cp to label %done
cleanup:
  %cl = cleanuppad within none []
  cleanupret from %cl unwind to caller
done:
  ret void
}

define i64 @addr(ptr %p) {
entry:
  %a = ptrtoaddr ptr %p to i64                            ; 0 (LLVM 22)
  ret i64 %a
}
"#;

/// One corruption of a fact file. Patterns match a row's leading fields; `*` matches any.
enum Edit {
    /// Drop the rows matching the pattern (at least one must match).
    Drop(&'static str, &'static [&'static str]),
    /// Add a row.
    Add(&'static str, &'static [&'static str]),
    /// Set column `col` of the rows matching the pattern (at least one must match).
    Set(&'static str, &'static [&'static str], usize, &'static str),
}
use Edit::*;

struct Case {
    rules: &'static str,
    check: &'static str,
    /// The entity the violation names.
    entity: &'static str,
    edits: &'static [Edit],
}

const fn c(check: &'static str, entity: &'static str, edits: &'static [Edit]) -> Case {
    Case {
        rules: CHECKS,
        check,
        entity,
        edits,
    }
}

const fn w(check: &'static str, entity: &'static str, edits: &'static [Edit]) -> Case {
    Case {
        rules: WELLFORMED,
        check,
        entity,
        edits,
    }
}

// Instruction ids of the module above.
macro_rules! e {
    ($n:literal) => {
        concat!("m:@ops:%entry:", $n)
    };
}
const THEN: &str = "m:@ops:%then:0";
const ADDR: &str = "m:@addr:%entry:0";
const PHI: &str = "m:@ops:%join:0";
const RET: &str = "m:@ops:%join:1";
const SWPHI: &str = "m:@sw:%two:0";
const INVOKE: &str = "m:@inv:%entry:0";
const VOIDRET: &str = "m:@inv:%ok:0";
macro_rules! misc {
    ($n:literal) => {
        concat!("m:@misc:%entry:", $n)
    };
}

/// Every check id with a corruption that makes it fire on `MODULE`'s facts.
const LANDINGPAD: &str = "m:@inv:%lp:0";
const RESUME: &str = "m:@inv:%lp:1";
const CATCHSWITCH: &str = "m:@fl:%dispatch:0";
const CATCHPAD: &str = "m:@fl:%handler:0";
const CATCHRET: &str = "m:@fl:%handler:1";
const CLEANUPRET: &str = "m:@fl:%cleanup:1";
const FENCE: &str = "m:@misc:%next:0";

const CASES: &[Case] = &[
    // ---- exception handling, funclets, fence, alloca
    c(
        "eh-pad-first",
        LANDINGPAD,
        &[Set("instr_index", &[LANDINGPAD], 1, "999")],
    ),
    c(
        "unwind-dest-pad",
        INVOKE,
        &[Set("invoke_unwind_dest", &[INVOKE], 1, "m:@inv:%ok")],
    ),
    c(
        "landingpad-has-clause",
        LANDINGPAD,
        &[Drop("landingpad_cleanup", &[LANDINGPAD])],
    ),
    c(
        "landingpad-clause-kind",
        LANDINGPAD,
        &[Add(
            "landingpad_clause",
            &[LANDINGPAD, "0", "filter", "m:@ops:%a"],
        )],
    ),
    c(
        "resume-type",
        RESUME,
        &[Set("resume_value", &[RESUME], 1, "m:@ops:%a")],
    ),
    c(
        "eh-pad-token",
        CATCHSWITCH,
        &[Set("variable_type", &["m:@fl:%cs"], 1, "i32")],
    ),
    c(
        "catchpad-parent",
        CATCHPAD,
        &[Set("pad_parent", &[CATCHPAD], 1, "m:@fl:%cl")],
    ),
    c(
        "funclet-exit-pad",
        CATCHRET,
        &[Set("pad_exit_from", &[CATCHRET], 1, "m:@fl:%cl")],
    ),
    c(
        "funclet-exit-pad",
        CLEANUPRET,
        &[Set("pad_exit_from", &[CLEANUPRET], 1, "m:@fl:%cp")],
    ),
    c(
        "catchswitch-handler",
        CATCHSWITCH,
        &[Set("catchswitch_handler", &[CATCHSWITCH], 2, "m:@fl:%done")],
    ),
    c(
        "fence-ordering",
        FENCE,
        &[Set("instr_ordering", &[FENCE], 1, "monotonic")],
    ),
    c(
        "alloca-count-integer",
        e!(20),
        &[Set("constant", &["m:@ops:%entry:20#0"], 1, "float")],
    ),
    // ---- types (thesis tables 60-62, 65, 69)
    c(
        "vector-has-elem",
        "<4 x i32>",
        &[Drop("vector_type_elem", &["<4 x i32>"])],
    ),
    c(
        "vector-has-len",
        "<4 x i32>",
        &[Drop("vector_type_len", &["<4 x i32>"])],
    ),
    c(
        "vector-size-positive",
        "<4 x i32>",
        &[Set("vector_type_len", &["<4 x i32>"], 1, "0")],
    ),
    c(
        "vector-elem-kind",
        "<4 x i32>",
        &[Set("vector_type_elem", &["<4 x i32>"], 1, "[4 x i16]")],
    ),
    c(
        "array-has-elem",
        "[4 x i16]",
        &[Drop("array_type_elem", &["[4 x i16]"])],
    ),
    c(
        "function-type-has-return",
        "i32 (i32, ptr)",
        &[Drop("function_type_return", &["i32 (i32, ptr)"])],
    ),
    c(
        "function-type-return-kind",
        "void ()",
        &[Set("function_type_return", &["void ()"], 1, "label")],
    ),
    c(
        "function-type-param-count",
        "i32 (i32, ptr)",
        &[Set("function_type_nparams", &["i32 (i32, ptr)"], 1, "3")],
    ),
    // ---- functions (tables 71-72)
    c(
        "function-has-signature",
        "m:@vfn",
        &[Drop("function_signature", &["m:@vfn"])],
    ),
    c(
        "function-nparams-signature",
        "m:@ops",
        &[Set("function_nparams", &["m:@ops"], 1, "5")],
    ),
    c(
        "function-param-type",
        "m:@ops:%a",
        &[Set("variable_type", &["m:@ops:%a"], 1, "i64")],
    ),
    // ---- binary and unary operators (tables 88-92)
    c("binop-has-operands", e!(0), &[Drop("binop_rhs", &[e!(0)])]),
    c(
        "binop-result-kind",
        e!(0),
        &[Set("instr", &[e!(0)], 1, "fadd")],
    ),
    c(
        "binop-operand-types",
        e!(0),
        &[Set("binop_rhs", &[e!(0)], 1, "m:@ops:%x")],
    ),
    c("unop-has-operand", e!(2), &[Drop("unop_operand", &[e!(2)])]),
    // ---- conversions (tables 93-98)
    c("cast-has-operand", e!(3), &[Drop("cast_from", &[e!(3)])]),
    c(
        "cast-from-type",
        e!(3),
        &[Set("cast_from_type", &[e!(3)], 1, "i64")],
    ),
    c(
        "cast-result-type",
        e!(3),
        &[Set("cast_to_type", &[e!(3)], 1, "i16")],
    ),
    c(
        "cast-operand-kind",
        e!(8),
        &[Set("cast_from_type", &[e!(8)], 1, "i32")],
    ),
    c(
        "cast-result-kind",
        e!(9),
        &[Set("cast_to_type", &[e!(9)], 1, "i32")],
    ),
    // ptrtoaddr takes a pointer and gives an integer, as ptrtoint does.
    c(
        "cast-operand-kind",
        ADDR,
        &[Set("cast_from_type", &[ADDR], 1, "i64")],
    ),
    c(
        "cast-result-kind",
        ADDR,
        &[Set("cast_to_type", &[ADDR], 1, "ptr")],
    ),
    c(
        "cast-vector-compatible",
        e!(3),
        &[Set("cast_to_type", &[e!(3)], 1, "<4 x i32>")],
    ),
    c(
        "trunc-narrows",
        e!(3),
        &[Set("cast_to_type", &[e!(3)], 1, "i64")],
    ),
    c(
        "ext-widens",
        e!(4),
        &[Set("cast_to_type", &[e!(4)], 1, "i8")],
    ),
    c(
        "fptrunc-narrows",
        e!(6),
        &[Set("cast_to_type", &[e!(6)], 1, "double")],
    ),
    c(
        "fpext-widens",
        e!(7),
        &[Set("cast_to_type", &[e!(7)], 1, "float")],
    ),
    c(
        "addrspacecast-addrspace",
        e!(13),
        &[Set("cast_to_type", &[e!(13)], 1, "ptr")],
    ),
    c(
        "bitcast-kind",
        e!(12),
        &[Set("cast_to_type", &[e!(12)], 1, "m:%S")],
    ),
    c(
        "bitcast-pointer",
        e!(12),
        &[Set("cast_to_type", &[e!(12)], 1, "ptr")],
    ),
    c(
        "bitcast-size",
        e!(12),
        &[Set("cast_to_type", &[e!(12)], 1, "i32")],
    ),
    // ---- comparisons
    c("cmp-has-operands", e!(14), &[Drop("cmp_rhs", &[e!(14)])]),
    c(
        "cmp-operand-types",
        e!(14),
        &[Set("cmp_rhs", &[e!(14)], 1, "m:@ops:%x")],
    ),
    c(
        "cmp-operand-kind",
        e!(14),
        &[Set("instr", &[e!(14)], 1, "fcmp")],
    ),
    c(
        "cmp-result-type",
        e!(15),
        &[Set("variable_type", &["m:@ops:%vcmp"], 1, "i1")],
    ),
    // ---- select
    c(
        "select-has-operands",
        e!(17),
        &[Drop("select_cond", &[e!(17)])],
    ),
    c(
        "select-value-types",
        e!(17),
        &[Set("select_false", &[e!(17)], 1, "m:@ops:%x")],
    ),
    c(
        "select-cond-type",
        e!(17),
        &[Set("select_cond", &[e!(17)], 1, "m:@ops:%a")],
    ),
    // ---- phi
    c(
        "phi-value-type",
        PHI,
        &[Set("phi_incoming", &[PHI, "1"], 2, "m:@ops:%x")],
    ),
    c(
        "phi-incoming-are-predecessors",
        PHI,
        &[Drop("block_pred", &["m:@ops:%join", "m:@ops:%then"])],
    ),
    c(
        "phi-missing-predecessor",
        PHI,
        &[Drop("phi_incoming", &[PHI, "1"])],
    ),
    c(
        "phi-duplicate-predecessor",
        SWPHI,
        &[Set("integer_constant", &["m:@sw:%two:0#1"], 1, "8")],
    ),
    c(
        "phi-entry-count",
        SWPHI,
        &[Drop("phi_incoming", &[SWPHI, "1"])],
    ),
    c(
        "phi-in-entry-block",
        PHI,
        &[Set("function_entry_block", &["m:@ops"], 1, "m:@ops:%join")],
    ),
    c(
        "phi-not-at-block-start",
        PHI,
        &[Add("instr_next", &[e!(0), PHI])],
    ),
    // ---- memory
    c("load-has-operands", e!(18), &[Drop("load_type", &[e!(18)])]),
    c(
        "load-result-type",
        e!(18),
        &[Set("load_type", &[e!(18)], 1, "i64")],
    ),
    c(
        "load-addr-pointer",
        e!(18),
        &[Set("load_addr", &[e!(18)], 1, "m:@ops:%a")],
    ),
    c(
        "store-has-operands",
        e!(19),
        &[Drop("store_addr", &[e!(19)])],
    ),
    c(
        "store-value-type",
        e!(19),
        &[Set("store_type", &[e!(19)], 1, "i64")],
    ),
    c(
        "store-addr-pointer",
        e!(19),
        &[Set("store_addr", &[e!(19)], 1, "m:@ops:%a")],
    ),
    c(
        "alloca-result-pointer",
        e!(20),
        &[Set("variable_type", &["m:@ops:%al"], 1, "i32")],
    ),
    // ---- getelementptr
    c(
        "gep-has-operands",
        e!(21),
        &[Drop("gep_source_type", &[e!(21)])],
    ),
    c(
        "gep-base-pointer",
        e!(21),
        &[Set("gep_base", &[e!(21)], 1, "m:@ops:%a")],
    ),
    c(
        "gep-index-integer",
        e!(21),
        &[Set("gep_index", &[e!(21), "2"], 2, "m:@ops:%p")],
    ),
    c(
        "gep-index-type",
        e!(21),
        &[Set("gep_index_type", &[e!(21), "2"], 2, "i32")],
    ),
    c(
        "gep-index-into-scalar",
        e!(21),
        &[Set("gep_index_type", &[e!(21), "1"], 2, "i16")],
    ),
    c(
        "gep-struct-index",
        e!(21),
        &[Set(
            "integer_constant_value",
            &["m:@ops:%entry:21#2"],
            1,
            "7",
        )],
    ),
    // ---- extractvalue, insertvalue (tables 111-119)
    c(
        "aggregate-has-base",
        e!(23),
        &[Drop("aggregate_base", &[e!(23)])],
    ),
    c(
        "aggregate-base-kind",
        e!(23),
        &[Set("aggregate_base", &[e!(23)], 1, "m:@ops:%a")],
    ),
    c(
        "aggregate-index-range",
        e!(23),
        &[Set("aggregate_index", &[e!(23), "1"], 2, "9")],
    ),
    c(
        "extractvalue-result-type",
        e!(23),
        &[Set("variable_type", &["m:@ops:%ev"], 1, "i32")],
    ),
    c(
        "insertvalue-value-type",
        e!(24),
        &[Set("insertvalue_value", &[e!(24)], 1, "m:@ops:%a")],
    ),
    c(
        "insertvalue-result-type",
        e!(24),
        &[Set("variable_type", &["m:@ops:%iv"], 1, "i32")],
    ),
    // ---- vector element operations
    c(
        "vector-op-types",
        e!(25),
        &[Set("variable_type", &["m:@ops:%ee"], 1, "i64")],
    ),
    // ---- calls (tables 102-110)
    c(
        "call-has-callee",
        e!(27),
        &[Drop("call_fn_type", &[e!(27)])],
    ),
    c(
        "call-callee-pointer",
        e!(27),
        &[Set("call_callee", &[e!(27)], 1, "m:@ops:%a")],
    ),
    c(
        "call-arg-count",
        e!(27),
        &[Set("call_nargs", &[e!(27)], 1, "3")],
    ),
    c(
        "call-arg-count",
        e!(28),
        &[Set("call_nargs", &[e!(28)], 1, "0")],
    ),
    c(
        "call-arg-type",
        e!(27),
        &[Set("call_arg", &[e!(27), "1"], 2, "m:@ops:%a")],
    ),
    c(
        "call-result-type",
        e!(27),
        &[Set("variable_type", &["m:@ops:%call"], 1, "i64")],
    ),
    c(
        "call-result-type",
        INVOKE,
        &[Add("instr_result", &[INVOKE, "m:@ops:%a"])],
    ),
    c(
        "invoke-has-labels",
        INVOKE,
        &[Drop("invoke_unwind_dest", &[INVOKE])],
    ),
    // ---- terminators and the CFG
    c(
        "block-has-terminator",
        THEN,
        &[Drop("block_terminator", &["m:@ops:%then"])],
    ),
    c(
        "terminator-ends-block",
        THEN,
        &[Add("instr_next", &[THEN, PHI])],
    ),
    c(
        "terminator-opcode",
        e!(0),
        &[Set("block_terminator", &["m:@ops:%then"], 1, e!(0))],
    ),
    c(
        "br-cond-type",
        e!(30),
        &[Set("br_cond", &[e!(30)], 1, "m:@ops:%a")],
    ),
    c(
        "switch-types",
        "m:@sw:%entry:0",
        &[Set("variable_type", &["m:@sw:%x"], 1, "i64")],
    ),
    c(
        "indirectbr-addr-pointer",
        misc!(4),
        &[Set("indirectbr_addr", &[misc!(4)], 1, "m:@misc:%x")],
    ),
    // ---- atomics, va_arg, shufflevector
    c(
        "atomicrmw-types",
        misc!(0),
        &[Set("atomicrmw_type", &[misc!(0)], 1, "i64")],
    ),
    c(
        "cmpxchg-types",
        misc!(1),
        &[Set("cmpxchg_type", &[misc!(1)], 1, "i64")],
    ),
    c(
        "va-arg-types",
        misc!(2),
        &[Set("va_arg_type", &[misc!(2)], 1, "i64")],
    ),
    c(
        "shufflevector-types",
        misc!(3),
        &[Set("shufflevector_second", &[misc!(3)], 1, "m:@misc:%x")],
    ),
    c(
        "entry-block-no-preds",
        "m:@ops:%entry",
        &[Add("block_pred", &["m:@ops:%entry", "m:@ops:%then"])],
    ),
    // ---- function well-formedness (thesis table 100 and LangRef)
    w(
        "function-illformed-ret-void-in-nonvoid",
        RET,
        &[Drop("ret_value", &[RET]), Add("ret_void", &[RET])],
    ),
    w(
        "function-illformed-ret-type",
        RET,
        &[Set("ret_value", &[RET], 1, "m:@ops:%x")],
    ),
    w(
        "function-illformed-ret-value-in-void",
        VOIDRET,
        &[Drop("ret_void", &[VOIDRET])],
    ),
    w(
        "function-illformed-no-entry",
        "m:@sw",
        &[Drop("function_entry_block", &["m:@sw"])],
    ),
    w(
        "function-illformed-no-terminator",
        THEN,
        &[Set("instr", &[THEN], 1, "add")],
    ),
    w(
        "function-illformed-terminator-not-last",
        THEN,
        &[Add("instr_next", &[THEN, PHI])],
    ),
    w(
        "function-illformed-entry-preds",
        "m:@ops:%entry",
        &[Add("block_pred", &["m:@ops:%entry", "m:@ops:%then"])],
    ),
    w(
        "function-illformed-entry-phi",
        PHI,
        &[Set("function_entry_block", &["m:@ops"], 1, "m:@ops:%join")],
    ),
    w(
        "function-illformed-phi-not-first",
        PHI,
        &[Add("instr_next", &[e!(0), PHI])],
    ),
    w(
        "function-illformed-param-count",
        "m:@ops",
        &[Set("function_nparams", &["m:@ops"], 1, "5")],
    ),
];

fn matches(row: &[String], pat: &[&str]) -> bool {
    row.len() >= pat.len() && pat.iter().zip(row).all(|(p, f)| *p == "*" || p == f)
}

/// Copies a fact directory and applies the edits to the copy.
fn corrupt(base: &Path, dest: &Path, edits: &[Edit]) {
    let _ = std::fs::remove_dir_all(dest);
    std::fs::create_dir_all(dest).unwrap();
    for entry in std::fs::read_dir(base).unwrap() {
        let p = entry.unwrap().path();
        std::fs::copy(&p, dest.join(p.file_name().unwrap())).unwrap();
    }
    for edit in edits {
        let rel = match edit {
            Drop(r, _) | Add(r, _) | Set(r, _, _, _) => *r,
        };
        let path = dest.join(format!("{rel}.facts"));
        let text = std::fs::read_to_string(&path).unwrap();
        let mut rows: Vec<Vec<String>> = text
            .lines()
            .map(|l| l.split('\t').map(str::to_string).collect())
            .collect();
        match edit {
            Drop(_, pat) => {
                let before = rows.len();
                rows.retain(|r| !matches(r, pat));
                assert!(rows.len() < before, "no {rel} row matches {pat:?}");
            }
            Add(_, row) => rows.push(row.iter().map(|s| s.to_string()).collect()),
            Set(_, pat, col, val) => {
                let mut hit = false;
                for r in rows.iter_mut().filter(|r| matches(r, pat)) {
                    r[*col] = val.to_string();
                    hit = true;
                }
                assert!(hit, "no {rel} row matches {pat:?}");
            }
        }
        let mut text = String::new();
        for r in rows {
            text.push_str(&r.join("\t"));
            text.push('\n');
        }
        std::fs::write(&path, text).unwrap();
    }
}

fn module_facts(dir: &Path) -> PathBuf {
    let ll = dir.join("m.ll");
    std::fs::write(&ll, MODULE).unwrap();
    let facts = dir.join("facts");
    extract_ok(&[ll], &facts, &["-q"]);
    facts
}

#[test]
fn every_check_fires_on_corrupted_facts() {
    let dir = scratch("checks-fire");
    let facts = module_facts(&dir);

    // The module as LLVM wrote it satisfies every check.
    for rules in [CHECKS, WELLFORMED] {
        let rows = violations(
            rules,
            &facts,
            &dir.join(format!("clean-{}", rules.replace('/', "_"))),
        );
        assert!(rows.is_empty(), "{rules} on the valid module: {rows:#?}");
    }

    let mut failures = Vec::new();
    for (n, case) in CASES.iter().enumerate() {
        let case_dir = dir.join(format!("case{n}"));
        corrupt(&facts, &case_dir.join("facts"), case.edits);
        let rows = violations(case.rules, &case_dir.join("facts"), &case_dir.join("out"));
        let entities: BTreeSet<&str> = rows
            .iter()
            .filter(|r| r[0] == case.check)
            .map(|r| r[1].as_str())
            .collect();
        let expected: BTreeSet<&str> = [case.entity].into_iter().collect();
        if entities != expected {
            failures.push(format!(
                "{} (case {n}): expected entity {:?}, got {:?}; all rows: {:?}",
                case.check, case.entity, entities, rows
            ));
        }
        let _ = std::fs::remove_dir_all(&case_dir);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The check ids a rule file can derive: first arguments of `violation("…"` heads, and of
/// `illformed_reason("…"` (which wellformed.dl turns into violations).
fn check_ids(rules: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(repo().join(rules)).unwrap();
    let mut ids = BTreeSet::new();
    for head in ["violation(\"", "illformed_reason(\""] {
        for (at, _) in text.match_indices(head) {
            let rest = &text[at + head.len()..];
            let id = &rest[..rest.find('"').unwrap()];
            ids.insert(id.to_string());
        }
    }
    ids
}

#[test]
fn every_check_id_has_a_firing_case() {
    for rules in [CHECKS, WELLFORMED] {
        let ids = check_ids(rules);
        assert!(ids.len() > 5, "{rules}: {ids:?}");
        let tested: BTreeSet<String> = CASES
            .iter()
            .filter(|c| c.rules == rules)
            .map(|c| c.check.to_string())
            .collect();
        let untested: Vec<&String> = ids.difference(&tested).collect();
        assert!(
            untested.is_empty(),
            "{rules}: checks without a firing case: {untested:?}"
        );
        let stale: Vec<&String> = tested.difference(&ids).collect();
        assert!(
            stale.is_empty(),
            "{rules}: cases for unknown checks: {stale:?}"
        );
        for id in &ids {
            assert!(
                !id.is_empty()
                    && id
                        .chars()
                        .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-'),
                "{rules}: check id {id:?} is not kebab-case"
            );
        }
    }
    // wellformed.dl reasons are all `function-illformed-*`.
    assert!(
        check_ids(WELLFORMED)
            .iter()
            .all(|id| id.starts_with("function-illformed-"))
    );
}

#[test]
fn function_wellformed_and_illformed() {
    let dir = scratch("checks-wellformed");
    let src = "int sq(int x) { return x * x; }\n\
               double half(double d) { return d / 2; }\n\
               void clear(int *p) { *p = 0; }\n\
               int main(void) { int v; clear(&v); return sq(v) + (int)half(3.0); }\n";
    let bc = compile_snippet(&dir, "w", src, &["-O0", "-fno-discard-value-names"]);
    let facts = dir.join("facts");
    extract_ok(&[bc], &facts, &["-q"]);
    // A wrapper that also outputs the two thesis relations.
    let program = dir.join("wf.dl");
    std::fs::write(
        &program,
        format!(
            "#include \"{}\"\n.output function_illformed\n.output function_wellformed\n",
            repo().join(WELLFORMED).display()
        ),
    )
    .unwrap();
    let names = |rows: Vec<Vec<String>>| -> Vec<String> {
        rows.into_iter().map(|r| r[0].clone()).collect()
    };
    let all = ["w:@clear", "w:@half", "w:@main", "w:@sq"];

    let out = dir.join("clean");
    assert_eq!(
        names(run(&program, &facts, &out, "function_wellformed")),
        all
    );
    assert!(run(&program, &facts, &out, "function_illformed").is_empty());
    assert!(run(&program, &facts, &out, "violation").is_empty());

    // `half` returns a double; make its returns `ret void`.
    let f = Facts::open(&facts);
    let rets: Vec<String> = f
        .rows("ret_value")
        .iter()
        .map(|r| r[0].clone())
        .filter(|i| f.one("instr_function", i, 1) == "w:@half")
        .collect();
    assert!(!rets.is_empty());
    let bad = dir.join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    for entry in std::fs::read_dir(&facts).unwrap() {
        let p = entry.unwrap().path();
        std::fs::copy(&p, bad.join(p.file_name().unwrap())).unwrap();
    }
    let keep: String = f
        .rows("ret_value")
        .iter()
        .filter(|r| !rets.contains(&r[0]))
        .map(|r| format!("{}\n", r.join("\t")))
        .collect();
    std::fs::write(bad.join("ret_value.facts"), keep).unwrap();
    let mut void = std::fs::read_to_string(facts.join("ret_void.facts")).unwrap();
    for r in &rets {
        void.push_str(&format!("{r}\n"));
    }
    std::fs::write(bad.join("ret_void.facts"), void).unwrap();

    let out = dir.join("corrupt");
    assert_eq!(
        names(run(&program, &bad, &out, "function_illformed")),
        ["w:@half"]
    );
    assert_eq!(
        names(run(&program, &bad, &out, "function_wellformed")),
        ["w:@clear", "w:@main", "w:@sq"]
    );
    let rows = run(&program, &bad, &out, "violation");
    let got: BTreeSet<(String, String)> = rows
        .into_iter()
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    let want: BTreeSet<(String, String)> = rets
        .iter()
        .map(|r| {
            (
                "function-illformed-ret-void-in-nonvoid".to_string(),
                r.clone(),
            )
        })
        .collect();
    assert_eq!(got, want);
}
