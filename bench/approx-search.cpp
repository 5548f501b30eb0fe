//===- approx-search.cpp - Approximate indexes against the exact search ---===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// irtk-bench-approx make --source STORE --rows N [--noise X] [--seed S] -o DIR
///   A store of N rows made from a real one: each row is a row of STORE
///   drawn at random plus Gaussian noise of X (default 0.05) times the
///   row's root-mean-square value per element, so that the rows keep the
///   real embeddings' structure (clusters, duplicates made distinct) at any
///   size.
/// irtk-bench-approx query --store DIR [--index FILE --nprobe A,B,...
///   | --ef A,B,...] [--queries Q] [--k K] [--rerank R] [--threads T]
///   [--faiss-scan yes|no]
///   Q queries made the same way from the source rows (new noise; recorded
///   in DIR/bench-queries.npy), searched exactly once (the answers cached in
///   DIR/bench-exact-<metric>-<k>.txt), then with the index at each
///   setting: queries per second (median of 3 runs of the batch), against
///   the exact search's timed again in the same process on the first
///   --exact-queries (default 100) queries, and recall@K against the exact
///   search, counting a result as found when it scores at least as well as
///   the exact K-th (ties are interchangeable). Prints one markdown row per
///   setting; for ivf-flat two, the scan list by list (the default) and
///   FAISS's scan query by query (unless --faiss-scan no).
///
//===----------------------------------------------------------------------===//

#include "irtk/store/ApproxIndex.h"
#include "irtk/store/Npy.h"
#include "irtk/store/Search.h"
#include "irtk/store/Store.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <random>

using namespace llvm;
using namespace irtk::store;

static int fail(const Twine &Msg) {
  errs() << "irtk-bench-approx: error: " << Msg << '\n';
  return 1;
}

