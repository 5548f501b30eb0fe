//===- Trainer.cpp - Training the embedded MLP from training logs ---------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/training/Trainer.h"
#include "irtk/advisors/Features.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

#include "irtk/advisors/Network.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <random>

using namespace llvm;
using namespace irtk::advisors;

namespace irtk::training {

size_t Dataset::width() const {
  size_t W = 0;
  for (const Input &In : Inputs)
    W += In.Size;
  return W;
}

static Error datasetError(StringRef Name, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Name + ": " + Msg);
}

Error addToDataset(Dataset &D, const TrainingLog &Log, StringRef Name,
                   const DatasetOptions &Opts, double Weight, StringRef Label) {
  std::optional<size_t> DecisionIdx = Log.featureIndex(Opts.Decision);
  if (!DecisionIdx)
    return datasetError(Name, "no decision feature '" + Opts.Decision + "'");
  std::optional<size_t> LabelIdx = DecisionIdx;
  if (!Label.empty() && !(LabelIdx = Log.featureIndex(Label)))
    return datasetError(Name, "no label feature '" + Label + "'");
  if (D.Inputs.empty()) {
    D.Output = Opts.Output;
    D.Mask = Opts.Mask;
    if (Opts.Output == OutputKind::ArgMax) {
      std::optional<size_t> M = Log.featureIndex(Opts.Mask);
      if (!M)
        return datasetError(Name, "no mask feature '" + Opts.Mask + "'");
      D.Choices = Log.features()[*M].getElementCount();
    }
    StringSet<> Excluded;
    for (const std::string &E : Opts.Exclude) {
      if (!Log.featureIndex(E))
        return datasetError(Name, "no feature '" + E + "' to exclude");
      Excluded.insert(E);
    }
    if (!Opts.Include.empty()) {
      for (const std::string &I : Opts.Include) {
        if (I == Opts.Decision)
          return datasetError(Name,
                              "'" + I + "' is the decision, not an input");
        std::optional<size_t> Idx = Log.featureIndex(I);
        if (!Idx)
          return datasetError(Name, "no feature '" + I + "'");
        D.Inputs.push_back({I, Log.features()[*Idx].getElementCount()});
      }
    } else {
      for (const TensorSpec &S : Log.features())
        if (S.name() != Opts.Decision && !Excluded.contains(S.name()) &&
            !StringRef(S.name()).starts_with("teacher_"))
          D.Inputs.push_back({S.name(), S.getElementCount()});
    }
    if (D.Inputs.empty())
      return datasetError(Name, "no input features left");
  }

  std::vector<size_t> Idx;
  for (const Dataset::Input &In : D.Inputs) {
    std::optional<size_t> I = Log.featureIndex(In.Name);
    if (!I)
      return datasetError(Name, "no feature '" + In.Name +
                                    "' (the first log has it)");
    if (Log.features()[*I].getElementCount() != In.Size)
      return datasetError(
          Name, "feature '" + In.Name + "' has " +
                    Twine(Log.features()[*I].getElementCount()) +
                    " elements; the first log's has " + Twine(In.Size));
    Idx.push_back(*I);
  }
  std::optional<size_t> MaskIdx;
  if (D.Output == OutputKind::ArgMax) {
    MaskIdx = Log.featureIndex(D.Mask);
    if (!MaskIdx || Log.features()[*MaskIdx].getElementCount() != D.Choices)
      return datasetError(Name, "no mask '" + D.Mask + "' of " +
                                    Twine(D.Choices) + " elements");
  }

  std::optional<size_t> DefaultIdx;
  if (!Opts.Default.empty())
    DefaultIdx = Log.featureIndex(Opts.Default);
  if (!DefaultIdx || (D.rows() && D.Default.size() != D.rows()))
    D.Default.clear(); // only when every row has one
  for (const TrainingLog::Observation &O : Log.observations()) {
    if (DefaultIdx && D.Default.size() == D.rows())
      D.Default.push_back(static_cast<int64_t>(Log.value(O, *DefaultIdx)));
    double L = Log.value(O, *LabelIdx);
    int64_t Label = static_cast<int64_t>(L);
    if (D.Output == OutputKind::Logit ? (Label != 0 && Label != 1)
                                      : (Label < 0 || Label >= D.Choices))
      return datasetError(Name, "decision " + Twine(Label) +
                                    " out of range in context '" +
                                    Log.contexts()[O.Context] + "'");
    for (size_t K = 0; K < Idx.size(); ++K)
      for (size_t E = 0; E < D.Inputs[K].Size; ++E)
        D.X.push_back(modelInput(Log.value(O, Idx[K], E)));
    if (MaskIdx) {
      for (unsigned C = 0; C < D.Choices; ++C)
        D.Legal.push_back(Log.value(O, *MaskIdx, C) != 0);
      if (!D.Legal[D.Legal.size() - D.Choices + Label])
        return datasetError(Name, "decision " + Twine(Label) +
                                      " is masked out in context '" +
                                      Log.contexts()[O.Context] + "'");
    }
    D.Label.push_back(Label);
    D.Weight.push_back(Weight);
  }
  return Error::success();
}

