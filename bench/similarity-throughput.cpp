//===- similarity-throughput.cpp - Top-k search against memory streaming --===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// irtk-bench-similarity STORE [--rows N] [--dim D] [--seed S] [--runs R]
///                             [--batch Q] [--threads T]
///
/// Creates STORE, a synthetic store of N x D random float32 rows (standard
/// normal, fixed seed; the defaults 1,000,000 x 75), unless it exists, then
/// times, in this process and with the matrix mapped and already read once:
///   stream  summing every float of the matrix with Eigen: the cost of
///           reading it from memory;
///   query   one top-10 query (store::topK), cosine and Euclidean;
///   batch   Q queries at once (default 1000), in queries per second
///           (median of 3 runs);
/// each on 1 thread and on T threads (default: OpenMP's), as the median of R
/// runs (default 7). The ratio query / stream is the median of per-run
/// ratios, each query timed right after a streaming run.
///
//===----------------------------------------------------------------------===//

#include "irtk/store/Search.h"
#include "irtk/store/Store.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <Eigen/Core>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <random>

using namespace llvm;
using namespace irtk::store;

static double seconds(const std::function<void()> &F) {
  auto Start = std::chrono::steady_clock::now();
  F();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

static double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}

/// Times \p Base and \p F alternately, \p Runs times each. Returns the
/// median time of F and the median of the per-run ratios F / Base: pairing
/// each run with a streaming run just before it cancels most of the noise
/// of a shared machine.
static std::pair<double, double> pairedMedian(unsigned Runs,
                                              const std::function<void()> &Base,
                                              const std::function<void()> &F) {
  std::vector<double> T, Ratio;
  for (unsigned I = 0; I < Runs; ++I) {
    double B = seconds(Base);
    T.push_back(seconds(F));
    Ratio.push_back(T.back() / B);
  }
  return {median(T), median(Ratio)};
}

static int fail(const Twine &Msg) {
  errs() << "irtk-bench-similarity: error: " << Msg << '\n';
  return 1;
}

static Error makeStore(StringRef Dir, uint64_t Rows, unsigned Dim,
                       unsigned Seed) {
  StoreInfo Info;
  Info.Dimension = Dim;
  Info.Vocabulary = "synthetic";
  Info.Tool = "irtk-bench-similarity";
  Expected<std::unique_ptr<StoreWriter>> W = StoreWriter::create(Dir, Info);
  if (!W)
    return W.takeError();
  std::mt19937_64 G(Seed);
  std::normal_distribution<float> N;
  const uint64_t Chunk = 65536;
  for (uint64_t First = 0; First < Rows; First += Chunk) {
    RowBatch B;
    for (uint64_t R = First; R < std::min(Rows, First + Chunk); ++R) {
      for (unsigned D = 0; D < Dim; ++D)
        B.Values.push_back(N(G));
      IndexRecord Rec;
      Rec.Module = "synthetic/m" + std::to_string(R / 1000) + ".ll";
      Rec.Function = "f" + std::to_string(R);
      Rec.Demangled = Rec.Function;
      Rec.Level = "func";
      B.Records.push_back(std::move(Rec));
    }
    (*W)->append(B);
  }
  return (*W)->commit();
}

int main(int Argc, char **Argv) {
  if (Argc < 2)
    return fail("usage: irtk-bench-similarity STORE [--rows N] [--dim D] "
                "[--seed S] [--runs R] [--batch Q] [--threads T]");
  std::string Dir = Argv[1];
  uint64_t Rows = 1000000, Dim = 75, Seed = 1, Runs = 7, Batch = 1000,
           Threads = omp_get_max_threads();
  for (int I = 2; I + 1 < Argc; I += 2) {
    StringRef Key = Argv[I];
    uint64_t *Slot = Key == "--rows"      ? &Rows
                     : Key == "--dim"     ? &Dim
                     : Key == "--seed"    ? &Seed
                     : Key == "--runs"    ? &Runs
                     : Key == "--batch"   ? &Batch
                     : Key == "--threads" ? &Threads
                                          : nullptr;
    if (!Slot || !to_integer(Argv[I + 1], *Slot) || *Slot == 0)
      return fail("bad option " + Key + " " + Argv[I + 1]);
  }

  if (!sys::fs::exists(Dir)) {
    outs() << "creating " << Dir << ": " << Rows << " x " << Dim
           << " float32, seed " << Seed << '\n';
    outs().flush();
    if (Error E = makeStore(Dir, Rows, Dim, Seed))
      return fail(toString(std::move(E)));
  }
  Expected<Store> S = Store::open(Dir);
  if (!S)
    return fail(toString(S.takeError()));
  MatrixRef M{S->matrix().data(), S->size(), S->dimension()};
  const uint64_t N = M.Rows * M.Dim;
  outs() << "store " << Dir << ": " << M.Rows << " x " << M.Dim << " ("
         << format("%.1f", N * 4 / 1e6) << " MB), " << Runs
         << " runs each, median\n";

  // The queries: random vectors from another seed, not rows of the store.
  std::mt19937_64 G(Seed + 1000);
  std::normal_distribution<float> ND;
  std::vector<float> QV(Batch * M.Dim);
  for (float &X : QV)
    X = ND(G);
  MatrixRef One{QV.data(), 1, M.Dim}, Many{QV.data(), Batch, M.Dim};

  volatile float Sink = 0;
  auto Stream = [&](unsigned T) {
    float Total = 0;
    const uint64_t Chunk = 1 << 20;
#pragma omp parallel for num_threads(T) reduction(+ : Total) schedule(static)
    for (uint64_t First = 0; First < N; First += Chunk)
      Total += Eigen::Map<const Eigen::VectorXf>(M.Data + First,
                                                 std::min(Chunk, N - First))
                   .sum();
    Sink = Total;
  };
  // Warm-up: fault the mapping in and bring the file into memory.
  Stream(Threads);
  Stream(1);

  std::vector<unsigned> Counts = {1};
  if (Threads > 1)
    Counts.push_back(Threads);
  for (unsigned T : Counts) {
    outs() << "\n" << T << (T == 1 ? " thread" : " threads") << ":\n";
    auto StreamT = [&] { Stream(T); };
    std::vector<double> TSs;
    for (unsigned I = 0; I < Runs; ++I)
      TSs.push_back(seconds(StreamT));
    double TS = median(TSs);
    outs() << format("  stream            %8.2f ms  (%.1f GB/s)\n", TS * 1e3,
                     N * 4 / TS / 1e9);
    for (MetricKind K : {MetricKind::Cosine, MetricKind::Euclidean}) {
      SearchOptions O;
      O.Metric = K;
      O.K = 10;
      O.Threads = T;
      auto [TQ, Ratio] = pairedMedian(
          Runs, StreamT, [&] { Sink = topK(One, M, O)[0][0].Score; });
      outs() << format("  top-10 %-9s   %8.2f ms  = %.2fx stream (median "
                       "of paired runs)\n",
                       metricName(K).str().c_str(), TQ * 1e3, Ratio);
      std::vector<double> TBs;
      for (unsigned I = 0; I < std::min<uint64_t>(3, Runs); ++I)
        TBs.push_back(seconds([&] { Sink = topK(Many, M, O)[0][0].Score; }));
      double TB = median(TBs);
      outs() << format("  batch  %-9s   %8.2f ms for %llu queries = %.0f "
                       "queries/s\n",
                       metricName(K).str().c_str(), TB * 1e3,
                       static_cast<unsigned long long>(Batch), Batch / TB);
      outs().flush();
    }
  }
  return 0;
}
