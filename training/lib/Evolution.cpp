//===- Evolution.cpp - Blackbox evolution strategies over a model ---------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/training/Evolution.h"
#include "irtk/advisors/MLP.h"
#include "irtk/support/Format.h"
#include "irtk/support/JSON.h"

#include "irtk/advisors/Network.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <Eigen/Dense>

#include <cmath>
#include <limits>
#include <random>

using namespace llvm;
using namespace irtk::advisors;

namespace irtk::training {

using Eigen::MatrixXd;
using Eigen::VectorXd;

struct EvolutionStrategies::Impl {
  EvolutionOptions Opts;
  unsigned Step = 0;
  VectorXd Theta;
  /// Per parameter, what its noise is scaled by (1, or its magnitude at the
  /// start with RelativeNoise).
  VectorXd Scale;
  Adam Optimiser;
  /// modelFingerprint of the starting model ("": not recorded).
  std::string Fingerprint;

  explicit Impl(EvolutionOptions O) : Opts(O), Optimiser(O.StepSize) {}

  /// The step's directions, one per pair: a function of the seed and the
  /// step only.
  MatrixXd directions() const {
    std::seed_seq Seq{static_cast<uint32_t>(Opts.Seed),
                      static_cast<uint32_t>(Opts.Seed >> 32), Step};
    std::mt19937_64 Rng(Seq);
    std::normal_distribution<double> Normal(0.0, 1.0);
    MatrixXd E(Theta.size(), Opts.Perturbations / 2);
    for (Eigen::Index K = 0; K < E.cols(); ++K)
      for (Eigen::Index P = 0; P < E.rows(); ++P)
        E(P, K) = Normal(Rng) * Scale(P);
    return E;
  }
};

static Error esError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

static Error checkOptions(const EvolutionOptions &O) {
  if (O.Perturbations == 0 || O.Perturbations % 2)
    return esError("the number of perturbations must be even and positive "
                   "(each direction is tried both ways); got " +
                   Twine(O.Perturbations));
  if (!(O.Sigma > 0) || !std::isfinite(O.Sigma))
    return esError("sigma must be a positive number");
  if (!(O.StepSize > 0) || !std::isfinite(O.StepSize))
    return esError("the step size must be a positive number");
  return Error::success();
}

EvolutionStrategies::EvolutionStrategies(std::unique_ptr<Impl> I)
    : I(std::move(I)) {}
EvolutionStrategies::EvolutionStrategies(EvolutionStrategies &&) = default;
EvolutionStrategies &
EvolutionStrategies::operator=(EvolutionStrategies &&) = default;
EvolutionStrategies::~EvolutionStrategies() = default;

std::string modelFingerprint(const MLPDescription &M) {
  MLPDescription Shape = M;
  Shape.setParameters(std::vector<double>(M.parameters().size(), 0.0));
  Shape.TrainingJSON.clear();
  std::string Text;
  raw_string_ostream OS(Text);
  Shape.write(OS);
  std::string Out;
  raw_string_ostream FS(Out);
  FS << "xxh3:" << format_hex_no_prefix(xxh3_64bits(Text), 16);
  return Out;
}

Expected<EvolutionStrategies>
EvolutionStrategies::start(std::vector<double> Start, EvolutionOptions Opts,
                           ArrayRef<bool> Perturbed, StringRef Fingerprint) {
  if (Error E = checkOptions(Opts))
    return E;
  if (!Perturbed.empty() && Perturbed.size() != Start.size())
    return esError("perturbation flags for " + Twine(Perturbed.size()) +
                   " parameters; the model has " + Twine(Start.size()));
  if (!Perturbed.empty() && llvm::none_of(Perturbed, [](bool B) { return B; }))
    return esError("no parameter is perturbed");
  if (Start.empty())
    return esError("the model has no parameters");
  auto I = std::make_unique<Impl>(Opts);
  I->Fingerprint = Fingerprint.str();
  I->Theta = Eigen::Map<const VectorXd>(Start.data(), Start.size());
  I->Scale = VectorXd::Ones(I->Theta.size());
  if (Opts.RelativeNoise)
    for (Eigen::Index P = 0; P < I->Theta.size(); ++P)
      if (I->Theta(P) != 0)
        I->Scale(P) = std::abs(I->Theta(P));
  for (size_t P = 0; P < Perturbed.size(); ++P)
    if (!Perturbed[P])
      I->Scale(P) = 0;
  return EvolutionStrategies(std::move(I));
}

unsigned EvolutionStrategies::step() const { return I->Step; }
const EvolutionOptions &EvolutionStrategies::options() const { return I->Opts; }

std::vector<double> EvolutionStrategies::parameters() const {
  return std::vector<double>(I->Theta.data(),
                             I->Theta.data() + I->Theta.size());
}

StringRef EvolutionStrategies::fingerprint() const { return I->Fingerprint; }

Error EvolutionStrategies::checkModel(const MLPDescription &M,
                                      StringRef ModelName,
                                      StringRef CheckpointName) const {
  size_t Count = M.parameters().size();
  if (Count != static_cast<size_t>(I->Theta.size()))
    return esError(ModelName + ": " + Twine(Count) + " parameters; the " +
                   "checkpoint " + CheckpointName + " has " +
                   Twine(I->Theta.size()));
  std::string Fingerprint = modelFingerprint(M);
  if (!I->Fingerprint.empty() && Fingerprint != I->Fingerprint)
    return esError(ModelName + ": the checkpoint " + CheckpointName +
                   " was started from another model (" + I->Fingerprint +
                   "; this model is " + Fingerprint + ")");
  return Error::success();
}

Error EvolutionStrategies::checkModels(const MLPDescription &M,
                                       StringRef Name) const {
  MLPDescription C = M;
  auto Check = [&](const VectorXd &P, const Twine &What) -> Error {
    C.setParameters(ArrayRef<double>(P.data(), P.size()));
    return C.checkNumbers((Name + ": " + What).str());
  };
  if (Error E = Check(I->Theta, "the current parameters"))
    return E;
  MatrixXd Dirs = I->directions();
  for (Eigen::Index K = 0; K < Dirs.cols(); ++K)
    for (double Sign : {1.0, -1.0})
      if (Error E = Check(I->Theta + Sign * I->Opts.Sigma * Dirs.col(K),
                          "candidate " + Twine(2 * K + (Sign < 0)) +
                              " (try a smaller sigma)"))
        return E;
  if (I->Optimiser.state().Step != 0)
    return Error::success();
  // Adam's first update moves each parameter by step size * |g| / (|g| +
  // eps): checkNumbers bounds magnitudes, so the farthest reach is the
  // bound of every reachable point.
  VectorXd Reach = I->Theta.cwiseAbs();
  for (Eigen::Index P = 0; P < Reach.size(); ++P)
    if (I->Scale(P) != 0)
      Reach(P) += I->Opts.StepSize;
  return Check(Reach, "the parameters after the next update (try a smaller "
                      "step size)");
}

std::vector<std::vector<double>> EvolutionStrategies::candidates() const {
  MatrixXd E = I->directions();
  std::vector<std::vector<double>> Out;
  for (Eigen::Index K = 0; K < E.cols(); ++K)
    for (double Sign : {1.0, -1.0}) {
      VectorXd X = I->Theta + Sign * I->Opts.Sigma * E.col(K);
      Out.emplace_back(X.data(), X.data() + X.size());
    }
  return Out;
}

Error EvolutionStrategies::update(ArrayRef<double> Rewards) {
  unsigned N = I->Opts.Perturbations;
  if (Rewards.size() != N)
    return esError("step " + Twine(I->Step) + " needs " + Twine(N) +
                   " rewards; got " + Twine(Rewards.size()));
  double Mean = 0;
  for (double R : Rewards) {
    if (!std::isfinite(R))
      return esError("step " + Twine(I->Step) +
                     ": a reward is not a finite number");
    Mean += R;
  }
  Mean /= N;
  double Var = 0;
  for (double R : Rewards)
    Var += (R - Mean) * (R - Mean);
  double Std = std::sqrt(Var / N);
  // All rewards equal: nothing to learn from this step.
  if (Std > 0) {
    MatrixXd E = I->directions();
    VectorXd G = VectorXd::Zero(I->Theta.size());
    for (Eigen::Index K = 0; K < E.cols(); ++K)
      G += ((Rewards[2 * K] - Rewards[2 * K + 1]) / Std) * E.col(K);
    G /= N * I->Opts.Sigma;
    // Adam descends: climb the reward.
    MatrixXd Theta = I->Theta, Down = -G;
    I->Optimiser.beginStep();
    I->Optimiser.update(0, Theta, Down);
    I->Theta = Theta.col(0);
  }
  ++I->Step;
  return Error::success();
}

static void writeVector(raw_ostream &OS, const MatrixXd &V) {
  OS << '[';
  for (Eigen::Index K = 0; K < V.size(); ++K) {
    if (K)
      OS << ", ";
    support::writeJSONNumber(OS, V.data()[K]);
  }
  OS << ']';
}

void EvolutionStrategies::save(raw_ostream &OS) const {
  const EvolutionOptions &O = I->Opts;
  const Adam::State &A = I->Optimiser.state();
  OS << "{\"format\": \"irtk-es\", \"version\": 1,\n";
  if (!I->Fingerprint.empty())
    OS << " \"model\": " << json::Value(I->Fingerprint) << ",\n";
  OS << " \"options\": "
     << "{\"perturbations\": " << O.Perturbations << ", \"sigma\": ";
  support::writeJSONNumber(OS, O.Sigma);
  OS << ", \"step_size\": ";
  support::writeJSONNumber(OS, O.StepSize);
  OS << ", \"relative_noise\": " << (O.RelativeNoise ? "true" : "false")
     << ", \"seed\": " << O.Seed << "},\n \"step\": " << I->Step
     << ",\n \"parameters\": ";
  writeVector(OS, I->Theta);
  OS << ",\n \"noise_scale\": ";
  writeVector(OS, I->Scale);
  OS << ",\n \"adam\": {\"t\": " << A.Step << ", \"m\": ";
  writeVector(OS, A.M.empty() ? MatrixXd() : A.M[0]);
  OS << ", \"v\": ";
  writeVector(OS, A.V.empty() ? MatrixXd() : A.V[0]);
  OS << "}}\n";
}

Expected<EvolutionStrategies> EvolutionStrategies::load(StringRef Text,
                                                        StringRef Name) {
  auto Fail = [&](const Twine &Msg) { return esError(Name + ": " + Msg); };
  Expected<json::Value> V = support::parseJSON(Text, Name);
  if (!V)
    return V.takeError();
  const json::Object *Root = V->getAsObject();
  if (!Root || Root->getString("format") != "irtk-es")
    return Fail("not an evolution-strategies checkpoint (format irtk-es)");
  if (Root->getInteger("version") != 1)
    return Fail("unsupported version (expected 1)");
  const json::Object *Opt = Root->getObject("options");
  if (!Opt)
    return Fail("no options");
  EvolutionOptions O;
  std::optional<int64_t> N = Opt->getInteger("perturbations");
  std::optional<double> Sigma = Opt->getNumber("sigma");
  std::optional<double> StepSize = Opt->getNumber("step_size");
  std::optional<bool> Relative = Opt->getBoolean("relative_noise");
  std::optional<int64_t> Seed = Opt->getInteger("seed");
  std::optional<int64_t> Step = Root->getInteger("step");
  if (!N || !Sigma || !StepSize || !Relative || !Seed || !Step)
    return Fail("options or step missing (perturbations, sigma, step_size, "
                "relative_noise, seed, step)");
  if (*N <= 0 || *N > (1 << 20))
    return Fail("options.perturbations: " + Twine(*N) +
                " is out of range (2 to 2^20)");
  if (*Seed < 0)
    return Fail("options.seed: " + Twine(*Seed) + " is negative");
  // update adds one: the step must stay below the largest unsigned.
  if (*Step < 0 || *Step >= std::numeric_limits<uint32_t>::max())
    return Fail("step: " + Twine(*Step) + " is out of range (0 to 2^32 - 2)");
  O.Perturbations = static_cast<unsigned>(*N);
  O.Sigma = *Sigma;
  O.StepSize = *StepSize;
  O.RelativeNoise = *Relative;
  O.Seed = static_cast<uint64_t>(*Seed);
  if (Error E = checkOptions(O))
    return Fail("options: " + toString(std::move(E)));

  /// Reads \p Key of \p In, the parameters' count \p Want long (none:
  /// any), every number finite and, with \p NonNegative, from 0.
  auto Numbers = [&](const json::Object &In, StringRef Where, StringRef Key,
                     VectorXd &Out, std::optional<size_t> Want,
                     bool NonNegative) -> Error {
    const json::Array *A = In.getArray(Key);
    if (!A)
      return Fail("no '" + Where + Key + "' array");
    if (Want && A->size() != *Want)
      return Fail(Where + Key + ": " + Twine(A->size()) + " numbers; the " +
                  "parameters are " + Twine(*Want));
    Out.resize(A->size());
    for (size_t K = 0; K < A->size(); ++K) {
      std::optional<double> X = (*A)[K].getAsNumber();
      if (!X || !std::isfinite(*X))
        return Fail(Where + Key + "[" + Twine(K) +
                    "]: expected a finite number");
      if (NonNegative && *X < 0)
        return Fail(Where + Key + "[" + Twine(K) + "]: is negative");
      Out(K) = *X;
    }
    return Error::success();
  };
  auto I = std::make_unique<Impl>(O);
  I->Step = static_cast<unsigned>(*Step);
  if (const json::Value *F = Root->get("model")) {
    std::optional<StringRef> S = F->getAsString();
    if (!S || !S->starts_with("xxh3:") || S->size() != 21 ||
        S->drop_front(5).find_first_not_of("0123456789abcdef") !=
            StringRef::npos)
      return Fail("model: expected a fingerprint 'xxh3:' and 16 hex digits");
    I->Fingerprint = S->str();
  }
  if (Error E = Numbers(*Root, "", "parameters", I->Theta, std::nullopt,
                        /*NonNegative=*/false))
    return E;
  size_t P = I->Theta.size();
  if (P == 0)
    return Fail("parameters: none");
  if (Error E = Numbers(*Root, "", "noise_scale", I->Scale, P,
                        /*NonNegative=*/true))
    return E;
  if (I->Scale.isZero())
    return Fail("noise_scale: every scale is 0 (no parameter is perturbed)");
  const json::Object *AdamObj = Root->getObject("adam");
  if (!AdamObj)
    return Fail("no 'adam' state");
  std::optional<int64_t> T = AdamObj->getInteger("t");
  if (!T || *T < 0 || *T > *Step)
    return Fail("adam.t: expected Adam's step count, from 0 to the step (" +
                Twine(*Step) + ")");
  const json::Array *MArray = AdamObj->getArray("m");
  bool Moved = MArray && !MArray->empty();
  if (Moved != (*T > 0))
    return Fail("adam: moments without a step, or steps without moments");
  VectorXd M, Vv;
  std::optional<size_t> Want = Moved ? P : 0;
  if (Error E = Numbers(*AdamObj, "adam.", "m", M, Want,
                        /*NonNegative=*/false))
    return E;
  if (Error E = Numbers(*AdamObj, "adam.", "v", Vv, Want,
                        /*NonNegative=*/true))
    return E;
  Adam::State S;
  S.Step = static_cast<uint64_t>(*T);
  if (Moved) {
    S.M.push_back(M);
    S.V.push_back(Vv);
  }
  I->Optimiser.setState(std::move(S));
  return EvolutionStrategies(std::move(I));
}

} // namespace irtk::training
