//===- EvolutionTest.cpp - Evolution strategies on a toy reward -----------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/training/Evolution.h"
#include "irtk/advisors/MLP.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace llvm;
using namespace irtk::advisors;
using namespace irtk::training;

namespace {

const std::vector<double> Target = {1.0, -2.0, 0.5, 3.0};

/// The toy reward: minus the squared distance to Target.
double reward(const std::vector<double> &X) {
  double D = 0;
  for (size_t K = 0; K < X.size(); ++K)
    D += (X[K] - Target[K]) * (X[K] - Target[K]);
  return -D;
}

EvolutionOptions toyOptions(uint64_t Seed = 1) {
  EvolutionOptions O;
  O.Perturbations = 20;
  O.Sigma = 0.1;
  O.StepSize = 0.1;
  O.Seed = Seed;
  return O;
}

/// \p Steps steps of \p ES, each rewarded by the toy reward.
void run(EvolutionStrategies &ES, unsigned Steps) {
  for (unsigned S = 0; S < Steps; ++S) {
    std::vector<double> R;
    for (const std::vector<double> &C : ES.candidates())
      R.push_back(reward(C));
    ASSERT_FALSE(static_cast<bool>(ES.update(R)));
  }
}

EvolutionStrategies started(uint64_t Seed = 1) {
  return cantFail(EvolutionStrategies::start(std::vector<double>(4, 0.0),
                                             toyOptions(Seed)));
}

TEST(EvolutionTest, ClimbsAToyReward) {
  EvolutionStrategies ES = started();
  double Before = reward(ES.parameters());
  run(ES, 100);
  EXPECT_EQ(ES.step(), 100u);
  double After = reward(ES.parameters());
  // From 14.25 away (squared) to a small fraction of it.
  EXPECT_LT(-After, 0.05 * -Before) << After;
}

TEST(EvolutionTest, CandidatesAreAntitheticPairs) {
  EvolutionStrategies ES = started();
  std::vector<std::vector<double>> C = ES.candidates();
  ASSERT_EQ(C.size(), 20u);
  for (size_t K = 0; K < C.size(); K += 2)
    for (size_t P = 0; P < 4; ++P) {
      EXPECT_EQ(C[K][P], -C[K + 1][P]);
      EXPECT_NE(C[K][P], 0.0);
    }
}

TEST(EvolutionTest, IsDeterministicForASeed) {
  EvolutionStrategies A = started(7), B = started(7), Other = started(8);
  run(A, 5);
  run(B, 5);
  run(Other, 5);
  EXPECT_EQ(A.parameters(), B.parameters());
  EXPECT_NE(A.parameters(), Other.parameters());
}

TEST(EvolutionTest, AResumedRunEqualsOneNeverStopped) {
  EvolutionStrategies Whole = started();
  run(Whole, 7);

  EvolutionStrategies First = started();
  run(First, 3);
  std::string Checkpoint;
  raw_string_ostream OS(Checkpoint);
  First.save(OS);
  Expected<EvolutionStrategies> Resumed =
      EvolutionStrategies::load(Checkpoint, "es.json");
  ASSERT_TRUE(static_cast<bool>(Resumed)) << toString(Resumed.takeError());
  EXPECT_EQ(Resumed->step(), 3u);
  run(*Resumed, 4);
  EXPECT_EQ(Resumed->parameters(), Whole.parameters());
}

TEST(EvolutionTest, RelativeNoiseScalesByTheStartingWeights) {
  EvolutionOptions O = toyOptions();
  O.RelativeNoise = true;
  EvolutionStrategies ES =
      cantFail(EvolutionStrategies::start({0.0, 100.0}, O));
  EvolutionStrategies Plain =
      cantFail(EvolutionStrategies::start({0.0, 100.0}, toyOptions()));
  std::vector<std::vector<double>> R = ES.candidates(), P = Plain.candidates();
  // The same directions, the second parameter's scaled by its 100.
  EXPECT_EQ(R[0][0], P[0][0]);
  EXPECT_NEAR(R[0][1] - 100.0, 100.0 * (P[0][1] - 100.0), 1e-9);
}

TEST(EvolutionTest, ClimbsWithTheUnflaggedParametersFixed) {
  // Parameters 1 and 3 are not perturbed: they keep their starting values
  // in every candidate and after every step, while 0 and 2 climb.
  const bool Perturbed[] = {true, false, true, false};
  EvolutionStrategies ES = cantFail(EvolutionStrategies::start(
      {0.0, 0.25, 0.0, -0.5}, toyOptions(), Perturbed));
  for (const std::vector<double> &C : ES.candidates()) {
    EXPECT_EQ(C[1], 0.25);
    EXPECT_EQ(C[3], -0.5);
  }
  double Before = reward(ES.parameters());
  run(ES, 100);
  std::vector<double> P = ES.parameters();
  EXPECT_EQ(P[1], 0.25);
  EXPECT_EQ(P[3], -0.5);
  EXPECT_GT(reward(P), Before);
  EXPECT_NE(P[0], 0.0);
  EXPECT_NE(P[2], 0.0);
}

TEST(EvolutionTest, RefusesPerturbationFlagsThatDoNotFit) {
  EXPECT_EQ(
      toString(EvolutionStrategies::start({0.0, 1.0}, toyOptions(), {true})
                   .takeError()),
      "perturbation flags for 1 parameters; the model has 2");
  EXPECT_EQ(toString(EvolutionStrategies::start({0.0, 1.0}, toyOptions(),
                                                {false, false})
                         .takeError()),
            "no parameter is perturbed");
}

TEST(EvolutionTest, RefusesWhatItCannotUse) {
  EvolutionOptions Odd = toyOptions();
  Odd.Perturbations = 7;
  EXPECT_EQ(toString(EvolutionStrategies::start({0.0}, Odd).takeError()),
            "the number of perturbations must be even and positive (each "
            "direction is tried both ways); got 7");
  EvolutionOptions Flat = toyOptions();
  Flat.Sigma = 0;
  EXPECT_EQ(toString(EvolutionStrategies::start({0.0}, Flat).takeError()),
            "sigma must be a positive number");

  EvolutionStrategies ES = started();
  EXPECT_EQ(toString(ES.update({1.0, 2.0})), "step 0 needs 20 rewards; got 2");
  std::vector<double> R(20, 1.0);
  R[3] = std::nan("");
  EXPECT_EQ(toString(ES.update(R)), "step 0: a reward is not a finite number");
  EXPECT_EQ(ES.step(), 0u);

  EXPECT_EQ(
      toString(EvolutionStrategies::load("{\"format\": \"irtk-mlp\"}", "c.json")
                   .takeError()),
      "c.json: not an evolution-strategies checkpoint (format irtk-es)");
  std::string Checkpoint;
  raw_string_ostream OS(Checkpoint);
  ES.save(OS);
  Expected<EvolutionStrategies> Cut = EvolutionStrategies::load(
      Checkpoint.substr(0, Checkpoint.size() / 2), "c.json");
  ASSERT_FALSE(static_cast<bool>(Cut));
  EXPECT_EQ(toString(Cut.takeError()).rfind("c.json:", 0), 0u);
}

TEST(EvolutionTest, EqualRewardsLeaveTheParameters) {
  EvolutionStrategies ES = started();
  ASSERT_FALSE(static_cast<bool>(ES.update(std::vector<double>(20, 5.0))));
  EXPECT_EQ(ES.step(), 1u);
  EXPECT_EQ(ES.parameters(), std::vector<double>(4, 0.0));
}

/// The checkpoint of a run of two parameters after one step (Adam has
/// moments), with \p Change applied to its JSON.
std::string checkpointWith(function_ref<void(json::Object &)> Change) {
  EvolutionStrategies ES =
      cantFail(EvolutionStrategies::start({0.5, -1.0}, toyOptions(), {},
                                          "xxh3:"
                                          "0123456789"
                                          "abcdef"));
  std::vector<double> R;
  for (size_t K = 0; K < 20; ++K)
    R.push_back(static_cast<double>(K));
  cantFail(ES.update(R));
  std::string Text;
  raw_string_ostream OS(Text);
  ES.save(OS);
  json::Value V = cantFail(json::parse(Text));
  Change(*V.getAsObject());
  std::string Out;
  raw_string_ostream Changed(Out);
  Changed << V;
  return Out;
}

std::string loadError(function_ref<void(json::Object &)> Change) {
  Expected<EvolutionStrategies> ES =
      EvolutionStrategies::load(checkpointWith(Change), "c.json");
  if (ES)
    return "accepted";
  return toString(ES.takeError());
}

TEST(EvolutionTest, LoadsTheUnchangedCheckpoint) {
  EXPECT_EQ(loadError([](json::Object &) {}), "accepted");
}

TEST(EvolutionTest, RefusesACheckpointWithANegativeSecondMoment) {
  EXPECT_EQ(loadError([](json::Object &C) {
              (*C.getObject("adam"))["v"] = json::Array{0.5, -1e-3};
            }),
            "c.json: adam.v[1]: is negative");
}

TEST(EvolutionTest, RefusesACheckpointWithANegativeNoiseScale) {
  EXPECT_EQ(loadError([](json::Object &C) {
              C["noise_scale"] = json::Array{1.0, -1.0};
            }),
            "c.json: noise_scale[1]: is negative");
}

TEST(EvolutionTest, RefusesACheckpointThatPerturbsNothing) {
  EXPECT_EQ(loadError([](json::Object &C) {
              C["noise_scale"] = json::Array{0.0, 0.0};
            }),
            "c.json: noise_scale: every scale is 0 (no parameter is "
            "perturbed)");
}

TEST(EvolutionTest, RefusesACheckpointWithAShortVector) {
  EXPECT_EQ(loadError([](json::Object &C) {
              (*C.getObject("adam"))["m"] = json::Array{0.5};
            }),
            "c.json: adam.m: 1 numbers; the parameters are 2");
  EXPECT_EQ(
      loadError([](json::Object &C) { C["noise_scale"] = json::Array{1.0}; }),
      "c.json: noise_scale: 1 numbers; the parameters are 2");
}

TEST(EvolutionTest, RefusesACheckpointWithAStepOutOfRange) {
  EXPECT_EQ(loadError([](json::Object &C) { C["step"] = 4294967295; }),
            "c.json: step: 4294967295 is out of range (0 to 2^32 - 2)");
  EXPECT_EQ(loadError([](json::Object &C) { C["step"] = -1; }),
            "c.json: step: -1 is out of range (0 to 2^32 - 2)");
}

TEST(EvolutionTest, RefusesACheckpointWhoseAdamIsAheadOfItsSteps) {
  EXPECT_EQ(loadError([](json::Object &C) { (*C.getObject("adam"))["t"] = 2; }),
            "c.json: adam.t: expected Adam's step count, from 0 to the step "
            "(1)");
  EXPECT_EQ(loadError([](json::Object &C) { (*C.getObject("adam"))["t"] = 0; }),
            "c.json: adam: moments without a step, or steps without moments");
}

TEST(EvolutionTest, RefusesACheckpointWithANegativeSeed) {
  EXPECT_EQ(loadError([](json::Object &C) {
              (*C.getObject("options"))["seed"] = -3;
            }),
            "c.json: options.seed: -3 is negative");
}

TEST(EvolutionTest, RefusesACheckpointWithOptionsStartRefuses) {
  EXPECT_EQ(loadError([](json::Object &C) {
              (*C.getObject("options"))["sigma"] = -0.5;
            }),
            "c.json: options: sigma must be a positive number");
}

TEST(EvolutionTest, RefusesACheckpointWithABadFingerprint) {
  EXPECT_EQ(loadError([](json::Object &C) { C["model"] = "md5:0"; }),
            "c.json: model: expected a fingerprint 'xxh3:' and 16 hex digits");
}

TEST(EvolutionTest, KeepsTheFingerprintThroughACheckpoint) {
  Expected<EvolutionStrategies> ES = EvolutionStrategies::load(
      checkpointWith([](json::Object &) {}), "c.json");
  ASSERT_TRUE(static_cast<bool>(ES)) << toString(ES.takeError());
  EXPECT_EQ(ES->fingerprint(), "xxh3:0123456789abcdef");
}

/// A model of one linear layer reading one input: two parameters.
MLPDescription tinyModel(double Mean) {
  MLPDescription D;
  D.Advisor = "inline";
  D.Decision = "inlining_decision";
  D.Inputs = {{"a", {Mean}, {1}}};
  MLPDescription::Layer L;
  L.Weights = {{0.5}};
  L.Bias = {-1.0};
  D.Layers.push_back(L);
  return D;
}

TEST(EvolutionTest, RefusesAModelOtherThanTheOneStartedFrom) {
  MLPDescription M = tinyModel(0);
  EvolutionStrategies ES = cantFail(EvolutionStrategies::start(
      M.parameters(), toyOptions(), {}, modelFingerprint(M)));
  EXPECT_FALSE(static_cast<bool>(ES.checkModel(M, "m.json", "c.json")));
  // The same weights: a fingerprint leaves them out.
  MLPDescription Moved = M;
  Moved.setParameters({3.0, 4.0});
  EXPECT_FALSE(static_cast<bool>(ES.checkModel(Moved, "m.json", "c.json")));
  // Another normalisation, the same shape.
  std::string E = toString(ES.checkModel(tinyModel(1), "o.json", "c.json"));
  EXPECT_TRUE(StringRef(E).starts_with(
      "o.json: the checkpoint c.json was started from another "
      "model (xxh3:"))
      << E;
}

/// What checkModels says of tinyModel's run under the options \p Change
/// makes of toyOptions().
std::string checkModelsError(function_ref<void(EvolutionOptions &)> Change) {
  MLPDescription M = tinyModel(0);
  EvolutionOptions O = toyOptions();
  Change(O);
  EvolutionStrategies ES =
      cantFail(EvolutionStrategies::start(M.parameters(), O));
  return toString(ES.checkModels(M, "c.json: not written"));
}

TEST(EvolutionTest, AcceptsCandidatesThatLoad) {
  EXPECT_EQ(checkModelsError([](EvolutionOptions &) {}), "");
}

TEST(EvolutionTest, RefusesCandidatesThatOverflow) {
  std::string E =
      checkModelsError([](EvolutionOptions &O) { O.Sigma = 1e300; });
  EXPECT_TRUE(StringRef(E).starts_with(
      "c.json: not written: candidate 0 (try a smaller sigma): "
      "layers[0]"))
      << E;
}

TEST(EvolutionTest, RefusesAStepSizeWhoseFirstUpdateOverflows) {
  std::string E =
      checkModelsError([](EvolutionOptions &O) { O.StepSize = 1e300; });
  EXPECT_TRUE(StringRef(E).starts_with(
      "c.json: not written: the parameters after the next "
      "update (try a smaller step size): layers[0]"))
      << E;
}

} // namespace
