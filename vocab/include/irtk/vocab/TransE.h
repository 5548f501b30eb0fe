//===- TransE.h - Training a vocabulary from triplets -----------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// TransE (Bordes et al., 2013) over the (head, tail, relation) triplets that
/// `llvm-ir2vec triplets` writes: entity and relation vectors such that
/// head + relation is close to tail, learned with a margin ranking loss
/// against corrupted triplets (head or tail replaced by a random entity),
/// entity vectors renormalized to unit length before every batch. The
/// learned entity vectors form an IR2Vec vocabulary.
///
/// Training is deterministic for a given seed and thread count: every epoch
/// shuffles with a generator seeded by (seed, epoch), every triplet draws
/// its negative from a generator seeded by (seed, epoch, position), and
/// per-thread gradients are summed in thread order.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_VOCAB_TRANSE_H
#define IRTK_VOCAB_TRANSE_H

#include "irtk/vocab/Triplets.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace irtk::vocab {

enum class DistanceKind { L1, L2 };

/// The trained entity vectors, one per entity id, and relation vectors, one
/// per relation id.
struct TransEModel {
  std::vector<std::vector<double>> Entities;
  std::vector<std::vector<double>> Relations;
};

struct TransEOptions {
  unsigned Dimension = 75;
  unsigned Epochs = 100;
  double LearningRate = 0.5;
  double Margin = 1.0;
  unsigned BatchSize = 1024;
  DistanceKind Distance = DistanceKind::L1;
  uint64_t Seed = 1;
  /// 0: OpenMP's default. At most one thread per 512 triplets of a batch
  /// is used (batch 1024: 2 threads; 256: 1), so the result depends on
  /// min(Threads, BatchSize / 512), not on Threads alone.
  unsigned Threads = 0;
  /// When set, training starts from these vectors instead of the random
  /// initialisation (to continue training a model): NumEntities entity and
  /// NumRelations relation vectors of Dimension values each, else
  /// trainTransE fails. Entity vectors are renormalised to unit length
  /// before training, as before every batch; relation vectors are taken as
  /// given.
  const TransEModel *Initial = nullptr;
};

struct EpochReport {
  unsigned Epoch;
  /// Mean margin loss over the epoch's triplets.
  double MeanLoss;
};

/// Trains on \p Data. \p Progress, when set, is called after every epoch.
/// Fails on a bad option, fewer than two entities, a triplet whose entity
/// or relation id is out of range, or an Opts.Initial of the wrong shape.
llvm::Expected<TransEModel>
trainTransE(const TripletSet &Data, const TransEOptions &Opts,
            const std::function<void(const EpochReport &)> &Progress = {});

} // namespace irtk::vocab

#endif // IRTK_VOCAB_TRANSE_H
