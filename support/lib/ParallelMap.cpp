//===- ParallelMap.cpp - An ordered parallel map --------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Items are handed out in order; item I computes into slot I % Window,
/// which is free because a worker only starts I once item I - Window has
/// been consumed.
///
//===----------------------------------------------------------------------===//

#include "irtk/support/ParallelMap.h"

#include "llvm/Support/Threading.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace llvm;

namespace irtk::support {

unsigned parallelMapThreads(const ParallelMapOptions &Opts, size_t N) {
  unsigned T = Opts.Threads ? Opts.Threads
                            : hardware_concurrency().compute_thread_count();
  return static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(T, N)));
}

namespace detail {

size_t windowFor(const ParallelMapOptions &Opts, size_t N) {
  size_t W =
      Opts.Window ? Opts.Window : 4 * size_t(parallelMapThreads(Opts, N));
  return std::max<size_t>(1, std::min(W, std::max<size_t>(N, 1)));
}

bool runOrdered(size_t N, const ParallelMapOptions &Opts, size_t Window,
                function_ref<void(size_t, size_t)> Run,
                function_ref<void(size_t, size_t)> Consume) {
  if (N == 0)
    return true;
  std::mutex M;
  std::condition_variable WorkerCV, ConsumerCV;
  std::vector<char> Ready(Window, 0);
  size_t Next = 0, Consumed = 0;
  bool Stop = false;
  // Whether an item may start now: there is one, and it is within the
  // window of the consumer.
  auto CanStart = [&] { return !Stop && Next < N && Next - Consumed < Window; };

  auto Worker = [&] {
    std::unique_lock<std::mutex> Lock(M);
    for (;;) {
      WorkerCV.wait(Lock, [&] { return Stop || Next >= N || CanStart(); });
      if (Stop || Next >= N)
        return;
      size_t I = Next++;
      Lock.unlock();
      Run(I, I % Window);
      Lock.lock();
      Ready[I % Window] = 1;
      ConsumerCV.notify_one();
    }
  };
  // The calling thread is one of the workers unless it must stay free to
  // poll: with one thread the map then runs without any other thread.
  const unsigned Threads = parallelMapThreads(Opts, N);
  const bool CallerWorks = !Opts.Poll;
  std::vector<std::thread> Pool;
  for (unsigned T = CallerWorks ? 1 : 0; T < Threads; ++T)
    Pool.emplace_back(Worker);

  bool Completed = true;
  std::unique_lock<std::mutex> Lock(M);
  while (Consumed < N) {
    const size_t S = Consumed % Window;
    if (Ready[S]) {
      Lock.unlock();
      Consume(Consumed, S);
      Lock.lock();
      Ready[S] = 0;
      ++Consumed;
      WorkerCV.notify_all();
      continue;
    }
    if (CallerWorks && CanStart()) {
      size_t I = Next++;
      Lock.unlock();
      Run(I, I % Window);
      Lock.lock();
      Ready[I % Window] = 1;
      continue;
    }
    if (!Opts.Poll) {
      ConsumerCV.wait(
          Lock, [&] { return Ready[S] != 0 || (CallerWorks && CanStart()); });
      continue;
    }
    if (ConsumerCV.wait_for(Lock, Opts.PollInterval,
                            [&] { return Ready[S] != 0; }))
      continue;
    Lock.unlock();
    bool Go = Opts.Poll();
    Lock.lock();
    if (!Go) {
      Completed = false;
      break;
    }
  }
  Stop = true;
  Lock.unlock();
  WorkerCV.notify_all();
  for (std::thread &T : Pool)
    T.join();
  return Completed;
}

} // namespace detail
} // namespace irtk::support
