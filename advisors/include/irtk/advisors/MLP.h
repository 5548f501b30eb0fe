//===- MLP.h - The embedded model: a small MLP read from JSON ---*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The `model` policy of every advisor: a multi-layer perceptron whose
/// weights and input normalisation come from a JSON file (the format is in
/// docs/AdvisorModels.md), evaluated with Eigen. MLPDescription is the file's
/// content as plain data (the trainer builds one and writes it); MLPModel is
/// a description bound to an advisor's input buffers.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_ADVISORS_MLP_H
#define IRTK_ADVISORS_MLP_H

#include "irtk/advisors/Features.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace irtk::advisors {

enum class ActivationKind { Linear, ReLU, Tanh };

std::optional<ActivationKind> parseActivationKind(llvm::StringRef Name);
llvm::StringRef activationKindName(ActivationKind K);

struct MLPDescription {
  struct Input {
    std::string Name;
    /// x' = (x - Mean[i]) / Scale[i], element by element.
    std::vector<double> Mean, Scale;
  };
  struct Layer {
    /// Rows: outputs; columns: inputs.
    std::vector<std::vector<double>> Weights;
    std::vector<double> Bias;
    ActivationKind Activation = ActivationKind::Linear;
  };

  static constexpr unsigned Version = 1;
  /// "inline" or "evict": which advisor's features the inputs name.
  std::string Advisor;
  /// The decision feature's name (inlining_decision, index_to_evict).
  std::string Decision;
  std::vector<Input> Inputs;
  std::vector<Layer> Layers;
  OutputKind Output = OutputKind::Logit;
  /// ArgMax only: the input whose nonzero elements are the legal choices.
  std::string Mask;
  /// ArgMax only; 0: the last layer has one output per choice. P > 0: the
  /// network scores each of P choices ("positions") with the same weights,
  /// from that position's elements of the inputs, and its last layer has
  /// one output. An input of the advisor's with P * K elements gives K
  /// elements to each position (its mean and scale have K); any other input
  /// goes whole to every position (its mean and scale have all elements).
  unsigned Positions = 0;
  /// ArgMax only: keep the advisor's default choice (when legal) unless
  /// another scores more than this above it; none: always the best score.
  std::optional<double> DefaultMargin;
  /// With a default margin, where the model may depart from the default
  /// decision: per default decision, a box of ranges of some one-element
  /// inputs (raw values, before normalisation). In a state outside the box
  /// of its default decision, or whose default decision has none, the
  /// model keeps the default. irtk-train fit --support makes the boxes of
  /// the training data's departures: the model departs only among states
  /// like those it learned departures from. None: departs anywhere.
  struct Bound {
    /// Index in Inputs (an input of one element).
    size_t Input;
    double Low, High;
  };
  struct SupportBox {
    int64_t Default;
    std::vector<Bound> Bounds;
  };
  std::optional<std::vector<SupportBox>> Support;
  /// Whether the model may depart from \p Default in a state whose inputs
  /// are \p Value(Input) (raw): always without a Support.
  bool mayDepart(int64_t Default,
                 llvm::function_ref<double(size_t Input)> Value) const;
  /// Free-form, written back unchanged: how the model was made.
  std::string TrainingJSON;

  /// The number of inputs the first layer takes.
  size_t inputSize() const;

  /// Every weight and bias as one vector (layer by layer: the weights
  /// column-major, then the bias), for trainers that perturb them
  /// (Evolution.h); setParameters takes such a vector back (of the same
  /// size).
  std::vector<double> parameters() const;
  void setParameters(llvm::ArrayRef<double> P);

  /// Checks the numbers as parse does: every one finite, no scale 0, and
  /// no feature values up to LargestFeatureValue in magnitude can make the
  /// network's arithmetic (in double) overflow. Errors name \p Name and the
  /// place (inputs[0].scale[2], layers[1].weights[3][0]).
  llvm::Error checkNumbers(llvm::StringRef Name) const;

  /// Reads and checks a model file's text; errors name \p Name and the
  /// place (layers[1].weights[3]) of the problem.
  static llvm::Expected<MLPDescription> parse(llvm::StringRef Text,
                                              llvm::StringRef Name);
  /// Reads model file \p Path as compilers do: from its binary form,
  /// binaryPath(Path), when that file exists, else as parse does. The
  /// binary form must have been made from \p Path as it is now, or the load
  /// fails with an error naming it and the command that remakes it: a stale
  /// or foreign binary form is never used. The description is the same
  /// either way.
  static llvm::Expected<MLPDescription> load(llvm::StringRef Path);
  void write(llvm::raw_ostream &OS) const;

  /// The binary form of model file \p Path: Path + ".bin" (`irtk-train
  /// pack`).
  static std::string binaryPath(llvm::StringRef Path);
  /// Writes the binary form of this description, read from the model file
  /// whose bytes are \p Source: the size and hash of \p Source, then the
  /// description's content.
  void writeBinary(llvm::StringRef Source, llvm::raw_ostream &OS) const;
  /// Reads \p Binary (named \p Name in errors), the binary form of the
  /// model file whose bytes are \p Source (named \p SourceName), and checks
  /// its content as parse does.
  static llvm::Expected<MLPDescription>
  loadFromBinary(llvm::StringRef Binary, llvm::StringRef Name,
                 llvm::StringRef Source, llvm::StringRef SourceName);

private:
  /// parse, with the number arrays \p Arrays read ahead (or none).
  static llvm::Expected<MLPDescription>
  parseWith(llvm::StringRef Text, llvm::StringRef Name,
            const std::vector<std::vector<double>> *Arrays);
};

/// One network whose outputs are the mean of \p Models' outputs: an
/// ensemble (models fitted with different seeds, say) as one MLP of the
/// same format. The first layers stand side by side, the hidden layers are
/// block-diagonal, and the last layer reads every model's last hidden layer
/// with its weights divided by their number. The models must read the same
/// inputs with the same normalisation, decide alike (advisor, decision,
/// output, mask, positions, default margin, support) and have as many
/// layers of the same activations, the last one linear (a mean of tanh
/// outputs is no tanh of a mean); errors say what differs.
llvm::Expected<MLPDescription>
averageModels(llvm::ArrayRef<MLPDescription> Models);

/// A description bound to an advisor's inputs, ready to evaluate.
class MLPModel {
public:
  /// Checks that the description is for \p Spec's advisor, that every input
  /// it names is one of Spec.Inputs with as many elements, and that the
  /// last layer fits the output kind and the decision.
  static llvm::Expected<std::unique_ptr<MLPModel>>
  bind(MLPDescription D, const PolicySpec &Spec, llvm::StringRef Name);
  ~MLPModel();

  /// The decision for the inputs in \p Buffers (one per Spec.Inputs).
  int64_t evaluate(llvm::ArrayRef<const void *> Buffers) const;
  /// The last layer's outputs, for tests and the trainer.
  std::vector<double> outputs(llvm::ArrayRef<const void *> Buffers) const;

  const MLPDescription &description() const;
  /// Whether the model reads the advisor's input \p Index.
  bool readsInput(size_t Index) const;

private:
  struct Impl;
  explicit MLPModel(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> I;
};

} // namespace irtk::advisors

#endif // IRTK_ADVISORS_MLP_H
