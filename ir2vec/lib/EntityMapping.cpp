//===- EntityMapping.cpp - From LLVM IR to vocabulary entities ------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// LLVM 22's type, operand and predicate classification.
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/EntityMapping.h"

#include "llvm/IR/Constant.h"
#include "llvm/IR/Function.h"
#include "llvm/Support/ErrorHandling.h"

using namespace llvm;

namespace irtk::ir2vec {

CanonicalTypeKind canonicalType(Type::TypeID T) {
  switch (T) {
  case Type::HalfTyID:
  case Type::BFloatTyID:
  case Type::FloatTyID:
  case Type::DoubleTyID:
  case Type::X86_FP80TyID:
  case Type::FP128TyID:
  case Type::PPC_FP128TyID:
    return CanonicalTypeKind::FloatTy;
  case Type::VoidTyID:
    return CanonicalTypeKind::VoidTy;
  case Type::LabelTyID:
    return CanonicalTypeKind::LabelTy;
  case Type::MetadataTyID:
    return CanonicalTypeKind::MetadataTy;
  case Type::X86_AMXTyID:
  case Type::FixedVectorTyID:
  case Type::ScalableVectorTyID:
    return CanonicalTypeKind::VectorTy;
  case Type::TokenTyID:
    return CanonicalTypeKind::TokenTy;
  case Type::IntegerTyID:
    return CanonicalTypeKind::IntegerTy;
  case Type::FunctionTyID:
    return CanonicalTypeKind::FunctionTy;
  case Type::PointerTyID:
  case Type::TypedPointerTyID:
    return CanonicalTypeKind::PointerTy;
  case Type::StructTyID:
    return CanonicalTypeKind::StructTy;
  case Type::ArrayTyID:
    return CanonicalTypeKind::ArrayTy;
  case Type::TargetExtTyID:
    return CanonicalTypeKind::UnknownTy;
  }
  return CanonicalTypeKind::UnknownTy;
}

OperandKindKind operandKind(const Value *Op) {
  if (isa<Function>(Op))
    return OperandKindKind::Function;
  if (Op->getType()->isPointerTy())
    return OperandKindKind::Pointer;
  if (isa<Constant>(Op))
    return OperandKindKind::Constant;
  return OperandKindKind::Variable;
}

EntityId predicateEntity(CmpInst::Predicate P) {
  if (CmpInst::isFPPredicate(P))
    return predicateEntity(P - CmpInst::FIRST_FCMP_PREDICATE);
  assert(CmpInst::isIntPredicate(P) && "not a comparison predicate");
  return predicateEntity(NumFCmpPredicates + P - CmpInst::FIRST_ICMP_PREDICATE);
}

} // namespace irtk::ir2vec
