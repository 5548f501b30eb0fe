//===- TransETest.cpp - Triplet reading and TransE training tests ---------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/vocab/TransE.h"
#include "irtk/ir2vec/Entities.h"
#include "irtk/vocab/Vocabulary.h"

#include "../TestHelpers.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace irtk::vocab;
using irtk::ir2vec::irLayout;
using irtk::ir2vec::NumEntities;
using namespace llvm;

namespace {

/// Writes \p Text to a temporary file and returns its path.
std::string tempFile(StringRef Text) {
  SmallString<128> Path;
  int FD;
  EXPECT_FALSE(sys::fs::createTemporaryFile("transe-test", "txt", FD, Path));
  raw_fd_ostream OS(FD, /*shouldClose=*/true);
  OS << Text;
  return std::string(Path);
}

std::string readError(StringRef Text) {
  std::string Path = tempFile(Text);
  Expected<TripletSet> S = readTriplets(Path, *irLayout());
  sys::fs::remove(Path);
  if (S) {
    ADD_FAILURE() << "expected an error for: " << Text.str();
    return "";
  }
  // Drop the temporary path: "PATH:3: msg" becomes "3: msg", "PATH: msg"
  // becomes "msg".
  std::string Full = toString(S.takeError());
  StringRef Msg = StringRef(Full).drop_front(Path.size());
  Msg.consume_front(":");
  return Msg.ltrim(' ').str();
}

TEST(TransETest, ReadsLlvmIr2VecTriplets) {
  std::string Path = tempFile("MAX_RELATION=4\n12\t74\t0\n12\t83\t2\n0 69 0\n");
  Expected<TripletSet> S = readTriplets(Path, *irLayout());
  sys::fs::remove(Path);
  IRTK_ASSERT_OK(S);
  ASSERT_EQ(S->Triplets.size(), 3u);
  EXPECT_EQ(S->Triplets[1].Tail, 83u);
  EXPECT_EQ(S->Triplets[1].Relation, 2u);
  EXPECT_EQ(S->NumRelations, 5u); // The header counts, not only what is used.
}

TEST(TransETest, ReadsOpenKETrain2Id) {
  std::string Path = tempFile("2\n12 74 0\n0 69 3\n");
  Expected<TripletSet> S = readTriplets(Path, *irLayout());
  sys::fs::remove(Path);
  IRTK_ASSERT_OK(S);
  EXPECT_EQ(S->Triplets.size(), 2u);
  EXPECT_EQ(S->NumRelations, 4u);
}

TEST(TransETest, ReadErrors) {
  EXPECT_EQ(readError("12 74\n"), "1: expected 'head tail relation', got "
                                  "'12 74'");
  EXPECT_EQ(readError("MAX_RELATION=2\n12 74 0\n12 110 0\n"),
            "3: entity id 110 out of range (LLVM 22 has 110 entities)");
  EXPECT_EQ(readError("3\n12 74 0\n"),
            "the count line says 3 triplets, but 1 follow");
  EXPECT_EQ(readError("MAX_RELATION=1\n"), "no triplets");
  EXPECT_EQ(readError("1 2 x\n"), "1: expected 'head tail relation', got "
                                  "'1 2 x'");
  Expected<TripletSet> Missing =
      readTriplets("/nonexistent/triplets.txt", *irLayout());
  EXPECT_EQ(toString(Missing.takeError()),
            "/nonexistent/triplets.txt: cannot read triplets: No such file "
            "or directory");
}

/// A chain: relation 2 takes entity i to i + 1, for i < 40.
TripletSet chain() {
  TripletSet S;
  for (EntityId I = 0; I < 40; ++I)
    S.Triplets.push_back({I, I + 1, 2});
  S.NumRelations = 3;
  S.NumEntities = NumEntities; // Negatives come from all 110 IR entities.
  return S;
}

double distance(const TransEModel &M, EntityId H, unsigned R, EntityId T) {
  double D = 0;
  for (size_t I = 0; I < M.Entities[H].size(); ++I)
    D += std::fabs(M.Entities[H][I] + M.Relations[R][I] - M.Entities[T][I]);
  return D;
}

TEST(TransETest, LearnsAChain) {
  TransEOptions O;
  O.Dimension = 16;
  O.Epochs = 300;
  O.BatchSize = 8;
  O.Threads = 2;
  std::vector<double> Losses;
  Expected<TransEModel> M = trainTransE(
      chain(), O, [&](const EpochReport &R) { Losses.push_back(R.MeanLoss); });
  IRTK_ASSERT_OK(M);
  ASSERT_EQ(Losses.size(), 300u);
  EXPECT_LT(Losses.back(), Losses.front() / 4);
  // A true tail is closer to head + relation than most other entities.
  unsigned Wins = 0, Trials = 0;
  for (EntityId H = 0; H < 40; ++H)
    for (EntityId Other = 60; Other < 100; ++Other, ++Trials)
      Wins += distance(*M, H, 2, H + 1) < distance(*M, H, 2, Other);
  EXPECT_GT(Wins, Trials * 9 / 10);
}

/// The chain, repeated: enough triplets for batches that two threads share.
TripletSet longChain() {
  TripletSet S = chain();
  TripletSet L;
  for (unsigned Copy = 0; Copy < 60; ++Copy)
    L.Triplets.insert(L.Triplets.end(), S.Triplets.begin(), S.Triplets.end());
  L.NumRelations = S.NumRelations;
  L.NumEntities = S.NumEntities;
  return L;
}

TEST(TransETest, DeterministicForSeedAndThreads) {
  TransEOptions O;
  O.Dimension = 8;
  O.Epochs = 3;
  O.BatchSize = 1024; // two threads of 512 each
  O.Threads = 2;
  Expected<TransEModel> A = trainTransE(longChain(), O);
  Expected<TransEModel> B = trainTransE(longChain(), O);
  O.Seed = 2;
  Expected<TransEModel> C = trainTransE(longChain(), O);
  IRTK_ASSERT_OK(A);
  IRTK_ASSERT_OK(B);
  IRTK_ASSERT_OK(C);
  EXPECT_EQ(A->Entities, B->Entities);
  EXPECT_EQ(A->Relations, B->Relations);
  EXPECT_NE(A->Entities, C->Entities);
}

// Below 512 triplets per thread and batch, one thread does the work: the
// result does not depend on -j. With 1024 it does (the gradients are summed
// in a different order), which shows that two threads really ran.
TEST(TransETest, SmallBatchesUseOneThread) {
  TransEOptions O;
  O.Dimension = 8;
  O.Epochs = 3;
  O.BatchSize = 1023;
  O.Threads = 1;
  Expected<TransEModel> One = trainTransE(longChain(), O);
  O.Threads = 2;
  Expected<TransEModel> Two = trainTransE(longChain(), O);
  O.BatchSize = 1024;
  O.Threads = 1;
  Expected<TransEModel> BigOne = trainTransE(longChain(), O);
  O.Threads = 2;
  Expected<TransEModel> BigTwo = trainTransE(longChain(), O);
  IRTK_ASSERT_OK(One);
  IRTK_ASSERT_OK(Two);
  IRTK_ASSERT_OK(BigOne);
  IRTK_ASSERT_OK(BigTwo);
  EXPECT_EQ(One->Entities, Two->Entities);
  EXPECT_NE(BigOne->Entities, BigTwo->Entities);
}

TEST(TransETest, RejectsBadOptions) {
  TransEOptions O;
  O.Dimension = 0;
  EXPECT_EQ(toString(trainTransE(chain(), O).takeError()),
            "the dimension must be positive");
  O.Dimension = 4;
  O.LearningRate = -1;
  EXPECT_EQ(toString(trainTransE(chain(), O).takeError()),
            "the learning rate must be a positive number");
}

TEST(TransETest, ReadTripletsSetsTheEntityCount) {
  std::string Path = tempFile("0 109 0\n");
  Expected<TripletSet> S = readTriplets(Path, *irLayout());
  sys::fs::remove(Path);
  IRTK_ASSERT_OK(S);
  EXPECT_EQ(S->NumEntities, NumEntities);
}

//===----------------------------------------------------------------------===//
// The algorithm, step by step. The expected values below are computed from
// TransE's definition with plain loops, independently of the trainer:
//   d(v)     = |v|_1 (L1) or |v|_2 (L2)
//   loss     = max(0, margin + d(h + r - t) - d(h' + r - t'))
//   g(v)     = sign(v) (L1) or v / |v|_2 (L2), the gradient of d at v
//   step     = learning rate / batch size
//   h -= step g(pos), t += step g(pos), r -= step (g(pos) - g(neg)),
//   h' += step g(neg), t' -= step g(neg); then every entity row / |row|_2.
//===----------------------------------------------------------------------===//

using Vec = std::vector<double>;

double length(const Vec &V, DistanceKind K) {
  double S = 0;
  for (double X : V)
    S += K == DistanceKind::L1 ? std::fabs(X) : X * X;
  return K == DistanceKind::L1 ? S : std::sqrt(S);
}

/// The gradient of d at \p V.
Vec gradient(const Vec &V, DistanceKind K) {
  double Len = length(V, K);
  Vec G;
  for (double X : V)
    G.push_back(K == DistanceKind::L1 ? double((X > 0) - (X < 0)) : X / Len);
  return G;
}

/// Two entities, one relation, one triplet 0 -r0-> 1. With two entities the
/// corrupted triplet is (1, r0, 1) or (0, r0, 0), so its difference vector
/// h' + r - t' is r0 whatever the random draws, and its two entity updates
/// cancel: one step is computable by hand.
TripletSet twoEntities() {
  TripletSet S;
  S.Triplets = {{0, 1, 0}};
  S.NumRelations = 1;
  S.NumEntities = 2;
  return S;
}

/// Unit entity vectors a = (1, 0, 0), b = (0, 1, 0) and r = (-0.75, 0.5,
/// 0.25): the positive a + r - b = (0.25, -0.5, 0.25) is nearer than the
/// negative r (L1: 1 < 1.5; L2: sqrt(0.375) < sqrt(0.875)), but by less
/// than a margin of 1. The signs of the two differ, so r moves under L1.
TransEModel twoEntityStart() {
  TransEModel M;
  M.Entities = {{1, 0, 0}, {0, 1, 0}};
  M.Relations = {{-0.75, 0.5, 0.25}};
  return M;
}

/// One epoch of one batch of one triplet from \p Start.
TransEOptions oneStepOptions(DistanceKind K, double Margin,
                             const TransEModel &Start) {
  TransEOptions O;
  O.Dimension = 3;
  O.Epochs = 1;
  O.BatchSize = 1;
  O.LearningRate = 0.25;
  O.Margin = Margin;
  O.Distance = K;
  O.Threads = 1;
  O.Initial = &Start;
  return O;
}

Vec positive(const TransEModel &M) {
  Vec P;
  for (size_t I = 0; I < M.Relations[0].size(); ++I)
    P.push_back(M.Entities[0][I] + M.Relations[0][I] - M.Entities[1][I]);
  return P;
}

void expectOneStepLoss(DistanceKind K) {
  TransEModel Start = twoEntityStart();
  std::vector<double> Losses;
  Expected<TransEModel> M =
      trainTransE(twoEntities(), oneStepOptions(K, 1.0, Start),
                  [&](const EpochReport &R) { Losses.push_back(R.MeanLoss); });
  IRTK_ASSERT_OK(M);
  ASSERT_EQ(Losses.size(), 1u);
  double Want =
      1.0 + length(positive(Start), K) - length(Start.Relations[0], K);
  EXPECT_NEAR(Losses[0], Want, 1e-12);
}

TEST(TransETest, OneStepLossMatchesHandComputedL1) {
  expectOneStepLoss(DistanceKind::L1);
  // 1 + |(0.25, -0.5, 0.25)|_1 - |(-0.75, 0.5, 0.25)|_1 = 1 + 1 - 1.5.
  TransEModel Start = twoEntityStart();
  double Loss = -1;
  Expected<TransEModel> M =
      trainTransE(twoEntities(), oneStepOptions(DistanceKind::L1, 1.0, Start),
                  [&](const EpochReport &R) { Loss = R.MeanLoss; });
  IRTK_ASSERT_OK(M);
  EXPECT_DOUBLE_EQ(Loss, 0.5);
}

TEST(TransETest, OneStepLossMatchesHandComputedL2) {
  expectOneStepLoss(DistanceKind::L2);
}

// With margin 0 a positive nearer than its negative costs nothing, and a
// zero loss gives no gradient: nothing moves, epoch after epoch.
TEST(TransETest, ZeroMarginLossIsZeroWhenPositivesAreNearer) {
  for (DistanceKind K : {DistanceKind::L1, DistanceKind::L2}) {
    SCOPED_TRACE(K == DistanceKind::L1 ? "L1" : "L2");
    TransEModel Start = twoEntityStart();
    ASSERT_LT(length(positive(Start), K), length(Start.Relations[0], K));
    TransEOptions O = oneStepOptions(K, 0.0, Start);
    O.Epochs = 3;
    std::vector<double> Losses;
    Expected<TransEModel> M =
        trainTransE(twoEntities(), O, [&](const EpochReport &R) {
          Losses.push_back(R.MeanLoss);
        });
    IRTK_ASSERT_OK(M);
    EXPECT_EQ(Losses, std::vector<double>(3, 0.0));
    EXPECT_EQ(M->Entities, Start.Entities); // Unit vectors stay put.
    EXPECT_EQ(M->Relations, Start.Relations);
  }
}

// The starting entities are scaled to unit length before the first batch
// (relations are not): scaled back, they are twoEntityStart(), whose
// positive costs nothing at margin 0. Unscaled, a + r - b = (1.25, -2.5,
// 0.25) would be farther than r and cost.
TEST(TransETest, InitialEntitiesAreNormalisedBeforeTraining) {
  TransEModel Start = twoEntityStart();
  Start.Entities = {{2, 0, 0}, {0, 3, 0}};
  std::vector<double> Losses;
  Expected<TransEModel> M =
      trainTransE(twoEntities(), oneStepOptions(DistanceKind::L1, 0.0, Start),
                  [&](const EpochReport &R) { Losses.push_back(R.MeanLoss); });
  IRTK_ASSERT_OK(M);
  EXPECT_EQ(Losses, std::vector<double>{0.0});
  EXPECT_EQ(M->Entities, twoEntityStart().Entities);
  EXPECT_EQ(M->Relations, Start.Relations);
}

void expectOneStepUpdate(DistanceKind K) {
  TransEModel Start = twoEntityStart();
  TransEOptions O = oneStepOptions(K, 1.0, Start);
  Expected<TransEModel> M = trainTransE(twoEntities(), O);
  IRTK_ASSERT_OK(M);

  const Vec Pos = positive(Start), Neg = Start.Relations[0];
  ASSERT_GT(1.0 + length(Pos, K) - length(Neg, K), 0); // A loss, so a step.
  const Vec GPos = gradient(Pos, K), GNeg = gradient(Neg, K);
  const double Step = O.LearningRate / 1; // One triplet per batch.
  TransEModel Want = Start;
  for (size_t I = 0; I < 3; ++I) {
    Want.Entities[0][I] -= Step * GPos[I];
    Want.Entities[1][I] += Step * GPos[I];
    Want.Relations[0][I] -= Step * (GPos[I] - GNeg[I]);
    // The corrupted triplet (x, r0, x) moves x by -Step GNeg and +Step GNeg.
  }
  for (Vec &V : Want.Entities) {
    double Len = length(V, DistanceKind::L2);
    for (double &X : V)
      X /= Len;
  }

  ASSERT_EQ(M->Entities.size(), 2u);
  ASSERT_EQ(M->Relations.size(), 1u);
  for (size_t I = 0; I < 3; ++I) {
    EXPECT_NEAR(M->Entities[0][I], Want.Entities[0][I], 1e-12) << I;
    EXPECT_NEAR(M->Entities[1][I], Want.Entities[1][I], 1e-12) << I;
    EXPECT_NEAR(M->Relations[0][I], Want.Relations[0][I], 1e-12) << I;
  }
}

TEST(TransETest, OneStepUpdateMatchesHandComputedL1) {
  expectOneStepUpdate(DistanceKind::L1);
  // By hand: g(pos) = (1, -1, 1), g(neg) = (-1, 1, 1), step 0.25, so
  // a = (0.75, 0.25, -0.25) / sqrt(0.6875), r = (-1.25, 1, 0.25).
  TransEModel Start = twoEntityStart();
  Expected<TransEModel> M =
      trainTransE(twoEntities(), oneStepOptions(DistanceKind::L1, 1.0, Start));
  IRTK_ASSERT_OK(M);
  EXPECT_NEAR(M->Entities[0][0], 0.75 / std::sqrt(0.6875), 1e-12);
  EXPECT_NEAR(M->Relations[0][0], -1.25, 1e-12);
  EXPECT_NEAR(M->Relations[0][1], 1.0, 1e-12);
  EXPECT_NEAR(M->Relations[0][2], 0.25, 1e-12);
}

TEST(TransETest, OneStepUpdateMatchesHandComputedL2) {
  expectOneStepUpdate(DistanceKind::L2);
}

/// The chain over exactly the entities it uses.
TripletSet closedChain() {
  TripletSet S = chain();
  S.NumEntities = 41;
  return S;
}

// With one batch per epoch, training k epochs gives the state after batch
// k of a longer run: nothing in an epoch depends on the number of epochs
// (the shuffles are seeded by (seed, epoch) and applied in sequence, the
// negatives by (seed, epoch, position)), which the losses confirm.
TEST(TransETest, EntitiesHaveUnitNormAfterEveryBatch) {
  for (DistanceKind K : {DistanceKind::L1, DistanceKind::L2}) {
    SCOPED_TRACE(K == DistanceKind::L1 ? "L1" : "L2");
    TransEOptions O;
    O.Dimension = 8;
    O.BatchSize = 64; // The whole set of 40.
    O.Threads = 1;
    O.Distance = K;
    O.Epochs = 5;
    std::vector<double> AllLosses;
    Expected<TransEModel> Long =
        trainTransE(closedChain(), O, [&](const EpochReport &R) {
          AllLosses.push_back(R.MeanLoss);
        });
    IRTK_ASSERT_OK(Long);
    for (unsigned Epochs = 1; Epochs <= 5; ++Epochs) {
      O.Epochs = Epochs;
      std::vector<double> Losses;
      Expected<TransEModel> M =
          trainTransE(closedChain(), O, [&](const EpochReport &R) {
            Losses.push_back(R.MeanLoss);
          });
      IRTK_ASSERT_OK(M);
      EXPECT_EQ(Losses, std::vector<double>(AllLosses.begin(),
                                            AllLosses.begin() + Epochs));
      EXPECT_GT(Losses.back(), 0); // The batch moved the entities.
      ASSERT_EQ(M->Entities.size(), 41u);
      for (EntityId Id = 0; Id < 41; ++Id)
        EXPECT_NEAR(length(M->Entities[Id], DistanceKind::L2), 1.0, 1e-12)
            << "entity " << Id << " after batch " << Epochs;
    }
  }
}

double distanceL2(const TransEModel &M, EntityId H, unsigned R, EntityId T) {
  Vec Diff;
  for (size_t I = 0; I < M.Entities[H].size(); ++I)
    Diff.push_back(M.Entities[H][I] + M.Relations[R][I] - M.Entities[T][I]);
  return length(Diff, DistanceKind::L2);
}

TEST(TransETest, LearnsAChainWithL2) {
  TransEOptions O;
  O.Dimension = 16;
  O.Epochs = 300;
  O.BatchSize = 8;
  O.Threads = 2;
  O.Distance = DistanceKind::L2;
  Expected<TransEModel> M = trainTransE(chain(), O);
  IRTK_ASSERT_OK(M);
  unsigned Wins = 0, Trials = 0;
  for (EntityId H = 0; H < 40; ++H)
    for (EntityId Other = 60; Other < 100; ++Other, ++Trials)
      Wins += distanceL2(*M, H, 2, H + 1) < distanceL2(*M, H, 2, Other);
  EXPECT_GT(Wins, Trials * 9 / 10);
}

std::string trainError(const TripletSet &Data, const TransEOptions &O) {
  Expected<TransEModel> M = trainTransE(Data, O);
  if (M) {
    ADD_FAILURE() << "expected an error";
    return "";
  }
  return toString(M.takeError());
}

TEST(TransETest, RejectsInitialModelOfWrongShape) {
  TransEModel Start = twoEntityStart();
  TransEOptions O = oneStepOptions(DistanceKind::L1, 1.0, Start);
  Start.Entities.push_back({0, 0, 1});
  EXPECT_EQ(trainError(twoEntities(), O),
            "the initial model has 3 entity vectors, expected 2");
  Start = twoEntityStart();
  Start.Entities[1].pop_back();
  EXPECT_EQ(trainError(twoEntities(), O),
            "the initial model's entity vector 1 has 2 values, expected the "
            "dimension 3");
  Start = twoEntityStart();
  Start.Relations.clear();
  EXPECT_EQ(trainError(twoEntities(), O),
            "the initial model has 0 relation vectors, expected 1");
  Start = twoEntityStart();
  Start.Relations[0].push_back(1);
  EXPECT_EQ(trainError(twoEntities(), O),
            "the initial model's relation vector 0 has 4 values, expected "
            "the dimension 3");
}

TEST(TransETest, RejectsFewerThanTwoEntities) {
  TripletSet S;
  S.Triplets = {{0, 0, 0}};
  S.NumRelations = 1;
  S.NumEntities = 1;
  EXPECT_EQ(trainError(S, TransEOptions()), "at least two entities are needed");
  S.NumEntities = 0;
  EXPECT_EQ(trainError(S, TransEOptions()), "at least two entities are needed");
}

TEST(TransETest, RejectsOutOfRangeTripletIds) {
  TripletSet S = twoEntities();
  S.Triplets.push_back({2, 1, 0});
  EXPECT_EQ(trainError(S, TransEOptions()),
            "triplet 1: entity id 2 out of range (2 entities)");
  S.Triplets.back() = {1, 5, 0};
  EXPECT_EQ(trainError(S, TransEOptions()),
            "triplet 1: entity id 5 out of range (2 entities)");
  S.Triplets.back() = {1, 0, 1};
  EXPECT_EQ(trainError(S, TransEOptions()),
            "triplet 1: relation id 1 out of range (1 relations)");
}

TEST(TransETest, WrittenVocabularyLoadsExactly) {
  std::vector<std::vector<double>> Vs;
  for (EntityId Id = 0; Id < NumEntities; ++Id)
    Vs.push_back({Id / 7.0, -1.0 / (Id + 3)});
  std::string Text;
  raw_string_ostream OS(Text);
  writeVocabularyJSON(*irLayout(), Vs, OS);
  Expected<Vocabulary> V =
      Vocabulary::loadFromBuffer(Text, "trained.json", irLayout());
  IRTK_ASSERT_OK(V);
  EXPECT_TRUE(V->missingEntities().empty());
  EXPECT_TRUE(V->unknownKeys().empty());
  for (EntityId Id = 0; Id < NumEntities; ++Id)
    EXPECT_EQ(V->vector(Id).vec(), Vs[Id]) << V->layout().entityName(Id).str();
}

} // namespace
