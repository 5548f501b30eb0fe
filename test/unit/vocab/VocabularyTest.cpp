//===- VocabularyTest.cpp - Vocabulary loading tests ----------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Loading, weighting and every validation error of the vocabulary.
///
//===----------------------------------------------------------------------===//

#include "irtk/vocab/Vocabulary.h"
#include "irtk/ir2vec/Entities.h"
#include "irtk/vocab/Validation.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

#include "../TestHelpers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace irtk::vocab;
using namespace llvm;
using irtk::ir2vec::irLayout;
using irtk::ir2vec::NumEntities;
using irtk::ir2vec::Weights;
using ::testing::HasSubstr;

namespace {

/// Loads \p Text as an LLVM IR vocabulary with weights \p W.
Expected<Vocabulary> loadIR(StringRef Text, StringRef Name,
                            const Weights &W = {}) {
  return Vocabulary::loadFromBuffer(Text, Name, irLayout(), W.sections());
}

std::string loadError(StringRef Text) {
  Expected<Vocabulary> V = loadIR(Text, "v.json");
  if (V) {
    ADD_FAILURE() << "expected an error for: " << Text.str();
    return "";
  }
  return toString(V.takeError());
}

const char *Small = R"({
  "Opcodes": {"Ret": [1, 2], "Add": [3, 4]},
  "Types": {"IntegerTy": [5, 6]},
  "Arguments": {"Variable": [10, 20], "ICMP_eq": [30, 40], "Label": [0, 0]}
})";

TEST(VocabularyTest, LoadsAndAppliesDefaultWeights) {
  Expected<Vocabulary> V = loadIR(Small, "v.json");
  IRTK_ASSERT_OK(V);
  EXPECT_EQ(V->dimension(), 2u);
  EXPECT_EQ(V->vector(0)[0], 1.0);  // Ret, opcode weight 1
  EXPECT_EQ(V->vector(74)[1], 3.0); // IntegerTy, type weight 0.5
  // Argument weight 0.2f promoted to double, as upstream does.
  EXPECT_EQ(V->vector(83)[0], 10 * static_cast<double>(0.2f));
  EXPECT_EQ(V->vector(100)[1], 40 * static_cast<double>(0.2f));
  EXPECT_NE(V->vector(83)[0], 2.0);
}

TEST(VocabularyTest, CustomWeights) {
  Weights W;
  W.Opcode = 2.0f;
  W.Type = 1.0f;
  W.Argument = 0.5f;
  Expected<Vocabulary> V = loadIR(Small, "v.json", W);
  IRTK_ASSERT_OK(V);
  EXPECT_EQ(V->vector(12)[0], 6.0);
  EXPECT_EQ(V->vector(74)[0], 5.0);
  EXPECT_EQ(V->vector(83)[1], 10.0);
}

TEST(VocabularyTest, MissingEntitiesAreZeroAndReported) {
  Expected<Vocabulary> V = loadIR(Small, "v.json");
  IRTK_ASSERT_OK(V);
  EXPECT_FALSE(V->isPresent(1)); // Br
  EXPECT_EQ(V->vector(1)[0], 0.0);
  EXPECT_EQ(V->vector(1)[1], 0.0);
  std::vector<EntityId> Missing = V->missingEntities();
  EXPECT_EQ(Missing.size(), NumEntities - 5);
  EXPECT_EQ(Missing.front(), 1u);
  EXPECT_THAT(toString(checkComplete(*V, "v.json")),
              HasSubstr("v.json: 105 of 110 entities missing: Br, Switch"));
}

TEST(VocabularyTest, UnknownKeysAreKept) {
  Expected<Vocabulary> V = loadIR(Small, "v.json");
  IRTK_ASSERT_OK(V);
  ASSERT_EQ(V->unknownKeys().size(), 1u);
  EXPECT_EQ(V->unknownKeys()[0], "Arguments.Label");
}

