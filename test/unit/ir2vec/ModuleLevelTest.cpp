//===- ModuleLevelTest.cpp - The module level of a walk -------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The module level (irtk's; upstream LLVM 22 has none): ircommon::ModuleSum
/// and the IR walker's use of it, by hand with the ids vocabulary (entity k
/// is [k, 1], weights 1), and its store rows.
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/StoreRows.h"
#include "irtk/ir2vec/Walk.h"
#include "irtk/ircommon/EmbeddingSink.h"
#include "irtk/ircommon/ModuleLoader.h"
#include "irtk/support/Level.h"

#include "../TestHelpers.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace irtk;
using namespace llvm;
using ircommon::EmbeddingRecord;
using support::LevelKind;

namespace {

/// What a sink was told, in order: "function <name>", "level <level>" and
/// "record <level> <function or -> [v0, v1, ...]".
class LogSink : public ircommon::EmbeddingSink {
public:
  void beginFunction(const Function &F) override {
    Log.push_back("function " + F.getName().str());
  }
  void beginLevel(LevelKind L) override {
    Log.push_back("level " + support::levelName(L).str());
  }
  void record(const EmbeddingRecord &R) override {
    std::string S = "record " + support::levelName(R.Level).str() + " " +
                    (R.F ? R.F->getName().str() : "-");
    for (double X : R.Vector)
      S += " " + std::to_string(static_cast<long long>(X));
    Log.push_back(S);
    Last = R;
    LastVector.assign(R.Vector.begin(), R.Vector.end());
  }
  std::vector<std::string> Log;
  EmbeddingRecord Last;
  std::vector<double> LastVector;
};

/// A function record of \p V and the given size.
EmbeddingRecord functionRecord(ArrayRef<double> V, uint64_t Instructions,
                               uint64_t Blocks) {
  EmbeddingRecord R;
  R.Vector = V;
  R.FunctionInstructions = Instructions;
  R.FunctionBlocks = Blocks;
  return R;
}

TEST(ModuleSumTest, AddsInWalkOrderFromZero) {
  // ((0 + 1e16) + 1) + -1e16 is 0 in double: 1e16 + 1 rounds to 1e16. Any
  // other order (or a sum in long double) would give 1.
  ircommon::ModuleSum Sum(1);
  const double A[] = {1e16}, B[] = {1}, C[] = {-1e16};
  Sum.add(functionRecord(A, 3, 1));
  Sum.add(functionRecord(B, 4, 2));
  Sum.add(functionRecord(C, 5, 3));
  EXPECT_EQ(Sum.vector()[0], 0.0);

  LogSink S;
  Sum.emit(S);
  EXPECT_EQ(S.Log,
            (std::vector<std::string>{"level module", "record module - 0"}));
  EXPECT_EQ(S.Last.Level, LevelKind::Module);
  EXPECT_EQ(S.Last.F, nullptr);
  EXPECT_EQ(S.Last.FunctionInstructions, 12u);
  EXPECT_EQ(S.Last.FunctionBlocks, 6u);
}

TEST(ModuleSumTest, NothingAddedIsZero) {
  ircommon::ModuleSum Sum(3);
  LogSink S;
  Sum.emit(S);
  EXPECT_EQ(S.LastVector, (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(S.Last.FunctionInstructions, 0u);
}

TEST(LevelTest, ModuleIsALevel) {
  EXPECT_EQ(support::parseLevel("module"), LevelKind::Module);
  EXPECT_EQ(support::levelName(LevelKind::Module), "module");
  EXPECT_EQ(support::levelHeading(LevelKind::Module), "Module vector: ");
  EXPECT_FALSE(support::parseLevel("program").has_value());
}

class ModuleWalkTest : public ::testing::Test {
protected:
  void SetUp() override {
    Expected<vocab::Vocabulary> V = test::idsVocabulary();
    IRTK_ASSERT_OK(V);
    Vocab.emplace(std::move(*V));
    // cfg.ll's functions: add [404, 7], f [1169, 19] (f's unreachable
    // block left out), and a declaration.
    ircommon::LoadedModule L =
        ircommon::loadModule(IRTK_TEST_INPUTS "/cfg.ll", Ctx);
    ASSERT_TRUE(L.M) << L.describe("cfg.ll");
    M = std::move(L.M);
  }
  std::vector<std::string> walk(ir2vec::WalkOptions O) {
    LogSink S;
    ir2vec::Walker(*Vocab, O).walkModule(*M, S);
    return S.Log;
  }

  std::optional<vocab::Vocabulary> Vocab;
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
};

TEST_F(ModuleWalkTest, ModuleLevelAloneIsOneRecord) {
  EXPECT_EQ(
      walk(ir2vec::WalkOptions::forLevel(ir2vec::EmbeddingKind::Symbolic,
                                         LevelKind::Module)),
      (std::vector<std::string>{"level module", "record module - 1573 26"}));
}

TEST_F(ModuleWalkTest, FlowAwareSumsTheFunctionLevelsVectors) {
  // add [573, 10] and f [1380, 22], as embeddings-flow-aware.test.
  EXPECT_EQ(
      walk(ir2vec::WalkOptions::forLevel(ir2vec::EmbeddingKind::FlowAware,
                                         LevelKind::Module)),
      (std::vector<std::string>{"level module", "record module - 1953 32"}));
}

TEST_F(ModuleWalkTest, WithTheFunctionLevelTheModuleComesLast) {
  ir2vec::WalkOptions O = ir2vec::WalkOptions::forLevel(
      ir2vec::EmbeddingKind::Symbolic, LevelKind::Function);
  O.Module = true;
  // Declarations walked add their zero vector.
  O.Declarations = true;
  EXPECT_EQ(walk(O), (std::vector<std::string>{
                         "function add", "level func", "record func add 404 7",
                         "function f", "level func", "record func f 1169 19",
                         "function ext", "level func", "record func ext 0 0",
                         "level module", "record module - 1573 26"}));
}

TEST_F(ModuleWalkTest, StoreRowIsTheModule) {
  ir2vec::EmbeddingOutputOptions O;
  O.Level = LevelKind::Module;
  O.ModuleName = "dir/cfg.ll";
  store::RowBatch Rows;
  ir2vec::collectModuleRows(*M, *Vocab, O, Rows);
  ASSERT_EQ(Rows.size(), 1u);
  EXPECT_EQ(Rows.Values, std::vector<float>({1573, 26}));
  const store::IndexRecord &R = Rows.Records[0];
  EXPECT_EQ(R.Level, "module");
  EXPECT_EQ(R.Module, "dir/cfg.ll");
  EXPECT_EQ(R.Function, "");
  EXPECT_EQ(R.Demangled, "");
  EXPECT_FALSE(R.Block.has_value());
  EXPECT_FALSE(R.BlockIndex.has_value());
  // add: 2 instructions, 1 block; f: 6 and 4.
  EXPECT_EQ(R.Instructions, 8u);
  EXPECT_EQ(R.Blocks, 5u);
}

} // namespace
