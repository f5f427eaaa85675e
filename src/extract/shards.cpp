// What reading one bitcode module in several LLVM contexts at once (`input.rs`, sharded
// reading) needs and LLVM 19's C API lacks: materializing one function of a lazily loaded
// module, the module-level steps of `materializeAll` that do not need every body, the
// producer of a bitcode file, and two checks that the verifier makes across functions.
// Messages returned are freed with LLVMDisposeMessage.
#include "llvm-c/Core.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/AutoUpgrade.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

static char *message(Error e) {
  if (!e)
    return nullptr;
  return LLVMCreateMessage(toString(std::move(e)).c_str());
}

// The bitcode's producer (`LLVM19.1.7`), or null when it cannot be read.
extern "C" char *llfacts_bitcode_producer(const char *data, size_t len) {
  MemoryBufferRef buf(StringRef(data, len), "");
  Expected<std::string> producer = getBitcodeProducerString(buf);
  if (!producer) {
    consumeError(producer.takeError());
    return nullptr;
  }
  return LLVMCreateMessage(producer->c_str());
}

// Reads the body of `f`, a function of a lazily loaded module; null, or the reader's error.
extern "C" char *llfacts_materialize(LLVMValueRef f) {
  return message(unwrap<Function>(f)->materialize());
}

// The module-level steps of `BitcodeReader::materializeModule` that do not depend on
// every function body (the debug-info upgrade is off, see `input.rs`).
extern "C" char *llfacts_finish_module(LLVMModuleRef m) {
  Module &M = *unwrap(m);
  if (Error e = M.materializeMetadata())
    return message(std::move(e));
  UpgradeModuleFlags(M);
  UpgradeARCRuntime(M);
  return nullptr;
}

// A hash of the fields of the function's DISubprogram, 0 without one: two functions of
// different shards with the same hash may share one subprogram, which the verifier rejects
// only when it sees both.
extern "C" uint64_t llfacts_subprogram_key(LLVMValueRef f) {
  const DISubprogram *sp = unwrap<Function>(f)->getSubprogram();
  if (!sp)
    return 0;
  hash_code h = hash_combine(sp->getName(), sp->getLinkageName(), sp->getLine(),
                             sp->getFilename(), sp->getDirectory());
  uint64_t key = static_cast<uint64_t>(size_t(h));
  return key ? key : 1;
}

// Whether an intrinsic is used other than as a callee: the verifier checks it only in a
// fully materialized module ("Invalid user of intrinsic instruction!").
extern "C" int llfacts_intrinsic_address_taken(LLVMValueRef f) {
  const Function *F = unwrap<Function>(f);
  const User *u = nullptr;
  return F->isIntrinsic() && F->hasAddressTaken(&u, false, true, false, true);
}
