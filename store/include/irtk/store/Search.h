//===- Search.h - Nearest neighbours and close pairs ------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Exact top-k and threshold searches over float32 matrices by cosine
/// similarity or Euclidean distance.
///
/// The scan is blocked single-precision matrix arithmetic (Eigen): a block of
/// rows times a batch of queries, with the rows' norms taken while the block
/// is in cache, so the matrix is read from memory once per batch of queries.
/// Those float scores only screen: every row whose float score is within a
/// proven rounding-error bound of the cut is kept, and the kept rows are
/// scored again in double precision (score()), which decides and is what is
/// reported. Results therefore do not depend on blocking or thread count,
/// and equal a brute-force search with score() exactly, ties broken by row.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_STORE_SEARCH_H
#define IRTK_STORE_SEARCH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace irtk::store {

enum class MetricKind { Cosine, Euclidean };

std::optional<MetricKind> parseMetric(llvm::StringRef S);
llvm::StringRef metricName(MetricKind M);

/// A row-major float32 matrix in memory, not owned.
struct MatrixRef {
  const float *Data = nullptr;
  uint64_t Rows = 0;
  unsigned Dim = 0;

  llvm::ArrayRef<float> row(uint64_t R) const {
    return llvm::ArrayRef<float>(Data + R * Dim, Dim);
  }
};

/// The values of rows \p Rows of \p M, in that order: a matrix of
/// Rows.size() rows (a search over a subset of a store's rows).
std::vector<float> gatherRows(MatrixRef M, llvm::ArrayRef<uint64_t> Rows);

/// The score of \p A against \p B, in double precision: cosine similarity
/// (0 when either vector is zero) or Euclidean distance. Search results
/// report exactly this value.
double score(llvm::ArrayRef<float> A, llvm::ArrayRef<float> B, MetricKind M);

/// Whether score \p A ranks before score \p B: higher cosine, lower
/// distance.
inline bool isBetter(double A, double B, MetricKind M) {
  return M == MetricKind::Cosine ? A > B : A < B;
}

struct Neighbor {
  uint64_t Row = 0;
  double Score = 0;
};

struct SearchOptions {
  MetricKind Metric = MetricKind::Cosine;
  unsigned K = 10;
  /// OpenMP threads; 0 for OpenMP's default.
  unsigned Threads = 0;
};

/// For each row of \p Queries, the Opts.K rows of \p Base that score best
/// against it, best first, ties by lower row; fewer when Base is smaller.
/// \p Exclude, when not empty, has one entry per query: a row of Base to
/// leave out (the query itself), or -1. Rows whose values are not finite
/// never match. Queries and Base must have the same dimension.
std::vector<std::vector<Neighbor>> topK(MatrixRef Queries, MatrixRef Base,
                                        const SearchOptions &Opts,
                                        llvm::ArrayRef<int64_t> Exclude = {});

struct ScoredPair {
  uint64_t A = 0;
  uint64_t B = 0;
  double Score = 0;
};

/// Pairs (a, b), a a row of \p A and b a row of \p B, scoring at least
/// \p Threshold (cosine) or at most \p Threshold (Euclidean distance).
/// When \p Same, A and B are the same matrix and each unordered pair of
/// different rows is reported once, with a < b. Sorted best first, then by
/// a and b.
std::vector<ScoredPair> pairsWithin(MatrixRef A, MatrixRef B, bool Same,
                                    double Threshold, MetricKind Metric,
                                    unsigned Threads = 0);

} // namespace irtk::store

#endif // IRTK_STORE_SEARCH_H
