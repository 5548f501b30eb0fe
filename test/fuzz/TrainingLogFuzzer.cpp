//===- TrainingLogFuzzer.cpp - Fuzz advisor training logs -----------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// libFuzzer target: the input as an LLVM training log
/// (advisors::TrainingLog::parse), every value of every observation read.
///
//===----------------------------------------------------------------------===//

#include "irtk/training/TrainingLog.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

using namespace irtk::training;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<TrainingLog> L = TrainingLog::parse(Text, "log");
  if (!L) {
    llvm::consumeError(L.takeError());
    return 0;
  }
  double Sum = 0;
  for (const TrainingLog::Observation &O : L->observations())
    for (size_t F = 0; F < L->features().size(); ++F)
      for (size_t E = 0; E < L->features()[F].getElementCount(); ++E)
        Sum += L->value(O, F, E);
  volatile double Sink = Sum;
  (void)Sink;
  return 0;
}
