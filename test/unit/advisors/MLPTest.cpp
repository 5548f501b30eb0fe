//===- MLPTest.cpp - The model file format and its evaluation -------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/advisors/MLP.h"
#include "irtk/advisors/Policy.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>
#include <tuple>

using namespace llvm;
using namespace irtk::advisors;

namespace {

/// Two inputs: a scalar int64 "a" and a float pair "b".
PolicySpec twoInputs() {
  return {"inline",
          {TensorSpec::createSpec<int64_t>("a", {1}),
           TensorSpec::createSpec<float>("b", {2}),
           TensorSpec::createSpec<int64_t>("inlining_default", {1})},
          TensorSpec::createSpec<int64_t>("inlining_decision", {1}),
          2,
          TensorSpec::createSpec<float>("delta_size", {1})};
}

/// out = relu(2 * (a - 1) / 2 - b0 + b1) - 0.5, a logit.
const char *const Model = R"({
  "format": "irtk-mlp", "version": 1, "advisor": "inline",
  "decision": "inlining_decision",
  "inputs": [{"name": "a", "mean": [1], "scale": [2]},
             {"name": "b", "mean": [0, 0], "scale": [1, 1]}],
  "layers": [{"activation": "relu", "weights": [[2, -1, 1]], "bias": [0]},
             {"activation": "linear", "weights": [[1]], "bias": [-0.5]}],
  "output": {"kind": "logit"}
})";

/// The model of \p Text bound to twoInputs(); an error from parsing or
/// binding.
Expected<std::unique_ptr<MLPModel>> bindTwoInputs(StringRef Text) {
  Expected<MLPDescription> D = MLPDescription::parse(Text, "m.json");
  if (!D)
    return D.takeError();
  return MLPModel::bind(std::move(*D), twoInputs(), "m.json");
}

std::string errorOf(StringRef Text) {
  Expected<MLPDescription> D = MLPDescription::parse(Text, "m.json");
  if (D)
    return "";
  return toString(D.takeError());
}

TEST(MLPTest, EvaluatesLayersWithNormalisation) {
  Expected<std::unique_ptr<MLPModel>> M = bindTwoInputs(Model);
  ASSERT_TRUE(!!M) << toString(M.takeError());
  int64_t A = 3, Default = 0;
  float B[2] = {0.25f, 0.0f};
  std::vector<const void *> Buffers{&A, B, &Default};
  // relu(2 * 1 - 0.25 + 0) - 0.5 = 1.25
  EXPECT_DOUBLE_EQ((*M)->outputs(Buffers)[0], 1.25);
  EXPECT_EQ((*M)->evaluate(Buffers), 1);
  A = 1; // relu(0 - 0.25) - 0.5 = -0.5
  EXPECT_DOUBLE_EQ((*M)->outputs(Buffers)[0], -0.5);
  EXPECT_EQ((*M)->evaluate(Buffers), 0);
}

TEST(MLPTest, ALogitDepartsFromTheDefaultOnlyBeyondTheMargin) {
  std::string Text = Model;
  std::string Output = R"("kind": "logit"})";
  Text.replace(Text.find(Output), Output.size(),
               R"("kind": "logit", "default_margin": 2})");
  Expected<std::unique_ptr<MLPModel>> M = bindTwoInputs(Text);
  ASSERT_TRUE(!!M) << toString(M.takeError());
  int64_t A = 3, Default = 0;
  float B[2] = {0.25f, 0.0f};
  std::vector<const void *> Buffers{&A, B, &Default};
  EXPECT_EQ((*M)->evaluate(Buffers), 0); // logit 1.25, within the margin
  A = 5;                                 // relu(4 - 0.25) - 0.5 = 3.25
  EXPECT_EQ((*M)->evaluate(Buffers), 1);
  Default = 1;
  A = 1; // logit -0.5: 0 is not far enough below
  EXPECT_EQ((*M)->evaluate(Buffers), 1);
  EXPECT_TRUE((*M)->readsInput(2));
}

/// Model with \p Output in place of its output object's kind.
std::string withOutput(StringRef Output) {
  std::string Text = Model;
  std::string Kind = R"("kind": "logit"})";
  Text.replace(Text.find(Kind), Kind.size(), Output.str());
  return Text;
}