TEST(VocabularyTest, SectionOrderIsIrrelevant) {
  const char *Reordered = R"({
    "Arguments": {"Label": [0, 0], "ICMP_eq": [30, 40], "Variable": [10, 20]},
    "Extra": 1,
    "Types": {"IntegerTy": [5, 6]},
    "Opcodes": {"Add": [3, 4], "Ret": [1, 2]}
  })";
  Expected<Vocabulary> A = loadIR(Small, "a");
  Expected<Vocabulary> B = loadIR(Reordered, "b");
  IRTK_ASSERT_OK(A);
  IRTK_ASSERT_OK(B);
  for (EntityId Id = 0; Id < NumEntities; ++Id)
    EXPECT_EQ(A->vector(Id).vec(), B->vector(Id).vec()) << "entity " << Id;
}

TEST(VocabularyTest, FromVectorsChecksShape) {
  std::vector<std::vector<double>> Vs(NumEntities, {1.0, 2.0});
  EXPECT_TRUE(static_cast<bool>(Vocabulary::fromVectors(irLayout(), Vs)));
  Vs[5] = {1.0};
  EXPECT_THAT(toString(Vocabulary::fromVectors(irLayout(), Vs).takeError()),
              HasSubstr("entity 'Resume' has dimension 1, expected 2"));
  Vs.pop_back();
  EXPECT_THAT(toString(Vocabulary::fromVectors(irLayout(), Vs).takeError()),
              HasSubstr("expected 110 entity vectors, got 109"));
}

TEST(VocabularyTest, ErrorMissingFile) {
  Expected<Vocabulary> V =
      irtk::ir2vec::loadVocabulary("/nonexistent/vocab.json");
  EXPECT_THAT(toString(V.takeError()),
              HasSubstr("/nonexistent/vocab.json: cannot read vocabulary: No "
                        "such file or directory"));
}

TEST(VocabularyTest, ErrorInvalidJSONHasLineAndColumn) {
  EXPECT_EQ(loadError("{\n  \"Opcodes\": {\"Ret\": [1, 2],}\n}"),
            "v.json:2:29: invalid JSON: Expected object key");
}

TEST(VocabularyTest, ErrorRootNotObject) {
  EXPECT_EQ(loadError("[1, 2]"), "v.json: JSON root is not an object");
}

TEST(VocabularyTest, ErrorMissingSection) {
  EXPECT_EQ(loadError(R"({"Opcodes": {"Ret": [1]}, "Types": {"VoidTy": [1]}})"),
            "v.json: missing 'Arguments' section");
}

TEST(VocabularyTest, ErrorSectionNotObject) {
  EXPECT_EQ(loadError(R"({"Opcodes": [], "Types": {}, "Arguments": {}})"),
            "v.json: section 'Opcodes' is not an object");
}

TEST(VocabularyTest, ErrorEmptySection) {
  EXPECT_EQ(loadError(R"({"Opcodes": {"Ret": [1]}, "Types": {},
                          "Arguments": {"Variable": [1]}})"),
            "v.json: section 'Types' is empty");
}

TEST(VocabularyTest, ErrorEntryNotArray) {
  EXPECT_EQ(
      loadError(R"({"Opcodes": {"Ret": {"a": 1}}, "Types": {"VoidTy": [1]},
                          "Arguments": {"Variable": [1]}})"),
      "v.json: section 'Opcodes', entry 'Ret': not an array of numbers");
}

TEST(VocabularyTest, ErrorElementNotNumber) {
  EXPECT_EQ(
      loadError(R"({"Opcodes": {"Ret": [1, null]}, "Types": {"VoidTy": [1, 2]},
                          "Arguments": {"Variable": [1, 2]}})"),
      "v.json: section 'Opcodes', entry 'Ret': element 1 is not a number");
}

TEST(VocabularyTest, ErrorNonFinite) {
  EXPECT_EQ(
      loadError(R"({"Opcodes": {"Ret": [1]}, "Types": {"VoidTy": [-1e999]},
                          "Arguments": {"Variable": [1]}})"),
      "v.json: section 'Types', entry 'VoidTy': element 0 is not finite");
}

