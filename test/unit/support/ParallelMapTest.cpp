//===- ParallelMapTest.cpp - The ordered parallel map ---------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/support/ParallelMap.h"

#include "gtest/gtest.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>

using namespace irtk::support;

namespace {

TEST(ParallelMapTest, ConsumesEveryItemInOrder) {
  ParallelMapOptions O;
  O.Threads = 4;
  std::vector<size_t> Seen;
  bool Done = orderedParallelMap(
      1000, O,
      [](size_t I) {
        // Later items finish first now and then.
        if (I % 7 == 0)
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        return std::to_string(I * I);
      },
      [&](size_t I, std::string &R) {
        EXPECT_EQ(R, std::to_string(I * I));
        Seen.push_back(I);
      });
  EXPECT_TRUE(Done);
  ASSERT_EQ(Seen.size(), 1000u);
  for (size_t I = 0; I < Seen.size(); ++I)
    ASSERT_EQ(Seen[I], I);
}

TEST(ParallelMapTest, WorkersStayWithinTheWindow) {
  ParallelMapOptions O;
  O.Threads = 3;
  O.Window = 5;
  std::atomic<size_t> Consumed{0};
  std::atomic<size_t> MaxAhead{0};
  orderedParallelMap(
      200, O,
      [&](size_t I) {
        size_t Ahead = I - Consumed.load();
        size_t M = MaxAhead.load();
        while (Ahead > M && !MaxAhead.compare_exchange_weak(M, Ahead))
          ;
        return I;
      },
      [&](size_t I, size_t &) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
        Consumed = I + 1;
      });
  EXPECT_LT(MaxAhead.load(), 5u);
}

TEST(ParallelMapTest, MoveOnlyResults) {
  ParallelMapOptions O;
  O.Threads = 2;
  size_t Sum = 0;
  orderedParallelMap(
      50, O, [](size_t I) { return std::make_unique<size_t>(I); },
      [&](size_t, std::unique_ptr<size_t> &P) { Sum += *P; });
  EXPECT_EQ(Sum, 50u * 49 / 2);
}

TEST(ParallelMapTest, PollStopsTheMap) {
  ParallelMapOptions O;
  O.Threads = 2;
  O.PollInterval = std::chrono::milliseconds(1);
  std::atomic<size_t> Started{0};
  size_t Consumed = 0, Polls = 0;
  O.Poll = [&] { return ++Polls < 3; };
  bool Done = orderedParallelMap(
      100000, O,
      [&](size_t I) {
        ++Started;
        if (I >= 2) // Slow after the first two: the consumer has to wait.
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return I;
      },
      [&](size_t, size_t &) { ++Consumed; });
  EXPECT_FALSE(Done);
  EXPECT_EQ(Polls, 3u);
  EXPECT_LT(Started.load(), 100u); // Nothing new started after the stop.
  EXPECT_LT(Consumed, 100u);
}

TEST(ParallelMapTest, OneThreadIsTheCallingThread) {
  ParallelMapOptions O;
  O.Threads = 1;
  const std::thread::id Caller = std::this_thread::get_id();
  bool AllOnCaller = true;
  std::vector<size_t> Seen;
  orderedParallelMap(
      20, O,
      [&](size_t I) {
        AllOnCaller &= std::this_thread::get_id() == Caller;
        return I;
      },
      [&](size_t I, size_t &) { Seen.push_back(I); });
  EXPECT_TRUE(AllOnCaller);
  EXPECT_EQ(Seen.size(), 20u);
}

TEST(ParallelMapTest, CallerWorksBesideTheWorkers) {
  ParallelMapOptions O;
  O.Threads = 2;
  const std::thread::id Caller = std::this_thread::get_id();
  std::atomic<unsigned> OnCaller{0}, Elsewhere{0};
  orderedParallelMap(
      200, O,
      [&](size_t I) {
        (std::this_thread::get_id() == Caller ? OnCaller : Elsewhere)++;
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        return I;
      },
      [&](size_t, size_t &) {});
  EXPECT_EQ(OnCaller + Elsewhere, 200u);
  EXPECT_GT(OnCaller.load(), 0u);
  EXPECT_GT(Elsewhere.load(), 0u);
}

TEST(ParallelMapTest, NoItems) {
  bool Called = false;
  EXPECT_TRUE(orderedParallelMap(
      0, ParallelMapOptions(), [&](size_t I) { return I; },
      [&](size_t, size_t &) { Called = true; }));
  EXPECT_FALSE(Called);
}

TEST(ParallelMapTest, ThreadsNeverExceedItems) {
  ParallelMapOptions O;
  O.Threads = 8;
  EXPECT_EQ(parallelMapThreads(O, 3), 3u);
  EXPECT_EQ(parallelMapThreads(O, 0), 1u);
  O.Threads = 0;
  EXPECT_GE(parallelMapThreads(O, 100), 1u);
}

} // namespace
