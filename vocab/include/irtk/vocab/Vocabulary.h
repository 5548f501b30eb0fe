//===- Vocabulary.h - Seed-embedding vocabularies ---------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A vocabulary: one vector per entity of a layout (Layout.h), read from
/// upstream LLVM's JSON format: an object of sections, each an object from
/// entity key to an array of numbers. Section weights are applied once, at
/// load, with upstream's float-to-double promotion so that the numbers agree
/// with LLVM 22 bit for bit. Every problem with the file is an llvm::Error
/// naming the file and, where it applies, the section and entry.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_VOCAB_VOCABULARY_H
#define IRTK_VOCAB_VOCABULARY_H

#include "irtk/support/DefaultInitVector.h"
#include "irtk/vocab/Layout.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace irtk::vocab {

/// What a vocabulary's binary form records of its JSON file besides its
/// size and hash, so that a load can tell the file unchanged without
/// reading it: its modification time (nanoseconds since the epoch) and file
/// id (inode). Zero: not recorded, and a load hashes the file.
struct SourceStamp {
  uint64_t ModTimeNs = 0;
  uint64_t FileId = 0;
};

class Vocabulary {
public:
  /// Reads \p Path ("-" is standard input) as a vocabulary of layout \p L
  /// and applies \p W (one weight per section of \p L; empty: all 1).
  /// Fails with an error naming \p Path on I/O, JSON or shape problems.
  static llvm::Expected<Vocabulary>
  loadFromFile(llvm::StringRef Path, std::shared_ptr<const Layout> L,
               const SectionWeights &W = {});

  /// Loads \p Path as compilers do: from its binary form, binaryPath(Path),
  /// when that file exists, else as loadFromFile does. The binary form must
  /// have been made from \p Path as it is now and for layout \p L, or the
  /// load fails with an error naming it and the command that remakes it:
  /// a stale or foreign binary form is never used. \p Path is not read when
  /// its size, modification time and file id are those the binary form
  /// recorded (SourceStamp); it is hashed otherwise (a copy, a file with
  /// another time). The vocabulary is the same either way, bit for bit.
  static llvm::Expected<Vocabulary> load(llvm::StringRef Path,
                                         std::shared_ptr<const Layout> L,
                                         const SectionWeights &W = {});
  /// As load, for a layout that the binary form's tables (or nothing,
  /// without a binary form: an empty slice) let \p MakeLayout make without
  /// building it (mir2vec::loadTargetVocabulary).
  static llvm::Expected<Vocabulary>
  load(llvm::StringRef Path,
       llvm::function_ref<std::shared_ptr<const Layout>(llvm::StringRef Tables)>
           MakeLayout,
       const SectionWeights &W = {});

  /// The binary form of vocabulary file \p Path: Path + ".bin".
  static std::string binaryPath(llvm::StringRef Path);

  /// Reads \p Binary (named \p Name in errors), the binary form of the
  /// vocabulary file whose bytes are \p Source (named \p SourceName), for
  /// layout \p L, and applies \p W.
  static llvm::Expected<Vocabulary>
  loadFromBinary(llvm::StringRef Binary, llvm::StringRef Name,
                 llvm::StringRef Source, llvm::StringRef SourceName,
                 std::shared_ptr<const Layout> L, const SectionWeights &W = {});

  /// The stamp of \p Path for its binary form: recorded only when the file
  /// was last modified at least 2 s ago (any later write then gives it
  /// another time, on file systems with timestamps as coarse as 2 s);
  /// empty otherwise or when it cannot be read.
  static SourceStamp packStamp(llvm::StringRef Path);

  /// Writes the binary form of this vocabulary, read from the file whose
  /// bytes are \p Source without weights (all 1): its layout's checksum,
  /// the size, hash and \p Stamp of \p Source, \p Tables, and the vectors
  /// as stored. \p Tables are what the layout's maker needs to make it
  /// again without building it (mir2vec::TargetLayout::tables); the
  /// vocabulary does not read them.
  void writeBinary(llvm::StringRef Source, llvm::raw_ostream &OS,
                   llvm::StringRef Tables = {},
                   const SourceStamp &Stamp = {}) const;

  /// The dimension recorded by the binary form of \p Path (binaryPath),
  /// read from its header alone; std::nullopt when there is none, or it is
  /// not a binary form this version of irtk writes. A load checks the rest
  /// (an advisor needs the dimension long before it needs the vectors).
  static std::optional<unsigned> binaryDimension(llvm::StringRef Path);

