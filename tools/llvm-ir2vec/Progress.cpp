//===- Progress.cpp - Status line for runs over many inputs ---------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Progress.h"

#include "llvm/Support/Format.h"

using namespace llvm;

namespace irtk::cli {

ProgressLine::ProgressLine(raw_ostream &OS, ProgressModeKind Mode,
                           unsigned Total, bool CountTriplets)
    : OS(OS), InPlace(OS.is_displayed()), Total(Total),
      CountTriplets(CountTriplets), Start(std::chrono::steady_clock::now()) {
  switch (Mode) {
  case ProgressModeKind::Never:
    Enabled = false;
    break;
  case ProgressModeKind::Always:
    Enabled = true;
    break;
  case ProgressModeKind::Auto:
    Enabled = InPlace && Total > 1;
    break;
  }
}

void ProgressLine::draw(unsigned Done, unsigned Failed, size_t Triplets) {
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  if (InPlace)
    OS << "\r\x1b[K";
  OS << "llvm-ir2vec: " << Done << '/' << Total << " inputs, " << Failed
     << " failed";
  if (CountTriplets)
    OS << ", " << Triplets << " triplets";
  OS << ", " << format("%.1f", Seconds) << " s";
  if (!InPlace)
    OS << '\n';
  OS.flush();
  Drawn = InPlace;
}

void ProgressLine::update(unsigned Done, unsigned Failed, size_t Triplets) {
  if (!Enabled)
    return;
  auto Now = std::chrono::steady_clock::now();
  auto Interval = InPlace ? std::chrono::milliseconds(100)
                          : std::chrono::milliseconds(1000);
  if (LastDraw && Now - *LastDraw < Interval)
    return;
  LastDraw = Now;
  draw(Done, Failed, Triplets);
}

void ProgressLine::clear() {
  if (!Drawn)
    return;
  OS << "\r\x1b[K";
  OS.flush();
  Drawn = false;
}

void ProgressLine::finish(unsigned Done, unsigned Failed, size_t Triplets) {
  if (!Enabled)
    return;
  draw(Done, Failed, Triplets);
  if (InPlace)
    OS << '\n';
  Drawn = false;
}

} // namespace irtk::cli
