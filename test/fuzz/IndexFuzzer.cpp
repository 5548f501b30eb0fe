//===- IndexFuzzer.cpp - Fuzz a store's index.jsonl -----------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// libFuzzer target: the input as a store's index.jsonl, opened as a file
/// (store::IndexFile::open checks every line), then every record parsed and
/// a function looked up by name.
///
//===----------------------------------------------------------------------===//

#include "ScratchFile.h"

#include "irtk/store/Index.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static irtk::fuzz::ScratchFile File("index.jsonl");
  File.write(Data, Size);
  llvm::Expected<irtk::store::IndexFile> Index =
      irtk::store::IndexFile::open(File.path());
  if (!Index) {
    llvm::consumeError(Index.takeError());
    return 0;
  }
  for (uint64_t Row = 0; Row < Index->size(); ++Row)
    if (llvm::Expected<irtk::store::IndexRecord> R = Index->record(Row); !R)
      llvm::consumeError(R.takeError());
  if (auto Rows = Index->findFunction("main"); !Rows)
    llvm::consumeError(Rows.takeError());
  return 0;
}
