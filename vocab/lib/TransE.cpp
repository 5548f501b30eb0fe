//===- TransE.cpp - Training a vocabulary from triplets -------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Triplet reading and TransE training with Eigen and OpenMP.
///
//===----------------------------------------------------------------------===//

#include "irtk/vocab/TransE.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <Eigen/Core>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <numeric>
#include <random>

using namespace llvm;

namespace irtk::vocab {

/// SplitMix64: a small, well-mixed generator whose stream is fully defined
/// by its seed (unlike std:: distributions, whose algorithms vary by
/// library).
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t Seed) : State(Seed) {}
  uint64_t next() {
    uint64_t Z = (State += 0x9e3779b97f4a7c15ULL);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebULL;
    return Z ^ (Z >> 31);
  }
  /// Uniform in [0, N).
  uint64_t below(uint64_t N) { return next() % N; }
  /// Uniform in [-1, 1).
  double symmetric() { return (next() >> 11) * 0x1.0p-52 - 1.0; }

private:
  uint64_t State;
};

static uint64_t mix(uint64_t A, uint64_t B, uint64_t C) {
  SplitMix64 G(A ^ (B * 0x9e3779b97f4a7c15ULL) ^ (C * 0xc2b2ae3d27d4eb4fULL));
  return G.next();
}

namespace {
/// A reusable barrier for an OpenMP team that spins for a few microseconds
/// and then sleeps on a condition variable.
class SpinThenSleepBarrier {
public:
  void setParties(int N) { Parties = N; }

  void wait() {
    const unsigned Gen = Generation.load(std::memory_order_acquire);
    if (Arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == Parties) {
      Arrived.store(0, std::memory_order_relaxed);
      {
        std::lock_guard<std::mutex> Lock(M);
        Generation.store(Gen + 1, std::memory_order_release);
      }
      CV.notify_all();
      return;
    }
    auto Deadline =
        std::chrono::steady_clock::now() + std::chrono::microseconds(50);
    for (unsigned I = 1;; ++I) {
      if (Generation.load(std::memory_order_acquire) != Gen)
        return;
      if (I % 64 == 0 && std::chrono::steady_clock::now() > Deadline)
        break;
    }
    std::unique_lock<std::mutex> Lock(M);
    CV.wait(Lock,
            [&] { return Generation.load(std::memory_order_acquire) != Gen; });
  }

private:
  int Parties = 1;
  std::atomic<int> Arrived{0};
  std::atomic<unsigned> Generation{0};
  std::mutex M;
  std::condition_variable CV;
};
} // namespace

