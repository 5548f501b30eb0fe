//===- ApproxIndexFuzzer.cpp - Fuzz the approximate index file ------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// libFuzzer target: the input as an irtk-similarity index file, opened
/// (store::ApproxIndex::load: header, length, checksum, then FAISS's
/// reader), and, when it loads and is small, searched with a few queries
/// over a matrix of its shape (the exact scoring reads only rows the
/// matrix has, whatever labels the index holds).
///
//===----------------------------------------------------------------------===//

#include "ScratchFile.h"

#include "irtk/store/ApproxIndex.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static irtk::fuzz::ScratchFile File("fuzz.index");
  File.write(Data, Size);
  llvm::Expected<irtk::store::ApproxIndex> Index =
      irtk::store::ApproxIndex::load(File.path());
  if (!Index) {
    llvm::consumeError(Index.takeError());
    return 0;
  }
  const irtk::store::ApproxIndexInfo &Info = Index->info();
  if (Info.Rows * Info.Dimension > (1u << 16))
    return 0;
  std::vector<float> Base(Info.Rows * Info.Dimension);
  for (size_t I = 0; I < Base.size(); ++I)
    Base[I] = static_cast<float>(I % 7) - 3;
  irtk::store::MatrixRef B{Base.data(), Info.Rows, Info.Dimension};
  irtk::store::MatrixRef Q{Base.data(), std::min<uint64_t>(Info.Rows, 3),
                           Info.Dimension};
  irtk::store::ApproxSearchOptions Opts;
  Opts.K = 3;
  Opts.Threads = 1;
  (void)Index->search(Q, B, Opts);
  return 0;
}
