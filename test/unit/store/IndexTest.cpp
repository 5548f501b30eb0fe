//===- IndexTest.cpp - A store's JSON-lines index -------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/store/Index.h"

#include "../TestHelpers.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace irtk::store;
using namespace llvm;

namespace {

IndexRecord funcRecord(uint64_t Row, StringRef Fn, StringRef Demangled) {
  IndexRecord R;
  R.Row = Row;
  R.Module = "dir/m.ll";
  R.Function = Fn.str();
  R.Demangled = Demangled.str();
  R.Level = "func";
  return R;
}

std::string render(const IndexRecord &R) {
  std::string S;
  raw_string_ostream OS(S);
  writeIndexRecord(R, OS);
  return S;
}

class IndexFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createTemporaryFile("irtk-index", "jsonl", Path));
  }
  void TearDown() override { sys::fs::remove(Path); }
  void write(StringRef Text) {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    OS << Text;
  }
  SmallString<128> Path;
};

TEST(IndexRecordTest, FunctionLevelLine) {
  EXPECT_EQ(render(funcRecord(3, "_Z3addii", "add(int, int)")),
            "{\"row\":3,\"module\":\"dir/m.ll\",\"function\":\"_Z3addii\","
            "\"demangled\":\"add(int, int)\",\"level\":\"func\"}\n");
}

TEST(IndexRecordTest, InstructionLevelRoundTrip) {
  IndexRecord R = funcRecord(7, "f", "f");
  R.Level = "inst";
  R.Block = "";
  R.BlockIndex = 2;
  R.InstIndex = 0;
  R.Inst = "%p = phi i32 [ 0, %entry ], [ %q, %b ] ; \"quoted\"";
  std::string Line = render(R);
  EXPECT_NE(Line.find(",\"block\":\"\",\"block_index\":2,\"inst_index\":0,"
                      "\"inst\":\"%p = phi"),
            std::string::npos);
  Expected<IndexRecord> Back = parseIndexRecord(Line, "i.jsonl", 8);
  IRTK_ASSERT_OK(Back);
  EXPECT_TRUE(*Back == R);
}

TEST(IndexRecordTest, ErrorNamesFileAndLine) {
  Expected<IndexRecord> R =
      parseIndexRecord("{\"row\":0,\"module\":\"m\"}", "i.jsonl", 4);
  ASSERT_FALSE(R);
  EXPECT_EQ(toString(R.takeError()), "i.jsonl:4: no \"function\" string");
}

TEST_F(IndexFileTest, LinesAndLastLineWithoutNewline) {
  write(render(funcRecord(0, "a", "a")) +
        StringRef(render(funcRecord(1, "b", "b"))).rtrim('\n').str());
  Expected<IndexFile> F = IndexFile::open(Path);
  IRTK_ASSERT_OK(F);
  ASSERT_EQ(F->size(), 2u);
  Expected<IndexRecord> R = F->record(1);
  IRTK_ASSERT_OK(R);
  EXPECT_EQ(R->Function, "b");
}

TEST_F(IndexFileTest, ProgressEvery4096LinesAndAtTheEnd) {
  std::string Text;
  for (uint64_t Row = 0; Row < 9000; ++Row)
    Text += render(funcRecord(Row, "f", "f"));
  write(Text);
  std::vector<std::pair<uint64_t, uint64_t>> Calls;
  Expected<IndexFile> F =
      IndexFile::open(Path, [&](uint64_t Done, uint64_t Total) {
        Calls.emplace_back(Done, Total);
      });
  IRTK_ASSERT_OK(F);
  using Call = std::pair<uint64_t, uint64_t>;
  EXPECT_EQ(Calls,
            (std::vector<Call>{{4096, 9000}, {8192, 9000}, {9000, 9000}}));
}

TEST_F(IndexFileTest, EmptyFileHasNoRows) {
  write("");
  Expected<IndexFile> F = IndexFile::open(Path);
  IRTK_ASSERT_OK(F);
  EXPECT_EQ(F->size(), 0u);
}

TEST_F(IndexFileTest, RowNumberMustMatchLine) {
  write(render(funcRecord(0, "a", "a")) + render(funcRecord(5, "b", "b")));
  Expected<IndexFile> F = IndexFile::open(Path);
  IRTK_ASSERT_OK(F);
  Expected<IndexRecord> R = F->record(1);
  ASSERT_FALSE(R);
  EXPECT_EQ(toString(R.takeError()),
            std::string(Path) + ":2: says row 5; expected 1");
}

