//===- Triplets.h - Training triplets and their files -----------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A (head, tail, relation) triplet over entity ids of a vocabulary layout,
/// and the text format `llvm-ir2vec triplets` writes and the trainer reads:
/// an optional "MAX_RELATION=<n>" header, then one "head\ttail\trelation"
/// line per triplet. What the relations mean is the IR kind's business.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_VOCAB_TRIPLETS_H
#define IRTK_VOCAB_TRIPLETS_H

#include "irtk/vocab/Layout.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace irtk::vocab {

struct Triplet {
  EntityId Head;
  EntityId Tail;
  unsigned Relation;
  bool operator==(const Triplet &O) const {
    return Head == O.Head && Tail == O.Tail && Relation == O.Relation;
  }
};

/// Triplets read for training.
struct TripletSet {
  std::vector<Triplet> Triplets;
  /// Number of relations (largest relation id + 1).
  unsigned NumRelations = 0;
  /// Number of entities: entity ids are in [0, NumEntities). The trainer
  /// learns one vector per entity and draws negatives from all of them.
  unsigned NumEntities = 0;
};

/// Reads triplets over the entities of \p L as `llvm-ir2vec triplets`
/// writes them (ours or upstream's: an optional "MAX_RELATION=<n>" header)
/// or as OpenKE's train2id.txt (a count line first), one "head tail
/// relation" per line, tab- or space-separated. Errors name \p Path and the
/// line.
llvm::Expected<TripletSet> readTriplets(llvm::StringRef Path, const Layout &L);

/// Writes one triplet line: "head\ttail\trelation\n".
void writeTripletLine(const Triplet &T, llvm::raw_ostream &OS);

/// Writes the MAX_RELATION header line for \p MaxRelation.
void writeTripletHeader(unsigned MaxRelation, llvm::raw_ostream &OS);

/// Writes OpenKE's entity2id (and `llvm-ir2vec entities`): the number of
/// entities of \p L, then "name\tid" per entity.
void writeEntityList(const Layout &L, llvm::raw_ostream &OS);

/// Remembers triplets to drop repeats across modules.
class TripletDeduplicator {
public:
  /// True the first time \p T is seen.
  bool insert(const Triplet &T);

private:
  llvm::DenseSet<uint64_t> Seen;
};

} // namespace irtk::vocab

#endif // IRTK_VOCAB_TRIPLETS_H