using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {
/// How a dataset's rows become the network's input columns: one column per
/// row, or (Positions > 0) one per row and choice, with the elements of the
/// inputs that have a group per choice (Split) and the whole of the others.
struct ColumnLayout {
  unsigned Positions = 0;
  std::vector<bool> Split;
  /// Elements per column.
  size_t Width = 0;

  /// For training: inputs whose size is a multiple of the choices are
  /// split.
  ColumnLayout(const Dataset &D, bool Positional) {
    if (!Positional) {
      Width = D.width();
      return;
    }
    Positions = D.Choices;
    for (const Dataset::Input &In : D.Inputs)
      add(In.Size, In.Size % D.Choices == 0);
  }
  /// As \p M reads \p D (their inputs match one to one): split where the
  /// model's normalisation has an input's size over the positions.
  ColumnLayout(const Dataset &D, const MLPDescription &M)
      : Positions(M.Positions) {
    if (!Positions) {
      Width = D.width();
      return;
    }
    for (size_t I = 0; I < D.Inputs.size(); ++I)
      add(D.Inputs[I].Size,
          M.Inputs[I].Mean.size() * Positions == D.Inputs[I].Size);
  }
  void add(size_t Size, bool S) {
    Split.push_back(S);
    Width += S ? Size / Positions : Size;
  }
  unsigned columnsPerRow() const { return Positions ? Positions : 1; }

  /// Writes row \p R's column for position \p P (unnormalised) to \p Out.
  template <typename OutT>
  void column(const Dataset &D, size_t R, unsigned P, OutT &&Out) const {
    const double *Row = &D.X[R * D.width()];
    if (!Positions) {
      for (size_t C = 0; C < Width; ++C)
        Out(C, Row[C]);
      return;
    }
    size_t Off = 0, C = 0;
    for (size_t I = 0; I < D.Inputs.size(); ++I) {
      size_t Size = D.Inputs[I].Size;
      size_t K = Split[I] ? Size / Positions : Size;
      size_t First = Split[I] ? Off + P * K : Off;
      for (size_t E = 0; E < K; ++E)
        Out(C++, Row[First + E]);
      Off += Size;
    }
  }
};
} // namespace

/// Mean and standard deviation of each element of \p D's columns (scale 1
/// where it is constant).
static void normalisation(const Dataset &D, const ColumnLayout &L,
                          std::vector<double> &Mean,
                          std::vector<double> &Scale) {
  size_t W = L.Width, N = D.rows() * L.columnsPerRow();
  Mean.assign(W, 0.0);
  Scale.assign(W, 0.0);
  for (size_t R = 0; R < D.rows(); ++R)
    for (unsigned P = 0; P < L.columnsPerRow(); ++P)
      L.column(D, R, P, [&](size_t C, double V) { Mean[C] += V; });
  for (double &M : Mean)
    M /= std::max<size_t>(N, 1);
  for (size_t R = 0; R < D.rows(); ++R)
    for (unsigned P = 0; P < L.columnsPerRow(); ++P)
      L.column(D, R, P, [&](size_t C, double V) {
        Scale[C] += (V - Mean[C]) * (V - Mean[C]);
      });
  for (double &S : Scale) {
    S = std::sqrt(S / std::max<size_t>(N, 1));
    if (!(S > 1e-12))
      S = 1.0;
  }
}

namespace {
/// A loss over a batch of the last layer's outputs.
class Loss {
public:
  virtual ~Loss() = default;

