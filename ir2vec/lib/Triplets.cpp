//===- Triplets.cpp - Training triplets from LLVM IR ----------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Triplet extraction in upstream's order.
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Triplets.h"
#include "irtk/ir2vec/EntityMapping.h"

#include "llvm/IR/Function.h"

using namespace llvm;

namespace irtk::ir2vec {

unsigned collectTriplets(const Function &F, std::vector<vocab::Triplet> &Out) {
  unsigned MaxRelation = NextRelation;
  const Instruction *Prev = nullptr;
  for (const BasicBlock &BB : F) {
    for (const Instruction &I : BB.instructionsWithoutDebug()) {
      EntityId Opc = opcodeEntity(I.getOpcode());
      if (Prev)
        Out.push_back({opcodeEntity(Prev->getOpcode()), Opc, NextRelation});
      Out.push_back({Opc, typeEntity(I.getType()), TypeRelation});
      unsigned Arg = ArgBase;
      for (const Use &Op : I.operands())
        Out.push_back({Opc, operandEntity(Op.get()), Arg++});
      if (Arg - 1 > MaxRelation)
        MaxRelation = Arg - 1;
      Prev = &I;
    }
  }
  return MaxRelation;
}

} // namespace irtk::ir2vec
