//===- Store.h - Embedding stores on disk -----------------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A store is a directory of three files:
///   embeddings.npy  float32 matrix, C order, shape (count, dimension)
///   index.jsonl     one line per row, in row order (Index.h)
///   store.json      dimension, count, level, kind, vocabulary, weights, tool
/// StoreWriter fills a temporary directory beside the destination and renames
/// it into place on commit, so readers never see a half-written store.
///
/// A sharded store (format version 2) is a directory whose store.json lists
/// shards, each an ordinary store in a subdirectory, with the settings the
/// shards share; it has no matrix or index of its own. Its rows are the
/// shards' rows in the order listed. Store::open reads one as a single
/// store, and writeStoreCopy turns it into an ordinary one.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_STORE_STORE_H
#define IRTK_STORE_STORE_H

#include "irtk/store/Index.h"
#include "irtk/store/Npy.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_fd_ostream;
class raw_ostream;
} // namespace llvm

namespace irtk::store {

inline constexpr const char *MatrixFileName = "embeddings.npy";
inline constexpr const char *IndexFileName = "index.jsonl";
inline constexpr const char *InfoFileName = "store.json";
/// The "format" member of store.json and its version.
inline constexpr const char *StoreFormatName = "irtk-embedding-store";
inline constexpr unsigned StoreFormatVersion = 1;
/// The version of store.json that lists shards.
inline constexpr unsigned ShardedStoreFormatVersion = 2;

/// One shard of a sharded store, as listed in its store.json.
struct ShardRef {
  /// Relative to the sharded store's directory; no ".." component.
  std::string Path;
  uint64_t Count = 0;
};

/// store.json: how the vectors were made. The store keeps these as strings
/// and numbers; what they mean (which kinds exist, how weights apply) is
/// the business of the component that embedded the rows.
struct StoreInfo {
  unsigned Dimension = 0;
  uint64_t Count = 0;
  /// "func", "bb", "inst" or "module": what a row is.
  std::string Level = "func";
  /// How the vectors were computed (IR2Vec: "symbolic" or "flow-aware").
  std::string Kind = "symbolic";
  /// Absolute path of the vocabulary ("-" if it was read from standard
  /// input).
  std::string Vocabulary;
  /// "xxh3:" and the xxh3 of the vocabulary file's bytes, in 16 hex digits
  /// (vocabularyHash), which says whether two stores used the same
  /// vocabulary wherever its file was; "" for stores written before irtk
  /// recorded it, or from a vocabulary read from standard input. Written as
  /// "vocabulary_hash" when not empty.
  std::string VocabularyHash;
  /// Section weights by name, in the order they are written. Parsing sorts
  /// them by name.
  std::vector<std::pair<std::string, double>> Weights;
  /// The program and version that wrote the store.
  std::string Tool;
  /// How the embedded code was made, where the kind needs it to embed more
  /// code the same way (machine IR: "target", "opt_level", "stop_after" or
  /// "stop_before"), as strings in the order written; parsing sorts them by
  /// name. Written as the object "source" when not empty.
  std::vector<std::pair<std::string, std::string>> Source;
  /// A sharded store's shards, in row order; empty for an ordinary store.
  /// Written (as "shards", with version 2) when not empty.
  std::vector<ShardRef> Shards;

  /// The source attribute named \p Name, or "".
  llvm::StringRef source(llvm::StringRef Name) const;

  /// The weight named \p Name, if there is one.
  std::optional<double> weight(llvm::StringRef Name) const;
};

/// Writes \p Info as a JSON object. Weights are written as the exact values
/// of the doubles given (the exact values of float weights read back as the
/// same floats).
void writeStoreInfo(const StoreInfo &Info, llvm::raw_ostream &OS);
/// Parses store.json text; \p Name stands for the file in errors. Version 2
/// must list its shards; version 1 must not.
llvm::Expected<StoreInfo> parseStoreInfo(llvm::StringRef Text,
                                         llvm::StringRef Name);

/// The "vocabulary_hash" of the vocabulary file \p Path ("xxh3:" and 16
/// hex digits), or "" when it is "-" or cannot be read.
std::string vocabularyHash(llvm::StringRef Path);

/// Rows about to be appended to a store: Dim floats per record.
struct RowBatch {
  std::vector<float> Values;
  std::vector<IndexRecord> Records;
  size_t size() const { return Records.size(); }
  /// Appends \p V, rounded to float32, as the row of \p Site (numbered
  /// size()).
  void append(llvm::ArrayRef<double> V, IndexRecord Site);
};

/// Builds a store in a temporary directory and moves it into place.
class StoreWriter {
public:
  /// Prepares to write a store at \p Dir with \p Info (Count is filled in).
  /// Fails, naming \p Dir, if it exists and is neither an empty directory
  /// nor a store (a directory holding store.json), which commit() replaces,
  /// or if the temporary directory cannot be made.
  static llvm::Expected<std::unique_ptr<StoreWriter>>
  create(llvm::StringRef Dir, StoreInfo Info);
  /// Removes the temporary directory unless committed.
  ~StoreWriter();

