//===- Trainer.h - Training the embedded MLP from training logs -*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Supervised training of the `model` policy's MLP (MLP.h) on the decisions
/// in training logs (TrainingLog.h): behaviour cloning of whichever policy
/// wrote each log. Which logs to learn from (the best baseline per module,
/// say) is the caller's choice; examples can be weighted. A logit output
/// (a yes/no decision such as inlining) trains with binary cross-entropy, an
/// argmax output (a choice among candidates, masked) with softmax
/// cross-entropy; both with Adam, in mini-batches, deterministically for a
/// seed.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_TRAINING_TRAINER_H
#define IRTK_TRAINING_TRAINER_H

#include "irtk/advisors/MLP.h"
#include "irtk/training/TrainingLog.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <string>
#include <vector>

namespace irtk::training {

using advisors::ActivationKind;
using advisors::MLPDescription;
using advisors::OutputKind;

/// Examples drawn from logs: one row per observation.
struct Dataset {
  struct Input {
    std::string Name;
    size_t Size;
  };
  std::vector<Input> Inputs;
  /// Row-major, rows() x width().
  std::vector<double> X;
  std::vector<int64_t> Label;
  std::vector<double> Weight;
  /// ArgMax: rows() x choices, 1 where a choice is legal (all 1 without a
  /// mask feature).
  std::vector<uint8_t> Legal;
  /// The default policy's decision per row, when the logs have the
  /// DatasetOptions::Default feature (for models with a default margin).
  std::vector<int64_t> Default;
  OutputKind Output = OutputKind::Logit;
  unsigned Choices = 1;
  std::string Mask;

  size_t width() const;
  size_t rows() const { return Label.size(); }
};

struct DatasetOptions {
  /// The decision feature (the label).
  std::string Decision;
  /// Inputs: every logged feature but the decision, the teachers'
  /// decisions (teacher_*) and the excluded ones, or exactly these when not
  /// empty.
  std::vector<std::string> Include, Exclude;
  OutputKind Output = OutputKind::Logit;
  /// ArgMax: the mask feature (its size is the number of choices).
  std::string Mask;
  /// The default policy's decision feature, read when a log has it.
  std::string Default;
};

/// Appends \p Log's observations, each with weight \p Weight, labelled
/// with the feature \p Label (the decision when empty: imitation of the
/// policy that wrote the log; a teacher's, to imitate that teacher in the
/// states the log visited). Every log must have the features the first one
/// added chose; errors name \p Name.
llvm::Error addToDataset(Dataset &D, const TrainingLog &Log,
                         llvm::StringRef Name, const DatasetOptions &Opts,
                         double Weight = 1.0, llvm::StringRef Label = "");

struct TrainerOptions {
  std::vector<unsigned> Hidden = {64, 32};
  ActivationKind Activation = ActivationKind::ReLU;
  unsigned Epochs = 20;
  unsigned BatchSize = 128;
  double LearningRate = 1e-3;
  double L2 = 1e-5;
  uint64_t Seed = 1;
  /// Logit: weigh the classes so that each carries half of the weight.
  bool BalanceClasses = false;
  /// Multiplies the weight of the rows whose label is not the default
  /// decision (Dataset::Default), e.g. a search's rare departures from it;
  /// 1 leaves the weights alone. Needs Default in every row.
  double DepartureWeight = 1.0;
  /// ArgMax: score every choice with the same network (MLPDescription::
  /// Positions), from the elements of the inputs that have one group per
  /// choice and the whole of the others.
  bool Positional = false;
};

struct EpochReport {
  unsigned Epoch;
  double Loss;
  double Accuracy;
};

/// Trains an MLP for \p Advisor deciding \p Decision on \p D (normalising
/// each input element by the data's mean and standard deviation).
MLPDescription train(const Dataset &D, llvm::StringRef Advisor,
                     llvm::StringRef Decision, const TrainerOptions &Opts,
                     llvm::function_ref<void(const EpochReport &)> Report = {});

/// The boxes of the rows of \p D that depart from the default decision
/// (MLPDescription::Support): per default decision that some row departs
/// from, the range of each one-element input over those rows. None when a
/// row lacks the default decision.
std::vector<MLPDescription::SupportBox> departureSupport(const Dataset &D);

/// How a model's decisions compare with a dataset's labels.
struct Agreement {
  /// The weighted share of rows on which the model decides the label.
  double Share = 0;
  /// Rows (unweighted) whose label departs from the default decision, on
  /// which the model departs from it, and on which it departs to the label;
  /// all 0 unless every row has the default decision.
  size_t LabelDepartures = 0, ModelDepartures = 0, SharedDepartures = 0;
};

/// \p M's decisions on \p D's rows against their labels. Errors when \p M
/// does not read \p D's inputs, or needs the default decision (a default
/// margin) that some row lacks.
llvm::Expected<Agreement> agreement(const MLPDescription &M, const Dataset &D);

/// The weighted share of \p D's rows on which \p M decides the label
/// (agreement(M, D).Share).
llvm::Expected<double> accuracy(const MLPDescription &M, const Dataset &D);

} // namespace irtk::training

#endif // IRTK_TRAINING_TRAINER_H
