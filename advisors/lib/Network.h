//===- Layers.h - An MLP's layers as Eigen matrices -------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the model policy (MLP.cpp) and the trainer (Trainer.cpp) share: a
/// description's layers as matrices, and the activations.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_ADVISORS_LIB_LAYERS_H
#define IRTK_ADVISORS_LIB_LAYERS_H

#include "irtk/advisors/MLP.h"

#include <Eigen/Dense>

#include <cmath>
#include <cstdint>
#include <vector>

namespace irtk::advisors {

struct Layers {
  /// Rows: outputs; columns: inputs.
  std::vector<Eigen::MatrixXd> W;
  std::vector<Eigen::VectorXd> B;
};

inline Layers layersOf(const MLPDescription &D) {
  Layers Out;
  for (const MLPDescription::Layer &L : D.Layers) {
    Eigen::MatrixXd W(L.Weights.size(), L.Weights.front().size());
    for (size_t R = 0; R < L.Weights.size(); ++R)
      for (size_t C = 0; C < L.Weights[R].size(); ++C)
        W(R, C) = L.Weights[R][C];
    Out.W.push_back(std::move(W));
    Out.B.push_back(
        Eigen::Map<const Eigen::VectorXd>(L.Bias.data(), L.Bias.size()));
  }
  return Out;
}

/// Applies \p K to every element of \p Y.
template <typename MatrixT> void activate(ActivationKind K, MatrixT &Y) {
  switch (K) {
  case ActivationKind::Linear:
    break;
  case ActivationKind::ReLU:
    Y = Y.cwiseMax(0.0);
    break;
  case ActivationKind::Tanh:
    Y = Y.array().tanh();
    break;
  }
}

/// What a default margin (MLPDescription::DefaultMargin) makes of the best
/// decision \p Decision, given the default one \p Default and whether it is
/// legal: the default, unless the model prefers \p Decision by more than
/// \p Margin. \p Score gives a choice's score (ArgMax) or, at 0, the logit,
/// the score of 1 over that of 0 (Logit). The model policy and the trainer's
/// agreement decide through this one rule.
template <typename ScoreT>
int64_t keepDefault(OutputKind Output, double Margin, ScoreT &&Score,
                    int64_t Decision, int64_t Default, bool DefaultLegal) {
  if (Output == OutputKind::Logit)
    return Default != Decision && std::abs(Score(0)) <= Margin ? Default
                                                               : Decision;
  return DefaultLegal && Score(Decision) <= Score(Default) + Margin ? Default
                                                                    : Decision;
}

} // namespace irtk::advisors

#endif // IRTK_ADVISORS_LIB_LAYERS_H
