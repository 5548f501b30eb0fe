//===- MIRVocabJSONFuzzer.cpp - Fuzz vocabulary JSON (MIR layout) ---------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// libFuzzer target: the input as an X86-64 machine IR vocabulary (the
/// layout of an X86-64 target machine, made once in LLVMFuzzerInitialize).
///
//===----------------------------------------------------------------------===//

#include "irtk/mir2vec/Layout.h"
#include "irtk/mir2vec/Loader.h"
#include "irtk/vocab/Vocabulary.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

static std::shared_ptr<const irtk::vocab::Layout> X86Layout;

extern "C" int LLVMFuzzerInitialize(int *Argc, char ***Argv) {
  irtk::mir2vec::initializeTargets();
  auto TM = irtk::mir2vec::createTargetMachine("x86_64-unknown-linux-gnu");
  if (!TM) {
    llvm::consumeError(TM.takeError());
    std::abort();
  }
  X86Layout = irtk::mir2vec::layoutOf(**TM)->layout();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<irtk::vocab::Vocabulary> V =
      irtk::vocab::Vocabulary::loadFromBuffer(Text, "fuzz.json", X86Layout);
  if (!V) {
    llvm::consumeError(V.takeError());
    return 0;
  }
  (void)V->missingEntities();
  return 0;
}