TEST(MLPTest, ASupportBoxKeepsTheDefaultOutsideIt) {
  Expected<std::unique_ptr<MLPModel>> M = bindTwoInputs(
      withOutput(R"("kind": "logit", "default_margin": 0, )"
                 R"("support": [{"default": 0, "bounds": {"a": [2, 4]}}]})"));
  ASSERT_TRUE(!!M) << toString(M.takeError());
  int64_t A = 3, Default = 0;
  float B[2] = {0.25f, 0.0f};
  std::vector<const void *> Buffers{&A, B, &Default};
  EXPECT_EQ((*M)->evaluate(Buffers), 1); // logit 1.25, a within [2, 4]
  A = 5;                                 // logit 3.25, a above the box
  EXPECT_EQ((*M)->evaluate(Buffers), 0);
  A = 4; // the bounds belong to the box: logit 2.25
  EXPECT_EQ((*M)->evaluate(Buffers), 1);
  // No box for default 1: the model never departs from it.
  Default = 1;
  A = 1; // logit -0.5
  EXPECT_EQ((*M)->evaluate(Buffers), 1);
}

TEST(MLPTest, ASupportRoundTripsInInputOrder) {
  Expected<MLPDescription> D = MLPDescription::parse(
      withOutput(R"("kind": "logit", "default_margin": 1, "support": [)"
                 R"({"default": 1, "bounds": {}}, )"
                 R"({"default": 0, "bounds": {"a": [-1.5, 0.1]}}]})"),
      "m.json");
  ASSERT_TRUE(!!D) << toString(D.takeError());
  ASSERT_TRUE(D->Support);
  std::string Text;
  raw_string_ostream OS(Text);
  D->write(OS);
  Expected<MLPDescription> Back = MLPDescription::parse(Text, "back.json");
  ASSERT_TRUE(!!Back) << toString(Back.takeError());
  ASSERT_TRUE(Back->Support);
  ASSERT_EQ(Back->Support->size(), 2u);
  EXPECT_EQ((*Back->Support)[0].Default, 1);
  EXPECT_TRUE((*Back->Support)[0].Bounds.empty());
  EXPECT_EQ((*Back->Support)[1].Default, 0);
  ASSERT_EQ((*Back->Support)[1].Bounds.size(), 1u);
  EXPECT_EQ((*Back->Support)[1].Bounds[0].Input, 0u);
  EXPECT_EQ((*Back->Support)[1].Bounds[0].Low, -1.5);
  EXPECT_EQ((*Back->Support)[1].Bounds[0].High, 0.1);
  // An empty box lets the model depart anywhere from its default.
  EXPECT_TRUE(Back->mayDepart(1, [](size_t) { return 1e9; }));
  EXPECT_FALSE(Back->mayDepart(0, [](size_t) { return 1.0; }));
  EXPECT_FALSE(Back->mayDepart(2, [](size_t) { return 0.0; }));
}

/// A model of twoInputs() with hidden layers of 4 and 3 units whose
/// weights and biases come from \p Seed.
MLPDescription seededModel(unsigned Seed) {
  std::mt19937 Rng(Seed);
  std::uniform_real_distribution<double> U(-1, 1);
  MLPDescription D;
  D.Advisor = "inline";
  D.Decision = "inlining_decision";
  D.Inputs = {{"a", {1}, {2}}, {"b", {0, 0.5}, {1, 3}}};
  for (auto [Rows, Cols, Act] : {std::tuple{4u, 3u, ActivationKind::ReLU},
                                 {3u, 4u, ActivationKind::ReLU},
                                 {1u, 3u, ActivationKind::Linear}}) {
    MLPDescription::Layer L;
    L.Activation = Act;
    L.Weights.assign(Rows, std::vector<double>(Cols));
    for (auto &Row : L.Weights)
      for (double &W : Row)
        W = U(Rng);
    L.Bias.resize(Rows);
    for (double &B : L.Bias)
      B = U(Rng);
    D.Layers.push_back(std::move(L));
  }
  return D;
}

TEST(MLPTest, AnAverageOfModelsOutputsTheMeanOfTheirOutputs) {
  std::vector<MLPDescription> Models{seededModel(1), seededModel(2),
                                     seededModel(3)};
  Expected<MLPDescription> Avg = averageModels(Models);
  ASSERT_TRUE(!!Avg) << toString(Avg.takeError());
  // Written and read back: the average is a model file like any other.
  std::string Text;
  raw_string_ostream OS(Text);
  Avg->write(OS);
  Expected<std::unique_ptr<MLPModel>> M = bindTwoInputs(Text);
  ASSERT_TRUE(!!M) << toString(M.takeError());
  EXPECT_EQ((*M)->description().Layers[1].Weights.size(), 9u);
  std::vector<std::unique_ptr<MLPModel>> Each;
  for (MLPDescription &D : Models)
    Each.push_back(cantFail(MLPModel::bind(D, twoInputs(), "m.json")));
  std::mt19937 Rng(7);
  std::uniform_real_distribution<float> U(-4, 4);
  for (int Trial = 0; Trial < 50; ++Trial) {
    int64_t A = Trial - 25, Default = 0;
    float B[2] = {U(Rng), U(Rng)};
    std::vector<const void *> Buffers{&A, B, &Default};
    double Mean = 0;
    for (const auto &E : Each)
      Mean += E->outputs(Buffers)[0] / 3;
    EXPECT_NEAR((*M)->outputs(Buffers)[0], Mean, 1e-12) << "trial " << Trial;
  }
}

