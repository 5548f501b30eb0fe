//===- LegacyTest.cpp - Legacy vocabulary key mapping ---------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The keys of IITH IR2Vec's seed files (seedEmbeddingVocab75D.txt, read by
/// hand) map to LLVM 22's entities.
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Legacy.h"
#include "../TestHelpers.h"

#include "gtest/gtest.h"

using namespace irtk::ir2vec;

namespace {

TEST(LegacyTest, IITHKeysMapToEntities) {
  const std::pair<const char *, const char *> Cases[] = {
      {"add", "Add"},
      {"getelementptr", "GetElementPtr"},
      {"icmp", "ICmp"},
      {"phi", "PHI"},
      {"va_arg", "VAArg"},
      {"cmpxchg", "AtomicCmpXchg"},
      {"atomicrmw", "AtomicRMW"},
      {"shufflevector", "ShuffleVector"},
      {"addrspacecast", "AddrSpaceCast"},
      {"landingpad", "LandingPad"},
      {"floatTy", "FloatTy"},
      {"integerTy", "IntegerTy"},
      {"pointerTy", "PointerTy"},
      {"function", "Function"},
      {"pointer", "Pointer"},
      {"constant", "Constant"},
      {"variable", "Variable"},
  };
  for (auto [Legacy, Current] : Cases) {
    std::optional<EntityId> Id = legacyKeyEntity(Legacy);
    ASSERT_TRUE(Id.has_value()) << Legacy;
    EXPECT_EQ(entityName(*Id), Current) << Legacy;
  }
  EXPECT_FALSE(legacyKeyEntity("label").has_value());
  EXPECT_FALSE(legacyKeyEntity("Add ").has_value());
}

TEST(LegacyTest, CurrentNamesMapToThemselves) {
  for (EntityId Id = 0; Id < NumEntities; ++Id) {
    std::optional<EntityId> Got = legacyKeyEntity(entityName(Id));
    ASSERT_TRUE(Got.has_value()) << entityName(Id).str();
    EXPECT_EQ(*Got, Id);
  }
}

TEST(LegacyTest, CurrentFormatIsNotConverted) {
  // Sections of objects are LLVM 22's format: nothing to convert, and the
  // error says so rather than blaming an entry that is not an array.
  auto L = parseLegacyVocabulary(
      R"({"Opcodes": {"Ret": [1, 2]}, "Types": {"VoidTy": [0, 1]},
          "Arguments": {"Constant": [3, 4]}})",
      "v.json");
  ASSERT_FALSE(L);
  EXPECT_EQ(llvm::toString(L.takeError()),
            "v.json: already in LLVM 22's vocabulary format (section "
            "'Arguments'); there is nothing to convert: use it as it is "
            "(irtk-vocab validate checks it)");
}

TEST(LegacyTest, ParsesTextWithScientificNotation) {
  auto L = parseLegacyVocabulary("add:[1.5e-01, -2]\n\nintegerTy:[0, 3],\n",
                                 "v.txt");
  IRTK_ASSERT_OK(L);
  EXPECT_EQ(L->Dimension, 2u);
  EXPECT_EQ(L->Vectors[12], (std::vector<double>{0.15, -2}));
  EXPECT_EQ(L->Vectors[74], (std::vector<double>{0, 3}));
  EXPECT_TRUE(L->Vectors[0].empty());
  EXPECT_TRUE(L->UnmappedKeys.empty());
}

} // namespace
