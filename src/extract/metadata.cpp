// Read-only access to metadata that LLVM's C API offers only through MetadataAsValue
// wrappers (`LLVMGetMetadata`, `LLVMGetMDNodeOperands`), which create values in the context
// and so could not be called from the workers: an instruction's `!tbaa` and `!tbaa.struct`
// attachments, the operands of a node as metadata, and the debug-info fields the C API has
// no getter for (tags, base types, elements, subrange counts, variable types), and LLVM's
// demangler for the C++ names of TBAA type nodes. Every
// function here only reads the IR (see `extract/metadata.rs`).
#include "llvm-c/Core.h"
#include "llvm-c/DebugInfo.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"

using namespace llvm;

static Metadata *md(LLVMMetadataRef m) { return unwrap(m); }

// The `!tbaa` (which 0) or `!tbaa.struct` (which 1, calls only) attachment of an
// instruction, or null.
extern "C" LLVMMetadataRef llfacts_instr_tbaa(LLVMValueRef i, int which) {
  const Instruction *I = unwrap<Instruction>(i);
  if (!I->hasMetadata() || (which == 1 && !isa<CallBase>(I)))
    return nullptr;
  return wrap(I->getMetadata(which == 0 ? LLVMContext::MD_tbaa : LLVMContext::MD_tbaa_struct));
}

// Operands of an MDNode (0 for anything else).
extern "C" unsigned llfacts_md_num_operands(LLVMMetadataRef m) {
  if (auto *n = dyn_cast_or_null<MDNode>(md(m)))
    return n->getNumOperands();
  return 0;
}

extern "C" LLVMMetadataRef llfacts_md_operand(LLVMMetadataRef m, unsigned k) {
  auto *n = cast<MDNode>(md(m));
  return wrap(n->getOperand(k).get());
}

// 1 for an MDNode (a tuple or a specialized node such as a DI node).
extern "C" int llfacts_md_is_node(LLVMMetadataRef m) { return isa_and_nonnull<MDNode>(md(m)); }

// An MDString's bytes, or null.
extern "C" const char *llfacts_md_string(LLVMMetadataRef m, size_t *len) {
  auto *s = dyn_cast_or_null<MDString>(md(m));
  if (!s)
    return nullptr;
  *len = s->getString().size();
  return s->getString().data();
}

// A constant integer operand (ConstantAsMetadata of a ConstantInt of at most 64 bits).
extern "C" int llfacts_md_int(LLVMMetadataRef m, int64_t *out) {
  auto *c = dyn_cast_or_null<ConstantAsMetadata>(md(m));
  if (!c)
    return 0;
  auto *ci = dyn_cast<ConstantInt>(c->getValue());
  if (!ci || ci->getBitWidth() > 64)
    return 0;
  *out = ci->getSExtValue();
  return 1;
}

// The DWARF tag of a DI node (0 for other metadata) and its name (`DW_TAG_member`).
extern "C" unsigned llfacts_di_tag(LLVMMetadataRef m) {
  if (auto *n = dyn_cast_or_null<DINode>(md(m)))
    return n->getTag();
  return 0;
}

extern "C" const char *llfacts_dwarf_tag_name(unsigned tag, size_t *len) {
  StringRef s = dwarf::TagString(tag);
  *len = s.size();
  return s.data();
}

