//===- ApproxIndex.h - Approximate nearest-neighbour indexes ----*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Approximate indexes over a store's matrix, with FAISS (Debian's
/// libfaiss-dev): an inverted file of the raw vectors (ivf-flat), of
/// product-quantised codes (ivf-pq), or a graph (hnsw). An index proposes
/// candidates; every candidate is scored again exactly, in double precision
/// from the store's own vectors (Search.h's score), and the best K are
/// returned: the scores are always exact, only the recall is approximate.
///
/// An index file records the checksum of the matrix it was built from
/// (matrixChecksum) and is refused for any other; it ends with its own
/// length and checksum, so a truncated or corrupt file is an error, never
/// a wrong answer. The format is in docs/CommandGuide/irtk-similarity.md.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_STORE_APPROXINDEX_H
#define IRTK_STORE_APPROXINDEX_H

#include "irtk/store/Search.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace irtk::store {

/// A checksum of a matrix's rows (its shape and every value's bits),
/// computed in parallel over 1 MiB blocks: 16 hexadecimal digits.
std::string matrixChecksum(MatrixRef M, unsigned Threads = 0);

enum class ApproxKind { IVFFlat, IVFPQ, HNSW };

std::optional<ApproxKind> parseApproxKind(llvm::StringRef S);
llvm::StringRef approxKindName(ApproxKind K);

struct ApproxBuildOptions {
  ApproxKind Kind = ApproxKind::IVFFlat;
  MetricKind Metric = MetricKind::Cosine;
  /// IVF: inverted lists; 0 chooses about 4 times the square root of the
  /// rows (the power of 2 at most that), at most one per 39 rows.
  unsigned Lists = 0;
  /// IVF-PQ: bytes per code (sub-quantisers of 8 bits); must divide the
  /// dimension. 0 chooses the largest divisor of the dimension up to a
  /// third of it.
  unsigned PQBytes = 0;
  /// HNSW: links per node, and the candidate list while building.
  unsigned HNSWLinks = 32;
  unsigned EfConstruction = 40;
  /// IVF: rows the clustering learns from (a seeded sample); 0: 64 per
  /// list, all rows if fewer.
  uint64_t TrainRows = 0;
  /// IVF: k-means iterations.
  unsigned TrainIterations = 10;
  uint64_t Seed = 1;
  /// OpenMP threads; 0 for OpenMP's default.
  unsigned Threads = 0;
};

struct ApproxSearchOptions {
  unsigned K = 10;
  /// IVF: lists visited per query (0: the index's default, 8).
  unsigned NProbe = 0;
  /// HNSW: the candidate list while searching (0: the default, 64).
  unsigned EfSearch = 0;
  /// Candidates asked of the index per result, all scored exactly: at
  /// least 1 (0: 1 for flat kinds, 4 for ivf-pq, whose distances are
  /// approximate).
  unsigned Rerank = 0;
  unsigned Threads = 0;
  /// ivf-flat: how a batch of queries is scanned. ByList scores each visited
  /// list against all the batch's queries that visit it in one matrix
  /// product (a list read once per batch); ByQuery is FAISS's scan of each
  /// query's lists. The same candidates up to ties and rounding. Auto (the
  /// default) takes ByList when the batch visits at least as many lists as
  /// the index has (queries x nprobe >= lists), where it is faster.
  enum class Scan { Auto, ByList, ByQuery } ScanOrder = Scan::Auto;
};

/// What an index file says of itself (its first line).
struct ApproxIndexInfo {
  ApproxKind Kind = ApproxKind::IVFFlat;
  MetricKind Metric = MetricKind::Cosine;
  unsigned Dimension = 0;
  /// The store's rows, and those in the index (rows holding infinities or
  /// NaNs are left out: they never match).
  uint64_t Rows = 0, Indexed = 0;
  std::string StoreChecksum;
  /// The parameters it was built with (0 where they do not apply).
  unsigned Lists = 0, PQBytes = 0, HNSWLinks = 0;
  /// The FAISS version that wrote it.
  std::string Faiss;
};

class ApproxIndex {
public:
  using Progress = llvm::function_ref<void(llvm::StringRef Stage, uint64_t Done,
                                           uint64_t Total)>;

  /// Builds an index of \p Base's rows. Errors for options that do not fit
  /// the matrix (a PQ code size that does not divide the dimension, more
  /// lists than training rows allow).
  static llvm::Expected<ApproxIndex>
  build(MatrixRef Base, const ApproxBuildOptions &Opts, Progress P = {});
  /// Reads an index file, checking its format, length and checksum;
  /// errors name \p Path.
  static llvm::Expected<ApproxIndex> load(llvm::StringRef Path);

  ApproxIndex(ApproxIndex &&);
  ApproxIndex &operator=(ApproxIndex &&);
  ~ApproxIndex();

  /// Writes the index to \p Path (a temporary file renamed at the end).
  llvm::Error write(llvm::StringRef Path) const;

  /// Whether the index was built from \p Base (its shape and checksum);
  /// the error names \p IndexName and \p StoreName and says what differs.
  llvm::Error checkMatrix(MatrixRef Base, llvm::StringRef IndexName,
                          llvm::StringRef StoreName,
                          unsigned Threads = 0) const;

  /// The best Opts.K rows of \p Base for each row of \p Queries among the
  /// index's candidates, scored exactly by the index's metric, best first
  /// (ties: the lower row). \p Exclude, if not empty, gives per query a
  /// row to leave out (-1 for none). \p Base must be the matrix the index
  /// was built from.
  std::vector<std::vector<Neighbor>>
  search(MatrixRef Queries, MatrixRef Base, const ApproxSearchOptions &Opts,
         llvm::ArrayRef<int64_t> Exclude = {}) const;

  const ApproxIndexInfo &info() const { return Info; }
  /// The bytes the index holds in memory (codes, vectors, ids, lists or
  /// links), as FAISS writes them.
  uint64_t bytes() const { return Bytes; }

  /// The FAISS index (ApproxIndex.cpp).
  struct Impl;

private:
  ApproxIndex(ApproxIndexInfo Info, std::unique_ptr<Impl> I, uint64_t Bytes);
  ApproxIndexInfo Info;
  std::unique_ptr<Impl> I;
  uint64_t Bytes = 0;
};

} // namespace irtk::store

#endif // IRTK_STORE_APPROXINDEX_H