TEST(VocabularyTest, ErrorZeroDimension) {
  EXPECT_EQ(loadError(R"({"Opcodes": {"Ret": []}, "Types": {"VoidTy": []},
                          "Arguments": {"Variable": []}})"),
            "v.json: section 'Opcodes', entry 'Ret': zero dimension");
}

TEST(VocabularyTest, ErrorDimensionWithinSection) {
  // The reference dimension is the lexicographically first key's, as
  // upstream's.
  EXPECT_EQ(loadError(R"({"Opcodes": {"Ret": [1, 2, 3], "Add": [1, 2]},
                          "Types": {"VoidTy": [1, 2]},
                          "Arguments": {"Variable": [1, 2]}})"),
            "v.json: section 'Opcodes', entry 'Ret': dimension 3 differs "
            "from 2 of entry 'Add'");
}

TEST(VocabularyTest, ErrorDimensionAcrossSections) {
  EXPECT_EQ(
      loadError(R"({"Opcodes": {"Ret": [1, 2]}, "Types": {"VoidTy": [1, 2]},
                          "Arguments": {"Variable": [1, 2, 3]}})"),
      "v.json: section 'Arguments' has dimension 3 but section "
      "'Opcodes' has 2");
}

TEST(VocabularyTest, LoadsShippedTestVocabulary) {
  Expected<Vocabulary> V =
      irtk::ir2vec::loadVocabulary(IRTK_TEST_INPUTS "/ids2d.json");
  IRTK_ASSERT_OK(V);
  EXPECT_TRUE(V->missingEntities().empty());
  IRTK_EXPECT_SUCCESS(checkComplete(*V, "ids2d.json"));
}

TEST(VocabularyTest, StatsCountCoverageAndNorms) {
  Expected<Vocabulary> V = loadIR(Small, "v.json");
  IRTK_ASSERT_OK(V);
  VocabStats S = computeStats(*V);
  EXPECT_EQ(S.Dimension, 2u);
  EXPECT_EQ(S.Present, 5u);
  EXPECT_EQ(S.GroupPresent[0], 2u);
  EXPECT_EQ(S.GroupTotal[0], 68u);
  EXPECT_EQ(S.GroupPresent[3], 1u);
  EXPECT_EQ(V->layout().entityName(S.MinNormEntity), "Ret"); // |(1,2)|
  EXPECT_DOUBLE_EQ(S.MinNorm, std::sqrt(5.0));
  EXPECT_EQ(V->layout().entityName(S.MaxNormEntity), "ICMP_eq"); // |(6,8)| = 10
  EXPECT_NEAR(S.MaxNorm, 10.0, 1e-6);
}

} // namespace

namespace {

TEST(VocabularyTest, CompareVocabularies) {
  Expected<Vocabulary> A = loadIR(
      R"({"Opcodes": {"Ret": [1, 0]}, "Types": {"VoidTy": [3, 4]},
          "Arguments": {"Variable": [1, 1]}})",
      "a");
  Expected<Vocabulary> B = loadIR(
      R"({"Opcodes": {"Ret": [2, 0], "Br": [1, 1]},
          "Types": {"VoidTy": [-3, -4]}, "Arguments": {"Variable": [0, 0]}})",
      "b");
  IRTK_ASSERT_OK(A);
  IRTK_ASSERT_OK(B);
  Expected<std::vector<EntityDiff>> D = compareVocabularies(*A, *B, "a", "b");
  IRTK_ASSERT_OK(D);
  ASSERT_EQ(D->size(), NumEntities);
  EXPECT_DOUBLE_EQ((*D)[0].Cosine, 1.0); // Ret: same direction
  EXPECT_DOUBLE_EQ((*D)[0].Distance, 1.0);
  EXPECT_FALSE((*D)[1].InA); // Br
  EXPECT_TRUE((*D)[1].InB);
  EXPECT_TRUE(std::isnan((*D)[1].Cosine));
  EXPECT_DOUBLE_EQ((*D)[69].Cosine, -1.0); // VoidTy
  EXPECT_DOUBLE_EQ((*D)[69].Distance, 5.0);
  EXPECT_TRUE(std::isnan((*D)[83].Cosine)); // Variable: zero in b
}

