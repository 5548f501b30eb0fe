//===- Triplets.h - Training triplets from LLVM IR --------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The (head, tail, relation) triplets upstream's `llvm-ir2vec triplets`
/// emits for vocabulary training: per non-debug instruction, (opcode, type,
/// Type), one (opcode, operand kind, Arg i) per operand, then (opcode,
/// next opcode, Next) when another instruction follows in the function.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_IR2VEC_TRIPLETS_H
#define IRTK_IR2VEC_TRIPLETS_H

#include "irtk/ir2vec/Entities.h"
#include "irtk/vocab/Triplets.h"

#include <vector>

namespace llvm {
class Function;
} // namespace llvm

namespace irtk::ir2vec {

/// Relation ids: 0 is Type, 1 is Next, 2 + i is operand i.
enum RelationKind : unsigned {
  TypeRelation = 0,
  NextRelation = 1,
  ArgBase = 2
};

/// Appends the triplets of \p F (none for a declaration) to \p Out, in
/// layout order, and returns the largest relation id appended, or 1 when
/// there is none above Next.
unsigned collectTriplets(const llvm::Function &F,
                         std::vector<vocab::Triplet> &Out);

} // namespace irtk::ir2vec

#endif // IRTK_IR2VEC_TRIPLETS_H
