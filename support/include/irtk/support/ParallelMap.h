//===- ParallelMap.h - An ordered parallel map ------------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// orderedParallelMap runs a function over the items [0, N) on a pool of
/// threads and hands the results, in item order, to a consumer on the
/// calling thread, as soon as each is ready: corpus tools print or store
/// results in input order while later inputs are still being processed.
/// The calling thread works on items too, between results, so that one
/// thread runs the map with no other thread and N threads use N - 1 more;
/// only a map that polls keeps the calling thread free to poll.
/// Workers run at most a window of items ahead of the consumer, so few
/// results wait in memory however large the corpus; waiting threads sleep,
/// they do not spin.
///
/// The calling thread can be interrupted: a poll function, called while it
/// waits, can stop the map (the Python module checks for KeyboardInterrupt
/// this way). Nothing here throws; exceptions must not cross it.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_SUPPORT_PARALLELMAP_H
#define IRTK_SUPPORT_PARALLELMAP_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

namespace irtk::support {

struct ParallelMapOptions {
  /// Worker threads; 0 is one per available core. Never more than items.
  unsigned Threads = 0;
  /// How many items workers may run ahead of the consumer; 0 is four per
  /// worker.
  size_t Window = 0;
  /// Called on the calling thread at least every PollInterval while it waits
  /// for a result; when it returns false the map stops: no new item starts,
  /// running ones finish and are dropped, and orderedParallelMap returns
  /// false. With a poll function the calling thread only consumes and polls,
  /// and Threads worker threads do the work.
  std::function<bool()> Poll;
  std::chrono::milliseconds PollInterval{100};
};

/// The number of workers \p Opts gives for \p N items.
unsigned parallelMapThreads(const ParallelMapOptions &Opts, size_t N);

namespace detail {
/// The scheduling behind orderedParallelMap, independent of the result type:
/// \p Run computes item I into slot S; \p Consume takes slot S of item I.
bool runOrdered(size_t N, const ParallelMapOptions &Opts, size_t Window,
                llvm::function_ref<void(size_t I, size_t S)> Run,
                llvm::function_ref<void(size_t I, size_t S)> Consume);
size_t windowFor(const ParallelMapOptions &Opts, size_t N);
} // namespace detail

/// Calls \p Work(I) for every I in [0, \p N) on worker threads and
/// \p Consume(I, Result &) on the calling thread, in increasing I. Returns
/// false when Opts.Poll stopped the map, true when every item was consumed.
template <typename WorkFnT, typename ConsumeFnT>
bool orderedParallelMap(size_t N, const ParallelMapOptions &Opts,
                        WorkFnT &&Work, ConsumeFnT &&Consume) {
  using ResultT = decltype(Work(size_t(0)));
  const size_t Window = detail::windowFor(Opts, N);
  std::vector<std::optional<ResultT>> Slots(Window);
  return detail::runOrdered(
      N, Opts, Window, [&](size_t I, size_t S) { Slots[S].emplace(Work(I)); },
      [&](size_t I, size_t S) {
        Consume(I, *Slots[S]);
        Slots[S].reset();
      });
}

} // namespace irtk::support

#endif // IRTK_SUPPORT_PARALLELMAP_H
