//===- AllocationOrderMirror.h - Reading the allocator's orders -*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// llvm::AllocationOrder, the order in which the greedy allocator offers
/// physical registers to the eviction advisor, is declared in a header LLVM
/// does not install; only its iteration is needed, and that is inline. This
/// mirror has the members of LLVM 22.1's class, in its order and with its
/// types (the preferred registers, the register class's order, and how far
/// into it one may go), and walks them as 22.1 does: the hints first, then
/// the order without the hints, up to a limit.
///
/// A layout that differs (LLVM's main branch has added a member) would be
/// read as garbage, so every order is checked before use (isConsistent):
/// its order must be the very array the allocator's RegisterClassInfo hands
/// out for the interval's class. The lit tests of the advisor fail if it is
/// not (the advisor reports "irtk: ... AllocationOrder" and stays stock).
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_ADVISORS_LIB_ALLOCATIONORDERMIRROR_H
#define IRTK_ADVISORS_LIB_ALLOCATIONORDERMIRROR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/MC/MCRegister.h"

#include <algorithm>

namespace llvm {
class AllocationOrder;
} // namespace llvm

namespace irtk::advisors {

struct AllocationOrderMirror {
  const llvm::SmallVector<llvm::MCPhysReg, 16> Hints;
  llvm::ArrayRef<llvm::MCPhysReg> Order;
  /// 0 when the hints are the only choices, else Order.size().
  const int IterationLimit;

  static const AllocationOrderMirror &of(const llvm::AllocationOrder &O) {
    return reinterpret_cast<const AllocationOrderMirror &>(O);
  }
  const llvm::AllocationOrder &asOrder() const {
    return reinterpret_cast<const llvm::AllocationOrder &>(*this);
  }

  bool isHint(llvm::MCPhysReg R) const { return llvm::is_contained(Hints, R); }

  /// Whether this reads as an order the allocator made from \p ClassOrder.
  bool isConsistent(llvm::ArrayRef<llvm::MCPhysReg> ClassOrder) const {
    return Order.data() == ClassOrder.data() &&
           Order.size() == ClassOrder.size() &&
           (IterationLimit == 0 ||
            IterationLimit == static_cast<int>(Order.size())) &&
           Hints.size() <= Order.size() + 16;
  }

  /// Calls \p F(Reg, IsHint) for each register the allocator's iteration
  /// from begin() to getOrderLimitEnd(Limit) visits, in that order.
  template <typename Fn> void forEach(unsigned Limit, Fn F) const {
    int End = IterationLimit;
    if (Limit != 0) {
      End = std::min(static_cast<int>(Limit) - 1, IterationLimit);
      End = next(End);
    }
    for (int Pos = -static_cast<int>(Hints.size()); Pos != End;
         Pos = next(Pos)) {
      if (Pos < 0)
        F(llvm::MCRegister(Hints.end()[Pos]), true);
      else
        F(llvm::MCRegister(Order[Pos]), false);
    }
  }

private:
  int next(int Pos) const {
    if (Pos < IterationLimit)
      ++Pos;
    while (Pos >= 0 && Pos < IterationLimit && isHint(Order[Pos]))
      ++Pos;
    return Pos;
  }
};

} // namespace irtk::advisors

#endif // IRTK_ADVISORS_LIB_ALLOCATIONORDERMIRROR_H
