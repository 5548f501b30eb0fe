//===- AllocationOrderMirrorTest.cpp - Walking the allocator's orders -----===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The walk must visit what LLVM 22.1's AllocationOrder iteration visits
// (from begin() to getOrderLimitEnd(Limit)): the hints in order, then the
// class order without the hints, up to the limit. The expectations are
// worked out by hand from that definition.
//
//===----------------------------------------------------------------------===//

#include "../../../advisors/lib/AllocationOrderMirror.h"

#include "gtest/gtest.h"

#include <vector>

using namespace llvm;
using namespace irtk::advisors;

namespace {

const MCPhysReg ClassOrder[] = {10, 11, 12, 13, 14, 15};

std::vector<std::pair<unsigned, bool>> walk(const AllocationOrderMirror &O,
                                            unsigned Limit) {
  std::vector<std::pair<unsigned, bool>> Out;
  auto Add = [&](MCRegister R, bool Hint) { Out.push_back({R.id(), Hint}); };
  O.forEach(Limit, Add);
  return Out;
}

using Visits = std::vector<std::pair<unsigned, bool>>;

TEST(AllocationOrderMirrorTest, HintsFirstThenTheOrderWithoutThem) {
  AllocationOrderMirror O{{13, 10}, ClassOrder, 6};
  EXPECT_EQ(walk(O, 0), (Visits{{13, true},
                                {10, true},
                                {11, false},
                                {12, false},
                                {14, false},
                                {15, false}}));
}

TEST(AllocationOrderMirrorTest, TheLimitCountsPositionsOfTheClassOrder) {
  // Limit 4: the class order's first four (10..13), hints skipped.
  AllocationOrderMirror O{{13, 10}, ClassOrder, 6};
  EXPECT_EQ(walk(O, 4),
            (Visits{{13, true}, {10, true}, {11, false}, {12, false}}));
  // Limit 5 ends past 13, a hint: at 14.
  EXPECT_EQ(
      walk(O, 5),
      (Visits{{13, true}, {10, true}, {11, false}, {12, false}, {14, false}}));
  EXPECT_EQ(walk(O, 6).size(), 6u);
}

TEST(AllocationOrderMirrorTest, HardHintsAreTheOnlyChoices) {
  AllocationOrderMirror O{{12}, ClassOrder, 0};
  EXPECT_EQ(walk(O, 0), (Visits{{12, true}}));
  EXPECT_EQ(walk(O, 3), (Visits{{12, true}}));
}

TEST(AllocationOrderMirrorTest, NoHints) {
  AllocationOrderMirror O{{}, ClassOrder, 6};
  EXPECT_EQ(walk(O, 2), (Visits{{10, false}, {11, false}}));
}

TEST(AllocationOrderMirrorTest, ConsistentOnlyWithItsOwnClassOrder) {
  AllocationOrderMirror O{{13}, ClassOrder, 6};
  EXPECT_TRUE(O.isConsistent(ClassOrder));
  std::vector<MCPhysReg> Copy(std::begin(ClassOrder), std::end(ClassOrder));
  EXPECT_FALSE(O.isConsistent(Copy));
  AllocationOrderMirror Odd{{13}, ClassOrder, 3};
  EXPECT_FALSE(Odd.isConsistent(ClassOrder));
}

} // namespace