TEST(MLPTest, AveragingRefusesModelsThatDiffer) {
  MLPDescription Other = seededModel(2);
  Other.Inputs[1].Scale[1] = 4;
  Expected<MLPDescription> Avg = averageModels({seededModel(1), Other});
  ASSERT_FALSE(!!Avg);
  EXPECT_EQ(toString(Avg.takeError()),
            "cannot average model 1 with model 0: input 1 ('b') differs in "
            "name or normalisation");
  MLPDescription Tanh = seededModel(1);
  Tanh.Layers.back().Activation = ActivationKind::Tanh;
  Avg = averageModels({Tanh, Tanh});
  ASSERT_FALSE(!!Avg);
  EXPECT_NE(toString(Avg.takeError()).find("without a linear last layer"),
            std::string::npos);
  Other = seededModel(2);
  Other.DefaultMargin = 1;
  Avg = averageModels({seededModel(1), Other});
  ASSERT_FALSE(!!Avg);
  EXPECT_EQ(toString(Avg.takeError()),
            "cannot average model 1 with model 0: their default margins "
            "differ");
}

TEST(MLPTest, RejectsBadSupports) {
  auto Error = [](StringRef Support,
                  StringRef Margin = R"("default_margin": 0, )") {
    return errorOf(withOutput(
        (R"("kind": "logit", )" + Margin + R"("support": )" + Support + "}")
            .str()));
  };
  EXPECT_EQ(Error("{}"), "m.json: output.support: expected an array");
  EXPECT_EQ(Error("[]", ""),
            "m.json: output.support: needs a default_margin (the support says "
            "where the model may depart from the default decision)");
  EXPECT_EQ(Error(R"([{"default": 0.5, "bounds": {}}])"),
            "m.json: output.support[0].default: expected an integer");
  EXPECT_EQ(Error(R"([{"default": 0, "bounds": {}}, )"
                  R"({"default": 0, "bounds": {}}])"),
            "m.json: output.support[1].default: a second box for default 0");
  EXPECT_EQ(Error(R"([{"default": 0, "bounds": {"c": [0, 1]}}])"),
            "m.json: output.support[0].bounds.c: not an input of the model");
  EXPECT_EQ(Error(R"([{"default": 0, "bounds": {"b": [0, 1]}}])"),
            "m.json: output.support[0].bounds.b: the input has 2 elements; a "
            "bound needs one");
  EXPECT_EQ(Error(R"([{"default": 0, "bounds": {"a": [2, 1]}}])"),
            "m.json: output.support[0].bounds.a: low is above high");
  EXPECT_EQ(Error(R"([{"default": 0, "bounds": {}, "x": 1}])"),
            "m.json: output.support[0]: unknown key 'x' (expected default, "
            "bounds)");
}

TEST(MLPTest, ReadsOnlyTheInputsItNames) {
  Expected<std::unique_ptr<MLPModel>> M = bindTwoInputs(Model);
  ASSERT_TRUE(!!M) << toString(M.takeError());
  EXPECT_TRUE((*M)->readsInput(0));
  EXPECT_TRUE((*M)->readsInput(1));
  EXPECT_FALSE((*M)->readsInput(2)); // inlining_default: not an input
}

TEST(MLPTest, WriteThenParseGivesTheSameModel) {
  Expected<MLPDescription> D = MLPDescription::parse(Model, "m.json");
  ASSERT_TRUE(!!D);
  D->Layers[0].Weights[0][1] = 0.1; // not exactly representable
  std::string Text;
  raw_string_ostream OS(Text);
  D->write(OS);
  Expected<MLPDescription> Back = MLPDescription::parse(Text, "back.json");
  ASSERT_TRUE(!!Back) << toString(Back.takeError());
  EXPECT_EQ(Back->Layers[0].Weights, D->Layers[0].Weights);
  EXPECT_EQ(Back->Inputs[0].Scale, D->Inputs[0].Scale);
  EXPECT_EQ(Back->Layers[1].Bias, D->Layers[1].Bias);
}

