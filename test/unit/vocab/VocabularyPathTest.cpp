//===- VocabularyPathTest.cpp - Which vocabulary file to load -------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/vocab/VocabularyPath.h"

#include "gtest/gtest.h"

using namespace irtk::vocab;

namespace {

const std::string Existing = std::string(IRTK_TEST_INPUTS) + "/ids2d.json";
const std::string Missing = std::string(IRTK_TEST_INPUTS) + "/no-such.json";

std::string unset(llvm::StringRef Default) {
  return "unset, default '" + Default.str() + "'";
}

TEST(VocabularyPathTest, GivenPathWinsUnchecked) {
  llvm::Expected<std::string> P =
      resolveVocabularyPath("given.json", Existing, unset);
  ASSERT_TRUE(static_cast<bool>(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(*P, "given.json");
}

TEST(VocabularyPathTest, ExistingDefaultIsUsed) {
  llvm::Expected<std::string> P = resolveVocabularyPath("", Existing, unset);
  ASSERT_TRUE(static_cast<bool>(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(*P, Existing);
}

TEST(VocabularyPathTest, MissingDefaultIsTheCallersError) {
  llvm::Expected<std::string> P = resolveVocabularyPath("", Missing, unset);
  ASSERT_FALSE(static_cast<bool>(P));
  EXPECT_EQ(llvm::toString(P.takeError()), "unset, default '" + Missing + "'");
}

TEST(VocabularyPathTest, NoDefaultIsTheCallersError) {
  llvm::Expected<std::string> P = resolveVocabularyPath("", "", unset);
  ASSERT_FALSE(static_cast<bool>(P));
  EXPECT_EQ(llvm::toString(P.takeError()), "unset, default ''");
}

TEST(VocabularyPathTest, BundledPathIsBesideTheBinary) {
  EXPECT_EQ(bundledVocabularyPath("/opt/irtk/bin/llvm-ir2vec", "v.json"),
            "/opt/irtk/share/irtk/vocab/v.json");
}

TEST(VocabularyPathTest, BundledVocabulariesAreBesideAPlugin) {
  EXPECT_EQ(bundledVocabularyDir("/usr/lib/IRTKPlugin.so"),
            "/usr/share/irtk/vocab");
}

} // namespace
