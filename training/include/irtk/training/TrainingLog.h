//===- TrainingLog.h - Reading LLVM's training logs -------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reads the logs the advisors write with llvm::Logger (the format of
/// llvm/Analysis/Utils/TrainingLogger.h, which upstream's log_reader.py
/// reads too): a JSON header line naming the features and the score, then,
/// per context, a {"context": ...} line, and per decision an
/// {"observation": N} line, the raw feature tensors in header order, a
/// newline, an {"outcome": N} line, the raw score and a newline.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_TRAINING_TRAININGLOG_H
#define IRTK_TRAINING_TRAININGLOG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Analysis/TensorSpec.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace irtk::training {

/// A TensorSpec from its JSON form ({"name", "port", "type", "shape"});
/// errors name \p Where.
llvm::Expected<llvm::TensorSpec> parseTensorSpec(const llvm::json::Value &V,
                                                 const llvm::Twine &Where);

class TrainingLog {
public:
  struct Observation {
    /// Index into contexts().
    size_t Context;
    /// Byte offset of the first feature tensor in the log's data.
    size_t Offset;
    std::optional<double> Score;
  };

  /// Reads a whole log; errors name \p Name and the byte offset.
  static llvm::Expected<TrainingLog> parse(llvm::StringRef Data,
                                           llvm::StringRef Name);
  static llvm::Expected<TrainingLog> load(llvm::StringRef Path);

  const std::vector<llvm::TensorSpec> &features() const { return Features; }
  const std::optional<llvm::TensorSpec> &score() const { return Score; }
  const std::vector<std::string> &contexts() const { return Contexts; }
  const std::vector<Observation> &observations() const { return Observations; }

  /// The index of the feature named \p Name.
  std::optional<size_t> featureIndex(llvm::StringRef Name) const;
  /// Element \p Element of feature \p Feature in observation \p O.
  double value(const Observation &O, size_t Feature, size_t Element = 0) const;

private:
  std::string Data;
  std::vector<llvm::TensorSpec> Features;
  std::vector<size_t> FeatureOffsets;
  size_t ObservationSize = 0;
  std::optional<llvm::TensorSpec> Score;
  std::vector<std::string> Contexts;
  std::vector<Observation> Observations;
};

} // namespace irtk::training

#endif // IRTK_TRAINING_TRAININGLOG_H
