//===- LogWriter.h - A training log in LLVM's format ------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Writes a training log byte for byte as llvm::Logger
/// (llvm/Analysis/Utils/LogWriterger.h) does: a JSON header of the
/// features' and the reward's tensor specs, then per context a
/// {"context":...} line, per decision an {"observation":N} line, the
/// features' raw bytes and a newline, and {"outcome":N} lines with the
/// reward's bytes. llvm::Logger builds its header through json::Value, which
/// costs an llc process about 0.2 M instructions for the eviction advisor's
/// 27 tensor specs, whether or not a decision follows; this writes the same
/// bytes directly.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_ADVISORS_LIB_LOGWRITER_H
#define IRTK_ADVISORS_LIB_LOGWRITER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Analysis/TensorSpec.h"

#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace irtk::advisors {

class LogWriter {
public:
  /// Writes the header to \p OS, which must outlive the log.
  LogWriter(llvm::raw_ostream &OS, std::vector<llvm::TensorSpec> Features,
            llvm::TensorSpec Reward);

  void switchContext(llvm::StringRef Name);
  void startObservation();
  void logTensorValue(size_t Feature, const char *Data);
  void endObservation();
  void logReward(float Value);

  /// The header line llvm::Logger writes for these specs (with the reward,
  /// without advice), newline included.
  static std::string header(llvm::ArrayRef<llvm::TensorSpec> Features,
                            const llvm::TensorSpec &Reward);

private:
  llvm::raw_ostream &OS;
  std::vector<llvm::TensorSpec> Features;
  llvm::TensorSpec Reward;
  llvm::StringMap<size_t> ObservationIDs;
  std::string CurrentContext;
};

} // namespace irtk::advisors

#endif // IRTK_ADVISORS_LIB_LOGWRITER_H
