//===- MLPBinaryTest.cpp - The binary form of model files -----------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/advisors/MLP.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace llvm;
using namespace irtk::advisors;
using ::testing::HasSubstr;

namespace {

/// Every part of the format: two inputs (one of two elements), three
/// layers, a margin, a support box and a training record.
const char *const Model = R"({
  "format": "irtk-mlp", "version": 1, "advisor": "inline",
  "decision": "inlining_decision",
  "inputs": [{"name": "a", "mean": [1], "scale": [2]},
             {"name": "b", "mean": [0, 0.1], "scale": [1, 3e-7]}],
  "layers": [{"activation": "relu", "weights": [[2, -1, 1], [0.5, 0, -0.25]],
              "bias": [0, 1e-300]},
             {"activation": "tanh", "weights": [[1, -1]], "bias": [-0.5]},
             {"activation": "linear", "weights": [[3]], "bias": [0.125]}],
  "output": {"kind": "logit", "default_margin": 0.75,
             "support": [{"default": 1, "bounds": {"a": [-2, 4.5]}}]},
  "training": {"tool": "test", "seed": 7}
})";

MLPDescription parsed(StringRef Text) {
  Expected<MLPDescription> D = MLPDescription::parse(Text, "m.json");
  if (!D) {
    ADD_FAILURE() << toString(D.takeError());
    return {};
  }
  return std::move(*D);
}

std::string textOf(const MLPDescription &D) {
  std::string S;
  raw_string_ostream OS(S);
  D.write(OS);
  return S;
}

std::string binaryOf(const MLPDescription &D, StringRef Source) {
  std::string S;
  raw_string_ostream OS(S);
  D.writeBinary(Source, OS);
  return S;
}

std::string errorOf(StringRef Binary, StringRef Source = Model) {
  Expected<MLPDescription> D =
      MLPDescription::loadFromBinary(Binary, "m.json.bin", Source, "m.json");
  if (D)
    return "";
  return toString(D.takeError());
}

TEST(MLPBinaryTest, GivesTheDescriptionTheJSONGives) {
  MLPDescription D = parsed(Model);
  Expected<MLPDescription> B = MLPDescription::loadFromBinary(
      binaryOf(D, Model), "m.json.bin", Model, "m.json");
  ASSERT_TRUE(!!B) << toString(B.takeError());
  EXPECT_EQ(textOf(*B), textOf(D));
  // Bit for bit, which the shortest decimal text also says; 1e-300 and
  // 3e-7 would not survive a float.
  EXPECT_EQ(B->parameters(), D.parameters());
  EXPECT_EQ(B->Inputs[1].Scale, D.Inputs[1].Scale);
  EXPECT_EQ(B->TrainingJSON, D.TrainingJSON);
  ASSERT_TRUE(B->Support.has_value());
  EXPECT_EQ(B->Support->front().Bounds.front().High, 4.5);
}

TEST(MLPBinaryTest, KeepsArgMaxModelsWithPositions) {
  std::string Text = R"({
    "format": "irtk-mlp", "version": 1, "advisor": "evict",
    "decision": "index_to_evict",
    "inputs": [{"name": "evictable", "mean": [0], "scale": [1]}],
    "layers": [{"activation": "linear", "weights": [[2]], "bias": [1]}],
    "output": {"kind": "argmax", "mask": "evictable", "positions": 33}
  })";
  MLPDescription D = parsed(Text);
  Expected<MLPDescription> B = MLPDescription::loadFromBinary(
      binaryOf(D, Text), "m.json.bin", Text, "m.json");
  ASSERT_TRUE(!!B) << toString(B.takeError());
  EXPECT_EQ(textOf(*B), textOf(D));
  EXPECT_EQ(B->Positions, 33u);
  EXPECT_EQ(B->Mask, "evictable");
  EXPECT_FALSE(B->DefaultMargin.has_value());
}

TEST(MLPBinaryTest, RefusesAFormMadeFromAnotherText) {
  std::string Binary = binaryOf(parsed(Model), Model);
  std::string Changed = Model;
  Changed[Changed.find("0.125")] = '1';
  EXPECT_EQ(errorOf(Binary, Changed),
            "m.json.bin: stale: m.json changed since it was made; remake it "
            "with `irtk-train pack m.json`");
}

TEST(MLPBinaryTest, RefusesDamagedBytes) {
  std::string Binary = binaryOf(parsed(Model), Model);
  std::string Flipped = Binary;
  Flipped[Flipped.size() - 5] ^= 1;
  EXPECT_THAT(errorOf(Flipped),
              HasSubstr("m.json.bin: damaged (its content does not match its "
                        "checksum)"));
  EXPECT_THAT(errorOf(Binary.substr(0, Binary.size() - 1)),
              HasSubstr("m.json.bin: damaged"));
  EXPECT_THAT(errorOf(Binary.substr(0, 20)),
              HasSubstr("m.json.bin: not the binary form of a model"));
  EXPECT_THAT(errorOf(Model), HasSubstr("not the binary form of a model"));
}