  /// The loss of the examples \p Rows (the columns of \p Z), weighted by
  /// \p W, and its gradient with respect to Z in \p G.
  double gradient(const Dataset &D, Eigen::Ref<const MatrixXd> Z,
                  ArrayRef<size_t> Rows, ArrayRef<double> W,
                  MatrixXd &G) const {
    G.setZero(Z.rows(), Z.cols());
    double Sum = 0;
    for (size_t K = 0; K < Rows.size(); ++K) {
      Eigen::VectorXd GK = Eigen::VectorXd::Zero(Z.rows());
      Sum += W[K] * example(D, Z.col(K), Rows[K], GK);
      G.col(K) = W[K] * GK;
    }
    return Sum;
  }

private:
  /// One example's loss for its outputs \p Z, and its gradient in \p G
  /// (zero where the example has no say).
  virtual double example(const Dataset &D, Eigen::Ref<const VectorXd> Z,
                         size_t Row, VectorXd &G) const = 0;
};

/// Yes/no decisions: binary cross-entropy of the logit.
class LogitLoss final : public Loss {
  double example(const Dataset &D, Eigen::Ref<const VectorXd> Z, size_t Row,
                 VectorXd &G) const override {
    double X = Z(0), Y = static_cast<double>(D.Label[Row]);
    G(0) = 1.0 / (1.0 + std::exp(-X)) - Y;
    // log(1 + e^x) - y x, computed stably.
    return std::max(X, 0.0) - X * Y + std::log1p(std::exp(-std::abs(X)));
  }
};

/// A choice among legal candidates: softmax cross-entropy over the legal
/// ones.
class ChoiceLoss final : public Loss {
  double example(const Dataset &D, Eigen::Ref<const VectorXd> Z, size_t Row,
                 VectorXd &G) const override {
    const uint8_t *Legal = &D.Legal[Row * D.Choices];
    double Max = -std::numeric_limits<double>::infinity();
    for (unsigned C = 0; C < D.Choices; ++C)
      if (Legal[C])
        Max = std::max(Max, Z(C));
    double Sum = 0;
    for (unsigned C = 0; C < D.Choices; ++C)
      if (Legal[C])
        Sum += std::exp(Z(C) - Max);
    for (unsigned C = 0; C < D.Choices; ++C)
      if (Legal[C])
        G(C) = std::exp(Z(C) - Max) / Sum -
               (static_cast<int64_t>(C) == D.Label[Row] ? 1.0 : 0.0);
    return -(Z(D.Label[Row]) - Max - std::log(Sum));
  }
};
} // namespace

static std::unique_ptr<Loss> lossFor(OutputKind K) {
  if (K == OutputKind::Logit)
    return std::make_unique<LogitLoss>();
  return std::make_unique<ChoiceLoss>();
}

/// The decision for column \p K of the last layer's outputs \p Z, row \p R.
static int64_t decisionOf(const Dataset &D, Eigen::Ref<const MatrixXd> Z,
                          size_t K, size_t R) {
  if (D.Output == OutputKind::Logit)
    return Z(0, K) > 0 ? 1 : 0;
  int64_t Best = -1;
  for (unsigned C = 0; C < D.Choices; ++C)
    if (D.Legal[R * D.Choices + C] && (Best < 0 || Z(C, K) > Z(Best, K)))
      Best = C;
  return Best < 0 ? 0 : Best;
}

static MatrixXd columns(const Dataset &D, const ColumnLayout &L,
                        ArrayRef<size_t> Rows, ArrayRef<double> Mean,
                        ArrayRef<double> Scale) {
  unsigned PerRow = L.columnsPerRow();
  MatrixXd X(L.Width, Rows.size() * PerRow);
  for (size_t K = 0; K < Rows.size(); ++K)
    for (unsigned P = 0; P < PerRow; ++P)
      L.column(D, Rows[K], P, [&](size_t C, double V) {
        X(C, K * PerRow + P) = (V - Mean[C]) / Scale[C];
      });
  return X;
}

/// The last layer's outputs \p Z as one column per row: as they are, or
/// (positions) each row's scores of its choices.
static Eigen::Map<const MatrixXd> perRow(const ColumnLayout &L,
                                         const MatrixXd &Z) {
  if (!L.Positions)
    return Eigen::Map<const MatrixXd>(Z.data(), Z.rows(), Z.cols());
  return Eigen::Map<const MatrixXd>(Z.data(), L.Positions,
                                    Z.cols() / L.Positions);
}

