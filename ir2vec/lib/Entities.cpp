//===- Entities.cpp - The LLVM IR vocabulary layout -----------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Entity names and lookups. Opcode names come from LLVM's own
/// Instruction.def, so the table follows the LLVM we are built against; the
/// static_asserts stop a build against an LLVM whose layout differs from 22.
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Entities.h"
#include "irtk/vocab/VocabularyPath.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Instruction.h"

#include <array>
#include <cassert>

using namespace llvm;

namespace irtk::ir2vec {

static constexpr StringLiteral OpcodeNames[] = {
#define HANDLE_INST(N, OPC, CLASS) #OPC,
#include "llvm/IR/Instruction.def"
};
static_assert(std::size(OpcodeNames) == NumOpcodes,
              "LLVM's opcode list differs from LLVM 22's");
static_assert(Instruction::OtherOpsEnd - 1 == NumOpcodes,
              "LLVM's opcode numbering differs from LLVM 22's");

static constexpr StringLiteral CanonicalTypeNames[] = {
    "FloatTy",   "VoidTy",   "LabelTy",   "MetadataTy",
    "VectorTy",  "TokenTy",  "IntegerTy", "FunctionTy",
    "PointerTy", "StructTy", "ArrayTy",   "UnknownTy",
};
static_assert(std::size(CanonicalTypeNames) == NumCanonicalTypes);

static constexpr StringLiteral OperandKindNames[] = {"Function", "Pointer",
                                                     "Constant", "Variable"};
static_assert(std::size(OperandKindNames) == NumOperandKinds);

static constexpr StringLiteral PredicateNames[] = {
    "FCMP_false", "FCMP_oeq", "FCMP_ogt", "FCMP_oge",  "FCMP_olt", "FCMP_ole",
    "FCMP_one",   "FCMP_ord", "FCMP_uno", "FCMP_ueq",  "FCMP_ugt", "FCMP_uge",
    "FCMP_ult",   "FCMP_ule", "FCMP_une", "FCMP_true", "ICMP_eq",  "ICMP_ne",
    "ICMP_ugt",   "ICMP_uge", "ICMP_ult", "ICMP_ule",  "ICMP_sgt", "ICMP_sge",
    "ICMP_slt",   "ICMP_sle",
};
static_assert(std::size(PredicateNames) == NumPredicates);

StringRef entityName(EntityId Id) {
  assert(Id < NumEntities && "entity id out of range");
  if (Id < CanonicalTypeBase)
    return OpcodeNames[Id - OpcodeBase];
  if (Id < OperandKindBase)
    return CanonicalTypeNames[Id - CanonicalTypeBase];
  if (Id < PredicateBase)
    return OperandKindNames[Id - OperandKindBase];
  return PredicateNames[Id - PredicateBase];
}

EntityGroupKind entityGroup(EntityId Id) {
  assert(Id < NumEntities && "entity id out of range");
  if (Id < CanonicalTypeBase)
    return EntityGroupKind::Opcode;
  if (Id < OperandKindBase)
    return EntityGroupKind::CanonicalType;
  if (Id < PredicateBase)
    return EntityGroupKind::OperandKind;
  return EntityGroupKind::Predicate;
}

JSONSectionKind jsonSectionOf(EntityId Id) {
  switch (entityGroup(Id)) {
  case EntityGroupKind::Opcode:
    return JSONSectionKind::Opcodes;
  case EntityGroupKind::CanonicalType:
    return JSONSectionKind::Types;
  case EntityGroupKind::OperandKind:
  case EntityGroupKind::Predicate:
    return JSONSectionKind::Arguments;
  }
  llvm_unreachable("unknown entity group");
}

StringRef jsonSectionName(JSONSectionKind S) {
  switch (S) {
  case JSONSectionKind::Opcodes:
    return "Opcodes";
  case JSONSectionKind::Types:
    return "Types";
  case JSONSectionKind::Arguments:
    return "Arguments";
  }
  llvm_unreachable("unknown JSON section");
}

/// The layout, with groups in EntityGroupKind order and sections in
/// JSONSectionKind order.
static std::shared_ptr<const vocab::Layout> buildLayout() {
  auto L = std::make_shared<vocab::Layout>("LLVM 22");
  unsigned Opcodes = L->addSection("Opcodes");
  unsigned Types = L->addSection("Types");
  unsigned Arguments = L->addSection("Arguments");
  L->addGroup(Opcodes, "opcodes");
  for (StringRef N : OpcodeNames)
    L->addEntity(N);
  L->addGroup(Types, "canonical types");
  for (StringRef N : CanonicalTypeNames)
    L->addEntity(N);
  L->addGroup(Arguments, "operand kinds");
  for (StringRef N : OperandKindNames)
    L->addEntity(N);
  L->addGroup(Arguments, "predicates");
  for (StringRef N : PredicateNames)
    L->addEntity(N);
  assert(L->size() == NumEntities && "IR layout size");
  return L;
}

const std::shared_ptr<const vocab::Layout> &irLayout() {
  static const std::shared_ptr<const vocab::Layout> L = buildLayout();
  return L;
}

std::optional<EntityId> lookupEntity(JSONSectionKind S, StringRef Key) {
  return irLayout()->lookup(static_cast<unsigned>(S), Key);
}

Expected<vocab::Vocabulary> loadVocabulary(StringRef Path, const Weights &W) {
  return vocab::Vocabulary::load(Path, irLayout(), W.sections());
}

std::string defaultVocabularyPath(StringRef BinaryPath) {
  return vocab::bundledVocabularyPath(BinaryPath, DefaultVocabularyName);
}

} // namespace irtk::ir2vec
