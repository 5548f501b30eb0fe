//===- Vocabulary.h - IR2Vec seed-embedding vocabulary ----------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// An IR2Vec vocabulary: one vector per entity (see Entities.h), read from
/// upstream LLVM's JSON format (sections "Opcodes", "Types", "Arguments").
/// Section weights are applied once, at load, with upstream's float-to-double
/// promotion so that the numbers agree with LLVM 22 bit for bit. Every problem
/// with the file is an llvm::Error naming the file and, where it applies, the
/// section and entry.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_VOCAB_VOCABULARY_H
#define IRTK_VOCAB_VOCABULARY_H

#include "irtk/vocab/Entities.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace irtk::vocab {

/// Section weights. They are floats, as upstream's `-ir2vec-*-weight`
/// options are, and are promoted to double when applied: 0.2f scales by
/// 0.20000000298023224, exactly as LLVM 22 does.
struct Weights {
  float Opcode = 1.0f;
  float Type = 0.5f;
  float Argument = 0.2f;
};

class Vocabulary {
public:
  /// Reads \p Path ("-" is standard input) and applies \p W. Fails with an
  /// error naming \p Path on I/O, JSON or shape problems.
  static llvm::Expected<Vocabulary> loadFromFile(llvm::StringRef Path,
                                                 const Weights &W = {});

  /// Parses \p Text as a vocabulary; \p Name stands for the file in errors.
  static llvm::Expected<Vocabulary> loadFromBuffer(llvm::StringRef Text,
                                                   llvm::StringRef Name,
                                                   const Weights &W = {});

  /// Builds a vocabulary from unweighted vectors, one per entity id
  /// (\p Vectors.size() == NumEntities, all of one non-zero dimension).
  static llvm::Expected<Vocabulary>
  fromVectors(const std::vector<std::vector<double>> &Vectors,
              const Weights &W = {});

  unsigned dimension() const { return Dim; }

  /// Pre-weighted vector of entity \p Id; the zero vector if the file lacked
  /// it.
  llvm::ArrayRef<double> vector(EntityId Id) const {
    return llvm::ArrayRef<double>(Data.data() + size_t(Id) * Dim, Dim);
  }
  /// Pointer to the Dim contiguous values of entity \p Id.
  const double *data(EntityId Id) const {
    return Data.data() + size_t(Id) * Dim;
  }

  /// Whether the file gave a vector for entity \p Id.
  bool isPresent(EntityId Id) const { return Present[Id]; }
  /// Entities the file lacked, in id order (they have zero vectors).
  std::vector<EntityId> missingEntities() const;
  /// Keys in the file that name no entity ("Section.Key"): sections in the
  /// order Opcodes, Types, Arguments, keys sorted within each. Upstream
  /// ignores them; `irtk-vocab validate` warns about them.
  llvm::ArrayRef<std::string> unknownKeys() const { return UnknownKeys; }

  const Weights &weights() const { return W; }

private:
  Vocabulary() = default;

  unsigned Dim = 0;
  Weights W;
  /// NumEntities * Dim values, entity-major.
  std::vector<double> Data;
  std::vector<bool> Present;
  std::vector<std::string> UnknownKeys;
};

/// Writes \p Entities (NumEntities vectors, indexed by entity id) as a
/// vocabulary in upstream's JSON format: "Opcodes", "Types" and "Arguments"
/// (operand kinds and predicates), keys in id order, numbers in shortest
/// round-trip form. An empty vector leaves its entity out.
void writeVocabularyJSON(const std::vector<std::vector<double>> &Entities,
                         llvm::raw_ostream &OS);

/// Where the bundled default vocabulary sits for a binary at \p BinaryPath:
/// an executable in <prefix>/bin or a plugin or module in <prefix>/lib finds
/// it at <prefix>/share/irtk/vocab/ir2vec-75d.json. The build tree has the
/// same shape. The file may not exist; callers check.
std::string defaultVocabularyPath(llvm::StringRef BinaryPath);

} // namespace irtk::vocab

#endif // IRTK_VOCAB_VOCABULARY_H
