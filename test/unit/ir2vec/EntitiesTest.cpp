//===- EntitiesTest.cpp - Entity layout tests -----------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The entity ids and names must be LLVM 22's: the expected ids below are
/// the ones upstream's `llvm-ir2vec entities` prints (the layout of
/// llvm::ir2vec::Vocabulary in llvm/Analysis/IR2Vec.h).
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Entities.h"

#include "gtest/gtest.h"

using namespace irtk::ir2vec;

namespace {

TEST(EntitiesTest, CountsMatchLLVM22) {
  EXPECT_EQ(NumOpcodes, 68u);
  EXPECT_EQ(NumCanonicalTypes, 12u);
  EXPECT_EQ(NumOperandKinds, 4u);
  EXPECT_EQ(NumPredicates, 26u);
  EXPECT_EQ(NumEntities, 110u);
}

TEST(EntitiesTest, IdsOfKnownEntities) {
  const std::pair<const char *, EntityId> Expected[] = {
      {"Ret", 0},        {"Add", 12},        {"Alloca", 30},
      {"Load", 31},      {"Store", 32},      {"PtrToAddr", 47},
      {"ICmp", 53},      {"PHI", 55},        {"Call", 56},
      {"Freeze", 67},    {"FloatTy", 68},    {"VoidTy", 69},
      {"IntegerTy", 74}, {"PointerTy", 76},  {"UnknownTy", 79},
      {"Function", 80},  {"Pointer", 81},    {"Constant", 82},
      {"Variable", 83},  {"FCMP_false", 84}, {"FCMP_true", 99},
      {"ICMP_eq", 100},  {"ICMP_sle", 109},
  };
  for (const auto &[Name, Id] : Expected)
    EXPECT_EQ(entityName(Id), Name) << "id " << Id;
}

TEST(EntitiesTest, GroupsAndSections) {
  EXPECT_EQ(entityGroup(0), EntityGroupKind::Opcode);
  EXPECT_EQ(entityGroup(68), EntityGroupKind::CanonicalType);
  EXPECT_EQ(entityGroup(80), EntityGroupKind::OperandKind);
  EXPECT_EQ(entityGroup(84), EntityGroupKind::Predicate);
  // Predicates are read from the Arguments section, as upstream's files
  // have them.
  EXPECT_EQ(jsonSectionOf(84), JSONSectionKind::Arguments);
  EXPECT_EQ(jsonSectionOf(80), JSONSectionKind::Arguments);
  EXPECT_EQ(jsonSectionOf(70), JSONSectionKind::Types);
}

TEST(EntitiesTest, LookupIsPerSection) {
  EXPECT_EQ(lookupEntity(JSONSectionKind::Opcodes, "Add"), 12u);
  EXPECT_EQ(lookupEntity(JSONSectionKind::Arguments, "ICMP_sle"), 109u);
  EXPECT_EQ(lookupEntity(JSONSectionKind::Types, "IntegerTy"), 74u);
  // Keys are case-sensitive and bound to their section.
  EXPECT_FALSE(lookupEntity(JSONSectionKind::Opcodes, "add"));
  EXPECT_FALSE(lookupEntity(JSONSectionKind::Types, "Add"));
  EXPECT_FALSE(lookupEntity(JSONSectionKind::Arguments, "Label"));
}

TEST(EntitiesTest, EveryNameRoundTrips) {
  for (EntityId Id = 0; Id < NumEntities; ++Id)
    EXPECT_EQ(lookupEntity(jsonSectionOf(Id), entityName(Id)), Id);
}

} // namespace