static double seconds(const std::function<void()> &F) {
  auto Start = std::chrono::steady_clock::now();
  F();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

static MatrixRef matrixOf(const Store &S) {
  return {S.matrix().data(), S.matrix().rows(), S.matrix().cols()};
}

/// Row \p R of \p Src plus noise, into \p Out.
static void perturb(ArrayRef<float> Src, double Noise, std::mt19937_64 &G,
                    float *Out) {
  double Sum = 0;
  for (float X : Src)
    Sum += static_cast<double>(X) * X;
  std::normal_distribution<double> N(
      0, Noise * std::sqrt(Sum / std::max<size_t>(1, Src.size())));
  for (size_t E = 0; E < Src.size(); ++E)
    Out[E] = static_cast<float>(Src[E] + N(G));
}

static int make(const Store &Source, uint64_t Rows, double Noise, uint64_t Seed,
                StringRef Dir) {
  StoreInfo Info = Source.info();
  Info.Shards.clear();
  Info.Tool = "irtk-bench-approx make";
  Expected<std::unique_ptr<StoreWriter>> W = StoreWriter::create(Dir, Info);
  if (!W)
    return fail(toString(W.takeError()));
  MatrixRef Src = matrixOf(Source);
  std::mt19937_64 G(Seed);
  std::uniform_int_distribution<uint64_t> Pick(0, Src.Rows - 1);
  const uint64_t Chunk = 1 << 16;
  std::vector<float> V(Src.Dim);
  for (uint64_t First = 0; First < Rows; First += Chunk) {
    RowBatch B;
    for (uint64_t R = First; R < std::min(Rows, First + Chunk); ++R) {
      uint64_t From = Pick(G);
      perturb(Src.row(From), Noise, G, V.data());
      B.Values.insert(B.Values.end(), V.begin(), V.end());
      IndexRecord Rec;
      Rec.Module = "bench/m" + std::to_string(R / 1000);
      Rec.Function = "f" + std::to_string(R) + "_of_" + std::to_string(From);
      Rec.Demangled = Rec.Function;
      Rec.Level = "func";
      B.Records.push_back(std::move(Rec));
    }
    (*W)->append(B);
  }
  if (Error E = (*W)->commit())
    return fail(toString(std::move(E)));
  outs() << Dir << ": " << Rows << " rows from " << Src.Rows << " rows of "
         << Source.path() << ", noise " << Noise << ", seed " << Seed << '\n';
  return 0;
}

static std::vector<unsigned> parseList(StringRef S) {
  SmallVector<StringRef> Parts;
  S.split(Parts, ',', -1, false);
  std::vector<unsigned> Out;
  for (StringRef P : Parts) {
    unsigned N = 0;
    if (!to_integer(P, N) || !N)
      return {};
    Out.push_back(N);
  }
  return Out;
}

int main(int Argc, char **Argv) {
  if (Argc < 2)
    return fail("usage: see bench/approx-search.cpp");
  StringRef Cmd = Argv[1];
  std::map<std::string, std::string> Opt;
  for (int I = 2; I + 1 < Argc; I += 2)
    Opt[Argv[I]] = Argv[I + 1];
  auto Num = [&](const char *Key, uint64_t Default) {
    uint64_t N = Default;
    if (Opt.count(Key) && !to_integer(Opt[Key], N))
      N = Default;
    return N;
  };

  if (Cmd == "make") {
    Expected<Store> Source = Store::open(Opt["--source"]);
    if (!Source)
      return fail(toString(Source.takeError()));
    double Noise = 0.05;
    if (Opt.count("--noise"))
      Noise = std::strtod(Opt["--noise"].c_str(), nullptr);
    return make(*Source, Num("--rows", 10000000), Noise, Num("--seed", 1),
                Opt["-o"]);
  }
  if (Cmd != "query")
    return fail("unknown command " + Cmd);

  std::string Dir = Opt["--store"];
  Expected<Store> S = Store::open(Dir);
  if (!S)
    return fail(toString(S.takeError()));
  MatrixRef Base = matrixOf(*S);
  unsigned K = static_cast<unsigned>(Num("--k", 10));
  uint64_t Q = Num("--queries", 1000);
  unsigned Threads = static_cast<unsigned>(Num("--threads", 0));
  MetricKind Metric = MetricKind::Cosine;
  std::optional<ApproxIndex> Index;
  if (Opt.count("--index")) {
    Expected<ApproxIndex> I = ApproxIndex::load(Opt["--index"]);
    if (!I)
      return fail(toString(I.takeError()));
    double CheckTime = 0;
    Error E = Error::success();
    CheckTime = seconds(
        [&] { E = I->checkMatrix(Base, Opt["--index"], Dir, Threads); });
    if (E)
      return fail(toString(std::move(E)));
    errs() << "store checksum checked in " << format("%.2f", CheckTime)
           << " s\n";
    Metric = I->info().Metric;
    Index.emplace(std::move(*I));
  }

  // The queries: perturbed copies of random rows (the store's own rows are
  // perturbed copies of the source's; these are new ones).
  SmallString<256> QPath(Dir);
  sys::path::append(QPath, "bench-queries.npy");
  if (!sys::fs::exists(QPath)) {
    std::mt19937_64 G(Num("--seed", 7));
    std::uniform_int_distribution<uint64_t> Pick(0, Base.Rows - 1);
    std::vector<float> V(Q * Base.Dim);
    for (uint64_t I = 0; I < Q; ++I)
      perturb(Base.row(Pick(G)), 0.05, G, &V[I * Base.Dim]);
    if (Error E = writeNpyFile(QPath, V, Base.Dim))
      return fail(toString(std::move(E)));
  }
  Expected<NpyMatrix> QM = NpyMatrix::open(QPath);
  if (!QM)
    return fail(toString(QM.takeError()));
  MatrixRef Queries{QM->data(), std::min<uint64_t>(Q, QM->rows()), Base.Dim};

  // The exact answers, computed once per metric and k.
  SmallString<256> EPath(Dir);
  sys::path::append(EPath, "bench-exact-" + metricName(Metric).str() + "-" +
                               std::to_string(K) + ".txt");
  std::vector<double> KthScore(Queries.Rows);
  double ExactQPS = 0;
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(EPath)) {
    SmallVector<StringRef> Lines;
    (*B)->getBuffer().split(Lines, '\n', -1, false);
    ExactQPS = std::strtod(Lines[0].str().c_str(), nullptr);
    for (uint64_t I = 0; I < Queries.Rows && I + 1 < Lines.size(); ++I)
      KthScore[I] = std::strtod(Lines[I + 1].str().c_str(), nullptr);
  } else {
    SearchOptions SO;
    SO.Metric = Metric;
    SO.K = K;
    SO.Threads = Threads;
    std::vector<std::vector<Neighbor>> Exact;
    double T = seconds([&] { Exact = topK(Queries, Base, SO); });
    ExactQPS = Queries.Rows / T;
    std::string Text;
    raw_string_ostream OS(Text);
    OS << format("%.6g", ExactQPS) << '\n';
    for (uint64_t I = 0; I < Queries.Rows; ++I) {
      KthScore[I] = Exact[I].back().Score;
      OS << format("%.17g", KthScore[I]) << '\n';
    }
    std::error_code EC;
    raw_fd_ostream F(EPath, EC);
    F << Text;
  }
  if (!Index) {
    outs() << "exact: " << format("%.1f", ExactQPS) << " queries/s ("
           << Queries.Rows << " queries, k " << K << ", " << Base.Rows
           << " rows)\n";
    return 0;
  }
  // The exact search timed again in this process, on the first
  // --exact-queries queries, just before the index: the ratios below are
  // side by side (the cached answers may come from another load).
  {
    SearchOptions SO;
    SO.Metric = Metric;
    SO.K = K;
    SO.Threads = Threads;
    MatrixRef Some = Queries;
    Some.Rows = std::min<uint64_t>(Queries.Rows, Num("--exact-queries", 100));
    double T = seconds([&] { (void)topK(Some, Base, SO); });
    ExactQPS = Some.Rows / T;
    errs() << "exact, this run: " << format("%.1f", ExactQPS) << " queries/s ("
           << Some.Rows << " queries)\n";
  }

  bool IsHNSW = Index->info().Kind == ApproxKind::HNSW;
  std::vector<unsigned> Settings =
      parseList(Opt.count(IsHNSW ? "--ef" : "--nprobe")
                    ? Opt[IsHNSW ? "--ef" : "--nprobe"]
                    : (IsHNSW ? "16,32,64,128" : "1,4,8,12,16,32,64"));
  if (Settings.empty())
    return fail("bad --nprobe / --ef list");
  const ApproxIndexInfo &Info = Index->info();
  // ivf-flat twice: our scan list by list, and FAISS's scan query by query.
  std::vector<bool> Scans = {true};
  if (Info.Kind == ApproxKind::IVFFlat && Opt["--faiss-scan"] != "no")
    Scans.push_back(false);
  for (unsigned Setting : Settings)
    for (bool ByList : Scans) {
      ApproxSearchOptions AO;
      AO.ScanOrder = ByList ? ApproxSearchOptions::Scan::ByList
                            : ApproxSearchOptions::Scan::ByQuery;
      AO.K = K;
      AO.Threads = Threads;
      AO.Rerank = static_cast<unsigned>(Num("--rerank", 0));
      (IsHNSW ? AO.EfSearch : AO.NProbe) = Setting;
      std::vector<std::vector<Neighbor>> Got;
      std::vector<double> Times;
      for (int Run = 0; Run < 3; ++Run)
        Times.push_back(
            seconds([&] { Got = Index->search(Queries, Base, AO); }));
      std::sort(Times.begin(), Times.end());
      double QPS = Queries.Rows / Times[1];
      uint64_t Found = 0;
      for (uint64_t I = 0; I < Queries.Rows; ++I)
        for (const Neighbor &N : Got[I])
          Found += !isBetter(KthScore[I], N.Score, Metric);
      double Recall = static_cast<double>(Found) / (Queries.Rows * K);
      outs() << "| " << approxKindName(Info.Kind) << " | " << Info.Lists
             << " | " << Info.PQBytes << " | " << (IsHNSW ? "ef " : "nprobe ")
             << Setting << (ByList ? "" : ", FAISS's scan") << " | "
             << format("%.0f", QPS) << " | " << format("%.1fx", QPS / ExactQPS)
             << " | " << format("%.4f", Recall) << " | "
             << format("%.3f", static_cast<double>(Index->bytes()) /
                                   (static_cast<double>(Base.Rows) * Base.Dim *
                                    sizeof(float)))
             << " |\n";
    }
  return 0;
}