  /// The tables that writeBinary recorded in \p Binary; empty when it has
  /// none, or is not a binary form this version of irtk writes. A load
  /// checks the rest.
  static llvm::StringRef binaryLayoutTables(llvm::StringRef Binary);

  /// Parses \p Text as a vocabulary; \p Name stands for the file in errors.
  static llvm::Expected<Vocabulary>
  loadFromBuffer(llvm::StringRef Text, llvm::StringRef Name,
                 std::shared_ptr<const Layout> L, const SectionWeights &W = {});

  /// Builds a vocabulary from unweighted vectors, one per entity id
  /// (\p Vectors.size() == L->size(), all of one non-zero dimension).
  static llvm::Expected<Vocabulary>
  fromVectors(std::shared_ptr<const Layout> L,
              const std::vector<std::vector<double>> &Vectors,
              const SectionWeights &W = {});

  const Layout &layout() const { return *L; }
  const std::shared_ptr<const Layout> &layoutPtr() const { return L; }
  /// Number of entities (the layout's).
  unsigned size() const { return L->size(); }
  unsigned dimension() const { return Dim; }

  /// Pre-weighted vector of entity \p Id; the zero vector if the file lacked
  /// it.
  llvm::ArrayRef<double> vector(EntityId Id) const {
    return llvm::ArrayRef<double>(data(Id), Dim);
  }
  /// Pointer to the Dim contiguous values of entity \p Id.
  const double *data(EntityId Id) const {
    return Data.data() + size_t(Row[Id]) * Dim;
  }

  /// Whether the file gave a vector for entity \p Id.
  bool isPresent(EntityId Id) const { return Row[Id] != 0; }
  /// Entities the file lacked, in id order (they have zero vectors).
  std::vector<EntityId> missingEntities() const;
  /// Keys in the file that name no entity ("Section.Key"): sections in
  /// layout order, keys sorted within each. Upstream ignores them;
  /// `irtk-vocab validate` warns about them.
  llvm::ArrayRef<std::string> unknownKeys() const { return UnknownKeys; }

  /// The weight of each section, as applied.
  const SectionWeights &weights() const { return W; }

private:
  /// writeBinary without its trailer (the hash of these bytes).
  void writeBinaryBody(llvm::StringRef Source, llvm::raw_ostream &OS,
                       llvm::StringRef Tables, const SourceStamp &Stamp) const;
  /// loadFromBinary, asking \p IsSource whether the JSON is the one of the
  /// recorded size, hash and stamp (an error: it could not be read).
  /// \p ChecksumVerified: the caller has compared the form's trailer with
  /// its content already (hasValidChecksum), so it is not hashed again.
  static llvm::Expected<Vocabulary> loadFromBinaryIf(
      llvm::StringRef Binary, llvm::StringRef Name,
      llvm::function_ref<llvm::Expected<bool>(uint64_t Size, uint64_t Hash,
                                              const SourceStamp &Stamp)>
          IsSource,
      llvm::StringRef SourceName, std::shared_ptr<const Layout> L,
      const SectionWeights &W, bool ChecksumVerified = false);
  /// Whether a binary form's trailer is the xxh3 of the bytes before it.
  static bool hasValidChecksum(llvm::StringRef Binary);

  Vocabulary() = default;

  std::shared_ptr<const Layout> L;
  unsigned Dim = 0;
  SectionWeights W;
  /// Sets the rows: one per entity flagged in \p Present, in id order,
  /// after row 0, the zero vector every absent entity shares; the vectors
  /// are zero until filled (row(Id)).
  void allocateRows(const std::vector<bool> &Present);
  double *row(EntityId Id) { return Data.data() + size_t(Row[Id]) * Dim; }

  /// Dim values per row, row 0 all zero (a vocabulary usually gives a
  /// vector to a few of its entities: x86-64's MIR one to 320 of 7,158).
  /// resize() leaves new values unset: every loader writes them all.
  support::DefaultInitVector<double> Data;
  /// Entity -> its row of Data; 0 for an entity the file lacked.
  std::vector<uint32_t> Row;
  std::vector<std::string> UnknownKeys;
};

/// Writes \p Entities (one vector per entity id of \p L) as a vocabulary in
/// upstream's JSON format: the layout's sections in order, keys in id order,
/// numbers in shortest round-trip form. An empty vector leaves its entity
/// out.
void writeVocabularyJSON(const Layout &L,
                         const std::vector<std::vector<double>> &Entities,
                         llvm::raw_ostream &OS);

} // namespace irtk::vocab

#endif // IRTK_VOCAB_VOCABULARY_H
