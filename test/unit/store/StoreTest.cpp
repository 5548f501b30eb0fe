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

  /// A sharded store at \p Name whose shards \p Shards are already written
  /// under it; store.json lists them with \p Counts.
  void writeManifest(StringRef Name, std::vector<ShardRef> Shards) {
    StoreInfo I = info();
    I.Shards = std::move(Shards);
    for (const ShardRef &S : I.Shards)
      I.Count += S.Count;
    std::string Text;
    raw_string_ostream OS(Text);
    writeStoreInfo(I, OS);
    overwrite(path((Name + "/store.json").str()), Text);
  }
  /// m/shards/a and m/shards/c hold cfg.ll's rows, m/shards/b none, and m
  /// lists them in the order a, b, c.
  void writeShardedStore() {
    ASSERT_FALSE(sys::fs::create_directories(path("m/shards")));
    writeCfgStore("m/shards/a");
    writeCfgStore("m/shards/c");
    Expected<std::unique_ptr<StoreWriter>> W =
        StoreWriter::create(path("m/shards/b"), info());
    IRTK_ASSERT_OK(W);
    IRTK_EXPECT_SUCCESS((*W)->commit());
    writeManifest("m", {{"shards/a", 2}, {"shards/b", 0}, {"shards/c", 2}});
  }

  SmallString<128> Dir;
  std::optional<vocab::Vocabulary> Vocab;
};

TEST_F(StoreTest, ShardedInfoRoundTrip) {
  StoreInfo I = info();
  I.Shards = {{"shards/a", 3}, {"shards/b", 0}};
  I.Count = 3;
  std::string Text;
  raw_string_ostream OS(Text);
  writeStoreInfo(I, OS);
  EXPECT_NE(Text.find("\"version\": 2"), std::string::npos) << Text;
  Expected<StoreInfo> Back = parseStoreInfo(Text, "store.json");
  IRTK_ASSERT_OK(Back);
  ASSERT_EQ(Back->Shards.size(), 2u);
  EXPECT_EQ(Back->Shards[0].Path, "shards/a");
  EXPECT_EQ(Back->Shards[0].Count, 3u);
  EXPECT_EQ(Back->Shards[1].Count, 0u);
}

TEST_F(StoreTest, ShardedInfoErrors) {
  auto Error = [](StringRef Members) {
    Expected<StoreInfo> I = parseStoreInfo(
        (R"({"format":"irtk-embedding-store","dimension":2,"level":"func",)"
         R"("kind":"symbolic","vocabulary":"v","weights":{},)" +
         Members + "}")
            .str(),
        "m/store.json");
    return I ? std::string() : toString(I.takeError());
  };
  EXPECT_EQ(Error(R"("version":2,"count":0)"),
            "m/store.json: a sharded store (version 2) without a \"shards\" "
            "list");
  EXPECT_EQ(Error(R"("version":1,"count":0,"shards":[{"path":"a","count":0}])"),
            "m/store.json: \"shards\" in a version 1 store");
  EXPECT_EQ(Error(R"("version":2,"count":1,"shards":[{"path":"a"}])"),
            "m/store.json: shard 0 is not {\"path\": string, \"count\": "
            "non-negative integer}");
  EXPECT_EQ(
      Error(R"("version":2,"count":1,"shards":[{"path":"../a","count":1}])"),
      "m/store.json: shard path '../a' is not a relative path inside "
      "the store");
  EXPECT_EQ(
      Error(R"("version":2,"count":1,"shards":[{"path":"/a","count":1}])"),
      "m/store.json: shard path '/a' is not a relative path inside the "
      "store");
  EXPECT_EQ(Error(R"("version":2,"count":3,"shards":[{"path":"a","count":2}])"),
            "m/store.json: the shards hold 2 rows, but \"count\" says 3");
}

