//===- StoreTest.cpp - Writing and opening store directories --------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Rows come from test/Inputs/cfg.ll with the vocabulary "entity k is
/// [k, 1]" and all weights 1: add = [404, 7] (EmbedderTest), f = [1169, 19]
/// (test/llvm-ir2vec/multiple-inputs.test).
///
//===----------------------------------------------------------------------===//

#include "irtk/store/Store.h"
#include "irtk/ir2vec/StoreRows.h"

#include "../TestHelpers.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace irtk;
using namespace irtk::store;
using namespace llvm;

namespace {

class StoreTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("irtk-store-test", Dir));
    Expected<vocab::Vocabulary> V = test::idsVocabulary();
    IRTK_ASSERT_OK(V);
    Vocab.emplace(std::move(*V));
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }

  std::string path(StringRef Name) {
    SmallString<128> P(Dir);
    sys::path::append(P, Name);
    return std::string(P);
  }
  static StoreInfo info() {
    StoreInfo I;
    I.Dimension = 2;
    I.Vocabulary = "/v.json";
    I.Weights = {{"opcode", 1.0}, {"type", 0.2f}, {"argument", 0.3f}};
    I.Tool = "test";
    return I;
  }
  /// Writes the functions of cfg.ll as a store at \p Name.
  void writeCfgStore(StringRef Name) {
    Expected<RowBatch> Rows = ir2vec::embedIRFile(
        IRTK_TEST_INPUTS "/cfg.ll", *Vocab, ir2vec::EmbeddingOutputOptions());
    IRTK_ASSERT_OK(Rows);
    Expected<std::unique_ptr<StoreWriter>> W =
        StoreWriter::create(path(Name), info());
    IRTK_ASSERT_OK(W);
    (*W)->append(*Rows);
    IRTK_EXPECT_SUCCESS((*W)->commit());
  }
  /// Names in the test directory, sorted.
  std::vector<std::string> entries() {
    std::vector<std::string> Names;
    std::error_code EC;
    for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
         It.increment(EC))
      Names.push_back(sys::path::filename(It->path()).str());
    std::sort(Names.begin(), Names.end());
    return Names;
  }
  void overwrite(StringRef File, StringRef Text) {
    std::error_code EC;
    raw_fd_ostream OS(File, EC);
    OS << Text;
  }
  std::string openError(StringRef Name) {
    Expected<Store> S = Store::open(path(Name));
    return S ? "" : toString(S.takeError());
  }

  SmallString<128> Dir;
  std::optional<vocab::Vocabulary> Vocab;
};

TEST_F(StoreTest, InfoRoundTripKeepsFloatWeights) {
  StoreInfo I = info();
  I.Count = 12;
  I.Level = "bb";
  I.Kind = "flow-aware";
  std::string Text;
  raw_string_ostream OS(Text);
  writeStoreInfo(I, OS);
  Expected<StoreInfo> Back = parseStoreInfo(Text, "store.json");
  IRTK_ASSERT_OK(Back);
  EXPECT_EQ(Back->Dimension, 2u);
  EXPECT_EQ(Back->Count, 12u);
  EXPECT_EQ(Back->Level, "bb");
  EXPECT_EQ(Back->Kind, "flow-aware");
  EXPECT_EQ(Back->Vocabulary, "/v.json");
  // Sorted by name; the exact doubles of the floats read back as the floats.
  ASSERT_EQ(Back->Weights.size(), 3u);
  EXPECT_EQ(Back->Weights[0].first, "argument");
  EXPECT_EQ(static_cast<float>(*Back->weight("argument")), 0.3f);
  EXPECT_EQ(static_cast<float>(*Back->weight("type")), 0.2f);
  EXPECT_EQ(*Back->weight("opcode"), 1.0);
  EXPECT_FALSE(Back->weight("none"));
  EXPECT_EQ(Back->Tool, "test");
}

TEST_F(StoreTest, InfoFromANewerFormatIsRejected) {
  Expected<StoreInfo> I = parseStoreInfo(
      R"({"format":"irtk-embedding-store","version":2})", "s/store.json");
  ASSERT_FALSE(I);
  EXPECT_EQ(toString(I.takeError()),
            "s/store.json: store format version 2 is newer than this tool's "
            "(1)");
}

TEST_F(StoreTest, WriteThenOpen) {
  writeCfgStore("s");
  Expected<Store> S = Store::open(path("s"));
  IRTK_ASSERT_OK(S);
  EXPECT_EQ(S->size(), 2u);
  EXPECT_EQ(S->dimension(), 2u);
  EXPECT_EQ(S->info().Count, 2u);
  EXPECT_EQ(S->matrix().row(1)[0], 1169.0f);
  Expected<IndexRecord> R = S->index().record(1);
  IRTK_ASSERT_OK(R);
  EXPECT_EQ(R->Function, "f");
  EXPECT_EQ(entries(), std::vector<std::string>({"s"}));
}

TEST_F(StoreTest, DiscardLeavesNothing) {
  {
    Expected<std::unique_ptr<StoreWriter>> W =
        StoreWriter::create(path("s"), info());
    IRTK_ASSERT_OK(W);
    (*W)->append(RowBatch{{1, 2}, {IndexRecord()}});
  } // Destroyed without commit.
  EXPECT_TRUE(entries().empty());
}

TEST_F(StoreTest, CommitReplacesAnExistingStore) {
  writeCfgStore("s");
  {
    Expected<std::unique_ptr<StoreWriter>> W =
        StoreWriter::create(path("s"), info());
    IRTK_ASSERT_OK(W);
    IRTK_EXPECT_SUCCESS((*W)->commit());
  }
  Expected<Store> S = Store::open(path("s"));
  IRTK_ASSERT_OK(S);
  EXPECT_EQ(S->size(), 0u);
  EXPECT_EQ(entries(), std::vector<std::string>({"s"}));
}

TEST_F(StoreTest, OtherDirectoriesAreNotReplaced) {
  ASSERT_FALSE(sys::fs::create_directory(path("d")));
  overwrite(path("d/keep.txt"), "keep");
  Expected<std::unique_ptr<StoreWriter>> W =
      StoreWriter::create(path("d"), info());
  ASSERT_FALSE(W);
  EXPECT_EQ(toString(W.takeError()),
            path("d") + ": exists and is not a store (no store.json); not "
                        "replacing it");
}

TEST_F(StoreTest, OpenMissingStore) {
  EXPECT_EQ(openError("none"),
            path("none") + ": cannot open store: No such file or directory");
}

TEST_F(StoreTest, OpenChecksIndexLength) {
  writeCfgStore("s");
  overwrite(path("s/index.jsonl"), "");
  EXPECT_EQ(openError("s"),
            path("s/index.jsonl") + ": 0 lines, but embeddings.npy has 2 rows");
}

TEST_F(StoreTest, OpenChecksDimension) {
  writeCfgStore("s");
  IRTK_EXPECT_SUCCESS(
      writeNpyFile(path("s/embeddings.npy"), {1, 2, 3, 4, 5, 6}, 3));
  EXPECT_EQ(openError("s"),
            path("s/embeddings.npy") + ": dimension 3, but store.json says 2");
}

} // namespace