TEST(MLPBinaryTest, RefusesAnotherFormatVersion) {
  std::string Binary = binaryOf(parsed(Model), Model);
  Binary[8] = 9;
  EXPECT_THAT(errorOf(Binary),
              HasSubstr("m.json.bin: binary model format 9, this irtk reads "
                        "format 1"));
}

TEST(MLPBinaryTest, ChecksTheNumbersAsTheJSONReadingDoes) {
  // A description that no model file can give (the trainer refuses to
  // write it), packed all the same: its checksum is right, its content not.
  MLPDescription D = parsed(Model);
  D.Layers[1].Weights[0][1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(errorOf(binaryOf(D, Model)),
            "m.json.bin: layers[1].weights[0][1]: expected a finite number");
  D = parsed(Model);
  D.Layers[2].Weights[0].push_back(1.0);
  EXPECT_THAT(errorOf(binaryOf(D, Model)),
              HasSubstr("m.json.bin: bad layer 2"));
}

TEST(MLPBinaryTest, RefusesWhatNoModelFileCanSay) {
  MLPDescription D = parsed(Model);
  D.Support->front().Bounds.front().High =
      std::numeric_limits<double>::infinity();
  EXPECT_EQ(errorOf(binaryOf(D, Model)),
            "m.json.bin: bad support box 0; remake it with `irtk-train pack "
            "m.json`");
  D = parsed(Model);
  D.TrainingJSON = "{\"seed\": 1e400}";
  EXPECT_THAT(errorOf(binaryOf(D, Model)),
              HasSubstr("m.json.bin: bad training record"));
  D.TrainingJSON = "[1], [2]";
  EXPECT_THAT(errorOf(binaryOf(D, Model)),
              HasSubstr("m.json.bin: bad training record"));
  D = parsed(Model);
  D.Inputs[1].Name = "a";
  EXPECT_THAT(errorOf(binaryOf(D, Model)),
              HasSubstr("m.json.bin: bad input 1"));
}

TEST(MLPBinaryTest, KeepsTheSignOfZero) {
  // -0.0 reads back as -0.0 from the binary form, and from the JSON that
  // writes it ("-0.0": llvm::json reads "-0" as the integer 0).
  MLPDescription D = parsed(Model);
  D.Layers[0].Weights[0][0] = -0.0;
  D.DefaultMargin = -0.0;
  std::string Text = textOf(D);
  Expected<MLPDescription> B = MLPDescription::loadFromBinary(
      binaryOf(D, Text), "m.json.bin", Text, "m.json");
  ASSERT_TRUE(!!B) << toString(B.takeError());
  EXPECT_TRUE(std::signbit(B->Layers[0].Weights[0][0]));
  EXPECT_TRUE(std::signbit(*B->DefaultMargin));
  MLPDescription J = parsed(Text);
  EXPECT_TRUE(std::signbit(J.Layers[0].Weights[0][0]));
  EXPECT_TRUE(std::signbit(*J.DefaultMargin));
  EXPECT_EQ(textOf(J), Text);
}

TEST(MLPBinaryTest, TheJSONReaderRefusesATrainingRecordBeyondDouble) {
  std::string Text = Model;
  Text.replace(Text.find("\"seed\": 7"), 9, "\"seed\": 1e400");
  Expected<MLPDescription> D = MLPDescription::parse(Text, "m.json");
  ASSERT_FALSE(!!D);
  EXPECT_EQ(toString(D.takeError()),
            "m.json: training: holds a number too large for a double");
}

class MLPBinaryFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("irtk-mlp-binary", Dir));
    Json = (Dir + "/m.json").str();
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }
  void writeFile(StringRef Path, StringRef Bytes) {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << Bytes;
  }
  SmallString<128> Dir;
  std::string Json;
};

TEST_F(MLPBinaryFileTest, LoadReadsTheFormBesideTheFile) {
  writeFile(Json, Model);
  writeFile(MLPDescription::binaryPath(Json), binaryOf(parsed(Model), Model));
  Expected<MLPDescription> D = MLPDescription::load(Json);
  ASSERT_TRUE(!!D) << toString(D.takeError());
  EXPECT_EQ(textOf(*D), textOf(parsed(Model)));
  // The JSON changes and the form stays: the load uses the form, and says
  // that it is stale.
  std::string Changed = Model;
  Changed[Changed.find("0.125")] = '1';
  writeFile(Json, Changed);
  D = MLPDescription::load(Json);
  ASSERT_FALSE(!!D);
  EXPECT_THAT(toString(D.takeError()),
              HasSubstr(Json + ".bin: stale: " + Json + " changed"));
}

TEST_F(MLPBinaryFileTest, LoadParsesTheFileWithoutAForm) {
  std::string Changed = Model;
  Changed[Changed.find("0.125")] = '1';
  writeFile(Json, Changed);
  Expected<MLPDescription> D = MLPDescription::load(Json);
  ASSERT_TRUE(!!D) << toString(D.takeError());
  EXPECT_EQ(D->Layers[2].Bias[0], 1.125);
}

} // namespace