TEST(MLPTest, RejectsAWrongWidthWithItsPlace) {
  std::string Bad = Model;
  Bad.replace(Bad.find("[[2, -1, 1]]"), 12, "[[2, -1]]");
  EXPECT_EQ(errorOf(Bad),
            "m.json: layers[0].weights[0]: has 2 elements; expected 3");
}

TEST(MLPTest, RejectsAZeroScale) {
  std::string Bad = Model;
  Bad.replace(Bad.find("\"scale\": [2]"), 12, "\"scale\": [0]");
  EXPECT_EQ(errorOf(Bad), "m.json: inputs[0].scale[0]: is zero");
}

TEST(MLPTest, RejectsALogitWithTwoOutputs) {
  std::string Bad = Model;
  Bad.replace(Bad.find("[[1]], \"bias\": [-0.5]"), 21,
              "[[1], [1]], \"bias\": [0, 0]");
  EXPECT_EQ(errorOf(Bad),
            "m.json: output.kind: 'logit' needs a last layer of 1 output, "
            "not 2");
}

TEST(MLPTest, RejectsAnotherFormatAndVersion) {
  std::string Bad = Model;
  Bad.replace(Bad.find("\"version\": 1"), 12, "\"version\": 2");
  EXPECT_EQ(errorOf(Bad), "m.json: version: is 2; this irtk reads 1");
  EXPECT_EQ(errorOf("[]"), "m.json: top level: expected an object");
}

TEST(MLPTest, BindRejectsAnUnknownInput) {
  std::string Other = Model;
  Other.replace(Other.find("\"name\": \"b\""), 11, "\"name\": \"c\"");
  Expected<MLPDescription> D = MLPDescription::parse(Other, "m.json");
  ASSERT_TRUE(!!D);
  Expected<std::unique_ptr<MLPModel>> M =
      MLPModel::bind(std::move(*D), twoInputs(), "m.json");
  ASSERT_FALSE(!!M);
  EXPECT_EQ(toString(M.takeError()),
            "m.json: input 'c' is not a feature of the inline advisor (with "
            "these options; docs/AdvisorFeatures.md)");
}

TEST(MLPTest, BindRejectsAnotherAdvisorsModel) {
  std::string Other = Model;
  Other.replace(Other.find("\"advisor\": \"inline\""), 19,
                "\"advisor\": \"evict\"");
  Expected<MLPDescription> D = MLPDescription::parse(Other, "m.json");
  ASSERT_TRUE(!!D);
  Expected<std::unique_ptr<MLPModel>> M =
      MLPModel::bind(std::move(*D), twoInputs(), "m.json");
  ASSERT_FALSE(!!M);
  EXPECT_EQ(toString(M.takeError()),
            "m.json: the model is for the 'evict' advisor, not 'inline'");
}

TEST(MLPTest, ArgMaxSkipsMaskedChoices) {
  PolicySpec S{"evict",
               {TensorSpec::createSpec<int64_t>("evictable", {3}),
                TensorSpec::createSpec<float>("x", {1}),
                TensorSpec::createSpec<int64_t>("default", {1})},
               TensorSpec::createSpec<int64_t>("index_to_evict", {1}),
               2,
               TensorSpec::createSpec<float>("reward", {1})};
  Expected<MLPDescription> D = MLPDescription::parse(R"({
    "format": "irtk-mlp", "version": 1, "advisor": "evict",
    "decision": "index_to_evict",
    "inputs": [{"name": "x", "mean": [0], "scale": [1]}],
    "layers": [{"activation": "linear", "weights": [[3], [2], [1]],
                "bias": [0, 0, 0]}],
    "output": {"kind": "argmax", "mask": "evictable"}})",
                                                     "e.json");
  ASSERT_TRUE(!!D) << toString(D.takeError());
  Expected<std::unique_ptr<MLPModel>> M =
      MLPModel::bind(std::move(*D), S, "e.json");
  ASSERT_TRUE(!!M) << toString(M.takeError());
  int64_t Mask[3] = {1, 1, 1}, Default = 0;
  float X = 1;
  std::vector<const void *> Buffers{Mask, &X, &Default};
  EXPECT_EQ((*M)->evaluate(Buffers), 0);
  Mask[0] = 0;
  EXPECT_EQ((*M)->evaluate(Buffers), 1);
  Mask[1] = 0;
  EXPECT_EQ((*M)->evaluate(Buffers), 2);
}

/// Three positions: a per-position "x", a pair "y" per position, a scalar
/// "g" every position sees, and the mask.
PolicySpec positions() {
  return {"evict",
          {TensorSpec::createSpec<int64_t>("evictable", {3}),
           TensorSpec::createSpec<float>("x", {3}),
           TensorSpec::createSpec<float>("y", {3, 2}),
           TensorSpec::createSpec<float>("g", {1}),
           TensorSpec::createSpec<int64_t>("default", {1})},
          TensorSpec::createSpec<int64_t>("index_to_evict", {1}),
          4,
          TensorSpec::createSpec<float>("reward", {1})};
}

