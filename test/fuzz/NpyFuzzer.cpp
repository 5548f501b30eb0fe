//===- NpyFuzzer.cpp - Fuzz .npy reading ----------------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// libFuzzer target: the input as a store's .npy matrix, opened as a file
/// (store::NpyMatrix::open, which parses the header and maps the data); on
/// success every value is read, so that a shape larger than the data shows
/// up under AddressSanitizer.
///
//===----------------------------------------------------------------------===//

#include "ScratchFile.h"

#include "irtk/store/Npy.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static irtk::fuzz::ScratchFile File("matrix.npy");
  File.write(Data, Size);
  llvm::Expected<irtk::store::NpyMatrix> M =
      irtk::store::NpyMatrix::open(File.path());
  if (!M) {
    llvm::consumeError(M.takeError());
    return 0;
  }
  float Sum = 0;
  for (uint64_t R = 0; R < M->rows(); ++R)
    for (float X : M->row(R))
      Sum += X;
  volatile float Sink = Sum;
  (void)Sink;
  return 0;
}
