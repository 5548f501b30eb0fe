//===- Progress.h - Status line for runs over many inputs -------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A status line on standard error while llvm-ir2vec works through many
/// inputs:
///   llvm-ir2vec: 120/410 inputs, 2 failed, 1534120 triplets, 4.2 s
/// drawn by the tools' shared tools::StatusLine.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_TOOLS_LLVM_IR2VEC_PROGRESS_H
#define IRTK_TOOLS_LLVM_IR2VEC_PROGRESS_H

#include "StatusLine.h"

#include <cstddef>
#include <string>

namespace irtk::cli {

using tools::ProgressModeKind;

class ProgressLine {
public:
  /// \p Auto shows the line only when \p OS is a terminal and there is more
  /// than one input. \p CountTriplets adds the triplet count.
  ProgressLine(llvm::raw_ostream &OS, ProgressModeKind Mode, unsigned Total,
               bool CountTriplets);

  /// Called by one thread at a time, after each input.
  void update(unsigned Done, unsigned Failed, size_t Triplets);
  /// Erases the line (terminal) so that another message can be printed.
  void clear();
  /// Prints the final state (and a newline on a terminal).
  void finish(unsigned Done, unsigned Failed, size_t Triplets);

private:
  std::string text(unsigned Done, unsigned Failed, size_t Triplets) const;

  tools::StatusLine Line;
  unsigned Total;
  bool CountTriplets;
};

} // namespace irtk::cli

#endif // IRTK_TOOLS_LLVM_IR2VEC_PROGRESS_H