/// score(p) = (x[p] - 1) / 2 + y[p][1] - g: one network for every position.
const char *const PositionalModel = R"({
  "format": "irtk-mlp", "version": 1, "advisor": "evict",
  "decision": "index_to_evict",
  "inputs": [{"name": "x", "mean": [1], "scale": [2]},
             {"name": "y", "mean": [0, 0], "scale": [1, 1]},
             {"name": "g", "mean": [0], "scale": [1]}],
  "layers": [{"activation": "linear", "weights": [[1, 0, 1, -1]],
              "bias": [0]}],
  "output": {"kind": "argmax", "mask": "evictable", "positions": 3}})";

TEST(MLPTest, PositionsShareOneNetwork) {
  Expected<MLPDescription> D = MLPDescription::parse(PositionalModel, "p.json");
  ASSERT_TRUE(!!D) << toString(D.takeError());
  Expected<std::unique_ptr<MLPModel>> M =
      MLPModel::bind(std::move(*D), positions(), "p.json");
  ASSERT_TRUE(!!M) << toString(M.takeError());
  int64_t Mask[3] = {1, 1, 1}, Default = 0;
  float X[3] = {1, 5, 3}, Y[6] = {9, 0, 9, -3, 9, 0.5f}, G = 1;
  std::vector<const void *> Buffers{Mask, X, Y, &G, &Default};
  std::vector<double> Out = (*M)->outputs(Buffers);
  ASSERT_EQ(Out.size(), 3u);
  EXPECT_DOUBLE_EQ(Out[0], 0 + 0 - 1);
  EXPECT_DOUBLE_EQ(Out[1], 2 - 3 - 1);
  EXPECT_DOUBLE_EQ(Out[2], 1 + 0.5 - 1);
  EXPECT_EQ((*M)->evaluate(Buffers), 2);
  Mask[2] = 0;
  EXPECT_EQ((*M)->evaluate(Buffers), 0);
}

TEST(MLPTest, ADefaultMarginKeepsTheDefaultUnlessBeatenByMore) {
  std::string Text = PositionalModel;
  std::string Output = R"("positions": 3})";
  Text.replace(Text.find(Output), Output.size(),
               R"("positions": 3, "default_margin": 2})");
  Expected<MLPDescription> D = MLPDescription::parse(Text, "p.json");
  ASSERT_TRUE(!!D) << toString(D.takeError());
  Expected<std::unique_ptr<MLPModel>> M =
      MLPModel::bind(std::move(*D), positions(), "p.json");
  ASSERT_TRUE(!!M) << toString(M.takeError());
  // Scores -1, -2, 0.5 (as in PositionsShareOneNetwork).
  int64_t Mask[3] = {1, 1, 1}, Default = 0;
  float X[3] = {1, 5, 3}, Y[6] = {9, 0, 9, -3, 9, 0.5f}, G = 1;
  std::vector<const void *> Buffers{Mask, X, Y, &G, &Default};
  EXPECT_EQ((*M)->evaluate(Buffers), 0); // 0.5 is not above -1 + 2
  Default = 1;
  EXPECT_EQ((*M)->evaluate(Buffers), 2); // 0.5 is above -2 + 2
  Default = 0;
  Mask[0] = 0; // an illegal default is never kept
  EXPECT_EQ((*M)->evaluate(Buffers), 2);
  EXPECT_TRUE((*M)->readsInput(4));
}

