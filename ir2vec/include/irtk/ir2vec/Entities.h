//===- Entities.h - The LLVM IR vocabulary layout --------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The layout of an LLVM IR vocabulary, with the ids and names LLVM 22 uses:
/// 68 opcodes, 12 canonical types, 4 operand kinds and 26 comparison
/// predicates, 110 entities in all, in the JSON sections "Opcodes", "Types"
/// and "Arguments" (operand kinds and predicates). Ids are dense and ordered
/// by section, so an id indexes a vocabulary's storage directly and is the
/// entity id printed by `llvm-ir2vec entities` and used in triplets. The ids
/// are compile-time constants here, for the embedder's hot loops; irLayout()
/// is the same layout as a vocab::Layout.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_IR2VEC_ENTITIES_H
#define IRTK_IR2VEC_ENTITIES_H

#include "irtk/vocab/Layout.h"
#include "irtk/vocab/Vocabulary.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>

namespace irtk::ir2vec {

using vocab::EntityId;

/// The four groups of entities, in id order (the layout's group indices).
enum class EntityGroupKind : unsigned {
  Opcode,
  CanonicalType,
  OperandKind,
  Predicate,
};

/// The JSON section an entity group is read from (the layout's section
/// indices).
enum class JSONSectionKind : unsigned { Opcodes, Types, Arguments };

/// Canonical types, in LLVM 22's order.
enum class CanonicalTypeKind : unsigned {
  FloatTy,
  VoidTy,
  LabelTy,
  MetadataTy,
  VectorTy,
  TokenTy,
  IntegerTy,
  FunctionTy,
  PointerTy,
  StructTy,
  ArrayTy,
  UnknownTy,
};

/// Operand kinds, in LLVM 22's order.
enum class OperandKindKind : unsigned { Function, Pointer, Constant, Variable };

inline constexpr unsigned NumOpcodes = 68;
inline constexpr unsigned NumCanonicalTypes = 12;
inline constexpr unsigned NumOperandKinds = 4;
inline constexpr unsigned NumFCmpPredicates = 16;
inline constexpr unsigned NumICmpPredicates = 10;
inline constexpr unsigned NumPredicates = NumFCmpPredicates + NumICmpPredicates;
inline constexpr unsigned NumEntities =
    NumOpcodes + NumCanonicalTypes + NumOperandKinds + NumPredicates;

inline constexpr EntityId OpcodeBase = 0;
inline constexpr EntityId CanonicalTypeBase = OpcodeBase + NumOpcodes;
inline constexpr EntityId OperandKindBase =
    CanonicalTypeBase + NumCanonicalTypes;
inline constexpr EntityId PredicateBase = OperandKindBase + NumOperandKinds;

/// Id of the entity for LLVM opcode \p Opcode (1-based, as in
/// llvm::Instruction::getOpcode()).
constexpr EntityId opcodeEntity(unsigned Opcode) {
  return OpcodeBase + Opcode - 1;
}
constexpr EntityId canonicalTypeEntity(CanonicalTypeKind K) {
  return CanonicalTypeBase + static_cast<unsigned>(K);
}
constexpr EntityId operandKindEntity(OperandKindKind K) {
  return OperandKindBase + static_cast<unsigned>(K);
}
/// \p LocalIndex is 0..15 for fcmp predicates and 16..25 for icmp ones.
constexpr EntityId predicateEntity(unsigned LocalIndex) {
  return PredicateBase + LocalIndex;
}

/// The vocabulary key of entity \p Id (e.g. "Add", "IntegerTy", "Variable",
/// "ICMP_eq").
llvm::StringRef entityName(EntityId Id);

/// The group entity \p Id belongs to.
EntityGroupKind entityGroup(EntityId Id);

/// The JSON section entity \p Id is read from. Predicates live in
/// "Arguments", as upstream's format has them.
JSONSectionKind jsonSectionOf(EntityId Id);

/// The JSON key of section \p S ("Opcodes", "Types", "Arguments").
llvm::StringRef jsonSectionName(JSONSectionKind S);

/// Finds the entity named \p Key in JSON section \p S.
std::optional<EntityId> lookupEntity(JSONSectionKind S, llvm::StringRef Key);

/// The LLVM IR layout, built once.
const std::shared_ptr<const vocab::Layout> &irLayout();

/// Section weights of an IR vocabulary, upstream's `-ir2vec-opc-weight`,
/// `-ir2vec-type-weight` and `-ir2vec-arg-weight` (LLVM 22's defaults).
struct Weights {
  float Opcode = 1.0f;
  float Type = 0.5f;
  float Argument = 0.2f;
  /// The weights in the layout's section order.
  vocab::SectionWeights sections() const { return {Opcode, Type, Argument}; }
};

/// Loads the IR vocabulary at \p Path ("-": standard input) with \p W, from
/// its binary form when one is beside it (vocab::Vocabulary::load).
llvm::Expected<vocab::Vocabulary> loadVocabulary(llvm::StringRef Path,
                                                 const Weights &W = {});

/// The file name of the bundled default IR vocabulary.
inline constexpr const char *DefaultVocabularyName = "ir2vec-75d.json";

/// Where the bundled default IR vocabulary sits for a binary at
/// \p BinaryPath (vocab::bundledVocabularyPath).
std::string defaultVocabularyPath(llvm::StringRef BinaryPath);

} // namespace irtk::ir2vec

#endif // IRTK_IR2VEC_ENTITIES_H
