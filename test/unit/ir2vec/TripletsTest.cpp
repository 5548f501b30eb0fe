//===- TripletsTest.cpp - Triplet extraction tests ------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The expected triplets of @add are upstream LLVM 22's (`llvm-ir2vec
/// triplets` in LLVM 22, llvm/tools/llvm-ir2vec/).
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Triplets.h"
#include "irtk/ir2vec/Output.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace irtk::ir2vec;
using namespace irtk::vocab;
using namespace llvm;

namespace {

std::unique_ptr<Module> parse(LLVMContext &Ctx, StringRef IR) {
  SMDiagnostic Err;
  std::unique_ptr<Module> M = parseAssemblyString(IR, Err, Ctx);
  EXPECT_TRUE(M) << Err.getMessage().str();
  return M;
}

TEST(TripletsTest, UpstreamExample) {
  LLVMContext Ctx;
  auto M = parse(Ctx, R"(
define i32 @add(i32 %a, i32 %b) {
  %s = add i32 %a, %b
  ret i32 %s
}
)");
  std::vector<Triplet> T;
  unsigned Max = collectTriplets(*M->getFunction("add"), T);
  std::vector<Triplet> Expected = {{12, 74, 0}, {12, 83, 2}, {12, 83, 3},
                                   {12, 0, 1},  {0, 69, 0},  {0, 83, 2}};
  EXPECT_EQ(T, Expected);
  EXPECT_EQ(Max, 3u);
}

TEST(TripletsTest, NextCrossesBlocksButNotFunctions) {
  LLVMContext Ctx;
  auto M = parse(Ctx, R"(
define void @f() {
entry:
  br label %next
next:
  ret void
}
define void @g() {
  ret void
}
)");
  std::string S;
  raw_string_ostream OS(S);
  TripletSummary Summary = writeTriplets(*M, OS);
  EXPECT_EQ(S, "1\t69\t0\n1\t83\t2\n1\t0\t1\n0\t69\t0\n0\t69\t0\n");
  EXPECT_EQ(Summary.MaxRelation, 2u);
  EXPECT_EQ(Summary.Functions, 2u);
}

TEST(TripletsTest, DeclarationsAndEmptyModules) {
  LLVMContext Ctx;
  auto M = parse(Ctx, "declare void @ext()\n");
  std::string S;
  raw_string_ostream OS(S);
  TripletSummary Summary = writeTriplets(*M, OS);
  EXPECT_EQ(Summary.MaxRelation, 1u);
  EXPECT_EQ(Summary.Functions, 0u);
  EXPECT_EQ(S, "");
  std::string H;
  raw_string_ostream HS(H);
  writeTripletHeader(1, HS);
  EXPECT_EQ(H, "MAX_RELATION=1\n");
}

} // namespace

namespace {

TEST(TripletsTest, DeduplicatorKeepsFirstOccurrence) {
  TripletDeduplicator D;
  EXPECT_TRUE(D.insert({12, 74, 0}));
  EXPECT_FALSE(D.insert({12, 74, 0}));
  // Fields are not confused with each other.
  EXPECT_TRUE(D.insert({74, 12, 0}));
  EXPECT_TRUE(D.insert({12, 74, 1}));
  EXPECT_TRUE(D.insert({0, 0, 0}));
  EXPECT_FALSE(D.insert({0, 0, 0}));
}

TEST(TripletsTest, RelationsFileAsUpstreamRecipe) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  writeRelations(3, OS);
  EXPECT_EQ(S, "4\nType\t0\nNext\t1\nArg0\t2\nArg1\t3\n");
  S.clear();
  writeRelations(1, OS);
  EXPECT_EQ(S, "2\nType\t0\nNext\t1\n");
}

} // namespace