using Matrix =
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Expected<TransEModel>
trainTransE(const TripletSet &Data, const TransEOptions &Opts,
            const std::function<void(const EpochReport &)> &Progress) {
  if (Opts.Dimension == 0)
    return createStringError(inconvertibleErrorCode(),
                             "the dimension must be positive");
  if (Opts.BatchSize == 0)
    return createStringError(inconvertibleErrorCode(),
                             "the batch size must be positive");
  if (!(Opts.LearningRate > 0) || !std::isfinite(Opts.LearningRate))
    return createStringError(inconvertibleErrorCode(),
                             "the learning rate must be a positive number");
  if (!(Opts.Margin >= 0) || !std::isfinite(Opts.Margin))
    return createStringError(inconvertibleErrorCode(),
                             "the margin must be a non-negative number");
  if (Data.Triplets.empty() || Data.NumRelations == 0)
    return createStringError(inconvertibleErrorCode(), "no triplets");
  // With one entity there is no corrupted triplet to learn against.
  if (Data.NumEntities < 2)
    return createStringError(inconvertibleErrorCode(),
                             "at least two entities are needed");
  for (size_t I = 0; I < Data.Triplets.size(); ++I) {
    const Triplet &T = Data.Triplets[I];
    if (T.Head >= Data.NumEntities || T.Tail >= Data.NumEntities)
      return createStringError(
          inconvertibleErrorCode(),
          "triplet " + Twine(I) + ": entity id " +
              Twine(T.Head >= Data.NumEntities ? T.Head : T.Tail) +
              " out of range (" + Twine(Data.NumEntities) + " entities)");
    if (T.Relation >= Data.NumRelations)
      return createStringError(inconvertibleErrorCode(),
                               "triplet " + Twine(I) + ": relation id " +
                                   Twine(T.Relation) + " out of range (" +
                                   Twine(Data.NumRelations) + " relations)");
  }
  if (const TransEModel *Initial = Opts.Initial) {
    auto CheckShape = [&](const std::vector<std::vector<double>> &Rows,
                          StringRef What, unsigned Want) -> Error {
      if (Rows.size() != Want)
        return createStringError(inconvertibleErrorCode(),
                                 "the initial model has " + Twine(Rows.size()) +
                                     " " + What + " vectors, expected " +
                                     Twine(Want));
      for (size_t I = 0; I < Rows.size(); ++I)
        if (Rows[I].size() != Opts.Dimension)
          return createStringError(
              inconvertibleErrorCode(),
              "the initial model's " + What + " vector " + Twine(I) + " has " +
                  Twine(Rows[I].size()) + " values, expected the dimension " +
                  Twine(Opts.Dimension));
      return Error::success();
    };
    if (Error Err = CheckShape(Initial->Entities, "entity", Data.NumEntities))
      return Err;
    if (Error Err =
            CheckShape(Initial->Relations, "relation", Data.NumRelations))
      return Err;
  }

  const unsigned D = Opts.Dimension;
  // A thread needs a share of the batch that outweighs two barriers; below
  // MinTripletsPerThread per thread, more threads only add waiting (a batch
  // of 256 took 18x longer on two threads than on one).
  constexpr unsigned MinTripletsPerThread = 512;
  const int Threads = std::max(
      1, std::min(Opts.Threads ? static_cast<int>(Opts.Threads)
                               : omp_get_max_threads(),
                  static_cast<int>(Opts.BatchSize / MinTripletsPerThread)));
  const size_t NumEnt = Data.NumEntities, NumRel = Data.NumRelations;

  Matrix E(NumEnt, D), R(NumRel, D);
  if (const TransEModel *Initial = Opts.Initial) {
    // A given starting point; its entities are normalised below.
    for (size_t I = 0; I < NumEnt; ++I)
      std::copy(Initial->Entities[I].begin(), Initial->Entities[I].end(),
                E.row(I).data());
    for (size_t I = 0; I < NumRel; ++I)
      std::copy(Initial->Relations[I].begin(), Initial->Relations[I].end(),
                R.row(I).data());
  } else {
    // Initialisation as in the TransE paper: uniform in +-6/sqrt(d),
    // relations normalised once.
    SplitMix64 Init(mix(Opts.Seed, 0xE, 0));
    const double Bound = 6.0 / std::sqrt(double(D));
    for (Eigen::Index I = 0; I < E.size(); ++I)
      E.data()[I] = Bound * Init.symmetric();
    for (Eigen::Index I = 0; I < R.size(); ++I)
      R.data()[I] = Bound * Init.symmetric();
    for (Eigen::Index I = 0; I < R.rows(); ++I)
      if (double N = R.row(I).norm(); N > 0)
        R.row(I) /= N;
  }

  std::vector<Matrix> GE(Threads, Matrix::Zero(NumEnt, D));
  std::vector<Matrix> GR(Threads, Matrix::Zero(NumRel, D));
  // Which relation rows of GR[t] hold a gradient: a batch uses few of the
  // relations, and reducing and clearing only those keeps the per-batch
  // work proportional to the batch, not to the number of relations.
  std::vector<std::vector<char>> RelTouched(Threads,
                                            std::vector<char>(NumRel, 0));
  std::vector<double> ThreadLoss(Threads);
  // The triplets in this epoch's order, shuffled in place from one epoch to
  // the next: the batches then read memory in sequence.
  std::vector<Triplet> Order = Data.Triplets;
  const size_t N = Order.size();
  const bool L1 = Opts.Distance == DistanceKind::L1;

  auto NormalizeRows = [](Matrix &M, Eigen::Index From, Eigen::Index To) {
    for (Eigen::Index I = From; I < To; ++I)
      if (double Norm = M.row(I).norm(); Norm > 0)
        M.row(I) /= Norm;
  };
  NormalizeRows(E, 0, E.rows());

  for (unsigned Epoch = 0; Epoch < Opts.Epochs; ++Epoch) {
    // Fisher-Yates with our own generator: the same order everywhere.
    SplitMix64 Shuffle(mix(Opts.Seed, 0x5, Epoch));
    for (size_t I = N - 1; I > 0; --I)
      std::swap(Order[I], Order[Shuffle.below(I + 1)]);

    double EpochLoss = 0;
    // One thread team per epoch, two barriers per batch: after the
    // gradients, and after the update. The barrier sleeps after a short
    // spin, so that a team on a busy machine does not burn the time slices
    // its slowest member needs (libgomp's own barriers spin far longer).
    SpinThenSleepBarrier Barrier;
#pragma omp parallel num_threads(Threads)
    {
      const int Tid = omp_get_thread_num();
      const int NT = omp_get_num_threads();
#pragma omp single
      Barrier.setParties(NT);
      Matrix &MyGE = GE[Tid], &MyGR = GR[Tid];
      std::vector<char> &MyRelTouched = RelTouched[Tid];
      Eigen::VectorXd Pos(D), Neg(D), GPos(D), GNeg(D);
      // The rows this thread reduces, updates and renormalises.
      auto Slice = [&](Eigen::Index Rows) {
        Eigen::Index Per = (Rows + NT - 1) / NT;
        Eigen::Index From = std::min<Eigen::Index>(Rows, Tid * Per);
        return std::make_pair(From, std::min<Eigen::Index>(Rows, From + Per));
      };
      const auto [EFrom, ETo] = Slice(E.rows());
      const auto [RFrom, RTo] = Slice(R.rows());

      for (size_t Begin = 0; Begin < N; Begin += Opts.BatchSize) {
        const size_t End = std::min(N, Begin + Opts.BatchSize);
        // GE and GR are all zero here: the reduction below clears them.
        double Loss = 0;
        const size_t Chunk = (End - Begin + NT - 1) / NT;
        const size_t From = std::min(End, Begin + Tid * Chunk);
        const size_t To = std::min(End, From + Chunk);
        for (size_t K = From; K < To; ++K) {
          const Triplet &T = Order[K];
          // The negative of sample K depends only on (seed, epoch, K).
          SplitMix64 Neg1(mix(Opts.Seed, Epoch + 1, K));
          bool CorruptHead = Neg1.next() & 1;
          EntityId Orig = CorruptHead ? T.Head : T.Tail;
          EntityId Repl = static_cast<EntityId>(Neg1.below(NumEnt - 1));
          if (Repl >= Orig)
            ++Repl;
          EntityId NH = CorruptHead ? Repl : T.Head;
          EntityId NTl = CorruptHead ? T.Tail : Repl;
          Pos = E.row(T.Head).transpose() + R.row(T.Relation).transpose() -
                E.row(T.Tail).transpose();
          Neg = E.row(NH).transpose() + R.row(T.Relation).transpose() -
                E.row(NTl).transpose();
          double DP = L1 ? Pos.lpNorm<1>() : Pos.norm();
          double DN = L1 ? Neg.lpNorm<1>() : Neg.norm();
          double L = Opts.Margin + DP - DN;
          if (L <= 0)
            continue;
          Loss += L;
          if (L1) {
            GPos = Pos.array().sign().matrix();
            GNeg = Neg.array().sign().matrix();
          } else {
            GPos =
                DP > 0 ? Eigen::VectorXd(Pos / DP) : Eigen::VectorXd::Zero(D);
            GNeg =
                DN > 0 ? Eigen::VectorXd(Neg / DN) : Eigen::VectorXd::Zero(D);
          }
          MyGE.row(T.Head) += GPos.transpose();
          MyGE.row(T.Tail) -= GPos.transpose();
          MyGR.row(T.Relation) += (GPos - GNeg).transpose();
          MyRelTouched[T.Relation] = 1;
          MyGE.row(NH) -= GNeg.transpose();
          MyGE.row(NTl) += GNeg.transpose();
        }
        ThreadLoss[Tid] = Loss;
        Barrier.wait();

        // The step follows the batch's mean gradient (the loss is the mean
        // over the batch, as OpenKE's). Every row sums the threads'
        // gradients in thread order: deterministic for a given team size.
        const double Step = Opts.LearningRate / double(End - Begin);
        // Each row is read and cleared in one pass, by the thread that owns
        // it; untouched relation rows are zero and skipped (E - 0 == E).
        for (int Src = 0; Src < NT; ++Src) {
          auto G = GE[Src].middleRows(EFrom, ETo - EFrom);
          E.middleRows(EFrom, ETo - EFrom) -= Step * G;
          G.setZero();
          for (Eigen::Index Row = RFrom; Row < RTo; ++Row) {
            if (!RelTouched[Src][Row])
              continue;
            R.row(Row) -= Step * GR[Src].row(Row);
            GR[Src].row(Row).setZero();
            RelTouched[Src][Row] = 0;
          }
        }
        // Entities are renormalised before every batch (and at the end).
        NormalizeRows(E, EFrom, ETo);
        if (Tid == 0)
          for (int Src = 0; Src < NT; ++Src)
            EpochLoss += ThreadLoss[Src];
        Barrier.wait();
      }
    }
    if (Progress)
      Progress({Epoch + 1, EpochLoss / double(N)});
  }

  TransEModel M;
  for (Eigen::Index I = 0; I < E.rows(); ++I)
    M.Entities.emplace_back(E.row(I).data(), E.row(I).data() + D);
  for (Eigen::Index I = 0; I < R.rows(); ++I)
    M.Relations.emplace_back(R.row(I).data(), R.row(I).data() + D);
  return M;
}

} // namespace irtk::vocab
