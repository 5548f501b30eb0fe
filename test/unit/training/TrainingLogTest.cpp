//===- TrainingLogTest.cpp - Writing, reading and learning from logs ------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/training/TrainingLog.h"
#include "irtk/advisors/Policy.h"
#include "irtk/training/Trainer.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <random>

using namespace llvm;
using namespace irtk::advisors;
using namespace irtk::training;

namespace {

PolicySpec spec() {
  return {"inline",
          {TensorSpec::createSpec<int64_t>("size", {1}),
           TensorSpec::createSpec<float>("emb", {2}),
           TensorSpec::createSpec<int64_t>("inlining_default", {1})},
          TensorSpec::createSpec<int64_t>("inlining_decision", {1}),
          2,
          TensorSpec::createSpec<float>("delta_size", {1})};
}

struct TempLog {
  SmallString<128> Path;
  TempLog() {
    EXPECT_FALSE(sys::fs::createTemporaryFile("irtk-log", "log", Path));
    sys::fs::remove(Path);
  }
  ~TempLog() { sys::fs::remove(Path); }
};

/// Writes decisions by the default policy: decision = (size < 10).
void writeLog(StringRef Path, const std::vector<int64_t> &Sizes) {
  LLVMContext Ctx;
  PolicyOptions O;
  O.LogPath = Path.str();
  Expected<std::unique_ptr<PolicyRunner>> R =
      PolicyRunner::create(Ctx, spec(), O);
  ASSERT_TRUE(!!R) << toString(R.takeError());
  (*R)->switchContext("m1");
  for (size_t I = 0; I < Sizes.size(); ++I) {
    *(*R)->getTensor<int64_t>(0) = Sizes[I];
    (*R)->getTensor<float>(1)[0] = 0.5f;
    (*R)->getTensor<float>(1)[1] = static_cast<float>(I);
    *(*R)->getTensor<int64_t>(2) = Sizes[I] < 10;
    EXPECT_EQ((*R)->evaluate<int64_t>(), Sizes[I] < 10);
    if (I % 2 == 0)
      (*R)->logReward(static_cast<float>(Sizes[I]));
  }
  ASSERT_FALSE(!!(*R)->finish());
}

TEST(TrainingLogTest, ReadsWhatThePolicyRunnerWrote) {
  TempLog T;
  writeLog(T.Path, {3, 20, 5});
  Expected<TrainingLog> L = TrainingLog::load(T.Path);
  ASSERT_TRUE(!!L) << toString(L.takeError());
  ASSERT_EQ(L->features().size(), 4u);
  EXPECT_EQ(L->features()[3].name(), "inlining_decision");
  EXPECT_EQ(L->score()->name(), "delta_size");
  ASSERT_EQ(L->contexts(), std::vector<std::string>{"m1"});
  ASSERT_EQ(L->observations().size(), 3u);
  const auto &O = L->observations();
  EXPECT_EQ(L->value(O[1], 0), 20);
  EXPECT_EQ(L->value(O[2], 1, 1), 2.0);
  EXPECT_EQ(L->value(O[0], 3), 1);
  EXPECT_EQ(L->value(O[1], 3), 0);
  // A reward where reported, 0 where not.
  EXPECT_EQ(*O[0].Score, 3);
  EXPECT_EQ(*O[1].Score, 0);
  EXPECT_EQ(*O[2].Score, 5);
}

TEST(TrainingLogTest, WithoutALogTheDefaultPolicyReadsOnlyTheDefault) {
  LLVMContext Ctx;
  Expected<std::unique_ptr<PolicyRunner>> R =
      PolicyRunner::create(Ctx, spec(), PolicyOptions());
  ASSERT_TRUE(!!R);
  EXPECT_FALSE((*R)->readsInput(0));
  EXPECT_FALSE((*R)->readsInput(1));
  EXPECT_TRUE((*R)->readsInput(2));
  TempLog T;
  PolicyOptions Logged;
  Logged.LogPath = T.Path.str().str();
  Expected<std::unique_ptr<PolicyRunner>> L =
      PolicyRunner::create(Ctx, spec(), Logged);
  ASSERT_TRUE(!!L);
  EXPECT_TRUE((*L)->readsInput(0)); // the log reads everything
}

TEST(TrainingLogTest, ATruncatedLogIsAnErrorWithTheOffset) {
  TempLog T;
  writeLog(T.Path, {3, 20});
  auto Buf = MemoryBuffer::getFile(T.Path);
  ASSERT_TRUE(!!Buf);
  StringRef Data = (*Buf)->getBuffer();
  Expected<TrainingLog> L = TrainingLog::parse(Data.drop_back(10), "cut.log");
  ASSERT_FALSE(!!L);
  std::string Msg = toString(L.takeError());
  EXPECT_EQ(Msg.rfind("cut.log: at byte ", 0), 0u) << Msg;
}

TEST(TrainingLogTest, AScalarHasShapeOne) {
  // LLVM's logger writes a scalar's shape as [1] (what writeLog gives and
  // ReadsWhatThePolicyRunnerWrote reads); [] was taken as one element too.
  std::string Header =
      R"({"features":[{"name":"size","port":0,"shape":[],"type":"int64_t"}]})"
      "\n";
  Expected<TrainingLog> L = TrainingLog::parse(Header, "x.log");
  ASSERT_FALSE(!!L);
  EXPECT_EQ(toString(L.takeError()),
            "x.log: header: features[0]: tensor 'size' has the empty shape "
            "[]; a scalar's is [1]");
  Header = R"({"features":[{"name":"size","port":0,"shape":[1],)"
           R"("type":"int64_t"}],"score":{"name":"delta_size","port":0,)"
           R"("shape":[],"type":"float"}})"
           "\n";
  L = TrainingLog::parse(Header, "x.log");
  ASSERT_FALSE(!!L);
  EXPECT_EQ(toString(L.takeError()),
            "x.log: header: score: tensor 'delta_size' has the empty shape "
            "[]; a scalar's is [1]");
}

TEST(TrainingLogTest, NoLogFileWithoutFinish) {
  TempLog T;
  {
    LLVMContext Ctx;
    PolicyOptions O;
    O.LogPath = T.Path.str().str();
    Expected<std::unique_ptr<PolicyRunner>> R =
        PolicyRunner::create(Ctx, spec(), O);
    ASSERT_TRUE(!!R);
    EXPECT_FALSE(sys::fs::exists(T.Path)); // written under a temporary name
  }
  EXPECT_TRUE(sys::fs::exists(T.Path)); // committed by the destructor
}

TEST(TrainerTest, LearnsAThresholdRule) {
  TempLog T;
  std::mt19937 Rng(7);
  std::vector<int64_t> Sizes;
  for (int I = 0; I < 400; ++I)
    Sizes.push_back(static_cast<int64_t>(Rng() % 30));
  writeLog(T.Path, Sizes);
  Expected<TrainingLog> L = TrainingLog::load(T.Path);
  ASSERT_TRUE(!!L);
  Dataset D;
  DatasetOptions DO;
  DO.Decision = "inlining_decision";
  DO.Exclude = {"inlining_default"};
  ASSERT_FALSE(!!addToDataset(D, *L, "t.log", DO));
  ASSERT_EQ(D.rows(), 400u);
  ASSERT_EQ(D.width(), 3u); // size, emb[2]
  TrainerOptions TO;
  TO.Hidden = {8};
  TO.Epochs = 200;
  TO.LearningRate = 0.01;
  MLPDescription M = train(D, "inline", "inlining_decision", TO);
  EXPECT_GE(cantFail(accuracy(M, D)), 0.97);
  // Deterministic for a seed.
  MLPDescription Again = train(D, "inline", "inlining_decision", TO);
  EXPECT_EQ(M.Layers[0].Weights, Again.Layers[0].Weights);
}

/// 100 rows at x = -1 that keep the default decision 0, and 100 at x = 1 of
/// which 10 depart from it (label 1).
static Dataset rareDepartures() {
  Dataset D;
  D.Inputs = {{"x", 1}};
  for (int R = 0; R < 200; ++R) {
    D.X.push_back(R < 100 ? -1 : 1);
    D.Label.push_back(R >= 190);
    D.Weight.push_back(1);
    D.Default.push_back(0);
  }
  return D;
}

/// A small network, long enough to fit rareDepartures().
TrainerOptions smallTrainer() {
  TrainerOptions TO;
  TO.Hidden = {4};
  TO.Epochs = 100;
  TO.LearningRate = 0.01;
  return TO;
}

TEST(TrainerTest, RareDeparturesAreLearnedOnlyWhenWeighed) {
  Dataset D = rareDepartures();
  TrainerOptions TO = smallTrainer();
  Agreement Plain =
      cantFail(agreement(train(D, "inline", "inlining_decision", TO), D));
  EXPECT_EQ(Plain.LabelDepartures, 10u);
  EXPECT_EQ(Plain.ModelDepartures, 0u); // 10 of 100 at x = 1
  EXPECT_DOUBLE_EQ(Plain.Share, 0.95);
  // At weight 20 the 10 departures outweigh the 90 rows that stay.
  TO.DepartureWeight = 20;
  Agreement Weighed =
      cantFail(agreement(train(D, "inline", "inlining_decision", TO), D));
  EXPECT_EQ(Weighed.LabelDepartures, 10u);
  EXPECT_EQ(Weighed.ModelDepartures, 100u);
  EXPECT_EQ(Weighed.SharedDepartures, 10u);
  EXPECT_DOUBLE_EQ(Weighed.Share, 0.55);
}

TEST(TrainerTest, TheSupportBoxesTheDepartingRowsPerDefault) {
  Dataset D;
  D.Inputs = {{"x", 1}, {"e", 2}, {"y", 1}};
  // x, e0, e1, y, default, label: departing rows widen their default's box;
  // the others (x = 100) do not.
  const double Rows[][6] = {{2, 0, 0, 3, 0, 1},
                            {5, 9, 9, -1, 0, 1},
                            {100, 0, 0, 100, 0, 0},
                            {7, 0, 0, 0, 1, 0},
                            {100, 0, 0, 100, 1, 1}};
  for (const auto &R : Rows) {
    D.X.insert(D.X.end(), R, R + 4);
    D.Default.push_back(R[4]);
    D.Label.push_back(R[5]);
    D.Weight.push_back(1);
  }
  std::vector<MLPDescription::SupportBox> S = departureSupport(D);
  ASSERT_EQ(S.size(), 2u);
  EXPECT_EQ(S[0].Default, 0);
  ASSERT_EQ(S[0].Bounds.size(), 2u); // x and y; e has two elements
  EXPECT_EQ(S[0].Bounds[0].Input, 0u);
  EXPECT_EQ(S[0].Bounds[0].Low, 2);
  EXPECT_EQ(S[0].Bounds[0].High, 5);
  EXPECT_EQ(S[0].Bounds[1].Input, 2u);
  EXPECT_EQ(S[0].Bounds[1].Low, -1);
  EXPECT_EQ(S[0].Bounds[1].High, 3);
  EXPECT_EQ(S[1].Default, 1);
  EXPECT_EQ(S[1].Bounds[0].Low, 7);
  EXPECT_EQ(S[1].Bounds[0].High, 7);
  // Without the default decision in every row, no boxes.
  D.Default.pop_back();
  EXPECT_TRUE(departureSupport(D).empty());
}

TEST(TrainerTest, TheSupportConfinesTheModelsDepartures) {
  Dataset D = rareDepartures();
  TrainerOptions TO = smallTrainer();
  TO.DepartureWeight = 20;
  MLPDescription M = train(D, "inline", "inlining_decision", TO);
  M.DefaultMargin = 0;
  EXPECT_EQ(cantFail(agreement(M, D)).ModelDepartures, 100u);
  // The training departures' own box: the same decisions.
  M.Support = departureSupport(D);
  EXPECT_EQ(cantFail(agreement(M, D)).ModelDepartures, 100u);
  // A box that x = 1 is outside of: none.
  M.Support = std::vector<MLPDescription::SupportBox>{{0, {{0, 2, 3}}}};
  EXPECT_EQ(cantFail(agreement(M, D)).ModelDepartures, 0u);
  // A box for another default only: none.
  M.Support = std::vector<MLPDescription::SupportBox>{{1, {}}};
  EXPECT_EQ(cantFail(agreement(M, D)).ModelDepartures, 0u);
}

TEST(TrainerTest, PositionalModelsDecideAsTheModelPolicy) {
  // Four positions; choose the largest x, or the smallest when g < 0: one
  // rule for every position, which the evaluator must apply as trained.
  std::mt19937 Rng(3);
  std::uniform_real_distribution<double> U(-1, 1);
  Dataset D;
  D.Inputs = {{"x", 4}, {"g", 1}};
  D.Output = OutputKind::ArgMax;
  D.Choices = 4;
  D.Mask = "mask";
  for (int R = 0; R < 600; ++R) {
    double G = U(Rng) < 0 ? -1 : 1;
    int64_t Best = 0;
    for (int P = 0; P < 4; ++P) {
      D.X.push_back(U(Rng));
      if (G * D.X.back() > G * D.X[D.X.size() - 1 - P + Best])
        Best = P;
    }
    D.X.push_back(G);
    D.Label.push_back(Best);
    D.Weight.push_back(1);
    D.Legal.insert(D.Legal.end(), 4, 1);
  }
  TrainerOptions TO;
  TO.Positional = true;
  TO.Hidden = {16};
  TO.Epochs = 150;
  TO.LearningRate = 0.01;
  MLPDescription M = train(D, "evict", "index_to_evict", TO);
  ASSERT_EQ(M.Positions, 4u);
  ASSERT_EQ(M.Inputs[0].Mean.size(), 1u); // one x per position
  ASSERT_EQ(M.Inputs[1].Mean.size(), 1u); // g, whole
  double Agreement = cantFail(accuracy(M, D));
  EXPECT_GE(Agreement, 0.9);

  PolicySpec S{"evict",
               {TensorSpec::createSpec<int64_t>("mask", {4}),
                TensorSpec::createSpec<float>("x", {4}),
                TensorSpec::createSpec<float>("g", {1}),
                TensorSpec::createSpec<int64_t>("default", {1})},
               TensorSpec::createSpec<int64_t>("index_to_evict", {1}),
               3,
               TensorSpec::createSpec<float>("reward", {1})};
  Expected<std::unique_ptr<MLPModel>> Model = MLPModel::bind(M, S, "m");
  ASSERT_TRUE(!!Model) << toString(Model.takeError());
  size_t Same = 0;
  for (size_t R = 0; R < D.rows(); ++R) {
    int64_t Mask[4] = {1, 1, 1, 1}, Default = 0;
    float X[4], G = static_cast<float>(D.X[R * 5 + 4]);
    for (int P = 0; P < 4; ++P)
      X[P] = static_cast<float>(D.X[R * 5 + P]);
    Same += (*Model)->evaluate({Mask, X, &G, &Default}) == D.Label[R];
  }
  // The same decisions up to the float inputs' rounding.
  EXPECT_NEAR(static_cast<double>(Same) / D.rows(), Agreement, 0.01);
}

TEST(TrainerTest, AccuracyNeedsWhatTheModelReads) {
  Dataset D;
  D.Inputs = {{"x", 2}};
  D.Output = OutputKind::ArgMax;
  D.Choices = 2;
  D.X = {0.5, 1.5};
  D.Label = {1};
  D.Weight = {1};
  D.Legal = {1, 1};
  MLPDescription M;
  M.Advisor = "evict";
  M.Decision = "index_to_evict";
  M.Output = OutputKind::ArgMax;
  M.Positions = 2;
  M.Inputs = {{"x", {0}, {1}}};
  M.Layers = {{{{1}}, {0}, ActivationKind::Linear}};
  EXPECT_EQ(cantFail(accuracy(M, D)), 1.0); // scores 0.5 and 1.5
  M.DefaultMargin = 2;
  EXPECT_EQ(toString(accuracy(M, D).takeError()),
            "the model's default margin needs the default decision in every "
            "log");
  D.Default = {0};
  EXPECT_EQ(cantFail(accuracy(M, D)), 0.0); // 1.5 is not above 0.5 + 2
  M.Inputs[0].Name = "y";
  EXPECT_EQ(toString(accuracy(M, D).takeError()),
            "the model's input 'y' (1 elements) does not read the data's 'x' "
            "(2)");
}

TEST(TrainerTest, TheDecisionIsNeverAnInput) {
  // A model that reads the decision it learns copies it (agreement 1.0).
  TempLog T;
  writeLog(T.Path, {1, 20});
  Expected<TrainingLog> L = TrainingLog::load(T.Path);
  ASSERT_TRUE(!!L);
  auto Add = [&](std::vector<std::string> Include,
                 std::vector<std::string> Exclude, StringRef Label) {
    Dataset D;
    DatasetOptions DO;
    DO.Decision = "inlining_decision";
    DO.Include = std::move(Include);
    DO.Exclude = std::move(Exclude);
    return toString(addToDataset(D, *L, "t.log", DO, 1.0, Label));
  };
  EXPECT_EQ(Add({"size", "inlining_decision"}, {}, ""),
            "t.log: 'inlining_decision' is the decision, not an input");
  // Another feature as a log's label may be an input (train-inline.py
  // labels the modules where stock is best with inlining_default, an input
  // of every row): only the decision never is.
  EXPECT_EQ(Add({}, {}, "inlining_default"), "");
  EXPECT_EQ(Add({"size", "inlining_default"}, {}, "inlining_default"), "");
  EXPECT_EQ(Add({}, {"inlining_default"}, "inlining_default"), "");
}

TEST(TrainerTest, RejectsAMissingFeature) {
  TempLog T;
  writeLog(T.Path, {1, 2});
  Expected<TrainingLog> L = TrainingLog::load(T.Path);
  ASSERT_TRUE(!!L);
  Dataset D;
  DatasetOptions DO;
  DO.Decision = "inlining_decision";
  DO.Include = {"size", "nope"};
  Error E = addToDataset(D, *L, "t.log", DO);
  EXPECT_EQ(toString(std::move(E)), "t.log: no feature 'nope'");
}

} // namespace
