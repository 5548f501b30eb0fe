//===- SymbolsTest.cpp - Naming functions on the command line -------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/support/Symbols.h"

#include "gtest/gtest.h"

using namespace irtk::support;

namespace {

TEST(SymbolsTest, SymbolOrDemangledName) {
  EXPECT_TRUE(symbolMatches("add", "add"));
  EXPECT_TRUE(symbolMatches("_Z3addii", "_Z3addii"));
  EXPECT_TRUE(symbolMatches("_Z3addii", "add(int, int)"));
  EXPECT_FALSE(symbolMatches("_Z3addii", "add"));
  EXPECT_FALSE(symbolMatches("add", "ad"));
  // A name that is not mangled is never demangled.
  EXPECT_FALSE(symbolMatches("x3addii", "add(int, int)"));
}

} // namespace
