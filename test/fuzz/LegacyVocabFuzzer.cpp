//===- LegacyVocabFuzzer.cpp - Fuzz the legacy vocabulary formats ---------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// libFuzzer target: the input as a legacy vocabulary, IITH IR2Vec's
/// `name:[...]` text or upstream's first flat JSON
/// (ir2vec::parseLegacyVocabulary).
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Legacy.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<irtk::ir2vec::LegacyVocabulary> V =
      irtk::ir2vec::parseLegacyVocabulary(Text, "fuzz.txt");
  if (!V)
    llvm::consumeError(V.takeError());
  return 0;
}
