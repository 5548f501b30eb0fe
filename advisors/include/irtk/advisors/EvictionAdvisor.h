//===- EvictionAdvisor.h - irtk's register-eviction advisor ----*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The greedy register allocator asks its eviction advisor, for a live
/// interval that found no free register, which register to free by
/// evicting the intervals assigned to it, if any. This advisor answers by a
/// policy (Policy.h): LLVM's own heuristic (default), an embedded MLP
/// (model) or an external process (interactive), over LLVM's MLGO eviction
/// features plus MIR2Vec embeddings of the candidates (docs/AdvisorFeatures.md
/// lists them all). Every decision can be logged, with the function's
/// RegAllocScore (llvm::calculateRegAllocScore) as the reward at its end.
///
/// The advisor is installed into llc's and clang's code generation
/// pipelines as the allocator's RegAllocEvictionAdvisorAnalysisLegacy; it
/// asks LLVM's own default advisor for the stock answer. A model or a host
/// only chooses among the candidates the stock heuristic would accept on
/// their own, so that no choice breaks the allocator's invariants (which
/// depend on state the allocator keeps private); any other answer is not
/// carried out and the stock answer is used instead.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_ADVISORS_EVICTIONADVISOR_H
#define IRTK_ADVISORS_EVICTIONADVISOR_H

#include "irtk/advisors/Policy.h"
#include "irtk/mir2vec/Layout.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class TargetMachine;
class TargetPassConfig;
namespace legacy {
class PassManagerBase;
} // namespace legacy
} // namespace llvm

namespace irtk::advisors {

/// Positions of the per-candidate features: up to 32 candidate registers
/// in allocation order, then the interval being allocated (as LLVM's
/// MLGO eviction features have them).
constexpr size_t EvictionCandidates = 32;
constexpr size_t EvictionPositions = EvictionCandidates + 1;

struct EvictionAdvisorOptions {
  PolicyOptions Policy;
  /// Add the MIR2Vec features (which need the target's vocabulary).
  bool Embeddings = true;
  /// The MIR2Vec vocabulary; when empty, the target's bundled one beside
  /// the binary at BinaryPath.
  std::string VocabularyPath;
  std::string BinaryPath;
  mir2vec::Weights VocabularyWeights;
  /// With the default policy, depart from the stock answer at one decision
  /// of every function, for a search of better decisions: at its
  /// DeviateAt-th decision (from 0), choose no eviction (DeviateTo -1) or
  /// the DeviateTo-th (from 0) evictable candidate other than the stock
  /// choice, where there is one.
  std::optional<unsigned> DeviateAt;
  int DeviateTo = -1;
};

/// The eviction advisor's features, in buffer order, for embeddings of
/// \p EmbeddingDim dimensions (0: none).
std::vector<llvm::TensorSpec> evictionFeatures(unsigned EmbeddingDim);

/// Installs the advisor into the code generation pipeline \p PM of \p TM.
/// Call it from a RegisterTargetPassConfigCallback, before the register
/// allocator is added. Errors (a bad model file, a missing vocabulary, an
/// unwritable log) are reported through the LLVMContext as one "irtk: ..."
/// line and the allocator then evicts as stock.
void insertEvictionAdvisor(llvm::TargetMachine &TM,
                           llvm::legacy::PassManagerBase &PM,
                           llvm::TargetPassConfig &Config,
                           const EvictionAdvisorOptions &O);

} // namespace irtk::advisors

#endif // IRTK_ADVISORS_EVICTIONADVISOR_H