// The fields of a node that are not operands, for its content hash: up to 8 numbers.
extern "C" unsigned llfacts_md_fields(LLVMMetadataRef m, uint64_t *out) {
  Metadata *M = md(m);
  if (!M)
    return 0;
  unsigned n = 0;
  out[n++] = M->getMetadataID();
  if (auto *d = dyn_cast<DINode>(M))
    out[n++] = d->getTag();
  if (auto *t = dyn_cast<DIType>(M)) {
    out[n++] = t->getLine();
    out[n++] = t->getSizeInBits();
    out[n++] = t->getOffsetInBits();
    out[n++] = t->getFlags();
    out[n++] = t->getAlignInBits();
    if (auto *b = dyn_cast<DIBasicType>(t))
      out[n++] = b->getEncoding();
    else if (auto *s = dyn_cast<DISubroutineType>(t))
      out[n++] = s->getCC(); // DW_CC_nocall once optimization drops the arguments
    else if (auto *c = dyn_cast<DICompositeType>(t))
      out[n++] = c->getRuntimeLang();
    else if (auto *d = dyn_cast<DIDerivedType>(t))
      out[n++] = d->getDWARFAddressSpace().value_or(~0u);
  } else if (auto *e = dyn_cast<DIEnumerator>(M)) {
    const APInt &v = e->getValue();
    out[n++] = v.getBitWidth() <= 64 ? v.getZExtValue() : v.getLoBits(64).getZExtValue();
    out[n++] = e->isUnsigned();
  } else if (auto *s = dyn_cast<DISubprogram>(M)) {
    out[n++] = s->getLine();
    out[n++] = s->getSPFlags();
  } else if (auto *b = dyn_cast<DILexicalBlock>(M)) {
    out[n++] = b->getLine();
    out[n++] = b->getColumn();
  } else if (auto *v = dyn_cast<DIVariable>(M)) {
    out[n++] = v->getLine();
  }
  return n;
}

// Whether a node is a scope other than a type (file, compile unit, subprogram, block,
// namespace, module): content hashes take only its own fields and strings.
extern "C" int llfacts_di_is_container(LLVMMetadataRef m) {
  Metadata *M = md(m);
  return M && isa<DIScope>(M) && !isa<DIType>(M);
}

// A DI type node (basic, derived, composite, subroutine, string type).
extern "C" int llfacts_di_is_type(LLVMMetadataRef m) { return isa_and_nonnull<DIType>(md(m)); }

// Kind of a DI type: 1 basic, 2 derived, 3 composite, 4 subroutine, 0 other.
extern "C" int llfacts_di_type_class(LLVMMetadataRef m) {
  Metadata *M = md(m);
  if (isa_and_nonnull<DIBasicType>(M))
    return 1;
  if (isa_and_nonnull<DIDerivedType>(M))
    return 2;
  if (isa_and_nonnull<DICompositeType>(M))
    return 3;
  if (isa_and_nonnull<DISubroutineType>(M))
    return 4;
  return 0;
}

// The base type of a derived type (pointee, typedef'd, member type) or of a composite
// (array element, enumeration's underlying type); null when none (`void *`).
extern "C" LLVMMetadataRef llfacts_di_base_type(LLVMMetadataRef m) {
  Metadata *M = md(m);
  if (auto *d = dyn_cast_or_null<DIDerivedType>(M))
    return wrap(d->getBaseType());
  if (auto *c = dyn_cast_or_null<DICompositeType>(M))
    return wrap(c->getBaseType());
  return nullptr;
}

// A composite's ODR identifier (C++'s mangled type name, `_ZTSN2ns6WidgetE`, which is also
// its TBAA type name); empty when none.
extern "C" const char *llfacts_di_identifier(LLVMMetadataRef m, size_t *len) {
  StringRef s;
  if (auto *c = dyn_cast_or_null<DICompositeType>(md(m)))
    s = c->getIdentifier();
  *len = s.size();
  return s.data();
}

// The namespace or type a type is declared in (`scope:`), or null: not a file, a compile
// unit, a function or a module.
extern "C" LLVMMetadataRef llfacts_di_type_scope(LLVMMetadataRef m) {
  auto *t = dyn_cast_or_null<DIType>(md(m));
  auto *scope = t ? t->getScope() : nullptr;
  if (scope && (isa<DINamespace>(scope) || isa<DIType>(scope)))
    return wrap(scope);
  return nullptr;
}

// A namespace's name and the scope it is in (as above); an anonymous namespace's name is empty.
extern "C" const char *llfacts_di_namespace(LLVMMetadataRef m, size_t *len, LLVMMetadataRef *scope) {
  auto *n = dyn_cast_or_null<DINamespace>(md(m));
  *scope = nullptr;
  if (!n) {
    *len = 0;
    return nullptr;
  }
  auto *outer = n->getScope();
  if (outer && (isa<DINamespace>(outer) || isa<DIType>(outer)))
    *scope = wrap(outer);
  StringRef s = n->getName();
  *len = s.size();
  return s.data();
}