TEST(MLPTest, APositionalModelDecidesAsFromEveryScore) {
  // evaluate() scores only the legal positions; its decision must be the
  // one every score gives: the best legal one, or the default within the
  // margin. A two-layer network, random states, masks and defaults.
  std::string Text = R"({
    "format": "irtk-mlp", "version": 1, "advisor": "evict",
    "decision": "index_to_evict",
    "inputs": [{"name": "x", "mean": [0.5], "scale": [2]},
               {"name": "y", "mean": [0, 1], "scale": [1, 3]},
               {"name": "g", "mean": [0], "scale": [1]}],
    "layers": [{"activation": "relu",
                "weights": [[1, -0.5, 2, 0.25], [-1, 1, 0.5, 0],
                            [0.3, 0.7, -1.1, 1]],
                "bias": [0.1, 0, -0.2]},
               {"activation": "linear", "weights": [[1, -2, 0.5]],
                "bias": [0]}],
    "output": {"kind": "argmax", "mask": "evictable", "positions": 3,
               "default_margin": 0.3}})";
  Expected<MLPDescription> D = MLPDescription::parse(Text, "p.json");
  ASSERT_TRUE(!!D) << toString(D.takeError());
  Expected<std::unique_ptr<MLPModel>> M =
      MLPModel::bind(std::move(*D), positions(), "p.json");
  ASSERT_TRUE(!!M) << toString(M.takeError());
  std::mt19937 Rng(7);
  std::uniform_real_distribution<float> U(-3, 3);
  unsigned Kept = 0, Departed = 0;
  for (int Trial = 0; Trial < 2000; ++Trial) {
    int64_t Mask[3], Default = Rng() % 3;
    float X[3], Y[6], G = U(Rng);
    for (int P = 0; P < 3; ++P)
      Mask[P] = Rng() % 2, X[P] = U(Rng), Y[2 * P] = U(Rng),
      Y[2 * P + 1] = U(Rng);
    std::vector<const void *> Buffers{Mask, X, Y, &G, &Default};
    std::vector<double> Out = (*M)->outputs(Buffers);
    int64_t Best = -1;
    for (int P = 0; P < 3; ++P)
      if (Mask[P] && (Best < 0 || Out[P] > Out[Best]))
        Best = P;
    int64_t Want = Best < 0 ? 0 : Best;
    if (Best >= 0 && Mask[Default] && Out[Best] <= Out[Default] + 0.3)
      Want = Default;
    ASSERT_EQ((*M)->evaluate(Buffers), Want) << "trial " << Trial;
    Kept += Want == Default;
    Departed += Want != Default;
  }
  // Both branches of the rule were taken.
  EXPECT_GT(Kept, 100u);
  EXPECT_GT(Departed, 100u);
}

TEST(MLPTest, PositionsRoundTripAndNeedOneOutput) {
  Expected<MLPDescription> D = MLPDescription::parse(PositionalModel, "p.json");
  ASSERT_TRUE(!!D);
  std::string Text;
  raw_string_ostream OS(Text);
  D->write(OS);
  Expected<MLPDescription> Again = MLPDescription::parse(Text, "q.json");
  ASSERT_TRUE(!!Again) << toString(Again.takeError());
  EXPECT_EQ(Again->Positions, 3u);
  EXPECT_FALSE(Again->DefaultMargin);
  D->DefaultMargin = 0.25;
  Text.clear();
  D->write(OS);
  Again = MLPDescription::parse(Text, "q.json");
  ASSERT_TRUE(!!Again) << toString(Again.takeError());
  EXPECT_EQ(Again->DefaultMargin, 0.25);
  std::string Two = PositionalModel;
  Two.replace(Two.find("[[1, 0, 1, -1]]"), 15, "[[1, 0, 1, -1], [0, 0, 0, 0]]");
  Two.replace(Two.find(R"("bias": [0]})"), 12, R"("bias": [0, 0]})");
  EXPECT_EQ(errorOf(Two), "m.json: output.positions: scoring positions needs "
                          "a last layer of 1 output, not 2");
}

TEST(MLPTest, RejectsBadPositionsAndMargins) {
  auto With = [](StringRef From, StringRef To) {
    std::string Text = PositionalModel;
    Text.replace(Text.find(From.str()), From.size(), To.str());
    return Text;
  };
  StringRef Output = R"("positions": 3})";
  EXPECT_EQ(errorOf(With(Output, R"("positions": 1})")),
            "m.json: output.positions: expected an integer from 2 to 65536");
  EXPECT_EQ(errorOf(With(Output, R"("positions": 3, "default_margin": -1})")),
            "m.json: output.default_margin: expected a number from 0");
  EXPECT_EQ(errorOf(With(R"("kind": "argmax", "mask": "evictable", )"
                         R"("positions": 3})",
                         R"("kind": "logit", "positions": 3})")),
            "m.json: output.positions: only 'argmax' takes positions");
}

TEST(MLPTest, APositionalModelSplitsSomeInput) {
  // x, y and g all read whole: no position would differ from another.
  PolicySpec S = positions();
  S.Inputs[1] = TensorSpec::createSpec<float>("x", {1});
  S.Inputs[2] = TensorSpec::createSpec<float>("y", {2});
  Expected<MLPDescription> D = MLPDescription::parse(PositionalModel, "p.json");
  ASSERT_TRUE(!!D);
  Expected<std::unique_ptr<MLPModel>> M =
      MLPModel::bind(std::move(*D), S, "p.json");
  ASSERT_FALSE(!!M);
  EXPECT_EQ(toString(M.takeError()),
            "p.json: no input has elements per position: every one of the 3 "
            "positions would score the same");
}

