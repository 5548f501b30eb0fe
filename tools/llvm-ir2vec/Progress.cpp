//===- Progress.cpp - Status line for runs over many inputs ---------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Progress.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace irtk::cli {

ProgressLine::ProgressLine(raw_ostream &OS, ProgressModeKind Mode,
                           unsigned Total, bool CountTriplets)
    : Line(OS, "llvm-ir2vec", Mode, /*AutoWanted=*/Total > 1), Total(Total),
      CountTriplets(CountTriplets) {}

std::string ProgressLine::text(unsigned Done, unsigned Failed,
                               size_t Triplets) const {
  std::string S;
  raw_string_ostream OS(S);
  OS << Done << '/' << Total << " inputs, " << Failed << " failed";
  if (CountTriplets)
    OS << ", " << Triplets << " triplets";
  OS << ", " << format("%.1f", Line.elapsed()) << " s";
  return S;
}

void ProgressLine::update(unsigned Done, unsigned Failed, size_t Triplets) {
  if (Line.due())
    Line.update(text(Done, Failed, Triplets));
}

void ProgressLine::clear() { Line.clear(); }

void ProgressLine::finish(unsigned Done, unsigned Failed, size_t Triplets) {
  if (Line.enabled())
    Line.finish(text(Done, Failed, Triplets));
}

} // namespace irtk::cli