TEST(VocabularyTest, CompareNeedsOneDimension) {
  Expected<Vocabulary> A = loadIR(
      R"({"Opcodes": {"Ret": [1]}, "Types": {"VoidTy": [1]},
          "Arguments": {"Variable": [1]}})",
      "a");
  Expected<Vocabulary> B = loadIR(Small, "b");
  IRTK_ASSERT_OK(A);
  IRTK_ASSERT_OK(B);
  EXPECT_EQ(toString(compareVocabularies(*A, *B, "a", "b").takeError()),
            "cannot compare a (dimension 1) with b (dimension 2)");
}

} // namespace

namespace {

/// A layout of two sections, the first with two groups: nothing of LLVM IR.
std::shared_ptr<const Layout> tinyLayout() {
  auto L = std::make_shared<Layout>("tiny");
  unsigned Ops = L->addSection("Ops");
  unsigned Regs = L->addSection("Regs");
  L->addGroup(Ops, "moves");
  L->addEntity("MOV");
  L->addEntity("LEA");
  L->addGroup(Ops, "jumps");
  L->addEntity("JMP");
  L->addGroup(Regs, "registers");
  L->addEntity("GR64");
  // Keys are per section: the same key may name an entity of another one.
  L->addEntity("MOV");
  return L;
}

TEST(LayoutTest, IdsFollowTheOrderOfAddition) {
  std::shared_ptr<const Layout> L = tinyLayout();
  ASSERT_EQ(L->size(), 5u);
  EXPECT_EQ(L->numSections(), 2u);
  EXPECT_EQ(L->numGroups(), 3u);
  EXPECT_EQ(L->entityName(2), "JMP");
  EXPECT_EQ(L->entityGroup(2), 1u);
  EXPECT_EQ(L->entitySection(2), 0u);
  EXPECT_EQ(L->entitySection(4), 1u);
  EXPECT_EQ(L->groupRange(1), std::make_pair(2u, 3u));
  EXPECT_EQ(L->lookup(0, "MOV"), 0u);
  EXPECT_EQ(L->lookup(1, "MOV"), 4u);
  EXPECT_FALSE(L->lookup(1, "JMP"));
  EXPECT_EQ(L->findSection("Regs"), 1u);
  EXPECT_FALSE(L->findSection("Opcodes"));
}

TEST(LayoutTest, VocabularyOverAnyLayout) {
  Expected<Vocabulary> V = Vocabulary::loadFromBuffer(
      R"({"Ops": {"MOV": [1, 2], "JMP": [3, 4], "NOP": [0, 0]},
          "Regs": {"GR64": [5, 6]}})",
      "tiny.json", tinyLayout(), {2.0f, 0.5f});
  IRTK_ASSERT_OK(V);
  EXPECT_EQ(V->size(), 5u);
  EXPECT_EQ(V->vector(0).vec(), (std::vector<double>{2, 4}));   // MOV * 2
  EXPECT_EQ(V->vector(3).vec(), (std::vector<double>{2.5, 3})); // GR64 * .5
  EXPECT_FALSE(V->isPresent(1));                                // LEA
  EXPECT_FALSE(V->isPresent(4));                                // Regs.MOV
  ASSERT_EQ(V->unknownKeys().size(), 1u);
  EXPECT_EQ(V->unknownKeys()[0], "Ops.NOP");
  VocabStats S = computeStats(*V);
  EXPECT_EQ(S.GroupPresent, (std::vector<unsigned>{1, 1, 1}));
  EXPECT_EQ(S.GroupTotal, (std::vector<unsigned>{2, 1, 2}));
}

TEST(LayoutTest, SectionsComeFromTheLayout) {
  Expected<Vocabulary> V = Vocabulary::loadFromBuffer(
      R"({"Ops": {"MOV": [1]}})", "tiny.json", tinyLayout());
  EXPECT_EQ(toString(V.takeError()), "tiny.json: missing 'Regs' section");
}