  /// Appends \p B's rows (renumbered to follow the rows already written).
  void append(const RowBatch &B);
  /// Writes \p Contents to the file \p Name (a plain file name) in the store,
  /// to be moved into place with the rest: a record of how the rows were
  /// made, for example. Store::open ignores such files.
  llvm::Error addFile(llvm::StringRef Name, llvm::StringRef Contents);
  uint64_t rows() const { return Rows; }
  /// Finishes the three files and renames the directory into place,
  /// replacing an existing store. On failure nothing is left behind and an
  /// existing store is kept.
  llvm::Error commit();
  /// Removes the temporary directory.
  void discard();

private:
  StoreWriter() = default;
  std::string Dir, TempDir;
  StoreInfo Info;
  uint64_t Rows = 0;
  std::unique_ptr<NpyWriter> Matrix;
  std::unique_ptr<llvm::raw_fd_ostream> Index;
  bool Done = false;
};

/// An opened, checked store.
class Store {
public:
  /// Opens \p Dir: reads store.json, maps the matrix and the index, and
  /// checks that they agree (dimension, row count). Errors name the file
  /// and the problem. A sharded store's shards are opened and checked the
  /// same way, and against the manifest (the settings of store.json, each
  /// shard's count); their matrices are copied into one, their indexes are
  /// read in place. \p Progress follows the index check, the part of
  /// opening that takes time (IndexFile::open), shard by shard.
  static llvm::Expected<Store> open(llvm::StringRef Dir,
                                    LoadProgress Progress = {});

  llvm::StringRef path() const { return Dir; }
  const StoreInfo &info() const { return Info; }
  const NpyMatrix &matrix() const { return Matrix; }
  const IndexFile &index() const { return Index; }
  uint64_t size() const { return Matrix.rows(); }
  unsigned dimension() const { return Matrix.cols(); }
  bool isSharded() const { return !Info.Shards.empty(); }

private:
  /// open(); a shard (\p IsShard) must be an ordinary store.
  static llvm::Expected<Store> openAt(llvm::StringRef Dir, bool IsShard,
                                      LoadProgress Progress);
  static llvm::Expected<Store> openSharded(std::string Dir, StoreInfo Info,
                                           LoadProgress Progress);
  Store(std::string Dir, StoreInfo Info, NpyMatrix Matrix, IndexFile Index)
      : Dir(std::move(Dir)), Info(std::move(Info)), Matrix(std::move(Matrix)),
        Index(std::move(Index)) {}
  std::string Dir;
  StoreInfo Info;
  NpyMatrix Matrix;
  IndexFile Index;
};

/// The smallest functions a search keeps, by the sizes each row records
/// (IndexRecord::Instructions, ::Blocks); 0 keeps any.
struct SizeFilter {
  uint64_t MinInstructions = 0;
  uint64_t MinBlocks = 0;
  bool active() const { return MinInstructions || MinBlocks; }
};

/// The rows of \p S whose function has at least the sizes \p F asks for,
/// in row order. Fails, naming the store, when a row records no sizes (a
/// store written before they were recorded, which must be written again).
llvm::Expected<std::vector<uint64_t>> selectRows(const Store &S,
                                                 const SizeFilter &F);

/// Writes the rows of \p S (ordinary or sharded) as an ordinary store at
/// \p Dir, in the same order, with S's settings, as StoreWriter writes
/// (replacing only a store or an empty directory). Merges a sharded store.
llvm::Error writeStoreCopy(const Store &S, llvm::StringRef Dir);

} // namespace irtk::store

#endif // IRTK_STORE_STORE_H
