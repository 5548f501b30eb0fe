//===- StoreRowsTest.cpp - IR2Vec embeddings as store rows ----------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/StoreRows.h"

#include "../TestHelpers.h"

#include "gtest/gtest.h"

using namespace irtk;
using namespace irtk::store;
using namespace llvm;

namespace {

class StoreRowsTest : public ::testing::Test {
protected:
  void SetUp() override {
    Expected<vocab::Vocabulary> V = test::idsVocabulary();
    IRTK_ASSERT_OK(V);
    Vocab.emplace(std::move(*V));
  }
  std::optional<vocab::Vocabulary> Vocab;
};

TEST_F(StoreRowsTest, ModuleRowsAreTheEmbeddingsAsFloats) {
  Expected<RowBatch> Rows = ir2vec::embedIRFile(
      IRTK_TEST_INPUTS "/cfg.ll", *Vocab, ir2vec::EmbeddingOutputOptions());
  IRTK_ASSERT_OK(Rows);
  ASSERT_EQ(Rows->size(), 2u);
  EXPECT_EQ(Rows->Values, std::vector<float>({404, 7, 1169, 19}));
  EXPECT_EQ(Rows->Records[1].Function, "f");
  EXPECT_EQ(Rows->Records[1].Row, 1u);
  EXPECT_EQ(Rows->Records[1].Level, "func");
  EXPECT_EQ(Rows->Records[1].Module, IRTK_TEST_INPUTS "/cfg.ll");
}

TEST_F(StoreRowsTest, BlockRowsNameTheirBlocks) {
  ir2vec::EmbeddingOutputOptions O;
  O.Level = ir2vec::LevelKind::BasicBlock;
  Expected<RowBatch> Rows =
      ir2vec::embedIRFile(IRTK_TEST_INPUTS "/cfg.ll", *Vocab, O);
  IRTK_ASSERT_OK(Rows);
  // add: one unnamed block; f: entry, a, b, dead.
  ASSERT_EQ(Rows->size(), 5u);
  EXPECT_EQ(*Rows->Records[0].Block, "");
  EXPECT_EQ(*Rows->Records[4].Block, "dead");
  EXPECT_EQ(*Rows->Records[4].BlockIndex, 3u);
  EXPECT_FALSE(Rows->Records[4].InstIndex.has_value());
}

TEST_F(StoreRowsTest, MalformedIRIsOneLineError) {
  Expected<RowBatch> Rows =
      ir2vec::embedIRFile(IRTK_TEST_INPUTS "/malformed.ll", *Vocab,
                          ir2vec::EmbeddingOutputOptions());
  ASSERT_FALSE(Rows);
  EXPECT_EQ(toString(Rows.takeError()), IRTK_TEST_INPUTS
            "/malformed.ll:3:3: expected ',' in arithmetic operation");
}

TEST_F(StoreRowsTest, SettingsRoundTripThroughStoreInfo) {
  ir2vec::Weights W{1.5f, 0.25f, 0.2f};
  StoreInfo I =
      ir2vec::makeStoreInfo(3, ir2vec::LevelKind::Instruction,
                            ir2vec::EmbeddingKind::FlowAware, "/v", W, "t");
  EXPECT_EQ(I.Level, "inst");
  EXPECT_EQ(I.Kind, "flow-aware");
  std::string Text;
  raw_string_ostream OS(Text);
  writeStoreInfo(I, OS);
  Expected<StoreInfo> Back = parseStoreInfo(Text, "store.json");
  IRTK_ASSERT_OK(Back);
  Expected<ir2vec::StoreSettings> S =
      ir2vec::readStoreSettings(*Back, "store.json");
  IRTK_ASSERT_OK(S);
  EXPECT_EQ(S->Level, ir2vec::LevelKind::Instruction);
  EXPECT_EQ(S->Kind, ir2vec::EmbeddingKind::FlowAware);
  EXPECT_EQ(S->W.Opcode, 1.5f);
  EXPECT_EQ(S->W.Type, 0.25f);
  EXPECT_EQ(S->W.Argument, 0.2f); // Bit for bit, not 0.2.
}

TEST_F(StoreRowsTest, SettingsNameWhatIsNotIR2Vec) {
  StoreInfo I;
  I.Kind = "mir";
  EXPECT_EQ(toString(ir2vec::readStoreSettings(I, "s").takeError()),
            "s: \"kind\" is not symbolic or flow-aware");
  I.Kind = "symbolic";
  I.Weights = {{"opcode", 1}, {"type", 1}};
  EXPECT_EQ(toString(ir2vec::readStoreSettings(I, "s").takeError()),
            "s: \"weights\" lacks a number \"argument\"");
}

} // namespace
