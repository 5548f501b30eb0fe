//===- Validation.h - Vocabulary checks and statistics ----------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Checks beyond what loading enforces, and summary statistics, for the
/// `irtk-vocab validate` and `irtk-vocab stats` commands.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_VOCAB_VALIDATION_H
#define IRTK_VOCAB_VALIDATION_H

#include "irtk/vocab/Vocabulary.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace irtk::vocab {

/// Fails unless every entity of the layout has a vector; the error names
/// \p Name, the count and the first missing entities.
llvm::Error checkComplete(const Vocabulary &V, llvm::StringRef Name);

struct VocabStats {
  unsigned Dimension = 0;
  unsigned Present = 0;
  /// Per group of the layout, in group order: present and total counts.
  std::vector<unsigned> GroupPresent, GroupTotal;
  /// L2 norms of the weighted vectors of present entities.
  double MinNorm = 0, MaxNorm = 0, MeanNorm = 0;
  EntityId MinNormEntity = 0, MaxNormEntity = 0;
};

VocabStats computeStats(const Vocabulary &V);

/// How one entity's vector differs between two vocabularies.
struct EntityDiff {
  EntityId Id;
  bool InA, InB;
  /// Cosine similarity of the weighted vectors; NaN unless both are present
  /// and non-zero.
  double Cosine;
  /// Euclidean distance of the weighted vectors.
  double Distance;
};

/// Compares \p A and \p B entity by entity. Fails when their layouts or
/// dimensions differ (naming \p NameA and \p NameB).
llvm::Expected<std::vector<EntityDiff>>
compareVocabularies(const Vocabulary &A, const Vocabulary &B,
                    llvm::StringRef NameA, llvm::StringRef NameB);

} // namespace irtk::vocab

#endif // IRTK_VOCAB_VALIDATION_H
