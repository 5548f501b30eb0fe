//===- Network.h - An MLP as matrices, and what trains it ------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the model policy (MLP.cpp) and the trainers (Trainer.cpp) share: a
/// description's layers as matrices with the one forward pass both run, the
/// default-margin rule both decide by, and the small interfaces a trainer is
/// made of: an Optimiser that updates parameter matrices from gradients
/// (Adam), and the parameters as one flat vector (for trainers that perturb
/// them, such as evolution strategies).
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_ADVISORS_NETWORK_H
#define IRTK_ADVISORS_NETWORK_H

#include "irtk/advisors/MLP.h"

#include <Eigen/Dense>

#include <cmath>
#include <cstdint>
#include <vector>

namespace irtk::advisors {

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

struct Network {
  /// Per layer: weights (rows: outputs; columns: inputs), bias, activation.
  std::vector<Eigen::MatrixXd> W;
  std::vector<Eigen::VectorXd> B;
  std::vector<ActivationKind> Activation;

  /// The layers of \p D.
  static Network of(const MLPDescription &D) {
    Network N;
    for (const MLPDescription::Layer &L : D.Layers) {
      Eigen::MatrixXd W(L.Weights.size(), L.Weights.front().size());
      for (size_t R = 0; R < L.Weights.size(); ++R)
        for (size_t C = 0; C < L.Weights[R].size(); ++C)
          W(R, C) = L.Weights[R][C];
      N.W.push_back(std::move(W));
      N.B.push_back(
          Eigen::Map<const Eigen::VectorXd>(L.Bias.data(), L.Bias.size()));
      N.Activation.push_back(L.Activation);
    }
    return N;
  }

  /// Writes the weights, biases and activations into \p D's layers.
  void store(MLPDescription &D) const {
    D.Layers.clear();
    for (size_t L = 0; L < W.size(); ++L) {
      MLPDescription::Layer Layer;
      Layer.Activation = Activation[L];
      for (Eigen::Index R = 0; R < W[L].rows(); ++R) {
        std::vector<double> Row(W[L].cols());
        for (Eigen::Index K = 0; K < W[L].cols(); ++K)
          Row[K] = W[L](R, K);
        Layer.Weights.push_back(std::move(Row));
      }
      Layer.Bias.assign(B[L].data(), B[L].data() + B[L].size());
      D.Layers.push_back(std::move(Layer));
    }
  }

  /// The forward pass: the last layer's outputs for the input \p X, one
  /// column per example (a VectorXd: one example). With \p Z and \p A, also
  /// every layer's pre-activations and activations (A[0] is X), which
  /// backpropagation needs.
  template <typename MatrixT>
  MatrixT forward(MatrixT X, std::vector<Eigen::MatrixXd> *Z = nullptr,
                  std::vector<Eigen::MatrixXd> *A = nullptr) const {
    if (Z) {
      Z->resize(W.size());
      A->resize(W.size() + 1);
      (*A)[0] = X;
    }
    for (size_t L = 0; L < W.size(); ++L) {
      // Constructed from the expression (as the model policy always did):
      // Eigen may order the sums differently when it assigns.
      MatrixT Y = [&]() -> MatrixT {
        if constexpr (MatrixT::ColsAtCompileTime == 1)
          return W[L] * X + B[L];
        else
          return (W[L] * X).colwise() + B[L];
      }();
      if (Z)
        (*Z)[L] = Y;
      activate(Activation[L], Y);
      if (A)
        (*A)[L + 1] = Y;
      X = std::move(Y);
    }
    return X;
  }

  /// Every weight and bias, layer by layer (weights column-major, then the
  /// bias): the parameters as one vector, and back.
  Eigen::VectorXd parameters() const {
    Eigen::Index N = 0;
    for (size_t L = 0; L < W.size(); ++L)
      N += W[L].size() + B[L].size();
    Eigen::VectorXd P(N);
    Eigen::Index K = 0;
    for (size_t L = 0; L < W.size(); ++L) {
      P.segment(K, W[L].size()) =
          Eigen::Map<const Eigen::VectorXd>(W[L].data(), W[L].size());
      K += W[L].size();
      P.segment(K, B[L].size()) = B[L];
      K += B[L].size();
    }
    return P;
  }
  void setParameters(const Eigen::VectorXd &P) {
    Eigen::Index K = 0;
    for (size_t L = 0; L < W.size(); ++L) {
      Eigen::Map<Eigen::VectorXd>(W[L].data(), W[L].size()) =
          P.segment(K, W[L].size());
      K += W[L].size();
      B[L] = P.segment(K, B[L].size());
      K += B[L].size();
    }
  }
};

/// Updates parameter matrices from their gradients; each matrix has a slot
/// of its own (its optimiser state).
class Optimiser {
public:
  virtual ~Optimiser() = default;
  /// Starts one update of the parameters (a mini-batch's, a generation's).
  virtual void beginStep() = 0;
  /// Moves \p Param against \p Grad.
  virtual void update(size_t Slot, Eigen::MatrixXd &Param,
                      const Eigen::MatrixXd &Grad) = 0;
};

/// Adam (Kingma and Ba), with bias correction.
class Adam final : public Optimiser {
public:
  /// What a checkpoint keeps: the steps taken and each slot's moments.
  struct State {
    uint64_t Step = 0;
    std::vector<Eigen::MatrixXd> M, V;
  };

  explicit Adam(double StepSize, double Beta1 = 0.9, double Beta2 = 0.999,
                double Eps = 1e-8)
      : StepSize(StepSize), Beta1(Beta1), Beta2(Beta2), Eps(Eps) {}

  void beginStep() override { ++S.Step; }
  void update(size_t Slot, Eigen::MatrixXd &P,
              const Eigen::MatrixXd &G) override {
    if (Slot >= S.M.size()) {
      S.M.resize(Slot + 1);
      S.V.resize(Slot + 1);
    }
    Eigen::MatrixXd &M = S.M[Slot], &V = S.V[Slot];
    if (M.size() == 0) {
      M = Eigen::MatrixXd::Zero(G.rows(), G.cols());
      V = Eigen::MatrixXd::Zero(G.rows(), G.cols());
    }
    M = Beta1 * M + (1 - Beta1) * G;
    V = Beta2 * V + (1 - Beta2) * G.cwiseProduct(G);
    double C1 = 1 - std::pow(Beta1, static_cast<double>(S.Step));
    double C2 = 1 - std::pow(Beta2, static_cast<double>(S.Step));
    P.array() -= StepSize * (M.array() / C1) / ((V.array() / C2).sqrt() + Eps);
  }

  const State &state() const { return S; }
  void setState(State New) { S = std::move(New); }

private:
  double StepSize, Beta1, Beta2, Eps;
  State S;
};

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

#endif // IRTK_ADVISORS_NETWORK_H