TEST_F(StoreTest, ShardedInfoListsEachShardOnce) {
  auto Error = [](StringRef Shards) {
    Expected<StoreInfo> I = parseStoreInfo(
        (R"({"format":"irtk-embedding-store","version":2,"dimension":2,)"
         R"("level":"func","kind":"symbolic","vocabulary":"v","weights":{},)"
         R"("count":4,"shards":)" +
         Shards + "}")
            .str(),
        "m/store.json");
    return I ? std::string() : toString(I.takeError());
  };
  EXPECT_EQ(Error(R"([{"path":"a","count":2},{"path":"a","count":2}])"),
            "m/store.json: shard 1 ('a') is shard 0 ('a') again");
  EXPECT_EQ(Error(R"([{"path":"s/a","count":2},{"path":"b","count":0},)"
                  R"({"path":"./s//a/.","count":2}])"),
            "m/store.json: shard 2 ('./s//a/.') is shard 0 ('s/a') again");
  EXPECT_EQ(Error(R"([{"path":"s/a","count":2},{"path":"s/ab","count":2}])"),
            "");
}

TEST_F(StoreTest, ShardedStoreReadsAsOne) {
  writeShardedStore();
  Expected<Store> S = Store::open(path("m"));
  IRTK_ASSERT_OK(S);
  EXPECT_TRUE(S->isSharded());
  EXPECT_EQ(S->size(), 4u);
  EXPECT_EQ(S->matrix().row(0)[0], 404.0f);
  EXPECT_EQ(S->matrix().row(3)[0], 1169.0f);
  Expected<IndexRecord> R = S->index().record(2);
  IRTK_ASSERT_OK(R);
  EXPECT_EQ(R->Row, 2u);
  EXPECT_EQ(R->Function, "add");
  Expected<std::vector<uint64_t>> F = S->index().findFunction("f");
  IRTK_ASSERT_OK(F);
  EXPECT_EQ(*F, std::vector<uint64_t>({1, 3}));
}

TEST_F(StoreTest, CopyMergesAShardedStore) {
  writeShardedStore();
  Expected<Store> S = Store::open(path("m"));
  IRTK_ASSERT_OK(S);
  IRTK_EXPECT_SUCCESS(writeStoreCopy(*S, path("one")));
  Expected<Store> C = Store::open(path("one"));
  IRTK_ASSERT_OK(C);
  EXPECT_FALSE(C->isSharded());
  ASSERT_EQ(C->size(), 4u);
  for (uint64_t Row = 0; Row < 4; ++Row) {
    EXPECT_EQ(C->matrix().row(Row), S->matrix().row(Row));
    Expected<IndexRecord> A = S->index().record(Row),
                          B = C->index().record(Row);
    IRTK_ASSERT_OK(A);
    IRTK_ASSERT_OK(B);
    EXPECT_EQ(*A, *B);
  }
}

TEST_F(StoreTest, ShardedStoreChecksItsShards) {
  writeShardedStore();
  writeManifest("m", {{"shards/a", 2}, {"shards/c", 3}});
  EXPECT_EQ(openError("m"), path("m/shards/c") + ": 2 rows, but " +
                                path("m/store.json") + " says 3");
  writeManifest("m", {{"shards/a", 2}, {"shards/none", 0}});
  EXPECT_EQ(openError("m"), path("m/shards/none") +
                                ": cannot open store: No such file or "
                                "directory");
  // A shard of another vocabulary.
  StoreInfo Other = info();
  Other.Vocabulary = "/other.json";
  Expected<std::unique_ptr<StoreWriter>> W =
      StoreWriter::create(path("m/shards/d"), Other);
  IRTK_ASSERT_OK(W);
  IRTK_EXPECT_SUCCESS((*W)->commit());
  writeManifest("m", {{"shards/a", 2}, {"shards/d", 0}});
  EXPECT_EQ(openError("m"), path("m/shards/d") +
                                ": its vocabulary differs from " +
                                path("m/store.json") + "'s");
  // A shard that is the store itself is refused, not opened forever.
  writeManifest("m", {{"shards/a", 2}, {".", 2}});
  EXPECT_EQ(openError("m"), path("m/.") + ": a shard that is itself sharded");
  // A shard twice, through a link: its rows would be read twice.
  ASSERT_FALSE(sys::fs::create_link("a", path("m/shards/link")));
  writeManifest("m", {{"shards/a", 2}, {"shards/link", 2}});
  EXPECT_EQ(openError("m"), path("m/store.json") +
                                ": shard 1 ('shards/link') is the directory "
                                "of shard 0 ('shards/a')");
}

TEST_F(StoreTest, AddedFilesAreCommittedWithTheStore) {
  Expected<std::unique_ptr<StoreWriter>> W =
      StoreWriter::create(path("s"), info());
  IRTK_ASSERT_OK(W);
  IRTK_EXPECT_SUCCESS((*W)->addFile("task.json", "{}\n"));
  EXPECT_FALSE(sys::fs::exists(path("s/task.json")));
  IRTK_EXPECT_SUCCESS((*W)->commit());
  ErrorOr<std::unique_ptr<MemoryBuffer>> B =
      MemoryBuffer::getFile(path("s/task.json"));
  ASSERT_TRUE(B);
  EXPECT_EQ((*B)->getBuffer(), "{}\n");
  IRTK_ASSERT_OK(Store::open(path("s")));
}

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
      R"({"format":"irtk-embedding-store","version":3})", "s/store.json");
  ASSERT_FALSE(I);
  EXPECT_EQ(toString(I.takeError()),
            "s/store.json: store format version 3 is newer than this tool's "
            "(2)");
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
