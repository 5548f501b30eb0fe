//===- Search.cpp - Nearest neighbours and close pairs --------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Screening scores are "higher is better" floats: the cosine, or minus the
/// squared distance ||q||^2 + ||r||^2 - 2 q.r. Each comes with a bound M on
/// its distance from the double-precision score (for the squared distance,
/// from the square of score()): a dot product of D floats summed in any
/// order is off by at most D u sum|q_i r_i| (u = 2^-24), the norms likewise,
/// and the cosine's normalisations add a few u more, so the error is below
/// (2D + 6) u for the cosine and (2D + 5) u (||q||^2 + ||r||^2) for the
/// squared distance. We use (4D + 32) u: the slack also covers Eigen's fast
/// reciprocal square root (an estimate refined by a Newton step, within a
/// few u) and the rounding of the bounds themselves. A row can be among the
/// best only if score + M reaches the k-th best score - M seen so far.
///
/// Rows or queries whose squared norm is outside [1e-30, 1e30] (where float
/// squares could underflow or overflow) are not screened: rows are always
/// kept as candidates, queries are answered by a double-precision scan.
///
//===----------------------------------------------------------------------===//

#include "irtk/store/Search.h"

#include <Eigen/Core>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace llvm;

namespace irtk::store {

std::optional<MetricKind> parseMetric(StringRef S) {
  if (S == "cosine")
    return MetricKind::Cosine;
  if (S == "euclidean")
    return MetricKind::Euclidean;
  return std::nullopt;
}

StringRef metricName(MetricKind M) {
  return M == MetricKind::Cosine ? "cosine" : "euclidean";
}

double score(ArrayRef<float> A, ArrayRef<float> B, MetricKind M) {
  assert(A.size() == B.size() && "dimension mismatch");
  if (M == MetricKind::Euclidean) {
    double S = 0;
    for (size_t I = 0; I < A.size(); ++I) {
      double D = double(A[I]) - double(B[I]);
      S += D * D;
    }
    return std::sqrt(S);
  }
  double Dot = 0, AA = 0, BB = 0;
  for (size_t I = 0; I < A.size(); ++I) {
    double X = A[I], Y = B[I];
    Dot += X * Y;
    AA += X * X;
    BB += Y * Y;
  }
  if (AA == 0 || BB == 0)
    return 0;
  double C = Dot / std::sqrt(AA * BB);
  return std::isnan(C) ? C : std::clamp(C, -1.0, 1.0);
}

namespace {

using RowBlock =
    Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic,
                                   Eigen::RowMajor>>;

constexpr uint64_t BlockRows = 1024;
constexpr unsigned QueryBatch = 64;
constexpr float NormLo = 1e-30f, NormHi = 1e30f;

float errorScale(unsigned Dim) { return (4.0f * Dim + 32.0f) * 0x1p-24f; }

bool isScreenable(float SquaredNorm) {
  return SquaredNorm >= NormLo && SquaredNorm <= NormHi;
}

unsigned threadCount(unsigned Requested) {
  return Requested ? Requested : static_cast<unsigned>(omp_get_max_threads());
}

/// Rows that may be among one query's best, as one thread sees them.
class Collector {
public:
  explicit Collector(unsigned K) : K(K), Limit(4 * size_t(K) + 256) {}

  /// Whether a row whose screening score could be as high as \p Hi may
  /// still be among the best.
  bool admits(float Hi) const { return Hi >= Cut; }

  void add(uint64_t Row, float Lo, float Hi) {
    if (!admits(Hi))
      return;
    Cands.push_back({Row, Lo, Hi});
    if (Cands.size() >= Limit)
      prune();
  }

  /// Raises the cut to the k-th best lower bound and drops rows below it.
  void prune() {
    if (Cands.size() <= K || K == 0)
      return;
    Scratch.clear();
    for (const Candidate &C : Cands)
      Scratch.push_back(C.Lo);
    std::nth_element(Scratch.begin(), Scratch.begin() + (K - 1), Scratch.end(),
                     std::greater<float>());
    Cut = std::max(Cut, Scratch[K - 1]);
    Cands.erase(std::remove_if(Cands.begin(), Cands.end(),
                               [&](const Candidate &C) { return C.Hi < Cut; }),
                Cands.end());
    Limit = std::max(Limit, 2 * Cands.size());
  }

