//===- EntityMapping.h - From LLVM IR to vocabulary entities ----*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Which vocabulary entity an opcode, a type, an operand or a comparison
/// predicate stands for, with LLVM 22's rules: llvm::ir2vec::Vocabulary's
/// getIndex overloads, getCanonicalTypeID and getOperandKind
/// (llvm/Analysis/IR2Vec.h, llvm/lib/Analysis/IR2Vec.cpp).
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_IR2VEC_ENTITYMAPPING_H
#define IRTK_IR2VEC_ENTITYMAPPING_H

#include "irtk/ir2vec/Entities.h"

#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Type.h"

namespace llvm {
class Value;
} // namespace llvm

namespace irtk::ir2vec {

/// The canonical type of LLVM type id \p T (all float kinds are FloatTy, both
/// vector kinds and x86_amx are VectorTy, target extension types are
/// UnknownTy).
CanonicalTypeKind canonicalType(llvm::Type::TypeID T);

/// Entity id of the canonical type of \p T.
inline EntityId typeEntity(const llvm::Type *T) {
  return canonicalTypeEntity(canonicalType(T->getTypeID()));
}

/// Operand kind of \p Op: Function, then pointer-typed (Pointer), then
/// Constant, else Variable (including basic-block labels and metadata).
OperandKindKind operandKind(const llvm::Value *Op);

inline EntityId operandEntity(const llvm::Value *Op) {
  return operandKindEntity(operandKind(Op));
}

/// Entity id of predicate \p P (an fcmp or icmp predicate).
EntityId predicateEntity(llvm::CmpInst::Predicate P);

} // namespace irtk::ir2vec

#endif // IRTK_IR2VEC_ENTITYMAPPING_H
