//===- ModuleLoaderTest.cpp - Reading and verifying IR files --------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/ircommon/ModuleLoader.h"

#include "gtest/gtest.h"

using namespace irtk::ircommon;

namespace {

std::string input(const char *Name) {
  return std::string(IRTK_TEST_INPUTS) + "/" + Name;
}

TEST(ModuleLoaderTest, LoadsAValidModule) {
  llvm::LLVMContext Ctx;
  LoadedModule L = loadModule(input("cfg.ll"), Ctx);
  ASSERT_NE(L.M, nullptr);
  EXPECT_EQ(L.Failure, LoadFailureKind::None);
  EXPECT_EQ(L.describe("cfg.ll"), "");
}

// malformed.ll line 2, `%x = add i32 1`, lacks its second operand: the
// parser reports the next token, `ret` at line 3, column 3.
TEST(ModuleLoaderTest, ParseErrorKeepsItsPlace) {
  llvm::LLVMContext Ctx;
  LoadedModule L = loadModule(input("malformed.ll"), Ctx);
  EXPECT_EQ(L.M, nullptr);
  EXPECT_EQ(L.Failure, LoadFailureKind::Parse);
  EXPECT_EQ(L.Line, 3u);
  EXPECT_EQ(L.Column, 3u);
  EXPECT_EQ(L.located(), "3:3: expected ',' in arithmetic operation");
  EXPECT_EQ(L.describe("m.ll"),
            "m.ll:3:3: expected ',' in arithmetic operation");
}

TEST(ModuleLoaderTest, VerifierRejectsInvalidModule) {
  llvm::LLVMContext Ctx;
  LoadedModule L = loadModule(input("invalid-module.ll"), Ctx);
  EXPECT_EQ(L.M, nullptr);
  EXPECT_EQ(L.Failure, LoadFailureKind::Invalid);
  EXPECT_EQ(L.describe("i.ll"),
            "i.ll: invalid module: Instruction does not dominate all uses!");
}

TEST(ModuleLoaderTest, MissingFileIsAParseFailureWithoutPlace) {
  llvm::LLVMContext Ctx;
  LoadedModule L = loadModule(input("no-such-file.ll"), Ctx);
  EXPECT_EQ(L.M, nullptr);
  EXPECT_EQ(L.Failure, LoadFailureKind::Parse);
  EXPECT_EQ(L.Line, 0u);
  EXPECT_EQ(L.describe("x.ll"),
            "x.ll: Could not open input file: No such file or directory");
}

} // namespace
