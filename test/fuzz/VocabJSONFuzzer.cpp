//===- VocabJSONFuzzer.cpp - Fuzz vocabulary JSON (IR layout) -------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// libFuzzer target: the input as an LLVM IR vocabulary in upstream's JSON
/// format (vocab::Vocabulary::loadFromBuffer over ir2vec::irLayout()).
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Entities.h"
#include "irtk/vocab/Vocabulary.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<irtk::vocab::Vocabulary> V =
      irtk::vocab::Vocabulary::loadFromBuffer(Text, "fuzz.json",
                                              irtk::ir2vec::irLayout());
  if (!V) {
    llvm::consumeError(V.takeError());
    return 0;
  }
  (void)V->missingEntities();
  return 0;
}
