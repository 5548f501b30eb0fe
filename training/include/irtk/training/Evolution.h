//===- Evolution.h - Blackbox evolution strategies over a model -*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Training from the objective itself, as MLGO's blackbox evolution
/// strategies do: a step draws antithetic Gaussian perturbations of the
/// parameters, the caller measures the reward of each perturbed point (by
/// compiling with it: the compiles are the caller's, e.g. tasks on a Dask
/// cluster), and the rewards, z-scored, estimate the gradient that Adam
/// climbs. The points of a step depend only on the seed, the step and the
/// parameters, so a run killed between steps continues from its last
/// checkpoint (save/load) to the same result as a run never stopped.
///
/// A checkpoint carries the fingerprint of the model it was started from
/// (modelFingerprint): everything of the model but its weights and biases,
/// which the checkpoint holds itself. A model whose fingerprint differs
/// reads other inputs or normalises them otherwise: candidates made from it
/// would mean nothing, so checkModel refuses it.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_TRAINING_EVOLUTION_H
#define IRTK_TRAINING_EVOLUTION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace irtk::advisors {
struct MLPDescription;
} // namespace irtk::advisors

namespace irtk::training {

using advisors::MLPDescription;

/// What a checkpoint does not carry of \p M: a hash (xxh3, "xxh3:" and 16
/// hex digits) of the model as written with every weight and bias 0 and
/// no training note (advisor, inputs, their normalisation, layer shapes and
/// activations, output, margin, support).
std::string modelFingerprint(const MLPDescription &M);

struct EvolutionOptions {
  /// Perturbed points per step (even: each direction is tried both ways).
  unsigned Perturbations = 100;
  /// The perturbations' standard deviation. The default is the one
  /// docs/InlineTraining.md found workable from a trained model (a warm
  /// start); MLGO's 0.5 is for a cold start over many perturbations.
  double Sigma = 0.025;
  /// Adam's step size on the estimated gradient (MLGO's cold start: 0.5).
  double StepSize = 0.01;
  /// Scale each parameter's noise by its magnitude at the start (for a run
  /// warm-started from a trained model, whose weights differ in scale);
  /// parameters that start at 0 get noise Sigma.
  bool RelativeNoise = false;
  uint64_t Seed = 1;
};

class EvolutionStrategies {
public:
  /// A run from \p Start. \p Perturbed, when not empty, holds one flag per
  /// parameter: the others get no noise, and so never move (a run that
  /// searches the last layer of a trained network only, say). Errors: an
  /// odd or zero number of perturbations, a sigma or step size that is not
  /// a positive number, flags of another count or none set. \p Fingerprint
  /// is the model's (modelFingerprint), kept in the checkpoint.
  static llvm::Expected<EvolutionStrategies>
  start(std::vector<double> Start, EvolutionOptions Opts,
        llvm::ArrayRef<bool> Perturbed = {}, llvm::StringRef Fingerprint = "");
  /// A run continued from a checkpoint written by save; errors name
  /// \p Name and the problem. The checkpoint is checked whole: every number
  /// finite, the options as start takes them, the noise scales from 0 (one
  /// at least above it), Adam's second moments from 0, the step below
  /// 2^32 - 1 and Adam's steps up to it, and every vector as long as the
  /// parameters.
  static llvm::Expected<EvolutionStrategies> load(llvm::StringRef Text,
                                                  llvm::StringRef Name);
  EvolutionStrategies(EvolutionStrategies &&);
  EvolutionStrategies &operator=(EvolutionStrategies &&);
  ~EvolutionStrategies();

  /// The steps finished so far.
  unsigned step() const;
  const EvolutionOptions &options() const;
  /// The current parameters.
  std::vector<double> parameters() const;
  /// The fingerprint of the model the run started from; empty in a
  /// checkpoint written before fingerprints were kept.
  llvm::StringRef fingerprint() const;

  /// Fails when \p M (named \p ModelName) is not the model the run (saved
  /// as \p CheckpointName) started from: other parameter counts, or another
  /// fingerprint. A run without a fingerprint checks the count only.
  llvm::Error checkModel(const MLPDescription &M, llvm::StringRef ModelName,
                         llvm::StringRef CheckpointName) const;
  /// Fails when a model that the run makes from \p M (whose parameters it
  /// replaces) could not be loaded (MLPDescription::checkNumbers): the
  /// current parameters, each of candidates() and, while Adam has not
  /// moved yet, any parameters the next update can reach (the first moves
  /// each perturbed parameter by less than the step size). Errors start
  /// with \p Name and say which and what to lower.
  llvm::Error checkModels(const MLPDescription &M, llvm::StringRef Name) const;
  /// The points whose rewards the next step needs, in the order update
  /// takes the rewards: pairs (theta + e, theta - e).
  std::vector<std::vector<double>> candidates() const;
  /// Finishes the step with the rewards of candidates() (higher is
  /// better). Errors: a count that differs, or a reward that is not a
  /// finite number.
  llvm::Error update(llvm::ArrayRef<double> Rewards);

  /// The whole state (options, step, parameters, optimiser state) as JSON,
  /// numbers round-tripped exactly.
  void save(llvm::raw_ostream &OS) const;

private:
  struct Impl;
  explicit EvolutionStrategies(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> I;
};

} // namespace irtk::training

#endif // IRTK_TRAINING_EVOLUTION_H
