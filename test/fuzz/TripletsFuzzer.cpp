//===- TripletsFuzzer.cpp - Fuzz triplet files ----------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// libFuzzer target: the input as a triplet file over the LLVM IR layout
/// (vocab::readTriplets: ours, upstream's MAX_RELATION header, OpenKE's
/// train2id.txt), read from a file.
///
//===----------------------------------------------------------------------===//

#include "ScratchFile.h"

#include "irtk/ir2vec/Entities.h"
#include "irtk/vocab/Triplets.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static irtk::fuzz::ScratchFile File("triplets.txt");
  File.write(Data, Size);
  llvm::Expected<irtk::vocab::TripletSet> Set =
      irtk::vocab::readTriplets(File.path(), *irtk::ir2vec::irLayout());
  if (!Set)
    llvm::consumeError(Set.takeError());
  return 0;
}
