//===- Features.h - What advisors decide from, and the advisor registry ---===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The layer below the policies (Policy.h), the model (MLP.h), the logs
/// (TrainingLog.h) and the trainer (Trainer.h): the advisor registry (one
/// entry per advisor: its name, decision, default decision, output kind,
/// mask and embedding features), the spec of an advisor's feature buffers,
/// and reading a feature's elements. Adding an advisor adds one registry
/// entry here and its own feature table (InlineFeatures.def,
/// EvictionFeatures.def); nothing else in this layer changes.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_ADVISORS_FEATURES_H
#define IRTK_ADVISORS_FEATURES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Analysis/TensorSpec.h"

#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace irtk::advisors {

/// How a model's outputs become a decision.
enum class OutputKind {
  /// One output, a logit: decide 1 when it is positive, else 0.
  Logit,
  /// One output per choice: decide the index of the largest output among
  /// the choices the mask input allows (all, without a mask).
  ArgMax,
};

/// One row of an advisor's feature table (InlineFeatures.def,
/// EvictionFeatures.def), as the docs show it.
struct FeatureRow {
  llvm::StringLiteral Name;
  /// "int64_t" or "float".
  llvm::StringLiteral Type;
  /// "[1]", "[1,33]"; "dim" stands for the embedding dimension.
  llvm::StringLiteral Shape;
  /// Divided by its largest value in each decision.
  bool Normalised;
  llvm::StringLiteral Doc;
};

/// What the project knows of one advisor, for every part that is generic
/// over advisors (model files, logs, the trainer, irtk-train).
struct AdvisorInfo {
  /// The name model files and irtk-train use: "inline", "evict".
  llvm::StringLiteral Name;
  /// The decision feature: what a model learns and outputs, never one of
  /// its inputs.
  llvm::StringLiteral Decision;
  /// The default policy's decision feature (LLVM's heuristic's choice).
  llvm::StringLiteral Default;
  OutputKind Output;
  /// ArgMax: the feature whose nonzero elements are the legal choices (the
  /// only feature a model may name as its mask); "" when there is none.
  llvm::StringLiteral Mask;
  /// The features that hold embeddings (what --no-embeddings leaves out, and
  /// what an advisor computes only when something reads it).
  llvm::ArrayRef<llvm::StringLiteral> Embeddings;
  /// The advisor's own feature table (the inline advisor's follows LLVM's
  /// features, which LLVM's table lists).
  llvm::ArrayRef<FeatureRow> Features;

  bool isEmbedding(llvm::StringRef Feature) const;
};

/// Every advisor, in a fixed order.
llvm::ArrayRef<AdvisorInfo> advisors();
/// The entry of the advisor named \p Name, or null for another name.
const AdvisorInfo *findAdvisor(llvm::StringRef Name);

/// The largest magnitude any advisor's feature holds (float's largest
/// value; int64 features stay below it): the inputs a model must evaluate
/// without overflowing.
inline constexpr double LargestFeatureValue = std::numeric_limits<float>::max();

/// What an advisor's feature buffers are.
struct PolicySpec {
  /// The advisor's name, as the registry and model files spell it.
  std::string Advisor;
  /// Every input feature, in buffer order.
  std::vector<llvm::TensorSpec> Inputs;
  /// The decision: a scalar int64.
  llvm::TensorSpec Decision;
  /// Index in Inputs of the default policy's decision.
  size_t DefaultIndex;
  /// The reward logged with each decision: 0 unless the advisor reports
  /// one with logReward before the next decision (as upstream's log reader
  /// wants an outcome after every observation).
  llvm::TensorSpec Reward;
};

/// The index of the spec named \p Name in \p Specs.
std::optional<size_t> findFeature(llvm::ArrayRef<llvm::TensorSpec> Specs,
                                  llvm::StringRef Name);

/// What a model sees of an input value: NaN and infinities as 0. (LLVM's
/// use_def_density is infinite for an interval that cannot be spilled,
/// and NaN once scaled by such a largest value.)
inline double modelInput(double V) { return std::isfinite(V) ? V : 0.0; }

/// Element \p Element of a tensor of any of TensorSpec's types, as a double.
double readScalar(const llvm::TensorSpec &Spec, const void *Buffer,
                  size_t Element);

} // namespace irtk::advisors

#endif // IRTK_ADVISORS_FEATURES_H