/// The example weights: the data's, the departures from the default
/// decision's times DepartureWeight, and (BalanceClasses, yes/no decisions)
/// scaled so that each class carries half of the total.
static std::vector<double> exampleWeights(const Dataset &D,
                                          const TrainerOptions &Opts) {
  std::vector<double> Weight(D.Weight);
  if (Opts.DepartureWeight != 1.0 && D.Default.size() == D.rows())
    for (size_t R = 0; R < D.rows(); ++R)
      if (D.Label[R] != D.Default[R])
        Weight[R] *= Opts.DepartureWeight;
  if (!Opts.BalanceClasses || D.Output != OutputKind::Logit)
    return Weight;
  double Pos = 0, Neg = 0;
  for (size_t R = 0; R < D.rows(); ++R)
    (D.Label[R] ? Pos : Neg) += Weight[R];
  for (size_t R = 0; R < D.rows(); ++R) {
    double Class = D.Label[R] ? Pos : Neg;
    if (Class > 0)
      Weight[R] *= (Pos + Neg) / (2 * Class);
  }
  return Weight;
}

/// A network of layers \p Sizes (inputs first), He-initialised (ReLU) or
/// Glorot-like (otherwise) from \p Rng, with a linear last layer.
static Network initialNetwork(ArrayRef<size_t> Sizes, ActivationKind Hidden,
                              std::mt19937_64 &Rng) {
  Network Net;
  for (size_t L = 0; L + 1 < Sizes.size(); ++L) {
    double Std = std::sqrt((Hidden == ActivationKind::ReLU ? 2.0 : 1.0) /
                           static_cast<double>(Sizes[L]));
    std::normal_distribution<double> Init(0.0, Std);
    MatrixXd W(Sizes[L + 1], Sizes[L]);
    for (Eigen::Index R = 0; R < W.rows(); ++R)
      for (Eigen::Index C = 0; C < W.cols(); ++C)
        W(R, C) = Init(Rng);
    Net.W.push_back(std::move(W));
    Net.B.push_back(VectorXd::Zero(Sizes[L + 1]));
    Net.Activation.push_back(L + 2 == Sizes.size() ? ActivationKind::Linear
                                                   : Hidden);
  }
  return Net;
}

/// Backpropagates \p G, the loss's gradient at the last layer's
/// pre-activations, through \p Net (whose forward pass left \p Z and \p A)
/// and updates every layer with \p Opt (slots 2L: weights, 2L+1: bias),
/// with weight decay \p L2.
static void backward(Network &Net, const std::vector<MatrixXd> &Z,
                     const std::vector<MatrixXd> &A, MatrixXd G, double L2,
                     Optimiser &Opt) {
  Opt.beginStep();
  for (size_t L = Net.W.size(); L-- > 0;) {
    MatrixXd GW = G * A[L].transpose() + L2 * Net.W[L];
    MatrixXd GB = G.rowwise().sum();
    if (L > 0) {
      MatrixXd GA = Net.W[L].transpose() * G;
      if (Net.Activation[L - 1] == ActivationKind::ReLU)
        G = GA.cwiseProduct((Z[L - 1].array() > 0).cast<double>().matrix());
      else if (Net.Activation[L - 1] == ActivationKind::Tanh)
        G = GA.cwiseProduct((1 - A[L].array().square()).matrix());
      else
        G = GA;
    }
    Opt.update(2 * L, Net.W[L], GW);
    MatrixXd BM = Net.B[L];
    Opt.update(2 * L + 1, BM, GB);
    Net.B[L] = BM.col(0);
  }
}

/// The model file's description of \p Net, reading \p D's inputs through
/// \p Layout and normalising them by \p Mean and \p Scale.
static MLPDescription describe(const Network &Net, const Dataset &D,
                               const ColumnLayout &Layout,
                               ArrayRef<double> Mean, ArrayRef<double> Scale,
                               StringRef Advisor, StringRef Decision) {
  MLPDescription M;
  M.Advisor = Advisor.str();
  M.Decision = Decision.str();
  M.Output = D.Output;
  M.Mask = D.Mask;
  M.Positions = Layout.Positions;
  size_t C = 0;
  for (size_t K = 0; K < D.Inputs.size(); ++K) {
    const Dataset::Input &In = D.Inputs[K];
    size_t Size = Layout.Positions && Layout.Split[K]
                      ? In.Size / Layout.Positions
                      : In.Size;
    MLPDescription::Input I;
    I.Name = In.Name;
    I.Mean.assign(Mean.begin() + C, Mean.begin() + C + Size);
    I.Scale.assign(Scale.begin() + C, Scale.begin() + C + Size);
    C += Size;
    M.Inputs.push_back(std::move(I));
  }
  Net.store(M);
  return M;
}

