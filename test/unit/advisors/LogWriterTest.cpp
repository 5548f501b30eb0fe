//===- LogWriterTest.cpp - Our training log against LLVM's Logger ---------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "../../../advisors/lib/LogWriter.h"

#include "llvm/Analysis/Utils/TrainingLogger.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

using namespace llvm;
using namespace irtk::advisors;

namespace {

/// Every tensor type, shapes of one, two and no dimensions, a port, and
/// names JSON must escape.
std::vector<TensorSpec> specs() {
  return {TensorSpec::createSpec<float>("f", {1, 33}),
          TensorSpec::createSpec<double>("d", {2}),
          TensorSpec::createSpec<int8_t>("i8", {3}, /*Port=*/2),
          TensorSpec::createSpec<uint8_t>("u8", {1}),
          TensorSpec::createSpec<int16_t>("i16", {1}),
          TensorSpec::createSpec<uint16_t>("u16", {1}),
          TensorSpec::createSpec<int32_t>("i32", {1}),
          TensorSpec::createSpec<uint32_t>("u32", {1}),
          TensorSpec::createSpec<int64_t>("quote\"back\\slash\ttab\x01", {1}),
          TensorSpec::createSpec<uint64_t>("u64", {}),
          TensorSpec::createSpec<int64_t>("decision", {1})};
}

/// The events of a log: contexts (one with a name JSON escapes, one met
/// twice), observations with their features, and rewards.
template <typename Log> void play(Log &L, const std::vector<TensorSpec> &S) {
  std::vector<char> Data(4096);
  for (size_t I = 0; I < Data.size(); ++I)
    Data[I] = static_cast<char>(I * 7 + 3);
  auto Observe = [&] {
    L.startObservation();
    for (size_t I = 0; I < S.size(); ++I)
      L.logTensorValue(I, Data.data() + I);
    L.endObservation();
  };
  L.switchContext("main");
  Observe();
  L.template logReward<float>(0.0f);
  Observe();
  L.template logReward<float>(-2.5f);
  L.switchContext("_Z1fv.llvm.\"1\"\n");
  Observe();
  L.template logReward<float>(1e30f);
  L.switchContext("main");
  Observe();
  L.template logReward<float>(3.0f);
}

/// LogWriter's logReward is not a template; this adapts it to play().
struct Ours {
  LogWriter &W;
  void switchContext(StringRef N) { W.switchContext(N); }
  void startObservation() { W.startObservation(); }
  void logTensorValue(size_t I, const char *D) { W.logTensorValue(I, D); }
  void endObservation() { W.endObservation(); }
  template <typename T> void logReward(T V) { W.logReward(V); }
};

TEST(LogWriterTest, WritesTheBytesLLVMsLoggerWrites) {
  std::vector<TensorSpec> S = specs();
  TensorSpec Reward = TensorSpec::createSpec<float>("reward", {1});

  std::string Theirs;
  {
    Logger L(std::make_unique<raw_string_ostream>(Theirs), S, Reward,
             /*IncludeReward=*/true);
    play(L, S);
    L.flush();
  }
  std::string Mine;
  {
    raw_string_ostream OS(Mine);
    LogWriter W(OS, S, Reward);
    Ours O{W};
    play(O, S);
  }
  ASSERT_FALSE(Theirs.empty());
  EXPECT_EQ(Mine.size(), Theirs.size());
  EXPECT_TRUE(Mine == Theirs) << "first 300 bytes, LLVM's:\n"
                              << Theirs.substr(0, 300) << "\nours:\n"
                              << Mine.substr(0, 300);
}

TEST(LogWriterTest, HeaderIsLLVMsForTheEvictionAdvisorsShape) {
  // A header alone (a module without a decision): the log is that line.
  std::vector<TensorSpec> S = {
      TensorSpec::createSpec<int64_t>("mask", {1, 33}),
      TensorSpec::createSpec<float>("mir2vec_defs_and_uses", {33, 75}),
      TensorSpec::createSpec<int64_t>("index_to_evict", {1})};
  TensorSpec Reward = TensorSpec::createSpec<float>("reward", {1});
  std::string Theirs;
  {
    Logger L(std::make_unique<raw_string_ostream>(Theirs), S, Reward, true);
    L.flush();
  }
  EXPECT_EQ(LogWriter::header(S, Reward), Theirs);
}

} // namespace