TEST(LayoutTest, WrittenVocabularyFollowsTheLayout) {
  std::shared_ptr<const Layout> L = tinyLayout();
  std::string Text;
  raw_string_ostream OS(Text);
  writeVocabularyJSON(*L, {{1}, {}, {0.5}, {2}, {-1}}, OS);
  EXPECT_EQ(Text, "{\n  \"Ops\": {\n    \"MOV\": [1],\n    \"JMP\": [0.5]\n  "
                  "},\n  \"Regs\": {\n    \"GR64\": [2],\n    \"MOV\": "
                  "[-1]\n  }\n}\n");
}

TEST(LayoutTest, CompareNeedsOneLayout) {
  Expected<Vocabulary> A = Vocabulary::loadFromBuffer(
      R"({"Ops": {"MOV": [1]}, "Regs": {"GR64": [1]}})", "a", tinyLayout());
  Expected<Vocabulary> B = loadIR(
      R"({"Opcodes": {"Ret": [1]}, "Types": {"VoidTy": [1]},
          "Arguments": {"Variable": [1]}})",
      "b");
  IRTK_ASSERT_OK(A);
  IRTK_ASSERT_OK(B);
  EXPECT_EQ(toString(compareVocabularies(*A, *B, "a", "b").takeError()),
            "cannot compare a (tiny) with b (LLVM 22)");
}

} // namespace

namespace {

/// The fast reader and llvm::json give bit-identical vocabularies: the same
/// file is read once as is (fast) and once with a top-level member the fast
/// reader leaves to llvm::json (a number where it expects a section).
TEST(VocabularyTest, FastAndFullReadersAgree) {
  for (const char *File : {"/ids2d.json", "/partial3d.json"}) {
    auto Buf = MemoryBuffer::getFile(std::string(IRTK_TEST_INPUTS) + File);
    ASSERT_TRUE(!!Buf) << File;
    std::string Text = (*Buf)->getBuffer().str();
    std::string Slow = Text;
    Slow.insert(Slow.find('{') + 1, "\"zz\": 1, ");
    Expected<Vocabulary> A = loadIR(Text, "fast.json");
    Expected<Vocabulary> B = loadIR(Slow, "slow.json");
    ASSERT_TRUE(!!A) << toString(A.takeError());
    ASSERT_TRUE(!!B) << toString(B.takeError());
    ASSERT_EQ(A->dimension(), B->dimension());
    for (EntityId Id = 0; Id < NumEntities; ++Id)
      for (unsigned I = 0; I < A->dimension(); ++I)
        EXPECT_EQ(A->data(Id)[I], B->data(Id)[I]) << File << " entity " << Id;
  }
}

/// Numbers in every JSON form, including those the fast reader passes on
/// ("-0", exponents, integers), read as llvm::json reads them.
TEST(VocabularyTest, NumberFormsReadAsLLVMJSONReadsThem) {
  auto Vocab = [](StringRef Elems) {
    return ("{\"Opcodes\": {\"Ret\": [" + Elems +
            "]}, \"Types\": {\"VoidTy\": [" + Elems +
            "]}, \"Arguments\": {\"Constant\": [" + Elems + "]}}")
        .str();
  };
  std::string Fast = Vocab("1, -0.5, 2e1, 1E-2, 0, 12345678901234567890");
  std::string Slow = Fast;
  Slow.insert(1, "\"zz\": 1, ");
  Expected<Vocabulary> A = loadIR(Fast, "f.json");
  Expected<Vocabulary> B = loadIR(Slow, "s.json");
  ASSERT_TRUE(!!A && !!B);
  EntityId Ret = *irLayout()->lookup(0, "Ret");
  for (unsigned I = 0; I < 6; ++I)
    EXPECT_EQ(A->data(Ret)[I], B->data(Ret)[I]) << I;
  EXPECT_EQ(A->data(Ret)[2], 20.0);
  // -0 is the integer 0 to llvm::json: +0.0, whichever reader.
  Expected<Vocabulary> Z = loadIR(Vocab("-0"), "z.json");
  ASSERT_TRUE(!!Z);
  EXPECT_FALSE(std::signbit(Z->data(Ret)[0]));
}

} // namespace
