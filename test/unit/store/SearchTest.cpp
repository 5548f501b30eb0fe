//===- SearchTest.cpp - Top-k and pair searches against brute force -------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The blocked float scan must give exactly what scoring every row with
/// score() and sorting gives (same rows, same doubles, same order), whatever
/// the thread count, across block and query-batch boundaries, with ties and
/// duplicates. score() itself is checked against the textbook formulas.
///
//===----------------------------------------------------------------------===//

#include "irtk/store/Search.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace irtk::store;

namespace {

struct Matrix {
  std::vector<float> Values;
  uint64_t Rows;
  unsigned Dim;
  MatrixRef ref() const { return {Values.data(), Rows, Dim}; }
};

Matrix randomMatrix(uint64_t Rows, unsigned Dim, unsigned Seed,
                    float Offset = 0) {
  std::mt19937 G(Seed);
  std::uniform_real_distribution<float> U(-1, 1);
  Matrix M{{}, Rows, Dim};
  for (uint64_t I = 0; I < Rows * Dim; ++I)
    M.Values.push_back(U(G) + Offset);
  return M;
}

std::vector<Neighbor> bruteForce(llvm::ArrayRef<float> Q, const Matrix &Base,
                                 unsigned K, MetricKind Metric,
                                 int64_t Exclude = -1) {
  std::vector<Neighbor> All;
  for (uint64_t R = 0; R < Base.Rows; ++R)
    if (int64_t(R) != Exclude)
      All.push_back({R, score(Q, Base.ref().row(R), Metric)});
  std::sort(All.begin(), All.end(), [&](const Neighbor &A, const Neighbor &B) {
    if (A.Score != B.Score)
      return isBetter(A.Score, B.Score, Metric);
    return A.Row < B.Row;
  });
  All.resize(std::min<size_t>(K, All.size()));
  return All;
}

void expectSame(const std::vector<Neighbor> &Got,
                const std::vector<Neighbor> &Want) {
  ASSERT_EQ(Got.size(), Want.size());
  for (size_t I = 0; I < Got.size(); ++I) {
    EXPECT_EQ(Got[I].Row, Want[I].Row) << "rank " << I;
    EXPECT_EQ(Got[I].Score, Want[I].Score) << "rank " << I;
  }
}

/// Checks topK on \p Queries against brute force, with 1 and 2 threads.
void checkTopK(const Matrix &Queries, const Matrix &Base, unsigned K,
               MetricKind Metric, const std::vector<int64_t> &Exclude = {}) {
  for (unsigned Threads : {1u, 2u}) {
    SearchOptions O;
    O.Metric = Metric;
    O.K = K;
    O.Threads = Threads;
    std::vector<std::vector<Neighbor>> Got =
        topK(Queries.ref(), Base.ref(), O, Exclude);
    ASSERT_EQ(Got.size(), Queries.Rows);
    for (uint64_t Q = 0; Q < Queries.Rows; ++Q) {
      SCOPED_TRACE("query " + std::to_string(Q) + ", " +
                   std::to_string(Threads) + " threads");
      expectSame(Got[Q], bruteForce(Queries.ref().row(Q), Base, K, Metric,
                                    Exclude.empty() ? -1 : Exclude[Q]));
    }
  }
}

TEST(SearchTest, ScoreIsCosineOrDistance) {
  std::vector<float> A = {3, 4, 0}, B = {4, 3, 12};
  EXPECT_NEAR(score(A, B, MetricKind::Cosine), 24.0 / (5 * 13), 1e-15);
  EXPECT_NEAR(score(A, B, MetricKind::Euclidean), std::sqrt(1 + 1 + 144.0),
              1e-15);
  EXPECT_EQ(score(A, A, MetricKind::Cosine), 1.0);
  EXPECT_EQ(score(A, A, MetricKind::Euclidean), 0.0);
}

TEST(SearchTest, CosineWithZeroVectorIsZero) {
  std::vector<float> A = {0, 0}, B = {1, 2};
  EXPECT_EQ(score(A, B, MetricKind::Cosine), 0.0);
  EXPECT_EQ(score(A, A, MetricKind::Cosine), 0.0);
}

TEST(SearchTest, TopKCosineMatchesBruteForce) {
  // 2500 rows: three row blocks; 70 queries: two query batches.
  Matrix Base = randomMatrix(2500, 16, 1), Queries = randomMatrix(70, 16, 2);
  checkTopK(Queries, Base, 7, MetricKind::Cosine);
}

TEST(SearchTest, TopKEuclideanMatchesBruteForce) {
  // An offset makes the norms large next to the distances, where the
  // float expansion ||q||^2 + ||r||^2 - 2 q.r loses the most.
  Matrix Base = randomMatrix(2500, 16, 3, 20),
         Queries = randomMatrix(70, 16, 4, 20);
  checkTopK(Queries, Base, 7, MetricKind::Euclidean);
}

TEST(SearchTest, TopKSingleQuery75D) {
  Matrix Base = randomMatrix(5000, 75, 5), Queries = randomMatrix(1, 75, 6);
  checkTopK(Queries, Base, 10, MetricKind::Cosine);
  checkTopK(Queries, Base, 10, MetricKind::Euclidean);
}

TEST(SearchTest, TiesAreBrokenByRow) {
  // Every row is one of three vectors: many exact ties.
  Matrix Base{{}, 3000, 4};
  for (unsigned R = 0; R < 3000; ++R)
    for (unsigned D = 0; D < 4; ++D)
      Base.Values.push_back(float((R * 7) % 3 + D));
  Matrix Queries = randomMatrix(3, 4, 7, 2);
  checkTopK(Queries, Base, 25, MetricKind::Cosine);
  checkTopK(Queries, Base, 25, MetricKind::Euclidean);
}

TEST(SearchTest, ExcludedRowIsLeftOut) {
  Matrix Base = randomMatrix(1500, 8, 8);
  Matrix Queries{{}, 3, 8};
  std::vector<int64_t> Exclude = {0, 1024, 1499};
  for (int64_t R : Exclude)
    for (float V : Base.ref().row(R))
      Queries.Values.push_back(V);
  checkTopK(Queries, Base, 5, MetricKind::Cosine, Exclude);
  SearchOptions O;
  O.K = 1;
  EXPECT_NE(topK(Queries.ref(), Base.ref(), O, Exclude)[1][0].Row, 1024u);
}

TEST(SearchTest, KLargerThanTheStore) {
  Matrix Base = randomMatrix(5, 3, 9), Queries = randomMatrix(2, 3, 10);
  checkTopK(Queries, Base, 10, MetricKind::Euclidean);
}

TEST(SearchTest, NonFiniteRowsNeverMatch) {
  Matrix Base = randomMatrix(10, 2, 11);
  Base.Values[2] = std::numeric_limits<float>::quiet_NaN();
  Base.Values[5] = std::numeric_limits<float>::infinity();
  Matrix Queries = randomMatrix(1, 2, 12);
  SearchOptions O;
  O.K = 10;
  std::vector<std::vector<Neighbor>> R = topK(Queries.ref(), Base.ref(), O);
  ASSERT_EQ(R[0].size(), 8u);
  for (const Neighbor &N : R[0])
    EXPECT_TRUE(N.Row != 1 && N.Row != 2);
  // Euclidean: the infinite row is at distance inf, which is no match either.
  O.Metric = MetricKind::Euclidean;
  R = topK(Queries.ref(), Base.ref(), O);
  ASSERT_EQ(R[0].size(), 8u);
  for (const Neighbor &N : R[0])
    EXPECT_TRUE(N.Row != 1 && N.Row != 2);
}

TEST(SearchTest, TinyAndHugeVectorsAreScannedExactly) {
  // Squared norms outside float's comfortable range bypass the screening.
  Matrix Base = randomMatrix(2000, 4, 13);
  for (unsigned D = 0; D < 4; ++D) {
    Base.Values[100 * 4 + D] *= 1e-20f;
    Base.Values[200 * 4 + D] *= 1e18f;
  }
  Matrix Queries = randomMatrix(2, 4, 14);
  for (unsigned D = 0; D < 4; ++D)
    Queries.Values[4 + D] *= 1e-20f;
  checkTopK(Queries, Base, 5, MetricKind::Cosine);
}

std::vector<ScoredPair> brutePairs(const Matrix &A, const Matrix &B, bool Same,
                                   double T, MetricKind Metric) {
  std::vector<ScoredPair> All;
  for (uint64_t I = 0; I < A.Rows; ++I)
    for (uint64_t J = Same ? I + 1 : 0; J < B.Rows; ++J) {
      double S = score(A.ref().row(I), B.ref().row(J), Metric);
      if (Metric == MetricKind::Cosine ? S >= T : S <= T)
        All.push_back({I, J, S});
    }
  std::sort(All.begin(), All.end(),
            [&](const ScoredPair &X, const ScoredPair &Y) {
              if (X.Score != Y.Score)
                return isBetter(X.Score, Y.Score, Metric);
              return std::tie(X.A, X.B) < std::tie(Y.A, Y.B);
            });
  return All;
}

void checkPairs(const Matrix &A, const Matrix &B, bool Same, double T,
                MetricKind Metric) {
  std::vector<ScoredPair> Want = brutePairs(A, B, Same, T, Metric);
  ASSERT_FALSE(Want.empty()) << "the test needs some pairs";
  for (unsigned Threads : {1u, 2u}) {
    std::vector<ScoredPair> Got =
        pairsWithin(A.ref(), B.ref(), Same, T, Metric, Threads);
    ASSERT_EQ(Got.size(), Want.size()) << Threads << " threads";
    for (size_t I = 0; I < Got.size(); ++I) {
      EXPECT_EQ(Got[I].A, Want[I].A);
      EXPECT_EQ(Got[I].B, Want[I].B);
      EXPECT_EQ(Got[I].Score, Want[I].Score);
    }
  }
}

TEST(SearchTest, PairsWithinOneStore) {
  Matrix A = randomMatrix(700, 6, 15);
  // Exact duplicates: cosine 1, distance 0.
  std::copy(A.Values.begin(), A.Values.begin() + 6, A.Values.begin() + 600);
  checkPairs(A, A, /*Same=*/true, 0.95, MetricKind::Cosine);
  checkPairs(A, A, /*Same=*/true, 0.4, MetricKind::Euclidean);
}

TEST(SearchTest, PairsAcrossStores) {
  Matrix A = randomMatrix(300, 6, 16), B = randomMatrix(650, 6, 17);
  checkPairs(A, B, /*Same=*/false, 0.95, MetricKind::Cosine);
  checkPairs(A, B, /*Same=*/false, 0.5, MetricKind::Euclidean);
}

TEST(SearchTest, PairsThresholdIsInclusive) {
  Matrix A{{1, 0, 0, 1, 1, 1}, 3, 2};
  std::vector<ScoredPair> P =
      pairsWithin(A.ref(), A.ref(), true, 1.0, MetricKind::Euclidean);
  ASSERT_EQ(P.size(), 2u);
  EXPECT_EQ(P[0].A, 0u);
  EXPECT_EQ(P[0].B, 2u);
  EXPECT_EQ(P[0].Score, 1.0);
  EXPECT_EQ(P[1].A, 1u);
}

} // namespace
