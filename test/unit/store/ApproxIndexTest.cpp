//===- ApproxIndexTest.cpp - Approximate indexes against the exact search -===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/store/ApproxIndex.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

using namespace llvm;
using namespace irtk::store;

namespace {

/// Rows around a few centres (so that an inverted file has structure), in
/// \p Dim dimensions.
std::vector<float> clusteredRows(uint64_t Rows, unsigned Dim, unsigned Seed) {
  std::mt19937 Rng(Seed);
  std::normal_distribution<float> N(0, 1);
  std::vector<float> Centres(16 * Dim);
  for (float &C : Centres)
    C = 4 * N(Rng);
  std::vector<float> V(Rows * Dim);
  for (uint64_t R = 0; R < Rows; ++R)
    for (unsigned E = 0; E < Dim; ++E)
      V[R * Dim + E] = Centres[(R % 16) * Dim + E] + N(Rng);
  return V;
}

struct TempPath {
  SmallString<128> Path;
  TempPath() {
    int FD;
    cantFail(errorCodeToError(
        sys::fs::createTemporaryFile("approx", "index", FD, Path)));
    sys::fs::closeFile(FD);
  }
  ~TempPath() { sys::fs::remove(Path); }
  std::string bytes() const {
    return (*MemoryBuffer::getFile(Path, /*IsText=*/false))->getBuffer().str();
  }
  void setBytes(StringRef Bytes) const {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    OS << Bytes;
  }
};

std::vector<std::vector<Neighbor>> exact(MatrixRef Base, MetricKind M,
                                         unsigned K) {
  SearchOptions SO;
  SO.Metric = M;
  SO.K = K;
  return topK(Base, Base, SO);
}

TEST(ApproxIndexTest, EveryListVisitedIsTheExactSearch) {
  for (MetricKind M : {MetricKind::Cosine, MetricKind::Euclidean}) {
    std::vector<float> V = clusteredRows(2000, 12, 1);
    MatrixRef Base{V.data(), 2000, 12};
    ApproxBuildOptions BO;
    BO.Metric = M;
    BO.Lists = 8;
    Expected<ApproxIndex> I = ApproxIndex::build(Base, BO);
    ASSERT_TRUE(!!I) << toString(I.takeError());
    ApproxSearchOptions SO;
    SO.K = 5;
    SO.NProbe = 8;
    // Far more candidates than ties: the exact answer, ties by row.
    SO.Rerank = 40;
    auto Got = I->search(Base, Base, SO);
    auto Want = exact(Base, M, 5);
    for (size_t Q = 0; Q < Want.size(); ++Q) {
      ASSERT_EQ(Got[Q].size(), Want[Q].size());
      for (size_t R = 0; R < Want[Q].size(); ++R) {
        EXPECT_EQ(Got[Q][R].Row, Want[Q][R].Row) << "query " << Q;
        EXPECT_EQ(Got[Q][R].Score, Want[Q][R].Score) << "query " << Q;
      }
    }
  }
}

/// The share of the approximate results that score at least as well as the
/// exact K-th result (recall that counts ties as found).
double recall(const std::vector<std::vector<Neighbor>> &Got,
              const std::vector<std::vector<Neighbor>> &Want, MetricKind M) {
  size_t Found = 0, All = 0;
  for (size_t Q = 0; Q < Want.size(); ++Q) {
    All += Want[Q].size();
    for (const Neighbor &N : Got[Q])
      Found += !isBetter(Want[Q].back().Score, N.Score, M);
  }
  return static_cast<double>(Found) / All;
}

TEST(ApproxIndexTest, EachKindFindsMostNeighbours) {
  std::vector<float> V = clusteredRows(4000, 12, 2);
  MatrixRef Base{V.data(), 4000, 12};
  auto Want = exact(Base, MetricKind::Cosine, 10);
  for (ApproxKind Kind :
       {ApproxKind::IVFFlat, ApproxKind::IVFPQ, ApproxKind::HNSW}) {
    ApproxBuildOptions BO;
    BO.Kind = Kind;
    BO.Lists = 16;
    BO.PQBytes = 6; // 2 dimensions a byte
    Expected<ApproxIndex> I = ApproxIndex::build(Base, BO);
    ASSERT_TRUE(!!I) << toString(I.takeError());
    ApproxSearchOptions SO;
    SO.K = 10;
    SO.NProbe = 4;
    SO.Rerank = 4;
    double R = recall(I->search(Base, Base, SO), Want, MetricKind::Cosine);
    EXPECT_GT(R, 0.8) << approxKindName(Kind).str();
  }
}

TEST(ApproxIndexTest, TheScanByListFindsWhatFaissScanFinds) {
  for (MetricKind M : {MetricKind::Cosine, MetricKind::Euclidean}) {
    std::vector<float> V = clusteredRows(3000, 12, 4);
    MatrixRef Base{V.data(), 3000, 12};
    ApproxBuildOptions BO;
    BO.Metric = M;
    BO.Lists = 32;
    Expected<ApproxIndex> I = ApproxIndex::build(Base, BO);
    ASSERT_TRUE(!!I) << toString(I.takeError());
    ApproxSearchOptions SO;
    SO.K = 10;
    SO.NProbe = 3; // a few of the lists: the answers are not the exact ones
    SO.ScanOrder = ApproxSearchOptions::Scan::ByList;
    auto ByList = I->search(Base, Base, SO);
    SO.ScanOrder = ApproxSearchOptions::Scan::ByQuery;
    auto ByQuery = I->search(Base, Base, SO);
    EXPECT_LT(recall(ByList, exact(Base, M, 10), M), 1.0);
    size_t Same = 0, All = 0;
    for (size_t Q = 0; Q < ByQuery.size(); ++Q) {
      ASSERT_EQ(ByList[Q].size(), ByQuery[Q].size()) << "query " << Q;
      for (size_t R = 0; R < ByQuery[Q].size(); ++R) {
        // Scores are exact either way; rows may differ only among ties.
        EXPECT_EQ(ByList[Q][R].Score, ByQuery[Q][R].Score) << "query " << Q;
        Same += ByList[Q][R].Row == ByQuery[Q][R].Row;
        ++All;
      }
    }
    EXPECT_GT(Same, All * 99 / 100);
  }
}

TEST(ApproxIndexTest, TheScanByListDoesNotDependOnTheBatch) {
  std::vector<float> V = clusteredRows(2000, 12, 5);
  MatrixRef Base{V.data(), 2000, 12};
  ApproxBuildOptions BO;
  BO.Lists = 16;
  Expected<ApproxIndex> I = ApproxIndex::build(Base, BO);
  ASSERT_TRUE(!!I) << toString(I.takeError());
  ApproxSearchOptions SO;
  SO.NProbe = 4;
  SO.ScanOrder = ApproxSearchOptions::Scan::ByList; // Auto: not for one query
  auto All = I->search(Base, Base, SO);
  for (uint64_t Q : {0, 17, 1999}) {
    auto One = I->search(MatrixRef{V.data() + Q * 12, 1, 12}, Base, SO);
    ASSERT_EQ(One[0].size(), All[Q].size());
    for (size_t R = 0; R < All[Q].size(); ++R)
      EXPECT_EQ(One[0][R].Row, All[Q][R].Row) << "query " << Q;
  }
}

TEST(ApproxIndexTest, ALoadedIndexAnswersAsTheBuiltOne) {
  std::vector<float> V = clusteredRows(3000, 10, 3);
  MatrixRef Base{V.data(), 3000, 10};
  ApproxBuildOptions BO;
  BO.Kind = ApproxKind::IVFPQ;
  BO.Metric = MetricKind::Euclidean;
  Expected<ApproxIndex> I = ApproxIndex::build(Base, BO);
  ASSERT_TRUE(!!I) << toString(I.takeError());
  EXPECT_EQ(I->info().PQBytes, 2u); // the largest divisor of 10 up to 10/3
  TempPath T;
  ASSERT_FALSE(!!I->write(T.Path));
  Expected<ApproxIndex> L = ApproxIndex::load(T.Path);
  ASSERT_TRUE(!!L) << toString(L.takeError());
  EXPECT_EQ(L->info().StoreChecksum, I->info().StoreChecksum);
  EXPECT_EQ(L->info().Lists, I->info().Lists);
  EXPECT_FALSE(!!L->checkMatrix(Base, "i", "s"));
  ApproxSearchOptions SO;
  auto A = I->search(Base, Base, SO), B = L->search(Base, Base, SO);
  for (size_t Q = 0; Q < A.size(); ++Q) {
    ASSERT_EQ(A[Q].size(), B[Q].size());
    for (size_t R = 0; R < A[Q].size(); ++R)
      EXPECT_EQ(A[Q][R].Row, B[Q][R].Row);
  }
}

TEST(ApproxIndexTest, RowsThatAreNotFiniteAreNotIndexed) {
  std::vector<float> V = clusteredRows(500, 8, 4);
  V[3 * 8 + 2] = NAN;
  V[7 * 8] = INFINITY;
  MatrixRef Base{V.data(), 500, 8};
  Expected<ApproxIndex> I = ApproxIndex::build(Base, {});
  ASSERT_TRUE(!!I) << toString(I.takeError());
  EXPECT_EQ(I->info().Indexed, 498u);
  ApproxSearchOptions SO;
  SO.K = 500;
  SO.NProbe = 64;
  auto Got = I->search(Base, Base, SO);
  EXPECT_TRUE(Got[3].empty()); // a query that is not finite matches nothing
  for (const Neighbor &N : Got[0])
    EXPECT_TRUE(N.Row != 3 && N.Row != 7);
}

TEST(ApproxIndexTest, AnotherMatrixIsRefused) {
  std::vector<float> V = clusteredRows(300, 8, 5);
  MatrixRef Base{V.data(), 300, 8};
  Expected<ApproxIndex> I = ApproxIndex::build(Base, {});
  ASSERT_TRUE(!!I) << toString(I.takeError());
  V[100] += 1;
  std::string Msg = toString(I->checkMatrix(Base, "i.index", "st"));
  EXPECT_NE(Msg.find("i.index: built from other vectors than those of 'st'"),
            std::string::npos)
      << Msg;
  EXPECT_NE(toString(I->checkMatrix({V.data(), 299, 8}, "i.index", "st"))
                .find("a store of 300 rows; 'st' has 299"),
            std::string::npos);
}

/// The bytes of a default index of \p Base, written to \p T.
std::string writeIndex(MatrixRef Base, const TempPath &T) {
  Expected<ApproxIndex> I = ApproxIndex::build(Base, {});
  EXPECT_TRUE(!!I) << toString(I.takeError());
  EXPECT_FALSE(!!I->write(T.Path));
  return T.bytes();
}

TEST(ApproxIndexTest, ACorruptOrTruncatedFileIsAnError) {
  std::vector<float> V = clusteredRows(300, 8, 6);
  TempPath T;
  std::string Bytes = writeIndex({V.data(), 300, 8}, T);
  auto LoadError = [&](StringRef Content) {
    T.setBytes(Content);
    Expected<ApproxIndex> L = ApproxIndex::load(T.Path);
    return L ? std::string() : toString(L.takeError());
  };
  std::string Flipped = Bytes;
  Flipped[Bytes.size() / 2] ^= 1;
  EXPECT_NE(LoadError(Flipped).find("truncated or corrupt"), std::string::npos);
  EXPECT_NE(LoadError(StringRef(Bytes).drop_back(100)).find("truncated"),
            std::string::npos);
  EXPECT_NE(LoadError("{\"format\": \"irtk-mlp\"}\n")
                .find("not an irtk approximate index"),
            std::string::npos);
  std::string Future = Bytes;
  Future.replace(Future.find("\"version\":2"), 11, "\"version\":9");
  EXPECT_NE(LoadError(Future).find("format version 9"), std::string::npos);
  EXPECT_EQ(LoadError(Bytes), "");
}

TEST(ApproxIndexTest, AnIndexOfTheFirstVersionIsToBeBuiltAgain) {
  std::vector<float> V = clusteredRows(100, 4, 6);
  TempPath T;
  std::string Bytes = writeIndex({V.data(), 100, 4}, T);
  Bytes.replace(Bytes.find("\"version\":2"), 11, "\"version\":1");
  T.setBytes(Bytes);
  Expected<ApproxIndex> L = ApproxIndex::load(T.Path);
  ASSERT_FALSE(!!L);
  EXPECT_EQ(toString(L.takeError()),
            (T.Path + ": an index of format version 1, which this irtk no "
                      "longer reads; build it again with irtk-similarity "
                      "index")
                .str());
}

/// Every byte of a small index of each kind, the header's too, changed in
/// turn (one bit; in the header and trailer lines, all its bits too):
/// every such file is refused.
TEST(ApproxIndexTest, EveryChangedByteIsRefused) {
  std::vector<float> V = clusteredRows(256, 4, 8);
  MatrixRef Base{V.data(), 256, 4};
  for (ApproxKind K :
       {ApproxKind::IVFFlat, ApproxKind::IVFPQ, ApproxKind::HNSW}) {
    ApproxBuildOptions BO;
    BO.Kind = K;
    BO.Lists = 2;
    BO.PQBytes = 1;
    BO.HNSWLinks = 2;
    BO.TrainRows = 256;
    BO.TrainIterations = 2;
    Expected<ApproxIndex> I = ApproxIndex::build(
        K == ApproxKind::IVFPQ ? Base : MatrixRef{V.data(), 24, 4}, BO);
    ASSERT_TRUE(!!I) << toString(I.takeError());
    TempPath T;
    ASSERT_FALSE(!!I->write(T.Path));
    std::string Bytes = T.bytes();
    ASSERT_TRUE(!!ApproxIndex::load(T.Path));
    size_t Accepted = 0;
    size_t HeaderEnd = Bytes.find('\n') + 1;
    size_t TrailerStart = StringRef(Bytes).drop_back().rfind('\n');
    for (size_t At = 0; At < Bytes.size(); ++At)
      for (uint8_t Flip : {0x01, 0xff}) {
        if (Flip == 0xff && At >= HeaderEnd && At < TrailerStart)
          continue;
        std::string Changed = Bytes;
        Changed[At] ^= static_cast<char>(Flip);
        T.setBytes(Changed);
        Expected<ApproxIndex> L = ApproxIndex::load(T.Path);
        if (L) {
          ++Accepted;
          ADD_FAILURE() << approxKindName(K).str() << ": byte " << At << " of "
                        << Bytes.size() << " ^ " << int(Flip) << " accepted";
        } else {
          consumeError(L.takeError());
        }
      }
    EXPECT_EQ(Accepted, 0u) << approxKindName(K).str();
  }
}

/// Rows whose exact scores tie, many of them at the K-th place and spread
/// over the lists: an ivf-flat search that visits every list keeps every
/// tied candidate, so it equals the exact search (ties by the lower row),
/// whichever the index met first.
TEST(ApproxIndexTest, AnExhaustiveSearchKeepsEveryTiedRow) {
  const unsigned Dim = 4;
  std::vector<float> V = clusteredRows(1500, Dim, 9);
  // For euclidean, from the origin: every arrangement of (+-1, +-2, +-2, 0)
  // is at the squared distance 9, exactly in floats too; for cosine, from
  // (1, 0, 0, 0): every multiple of (1, +-1, 0, 0) and its arrangements
  // has the cosine 1/sqrt(2). They overwrite rows spread over the store.
  std::vector<std::array<float, Dim>> Tied;
  std::array<float, Dim> P = {0, 1, 2, 2};
  do {
    for (unsigned Signs = 0; Signs < 8; ++Signs) {
      std::array<float, Dim> R = P;
      unsigned Bit = 0;
      for (float &X : R)
        if (X != 0)
          X *= (Signs >> Bit++) & 1 ? -1 : 1;
      Tied.push_back(R);
    }
  } while (std::next_permutation(P.begin(), P.end()));
  for (float Scale : {0.5f, 1.0f, 2.0f, 8.0f})
    for (unsigned E = 1; E < Dim; ++E)
      for (float Sign : {-1.0f, 1.0f}) {
        std::array<float, Dim> R = {Scale, 0, 0, 0};
        R[E] = Sign * Scale;
        Tied.push_back(R);
      }
  for (size_t T = 0; T < Tied.size(); ++T)
    std::copy(Tied[T].begin(), Tied[T].end(), &V[(T * 7 + 3) % 1500 * Dim]);
  MatrixRef Base{V.data(), 1500, Dim};
  std::vector<float> Q = {0, 0, 0, 0, 1, 0, 0, 0, 0.5f, 0, 0, 0};
  MatrixRef Queries{Q.data(), 3, Dim};
  for (MetricKind M : {MetricKind::Cosine, MetricKind::Euclidean}) {
    ApproxBuildOptions BO;
    BO.Metric = M;
    BO.Lists = 8;
    Expected<ApproxIndex> I = ApproxIndex::build(Base, BO);
    ASSERT_TRUE(!!I) << toString(I.takeError());
    for (unsigned K : {10u, 30u}) {
      SearchOptions XO;
      XO.Metric = M;
      XO.K = K;
      auto Want = topK(Queries, Base, XO);
      using Scan = ApproxSearchOptions::Scan;
      for (Scan S : {Scan::ByList, Scan::ByQuery}) {
        ApproxSearchOptions SO;
        SO.K = K;
        SO.NProbe = 8;
        SO.ScanOrder = S;
        auto Got = I->search(Queries, Base, SO);
        for (size_t R = 0; R < Want.size(); ++R) {
          ASSERT_EQ(Got[R].size(), Want[R].size());
          for (size_t N = 0; N < Want[R].size(); ++N)
            EXPECT_EQ(Got[R][N].Row, Want[R][N].Row)
                << metricName(M).str() << ", k " << K << ", scan " << int(S)
                << ", query " << R << ", rank " << N;
        }
      }
    }
  }
}

TEST(ApproxIndexTest, OptionsThatDoNotFitAreErrors) {
  std::vector<float> V = clusteredRows(300, 10, 7);
  MatrixRef Base{V.data(), 300, 10};
  ApproxBuildOptions BO;
  BO.Kind = ApproxKind::IVFPQ;
  BO.PQBytes = 3;
  Expected<ApproxIndex> I = ApproxIndex::build(Base, BO);
  ASSERT_FALSE(!!I);
  EXPECT_EQ(toString(I.takeError()),
            "--pq-bytes 3 does not divide the dimension 10");
  BO.PQBytes = 0;
  I = ApproxIndex::build({V.data(), 200, 10}, BO);
  ASSERT_FALSE(!!I);
  EXPECT_NE(toString(I.takeError()).find("at least 256 training rows"),
            std::string::npos);
  BO.Kind = ApproxKind::IVFFlat;
  BO.Lists = 400;
  I = ApproxIndex::build(Base, BO);
  ASSERT_FALSE(!!I);
  EXPECT_EQ(toString(I.takeError()),
            "cannot make 400 lists from 300 training rows (the store has 300 "
            "indexable rows)");
}

} // namespace