MLPDescription train(const Dataset &D, StringRef Advisor, StringRef Decision,
                     const TrainerOptions &Opts,
                     function_ref<void(const EpochReport &)> Report) {
  ColumnLayout Layout(D, Opts.Positional && D.Output == OutputKind::ArgMax);
  std::vector<double> Mean, Scale;
  normalisation(D, Layout, Mean, Scale);
  std::vector<double> Weight = exampleWeights(D, Opts);

  std::mt19937_64 Rng(Opts.Seed);
  std::vector<size_t> Sizes{Layout.Width};
  Sizes.insert(Sizes.end(), Opts.Hidden.begin(), Opts.Hidden.end());
  Sizes.push_back(
      D.Output == OutputKind::Logit || Layout.Positions ? 1 : D.Choices);
  Network Net = initialNetwork(Sizes, Opts.Activation, Rng);
  Adam Opt(Opts.LearningRate);
  std::unique_ptr<Loss> Objective = lossFor(D.Output);

  size_t N = D.rows();
  std::vector<size_t> Order(N);
  std::iota(Order.begin(), Order.end(), 0);
  std::vector<MatrixXd> Z, A;
  MatrixXd G;
  size_t Batch = std::max<unsigned>(Opts.BatchSize, 1);
  for (unsigned Epoch = 1; Epoch <= Opts.Epochs; ++Epoch) {
    std::shuffle(Order.begin(), Order.end(), Rng);
    double Loss = 0, Right = 0, Total = 0;
    for (size_t Start = 0; Start < N; Start += Batch) {
      ArrayRef<size_t> Rows =
          ArrayRef<size_t>(Order).slice(Start, std::min(Batch, N - Start));
      std::vector<double> W;
      double WSum = 0;
      for (size_t R : Rows) {
        W.push_back(Weight[R]);
        WSum += Weight[R];
      }
      if (WSum <= 0)
        continue;
      for (double &X : W)
        X /= WSum;
      Net.forward(columns(D, Layout, Rows, Mean, Scale), &Z, &A);
      auto Scores = perRow(Layout, Z.back());
      Loss += Objective->gradient(D, Scores, Rows, W, G) * WSum;
      for (size_t K = 0; K < Rows.size(); ++K) {
        Right += (decisionOf(D, Scores, K, Rows[K]) == D.Label[Rows[K]]) *
                 Weight[Rows[K]];
        Total += Weight[Rows[K]];
      }
      // Positions: back to one gradient per column of the last layer.
      if (Layout.Positions)
        G = Eigen::Map<const MatrixXd>(G.data(), 1, G.size()).eval();
      backward(Net, Z, A, std::move(G), Opts.L2, Opt);
    }
    if (Report)
      Report(
          {Epoch, Total > 0 ? Loss / Total : 0, Total > 0 ? Right / Total : 0});
  }
  return describe(Net, D, Layout, Mean, Scale, Advisor, Decision);
}

std::vector<MLPDescription::SupportBox> departureSupport(const Dataset &D) {
  std::vector<MLPDescription::SupportBox> Boxes;
  if (D.Default.size() != D.rows())
    return Boxes;
  std::vector<size_t> Scalars, Offset;
  for (size_t N = 0, Sum = 0; N < D.Inputs.size(); Sum += D.Inputs[N++].Size)
    if (D.Inputs[N].Size == 1) {
      Scalars.push_back(N);
      Offset.push_back(Sum);
    }
  size_t Width = D.width();
  for (size_t R = 0; R < D.rows(); ++R) {
    if (D.Label[R] == D.Default[R])
      continue;
    auto It = llvm::find_if(Boxes, [&](const MLPDescription::SupportBox &B) {
      return B.Default == D.Default[R];
    });
    const double *Row = &D.X[R * Width];
    if (It == Boxes.end()) {
      MLPDescription::SupportBox B{D.Default[R], {}};
      for (size_t K = 0; K < Scalars.size(); ++K)
        B.Bounds.push_back({Scalars[K], Row[Offset[K]], Row[Offset[K]]});
      Boxes.push_back(std::move(B));
      continue;
    }
    for (size_t K = 0; K < Scalars.size(); ++K) {
      MLPDescription::Bound &X = It->Bounds[K];
      X.Low = std::min(X.Low, Row[Offset[K]]);
      X.High = std::max(X.High, Row[Offset[K]]);
    }
  }
  llvm::sort(Boxes, [](const MLPDescription::SupportBox &X,
                       const MLPDescription::SupportBox &Y) {
    return X.Default < Y.Default;
  });
  return Boxes;
}

