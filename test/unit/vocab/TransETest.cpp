//===- TransETest.cpp - Triplet reading and TransE training tests ---------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/vocab/TransE.h"
#include "irtk/vocab/Vocabulary.h"

#include "../TestHelpers.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace irtk::vocab;
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
  Expected<TripletSet> S = readTriplets(Path);
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
  Expected<TripletSet> S = readTriplets(Path);
  sys::fs::remove(Path);
  IRTK_ASSERT_OK(S);
  ASSERT_EQ(S->Triplets.size(), 3u);
  EXPECT_EQ(S->Triplets[1].Tail, 83u);
  EXPECT_EQ(S->Triplets[1].Relation, 2u);
  EXPECT_EQ(S->NumRelations, 5u); // The header counts, not only what is used.
}

TEST(TransETest, ReadsOpenKETrain2Id) {
  std::string Path = tempFile("2\n12 74 0\n0 69 3\n");
  Expected<TripletSet> S = readTriplets(Path);
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
  Expected<TripletSet> Missing = readTriplets("/nonexistent/triplets.txt");
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

TEST(TransETest, WrittenVocabularyLoadsExactly) {
  std::vector<std::vector<double>> Vs;
  for (EntityId Id = 0; Id < NumEntities; ++Id)
    Vs.push_back({Id / 7.0, -1.0 / (Id + 3)});
  std::string Text;
  raw_string_ostream OS(Text);
  writeVocabularyJSON(Vs, OS);
  Expected<Vocabulary> V =
      Vocabulary::loadFromBuffer(Text, "trained.json", Weights{1, 1, 1});
  IRTK_ASSERT_OK(V);
  EXPECT_TRUE(V->missingEntities().empty());
  EXPECT_TRUE(V->unknownKeys().empty());
  for (EntityId Id = 0; Id < NumEntities; ++Id)
    EXPECT_EQ(V->vector(Id).vec(), Vs[Id]) << entityName(Id).str();
}

} // namespace
