//===- PipelineModel.h - The size pipeline's nearest-neighbour vote -*- C++
//-*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The pipeline advisor's model policy: the document `python3 -m
/// ir2vec.mlgo nearest --save` or `learn --save` writes (docs/Pipeline.md,
/// "A first policy" and "Learning"), and the rule it describes, computed
/// inside the compiler. A module's state is its flow-aware module vector
/// (the sum of its defined functions' vectors) and/or 16 IR counts. Each
/// candidate gets a relative gain over the best fixed setting, and the
/// module takes the best candidate if that gain exceeds the margin:
/// - rule "knn": the mean gain of the k nearest training modules (cosine
///   similarity of the standardised states);
/// - rule "values": a network's prediction (normalised state, dense layers
///   with ReLU or nothing between).
/// The numbers are those ir2vec.mlgo.nearest computes, in its order of
/// operations, so the choices are `choose`'s.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_ADVISORS_PIPELINEMODEL_H
#define IRTK_ADVISORS_PIPELINEMODEL_H

#include "irtk/advisors/PipelineAdvisor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llvm {
class Module;
namespace json {
class Object;
} // namespace json
} // namespace llvm

namespace irtk::vocab {
class Vocabulary;
} // namespace irtk::vocab

namespace irtk::advisors {

/// Where irtk's shipped model is for a binary (a plugin in <prefix>/lib):
/// <prefix>/share/irtk/models/pipeline-oz.json (docs/Pipeline.md).
std::string shippedPipelineModelPath(llvm::StringRef BinaryPath);

inline constexpr llvm::StringLiteral PipelineModelFormat =
    "irtk-pipeline-nearest";
/// Version 1: the k-nearest vote; version 2 names its rule.
inline constexpr unsigned PipelineModelVersion = 2;

class PipelineModel {
public:
  /// The counts of a state (functions, blocks, instructions, 13 opcodes).
  static constexpr size_t NumCounts = 16;

  /// Reads a policy document; an error names the file and the problem.
  static llvm::Expected<PipelineModel> read(llvm::StringRef Path);

  /// "embedding", "counts" or "both".
  llvm::StringRef state() const { return State; }
  bool needsVocabulary() const { return State != "counts"; }

  /// The module's state: its module vector (with \p V) and/or its counts.
  std::vector<double> stateOf(const llvm::Module &M,
                              const vocab::Vocabulary *V) const;

  /// How many numbers a state has.
  size_t width() const { return Width; }

  /// Whether a vocabulary of dimension \p Dim makes states of width().
  bool fitsVocabulary(unsigned Dim) const {
    return Dim + (State == "both" ? NumCounts : 0) == Width;
  }

  /// The index of the candidate the rule gives a state (of width()).
  unsigned decide(llvm::ArrayRef<double> X) const;

  /// The candidates' gains the rule sees for a state (of width()).
  std::vector<double> gains(llvm::ArrayRef<double> X) const;

  const PipelineChoice &choice(unsigned I) const { return Choices[I]; }
  llvm::StringRef name(unsigned I) const { return Names[I]; }

private:
  /// Standardises the state \p X (of width()) into \p Out, of unit length.
  void unitRow(const double *X, double *Out) const;
  std::vector<double> nearestGains(llvm::ArrayRef<double> X) const;
  bool widthFits() const;
  llvm::Error readNetwork(llvm::StringRef Path, const llvm::json::Object *N);
  std::vector<double> networkGains(llvm::ArrayRef<double> X) const;

  /// A dense layer of the values rule: Weights row-major (Outputs rows).
  struct Layer {
    std::vector<double> Weights, Bias;
    size_t Outputs = 0, Inputs = 0;
    bool ReLU = false;
  };

  bool Values = false;
  std::vector<Layer> Layers;
  std::string State;
  unsigned K = 1;
  double Margin = 0;
  unsigned Base = 0;
  std::vector<std::string> Names;
  std::vector<PipelineChoice> Choices;
  /// Standardisation of the states: for knn, the training states' (numpy's
  /// mean and population deviation; a constant feature's deviation is 1);
  /// for values, the network's.
  std::vector<double> Mean, Scale;
  /// The training states, standardised and of unit length, row-major.
  std::vector<double> Train;
  /// Relative gain of each candidate over Base, per training module.
  std::vector<double> Gain;
  size_t Width = 0, Rows = 0;
};

} // namespace irtk::advisors

#endif // IRTK_ADVISORS_PIPELINEMODEL_H