TEST_F(IndexFileTest, FindFunctionBySymbolOrDemangledName) {
  write(render(funcRecord(0, "_Z3addii", "add(int, int)")) +
        render(funcRecord(1, "add", "add")) +
        render(funcRecord(2, "adder", "adder")) +
        render(funcRecord(3, "_Z3addii", "add(int, int)")));
  Expected<IndexFile> F = IndexFile::open(Path);
  IRTK_ASSERT_OK(F);
  Expected<std::vector<uint64_t>> A = F->findFunction("add");
  IRTK_ASSERT_OK(A);
  EXPECT_EQ(*A, std::vector<uint64_t>({1}));
  Expected<std::vector<uint64_t>> B = F->findFunction("add(int, int)");
  IRTK_ASSERT_OK(B);
  EXPECT_EQ(*B, std::vector<uint64_t>({0, 3}));
  Expected<std::vector<uint64_t>> C = F->findFunction("nope");
  IRTK_ASSERT_OK(C);
  EXPECT_TRUE(C->empty());
}

/// A module row of \p Module.
IndexRecord moduleRecord(uint64_t Row, StringRef Module) {
  IndexRecord R = makeIndexRecord(irtk::support::LevelKind::Module, Module, "",
                                  "", "", 0, 0, "");
  R.Row = Row;
  return R;
}

TEST(IndexRecordTest, ModuleLevelLine) {
  EXPECT_EQ(render(moduleRecord(2, "dir/m.ll")),
            "{\"row\":2,\"module\":\"dir/m.ll\",\"function\":\"\","
            "\"demangled\":\"\",\"level\":\"module\"}\n");
}

TEST_F(IndexFileTest, FindModuleByPathOrTheEndOfIt) {
  write(render(moduleRecord(0, "/src/a/m.ll")) +
        render(moduleRecord(1, "/src/b/m.ll")) +
        render(moduleRecord(2, "/src/b/xm.ll")) +
        render(moduleRecord(3, "m.ll")) + render(funcRecord(4, "m.ll", "f")));
  Expected<IndexFile> F = IndexFile::open(Path);
  IRTK_ASSERT_OK(F);
  // As recorded: row 3 alone (row 4's function is named m.ll, its module
  // is not).
  Expected<std::vector<uint64_t>> Exact = F->findModule("m.ll");
  IRTK_ASSERT_OK(Exact);
  EXPECT_EQ(*Exact, std::vector<uint64_t>({3}));
  // The end of a path, at a '/': b/m.ll is not b/xm.ll.
  Expected<std::vector<uint64_t>> End = F->findModule("b/m.ll");
  IRTK_ASSERT_OK(End);
  EXPECT_EQ(*End, std::vector<uint64_t>({1}));
  Expected<std::vector<uint64_t>> None = F->findModule("c/m.ll");
  IRTK_ASSERT_OK(None);
  EXPECT_TRUE(None->empty());
}

TEST_F(IndexFileTest, ModuleNameEndingSeveralPathsIsAnError) {
  write(render(moduleRecord(0, "/src/a/m.ll")) +
        render(moduleRecord(1, "/src/b/m.ll")));
  Expected<IndexFile> F = IndexFile::open(Path);
  IRTK_ASSERT_OK(F);
  Expected<std::vector<uint64_t>> R = F->findModule("m.ll", "store s");
  ASSERT_FALSE(R);
  EXPECT_EQ(toString(R.takeError()),
            "module 'm.ll' matches 2 modules in store s: '/src/a/m.ll', "
            "'/src/b/m.ll'; name one by a longer path");
}

TEST_F(IndexFileTest, MissingFile) {
  sys::fs::remove(Path);
  Expected<IndexFile> F = IndexFile::open(Path);
  ASSERT_FALSE(F);
  EXPECT_EQ(toString(F.takeError()),
            std::string(Path) + ": cannot read: No such file or directory");
}

TEST_F(IndexFileTest, LineThatIsNotJSONFailsTheOpen) {
  // Row 2 is never read, but the store must not open.
  write(render(funcRecord(0, "a", "a")) + render(funcRecord(1, "b", "b")) +
        "{\"row\":2,\"module\":\"m\"\n");
  Expected<IndexFile> F = IndexFile::open(Path);
  ASSERT_FALSE(F);
  EXPECT_EQ(toString(F.takeError()),
            std::string(Path) + ":3:22: invalid JSON: Expected , or } after "
                                "object property");
}

} // namespace