TEST(MLPTest, BindChecksTheElementsPerPosition) {
  std::string Text = PositionalModel;
  // y gives 2 elements per position; 3 match neither 2 nor all 6.
  std::string Pair = R"("mean": [0, 0], "scale": [1, 1])";
  Text.replace(Text.find(Pair), Pair.size(),
               R"("mean": [0, 0, 0], "scale": [1, 1, 1])");
  Text.replace(Text.find("[[1, 0, 1, -1]]"), 15, "[[1, 0, 1, 0, -1]]");
  Expected<MLPDescription> D = MLPDescription::parse(Text, "p.json");
  ASSERT_TRUE(!!D) << toString(D.takeError());
  Expected<std::unique_ptr<MLPModel>> M =
      MLPModel::bind(std::move(*D), positions(), "p.json");
  ASSERT_FALSE(!!M);
  EXPECT_EQ(toString(M.takeError()),
            "p.json: input 'y' has 3 elements; the advisor's has 6 (or 2 per "
            "position when divisible by 3)");
}

TEST(MLPTest, RejectsUnknownKeys) {
  // A misspelt or invented key was ignored: the model did not do what its
  // file said.
  auto With = [](StringRef From, StringRef To) {
    std::string S = Model;
    S.replace(S.find(From.str()), From.size(), To.str());
    return errorOf(S);
  };
  EXPECT_EQ(With(R"("bias": [-0.5]})", R"("bias": [-0.5], "units": 1e9})"),
            "m.json: layers[1]: unknown key 'units' (expected activation, "
            "weights, bias)");
  EXPECT_EQ(With(R"("scale": [2]})", R"("scale": [2], "clip": 3})"),
            "m.json: inputs[0]: unknown key 'clip' (expected name, mean, "
            "scale)");
  EXPECT_EQ(With(R"({"kind": "logit"})", R"({"kind": "logit", "temp": 2})"),
            "m.json: output: unknown key 'temp' (expected kind, mask, "
            "positions, default_margin, support)");
  EXPECT_EQ(With(R"("version": 1,)", R"("version": 1, "Layers": [], )"),
            "m.json: top level: unknown key 'Layers' (expected format, "
            "version, advisor, decision, inputs, layers, output, training)");
  // Several: the first in sorted order, whatever the file's.
  EXPECT_EQ(With(R"("version": 1,)", R"("version": 1, "z": 0, "b": 0, )"),
            "m.json: top level: unknown key 'b' (expected format, version, "
            "advisor, decision, inputs, layers, output, training)");
  // What "training" holds is free-form.
  EXPECT_EQ(With(R"("output": {"kind": "logit"})",
                 R"("output": {"kind": "logit"}, "training": {"x": 1})"),
            "");
}

TEST(MLPTest, RejectsTheDecisionAsAnInput) {
  // Such a model copies the label: irtk-train eval said agreement 1.0.
  std::string S = Model;
  S.replace(S.find(R"("name": "b")"), 11, R"("name": "inlining_decision")");
  EXPECT_EQ(errorOf(S), "m.json: inputs[1]: 'inlining_decision' is the "
                        "model's decision, not an input");
}

TEST(MLPTest, AMaskIsTheAdvisorsMask) {
  // Another 0/1 feature per position (is_free) said nothing of which
  // choices are legal, and was taken.
  std::string S = PositionalModel;
  S.replace(S.find(R"("mask": "evictable")"), 19, R"("mask": "is_free")");
  EXPECT_EQ(errorOf(S), "m.json: output.mask: 'is_free' is not the evict "
                        "advisor's mask; expected 'evictable' (the legal "
                        "choices)");
  std::string Inline = Model;
  Inline.replace(Inline.find(R"({"kind": "logit"})"), 17,
                 R"({"kind": "argmax", "mask": "a"})");
  EXPECT_EQ(errorOf(Inline), "m.json: output.mask: 'a' is not the inline "
                             "advisor's mask (it has none)");
}

