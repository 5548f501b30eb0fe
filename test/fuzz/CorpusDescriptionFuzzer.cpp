//===- CorpusDescriptionFuzzer.cpp - Fuzz MLGO corpus descriptions --------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// libFuzzer target: the input as an MLGO corpus's corpus_description.json,
/// read through its directory (support::isCorpus, readCorpusModules).
///
//===----------------------------------------------------------------------===//

#include "ScratchFile.h"

#include "irtk/support/InputList.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static irtk::fuzz::ScratchFile File(irtk::support::CorpusDescriptionName);
  File.write(Data, Size);
  if (!irtk::support::isCorpus(File.dir()))
    std::abort();
  auto Modules = irtk::support::readCorpusModules(File.dir());
  if (!Modules)
    llvm::consumeError(Modules.takeError());
  return 0;
}
