// LLVM's C API cannot read the constant ranges that `range` and `initializes` carry, nor
// decode `memory` and `captures`, whose packed values change layout between versions. This one function exposes C++'s `Attribute::getAsString`, which prints any attribute as
// the IR does (`range(i32 0, 10)`); the result is freed with LLVMDisposeMessage.
#include "llvm-c/Core.h"
#include "llvm/IR/Attributes.h"

extern "C" char *llfacts_attribute_as_string(LLVMAttributeRef a) {
  return LLVMCreateMessage(llvm::unwrap(a).getAsString().c_str());
}