// The elements of a composite (a tuple) or the type array of a subroutine type; null if none.
extern "C" LLVMMetadataRef llfacts_di_elements(LLVMMetadataRef m) {
  Metadata *M = md(m);
  if (auto *c = dyn_cast_or_null<DICompositeType>(M))
    return wrap(c->getRawElements());
  if (auto *s = dyn_cast_or_null<DISubroutineType>(M))
    return wrap(s->getRawTypeArray());
  return nullptr;
}

// A subrange's constant count; 0 when it is not a constant.
extern "C" int llfacts_di_subrange_count(LLVMMetadataRef m, int64_t *out) {
  auto *s = dyn_cast_or_null<DISubrange>(md(m));
  if (!s)
    return 0;
  auto c = s->getCount();
  if (auto *ci = dyn_cast_if_present<ConstantInt *>(c)) {
    if (ci->getBitWidth() > 64)
      return 0;
    *out = ci->getSExtValue();
    return 1;
  }
  return 0;
}

// The type of a DILocalVariable or DIGlobalVariable.
extern "C" LLVMMetadataRef llfacts_di_variable_type(LLVMMetadataRef m) {
  if (auto *v = dyn_cast_or_null<DIVariable>(md(m)))
    return wrap(v->getType());
  return nullptr;
}

// The DISubroutineType of a function's DISubprogram, or null.
extern "C" LLVMMetadataRef llfacts_function_di_type(LLVMValueRef f) {
  const DISubprogram *sp = unwrap<Function>(f)->getSubprogram();
  return sp ? wrap(sp->getType()) : nullptr;
}

// The DIGlobalVariables attached to a global variable (`!dbg`), at most `max` into `out`;
// returns how many there are.
extern "C" unsigned llfacts_global_di_vars(LLVMValueRef g, LLVMMetadataRef *out, unsigned max) {
  auto *G = dyn_cast<GlobalVariable>(unwrap(g));
  if (!G || !G->hasMetadata())
    return 0;
  SmallVector<DIGlobalVariableExpression *, 1> exprs;
  G->getDebugInfo(exprs);
  unsigned n = 0;
  for (auto *e : exprs) {
    if (!e || !e->getVariable())
      continue;
    if (n < max)
      out[n] = wrap(e->getVariable());
    n++;
  }
  return n;
}

// A debug variable record (`#dbg_declare`, `#dbg_value`, `#dbg_assign`, `#dbg_declare_value`),
// which LLVM 22 keeps beside instructions rather than as calls: the one value it describes
// (null for labels, argument lists, and empty or constant locations), its DILocalVariable in
// `*variable`, in `*address` whether the value is the variable's address (`#dbg_declare`),
// and in `*plain` whether its DIExpression is empty (no fragment, offset or dereference: the
// value is the variable, or its address, exactly).
extern "C" LLVMValueRef llfacts_dbg_record(LLVMDbgRecordRef r, LLVMMetadataRef *variable,
                                           int *address, int *plain) {
  auto *V = dyn_cast<DbgVariableRecord>(unwrap(r));
  if (!V || V->hasArgList() || !isa_and_nonnull<ValueAsMetadata>(V->getRawLocation()))
    return nullptr;
  Value *described = V->getVariableLocationOp(0);
  if (!described || isa<Constant>(described))
    return nullptr;
  *variable = wrap(V->getRawVariable());
  *address = V->isAddressOfVariable();
  *plain = V->getExpression()->getNumElements() == 0;
  return wrap(described);
}

// The C++ spelling of a type's Itanium mangling (`N3geo5PointE` → `geo::Point`), malloc'd,
// or null when it is none; `llfacts_free` gives it back.
extern "C" char *llfacts_demangle_type(const char *s, size_t len) {
  return itaniumDemangle(std::string_view(s, len));
}

extern "C" void llfacts_free(char *p) { std::free(p); }
