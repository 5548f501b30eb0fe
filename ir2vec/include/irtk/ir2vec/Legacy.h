//===- Legacy.h - Older vocabulary formats ----------------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reads seed vocabularies written before LLVM's sectioned JSON format:
///  - IITH IR2Vec's text format, one entry per line:
///      add:[0.0957, 0.0833, ...]
///  - upstream LLVM's first, flat JSON format (2025):
///      {"add": [0.0957, ...], "integerTy": [...], ...}
/// Both name entities in lower case: opcodes as Instruction::getOpcodeName
/// spells them ("getelementptr", "va_arg"), types and operand kinds with a
/// lower-case first letter ("integerTy", "pointer"). LLVM 22's own key
/// names ("GetElementPtr", "ICMP_eq") are accepted too.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_IR2VEC_LEGACY_H
#define IRTK_IR2VEC_LEGACY_H

#include "irtk/ir2vec/Entities.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace irtk::ir2vec {

struct LegacyVocabulary {
  /// One vector per entity id (NumEntities); empty where the file has none.
  std::vector<std::vector<double>> Vectors;
  /// Keys that name no LLVM 22 entity (e.g. "label"), in file order.
  std::vector<std::string> UnmappedKeys;
  unsigned Dimension = 0;
};

/// The entity a legacy key names, if any.
std::optional<EntityId> legacyKeyEntity(llvm::StringRef Key);

/// Parses \p Text, in either legacy format (told apart by a leading '{').
/// Errors name \p Name and, for the text format, the line: bad syntax,
/// non-finite or non-numeric values, differing dimensions, duplicate keys,
/// two keys for one entity, or no entry at all.
llvm::Expected<LegacyVocabulary> parseLegacyVocabulary(llvm::StringRef Text,
                                                       llvm::StringRef Name);

} // namespace irtk::ir2vec

#endif // IRTK_IR2VEC_LEGACY_H