  template <typename Fn> void forEachRow(Fn F) const {
    for (const Candidate &C : Cands)
      F(C.Row);
  }

private:
  struct Candidate {
    uint64_t Row;
    float Lo, Hi;
  };
  unsigned K;
  size_t Limit;
  float Cut = -std::numeric_limits<float>::infinity();
  std::vector<Candidate> Cands;
  std::vector<float> Scratch;
};

/// Orders neighbours best first, then by row.
struct NeighborOrder {
  MetricKind Metric;
  bool operator()(const Neighbor &A, const Neighbor &B) const {
    if (A.Score != B.Score)
      return isBetter(A.Score, B.Score, Metric);
    return A.Row < B.Row;
  }
};

/// The final answer from candidate rows: exact scores, best K. Rows whose
/// score is not finite (a row holding inf or NaN) never match.
std::vector<Neighbor> finish(std::vector<Neighbor> Cands, unsigned K,
                             MetricKind Metric) {
  Cands.erase(
      std::remove_if(Cands.begin(), Cands.end(),
                     [](const Neighbor &N) { return !std::isfinite(N.Score); }),
      Cands.end());
  size_t N = std::min<size_t>(K, Cands.size());
  std::partial_sort(Cands.begin(), Cands.begin() + N, Cands.end(),
                    NeighborOrder{Metric});
  Cands.resize(N);
  return Cands;
}

/// Brute force in double precision, for queries that cannot be screened.
std::vector<Neighbor> scanExactly(ArrayRef<float> Q, MatrixRef Base, unsigned K,
                                  MetricKind Metric, int64_t Exclude) {
  std::vector<Neighbor> All;
  for (uint64_t R = 0; R < Base.Rows; ++R)
    if (static_cast<int64_t>(R) != Exclude)
      All.push_back({R, score(Q, Base.row(R), Metric)});
  return finish(std::move(All), K, Metric);
}

} // namespace

std::vector<std::vector<Neighbor>> topK(MatrixRef Queries, MatrixRef Base,
                                        const SearchOptions &Opts,
                                        ArrayRef<int64_t> Exclude) {
  assert(Queries.Dim == Base.Dim && "dimension mismatch");
  assert((Exclude.empty() || Exclude.size() == Queries.Rows) &&
         "one exclusion per query");
  const unsigned D = Base.Dim, K = Opts.K;
  const MetricKind Metric = Opts.Metric;
  const bool Cosine = Metric == MetricKind::Cosine;
  const float E = errorScale(D);
  const unsigned Threads = threadCount(Opts.Threads);
  const uint64_t NumBlocks = (Base.Rows + BlockRows - 1) / BlockRows;
  auto Excluded = [&](uint64_t Q) {
    return Exclude.empty() ? int64_t(-1) : Exclude[Q];
  };

  std::vector<std::vector<Neighbor>> Result(Queries.Rows);
  if (K == 0 || Base.Rows == 0)
    return Result;

  for (uint64_t First = 0; First < Queries.Rows; First += QueryBatch) {
    // The batch's screenable queries, as columns (unit length for cosine).
    std::vector<uint64_t> Batch;
    for (uint64_t Q = First; Q < std::min(First + QueryBatch, Queries.Rows);
         ++Q) {
      Eigen::Map<const Eigen::VectorXf> V(Queries.row(Q).data(), D);
      if (isScreenable(V.squaredNorm()))
        Batch.push_back(Q);
      else
        Result[Q] = scanExactly(Queries.row(Q), Base, K, Metric, Excluded(Q));
    }
    const unsigned NQ = Batch.size();
    if (!NQ)
      continue;
    Eigen::MatrixXf QMat(D, NQ);
    Eigen::VectorXf QQ(NQ);
    for (unsigned J = 0; J < NQ; ++J) {
      QMat.col(J) =
          Eigen::Map<const Eigen::VectorXf>(Queries.row(Batch[J]).data(), D);
      QQ[J] = QMat.col(J).squaredNorm();
      if (Cosine)
        QMat.col(J) /= std::sqrt(QQ[J]);
    }

    std::vector<Collector> Colls(size_t(Threads) * NQ, Collector(K));
#pragma omp parallel num_threads(Threads)
    {
      Collector *Mine = &Colls[size_t(omp_get_thread_num()) * NQ];
      Eigen::MatrixXf S(BlockRows, NQ);
      Eigen::ArrayXf RR(BlockRows), Inv(BlockRows), Hi(BlockRows);
#pragma omp for schedule(dynamic, 1)
      for (uint64_t B = 0; B < NumBlocks; ++B) {
        const uint64_t Row0 = B * BlockRows;
        const Eigen::Index N =
            static_cast<Eigen::Index>(std::min(BlockRows, Base.Rows - Row0));
        RowBlock Blk(Base.Data + Row0 * D, N, D);
        // The block's dot products with the batch and its squared norms.
        // One query takes each row's dot product and norm in turn, reading
        // the rows in order: that keeps pace with streaming the matrix,
        // where a matrix-vector product over several rows at a time was
        // measured 1.5x slower (docs/Performance.md). Several queries share
        // each block in a matrix product.
        auto SB = S.topRows(N);
        auto R2 = RR.head(N);
        if (NQ == 1) {
          Eigen::Map<const Eigen::VectorXf> QV(QMat.data(), D);
          for (Eigen::Index I = 0; I < N; ++I) {
            Eigen::Map<const Eigen::VectorXf> Row(Blk.row(I).data(), D);
            SB(I, 0) = Row.dot(QV);
            R2[I] = Row.squaredNorm();
          }
        } else {
          SB.noalias() = Blk * QMat;
          R2 = Blk.rowwise().squaredNorm().array();
        }
        const bool AllScreenable = (R2 >= NormLo && R2 <= NormHi).all();
        if (Cosine)
          Inv.head(N) = R2.rsqrt();
        for (unsigned J = 0; J < NQ; ++J) {
          Collector &C = Mine[J];
          const int64_t Skip = Excluded(Batch[J]) - int64_t(Row0);
          const float Q2 = QQ[J];
          // Upper bounds of every row's score; most rows fail the cut here.
          auto H = Hi.head(N);
          if (Cosine)
            H = SB.col(J).array() * Inv.head(N) + E;
          else
            H = 2 * SB.col(J).array() - (1 - E) * (Q2 + R2);
          for (Eigen::Index I = 0; I < N; ++I) {
            if (!AllScreenable && !isScreenable(R2[I])) {
              if (I != Skip)
                C.add(Row0 + I, -std::numeric_limits<float>::infinity(),
                      std::numeric_limits<float>::infinity());
              continue;
            }
            if (!C.admits(H[I]) || I == Skip)
              continue;
            const float M = Cosine ? E : E * (Q2 + R2[I]);
            C.add(Row0 + I, H[I] - 2 * M, H[I]);
          }
        }
      }
    }

    for (unsigned J = 0; J < NQ; ++J) {
      const uint64_t Q = Batch[J];
      std::vector<Neighbor> Cands;
      for (unsigned T = 0; T < Threads; ++T)
        Colls[size_t(T) * NQ + J].forEachRow([&](uint64_t R) {
          Cands.push_back({R, score(Queries.row(Q), Base.row(R), Metric)});
        });
      Result[Q] = finish(std::move(Cands), K, Metric);
    }
  }
  return Result;
}

std::vector<ScoredPair> pairsWithin(MatrixRef A, MatrixRef B, bool Same,
                                    double Threshold, MetricKind Metric,
                                    unsigned Threads) {
  assert(A.Dim == B.Dim && "dimension mismatch");
  assert((!Same || (A.Data == B.Data && A.Rows == B.Rows)) &&
         "Same needs one matrix");
  const unsigned D = A.Dim;
  const bool Cosine = Metric == MetricKind::Cosine;
  const float E = errorScale(D);
  Threads = threadCount(Threads);
  constexpr uint64_t BlockA = 128, BlockB = 512;

  auto SquaredNorms = [&](MatrixRef M) {
    Eigen::VectorXf R(M.Rows);
    for (uint64_t I = 0; I < M.Rows; ++I)
      R[I] =
          Eigen::Map<const Eigen::VectorXf>(M.row(I).data(), D).squaredNorm();
    return R;
  };
  const Eigen::VectorXf AA = SquaredNorms(A);
  const Eigen::VectorXf BB = Same ? AA : SquaredNorms(B);
  // The screening bound on the score side: cosine >= T - M, or squared
  // distance <= T^2 + M.
  const double T2 = Threshold * Threshold;
  const bool NothingWithin = !Cosine && Threshold < 0;

  const uint64_t NumA = (A.Rows + BlockA - 1) / BlockA;
  std::vector<std::vector<ScoredPair>> PerBlock(NumA);
#pragma omp parallel num_threads(Threads)
  {
    Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> S(
        BlockA, BlockB);
#pragma omp for schedule(dynamic, 1)
    for (uint64_t IB = 0; IB < NumA; ++IB) {
      if (NothingWithin)
        continue;
      std::vector<ScoredPair> &Out = PerBlock[IB];
      const uint64_t A0 = IB * BlockA;
      const Eigen::Index NA =
          static_cast<Eigen::Index>(std::min(BlockA, A.Rows - A0));
      RowBlock BlkA(A.Data + A0 * D, NA, D);
      for (uint64_t B0 = Same ? A0 : 0; B0 < B.Rows; B0 += BlockB) {
        const Eigen::Index NB =
            static_cast<Eigen::Index>(std::min(BlockB, B.Rows - B0));
        RowBlock BlkB(B.Data + B0 * D, NB, D);
        auto SB = S.topLeftCorner(NA, NB);
        SB.noalias() = BlkA * BlkB.transpose();
        for (Eigen::Index I = 0; I < NA; ++I) {
          const uint64_t RowA = A0 + I;
          const float A2 = AA[RowA];
          for (Eigen::Index J = 0; J < NB; ++J) {
            const uint64_t RowB = B0 + J;
            if (Same && RowB <= RowA)
              continue;
            const float B2 = BB[RowB];
            bool Candidate = true;
            if (isScreenable(A2) && isScreenable(B2)) {
              if (Cosine)
                Candidate =
                    SB(I, J) / (std::sqrt(A2) * std::sqrt(B2)) + E >= Threshold;
              else
                Candidate =
                    double(A2 + B2 - 2 * SB(I, J)) - double(E * (A2 + B2)) <=
                    T2;
            }
            if (!Candidate)
              continue;
            double Sc = score(A.row(RowA), B.row(RowB), Metric);
            if (Cosine ? Sc >= Threshold : Sc <= Threshold)
              Out.push_back({RowA, RowB, Sc});
          }
        }
      }
    }
  }

  std::vector<ScoredPair> All;
  for (std::vector<ScoredPair> &P : PerBlock)
    All.insert(All.end(), P.begin(), P.end());
  std::sort(All.begin(), All.end(),
            [&](const ScoredPair &X, const ScoredPair &Y) {
              if (X.Score != Y.Score)
                return isBetter(X.Score, Y.Score, Metric);
              return std::tie(X.A, X.B) < std::tie(Y.A, Y.B);
            });
  return All;
}

std::vector<float> gatherRows(MatrixRef M, ArrayRef<uint64_t> Rows) {
  std::vector<float> Values;
  Values.reserve(Rows.size() * M.Dim);
  for (uint64_t R : Rows) {
    ArrayRef<float> V = M.row(R);
    Values.insert(Values.end(), V.begin(), V.end());
  }
  return Values;
}

} // namespace irtk::store
