// What reading one bitcode module in several LLVM contexts at once (`input.rs`, sharded
// reading) needs and LLVM's C API lacks: materializing one function of a lazily loaded
// module, the module-level steps of `materializeAll` that do not need every body, the
// producer of a bitcode file, and two checks that the verifier makes across functions.
// Messages returned are freed with LLVMDisposeMessage.
#include "llvm-c/Core.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/LLVMBitCodes.h"
#include "llvm/Bitstream/BitstreamReader.h"
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

// The STRING record of a leading identification block, read without LLVM's checks (which
// refuse the whole block when its epoch is not the reader's); empty when there is none.
static std::string identification_string(StringRef data) {
  if (!data.starts_with("BC\xC0\xDE"))
    return "";
  BitstreamCursor cursor(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(data.data()),
                                           data.size()));
  if (Error e = cursor.JumpToBit(32)) {
    consumeError(std::move(e));
    return "";
  }
  Expected<BitstreamEntry> entry = cursor.advance();
  if (!entry || entry->Kind != BitstreamEntry::SubBlock ||
      entry->ID != bitc::IDENTIFICATION_BLOCK_ID) {
    if (!entry)
      consumeError(entry.takeError());
    return "";
  }
  if (Error e = cursor.EnterSubBlock(bitc::IDENTIFICATION_BLOCK_ID)) {
    consumeError(std::move(e));
    return "";
  }
  SmallVector<uint64_t, 32> record;
  while (true) {
    Expected<BitstreamEntry> e = cursor.advanceSkippingSubblocks();
    if (!e) {
      consumeError(e.takeError());
      return "";
    }
    if (e->Kind != BitstreamEntry::Record)
      return "";
    record.clear();
    Expected<unsigned> code = cursor.readRecord(e->ID, record);
    if (!code) {
      consumeError(code.takeError());
      return "";
    }
    if (*code == bitc::IDENTIFICATION_CODE_STRING) {
      std::string text;
      for (uint64_t c : record)
        text.push_back(static_cast<char>(c));
      return text;
    }
  }
}

// The bitcode's producer (`LLVM22.1.8`), or null when it cannot be read. A producer whose
// epoch this LLVM refuses is still named, from the identification block as written.
extern "C" char *llfacts_bitcode_producer(const char *data, size_t len) {
  MemoryBufferRef buf(StringRef(data, len), "");
  Expected<std::string> producer = getBitcodeProducerString(buf);
  if (!producer) {
    consumeError(producer.takeError());
    std::string raw = identification_string(StringRef(data, len));
    return raw.empty() ? nullptr : LLVMCreateMessage(raw.c_str());
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