TEST(MLPTest, RejectsNumbersThatOverflowInEvaluation) {
  // Finite in double, the runtime's precision, but a feature of 2 times
  // 1e308 is inf, and the decision was made on inf or NaN.
  auto With = [](std::vector<std::pair<StringRef, StringRef>> Changes) {
    std::string S = Model;
    for (auto [From, To] : Changes)
      S.replace(S.find(From.str()), From.size(), To.str());
    return errorOf(S);
  };
  EXPECT_EQ(With({{"[[2, -1, 1]]", "[[2, 1e308, 1]]"}}),
            "m.json: layers[0].weights[0][1]: 1e+308 overflows double: its "
            "input reaches 3.4e+38 for features of up to 3.4e+38");
  EXPECT_EQ(With({{R"("scale": [2])", R"("scale": [1e-300])"}}),
            "m.json: inputs[0].scale[0]: 1e-300 makes features of up to "
            "3.4e+38 overflow double when normalised");
  // No one product overflows; their sum can.
  EXPECT_EQ(With({{"[[2, -1, 1]]", "[[2, 1.5e269, 1.5e269]]"}}),
            "m.json: layers[0].weights[0]: this row's output can overflow "
            "double for features of up to 3.4e+38");
  // Through the layers: the second multiplies what the first can reach,
  // unless tanh bounds it by 1.
  std::pair<StringRef, StringRef> Large = {"[[2, -1, 1]]", "[[2, 1e260, 1]]"},
                                  Next = {"[[1]]", "[[1e10]]"};
  EXPECT_EQ(With({Large, Next}),
            "m.json: layers[1].weights[0][0]: 1e+10 overflows double: its "
            "input reaches 3.4e+298 for features of up to 3.4e+38");
  EXPECT_EQ(With({Large, Next, {R"("relu")", R"("tanh")"}}), "");
  // What irtk-train checks after training: weights that are not numbers.
  Expected<MLPDescription> D = MLPDescription::parse(Model, "m.json");
  ASSERT_TRUE(!!D);
  D->Layers[1].Weights[0][0] = std::nan("");
  EXPECT_EQ(toString(D->checkNumbers("trained")),
            "trained: layers[1].weights[0][0]: expected a finite number");
}

} // namespace

namespace {

// The number arrays of a model are read ahead of llvm::json (for speed);
// these check that what is read is what llvm::json would read, and that a
// fault in such an array is still reported at its place.

TEST(MLPTest, ReadsNumbersInEveryJSONSpelling) {
  const char *Text = R"({"format": "irtk-mlp", "version": 1,
    "advisor": "inline", "decision": "inlining_decision",
    "inputs": [{"name": "a", "mean": [ -0.5 ,1e-3,2E+2, 0 ], "scale": [1,
      2.5, 0.1, 1.7976931348623157e308]}],
    "layers": [{"activation": "linear", "weights": [[0.1, -0, 3e0, 4.9e-324]],
      "bias": [-1.25]}],
    "output": {"kind": "logit"}, "training": {"bias": [1, 2]}})";
  Expected<MLPDescription> D = MLPDescription::parse(Text, "m.json");
  ASSERT_TRUE(!!D) << toString(D.takeError());
  EXPECT_EQ(D->Inputs[0].Mean, (std::vector<double>{-0.5, 1e-3, 2e2, 0}));
  EXPECT_EQ(D->Inputs[0].Scale,
            (std::vector<double>{1, 2.5, 0.1, 1.7976931348623157e308}));
  EXPECT_EQ(D->Layers[0].Weights[0],
            (std::vector<double>{0.1, -0.0, 3, 4.9e-324}));
  EXPECT_EQ(D->Layers[0].Bias, (std::vector<double>{-1.25}));
  // Arrays elsewhere are left to llvm::json: training is written back.
  EXPECT_NE(D->TrainingJSON.find("[1,2]"), std::string::npos)
      << D->TrainingJSON;
}

TEST(MLPTest, FaultsInNumberArraysKeepTheirPlace) {
  std::string Base = Model;
  auto With = [&](StringRef From, StringRef To) {
    std::string S = Base;
    S.replace(S.find(From.str()), From.size(), To.str());
    return errorOf(S);
  };
  EXPECT_EQ(With("[[2, -1, 1]]", "[[2, \"x\", 1]]"),
            "m.json: layers[0].weights[0][1]: expected a finite number");
  EXPECT_EQ(With("[[2, -1, 1]]", "[[2, -1]]"),
            "m.json: layers[0].weights[0]: has 2 elements; expected 3");
  // What the read-ahead does not take (a leading zero, which JSON forbids
  // and llvm::json reads) is left to llvm::json, whatever it decides.
  EXPECT_EQ(With("\"mean\": [1]", "\"mean\": [01]"), "");
  EXPECT_EQ(With("\"bias\": [0]", "\"bias\": [1e999]"),
            "m.json: layers[0].bias[0]: expected a finite number");
}

TEST(MLPTest, AStringLikeAPlaceholderIsJustAString) {
  // A model whose mean is a string, spelled as the read-ahead's
  // placeholders are: still not an array.
  std::string S = Model;
  S.replace(S.find("\"mean\": [1]"), 11, "\"mean\": \"\\u00010\"");
  EXPECT_EQ(errorOf(S), "m.json: inputs[0].mean: expected an array of numbers");
}

} // namespace