Expected<double> accuracy(const MLPDescription &M, const Dataset &D) {
  Expected<Agreement> A = agreement(M, D);
  if (!A)
    return A.takeError();
  return A->Share;
}

Expected<Agreement> agreement(const MLPDescription &M, const Dataset &D) {
  auto Fail = [](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(), Msg);
  };
  if (M.Inputs.size() != D.Inputs.size())
    return Fail("the model has " + Twine(M.Inputs.size()) +
                " inputs; the data has " + Twine(D.Inputs.size()));
  std::vector<double> Mean, Scale;
  for (size_t I = 0; I < M.Inputs.size(); ++I) {
    const MLPDescription::Input &In = M.Inputs[I];
    size_t Size = D.Inputs[I].Size;
    if (In.Name != D.Inputs[I].Name ||
        (In.Mean.size() != Size &&
         (!M.Positions || In.Mean.size() * M.Positions != Size)))
      return Fail("the model's input '" + In.Name + "' (" +
                  Twine(In.Mean.size()) + " elements) does not read the " +
                  "data's '" + D.Inputs[I].Name + "' (" + Twine(Size) + ")");
    Mean.insert(Mean.end(), In.Mean.begin(), In.Mean.end());
    Scale.insert(Scale.end(), In.Scale.begin(), In.Scale.end());
  }
  if (M.Positions && M.Positions != D.Choices)
    return Fail("the model scores " + Twine(M.Positions) +
                " positions; the data has " + Twine(D.Choices) + " choices");
  if (M.DefaultMargin && D.Default.size() != D.rows())
    return Fail("the model's default margin needs the default decision "
                "in every log");
  ColumnLayout Layout(D, M);
  Network Net = Network::of(M);
  std::vector<size_t> Rows(D.rows());
  std::iota(Rows.begin(), Rows.end(), 0);
  double Right = 0, Total = 0;
  Agreement Result;
  bool HasDefault = D.Default.size() == D.rows();
  // Where each input starts in a row of D.X (for the model's support).
  std::vector<size_t> Offset;
  for (size_t N = 0, Sum = 0; N < D.Inputs.size(); Sum += D.Inputs[N++].Size)
    Offset.push_back(Sum);
  size_t Width = D.width();
  std::vector<MatrixXd> Z, A;
  for (size_t Start = 0; Start < Rows.size(); Start += 4096) {
    ArrayRef<size_t> Part = ArrayRef<size_t>(Rows).slice(
        Start, std::min<size_t>(4096, Rows.size() - Start));
    Net.forward(columns(D, Layout, Part, Mean, Scale), &Z, &A);
    auto Scores = perRow(Layout, Z.back());
    for (size_t K = 0; K < Part.size(); ++K) {
      int64_t Decision = decisionOf(D, Scores, K, Part[K]);
      if (M.DefaultMargin) {
        // As the model policy decides.
        int64_t Def = D.Default[Part[K]];
        bool Legal =
            D.Output == OutputKind::Logit ||
            (Def >= 0 && Def < D.Choices && D.Legal[Part[K] * D.Choices + Def]);
        Decision = keepDefault(
            D.Output, *M.DefaultMargin, [&](int64_t C) { return Scores(C, K); },
            Decision, Def, Legal);
        if (Decision != Def && Legal && !M.mayDepart(Def, [&](size_t N) {
              return D.X[Part[K] * Width + Offset[N]];
            }))
          Decision = Def;
      }
      int64_t Label = D.Label[Part[K]];
      Right += (Decision == Label) * D.Weight[Part[K]];
      Total += D.Weight[Part[K]];
      if (HasDefault) {
        int64_t Def = D.Default[Part[K]];
        Result.LabelDepartures += Label != Def;
        Result.ModelDepartures += Decision != Def;
        Result.SharedDepartures += Decision != Def && Decision == Label;
      }
    }
  }
  Result.Share = Total > 0 ? Right / Total : 0;
  return Result;
}

} // namespace irtk::training
