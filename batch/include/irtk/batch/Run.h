//===- Run.h - One run over many inputs -------------------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// One run loop for every subcommand and IR kind: inputs are processed in
/// parallel by the mode handler and their results taken in input order by
/// the subcommand's job, which writes them. Threads run at most a few inputs
/// ahead of the output (support::orderedParallelMap), so few results wait in
/// memory. A named output file is written to a temporary beside it and
/// renamed at commit (support::OutputFile), and a store directory likewise
/// (store::StoreWriter): a run that discards leaves none.
///
/// The front ends (llvm-ir2vec, the Python module's writeStore) say what
/// becomes of each result (messages, progress, a record per input) and
/// whether the run commits or discards.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_BATCH_RUN_H
#define IRTK_BATCH_RUN_H

#include "irtk/batch/Mode.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace irtk::batch {

/// A subcommand's side of the run loop: what each input yields (computed on
/// a worker thread by the mode handler) and what is done with the results,
/// in input order.
class Job {
public:
  virtual ~Job();
  /// On a worker thread. \p Direct, when given, is the job's own output
  /// stream (a single input needs no buffering).
  virtual std::unique_ptr<InputResult> process(const std::string &Path,
                                               llvm::raw_ostream *Direct) = 0;
  /// The stream process() may write to directly, if any.
  virtual llvm::raw_ostream *directStream() { return nullptr; }
  /// Takes one successful input's result, in input order.
  virtual void accept(InputResult &R) = 0;
  /// The number a progress line shows beside the inputs (triplets).
  virtual size_t progressCount() const { return 0; }
  /// After the last input: completes the output.
  virtual llvm::Error commit() = 0;
  /// After a failed run: leaves no output behind.
  virtual void discard() = 0;
};

/// embeddings --format=npy: every input's rows, in input order, in a store
/// directory written beside O.Output and renamed there at commit.
class StoreJob : public Job {
public:
  /// Fails when the store cannot be started (O.Output's directory).
  static llvm::Expected<std::unique_ptr<StoreJob>> create(const Options &O,
                                                          ModeHandler &H);
  ~StoreJob() override;

  std::unique_ptr<InputResult> process(const std::string &Path,
                                       llvm::raw_ostream *) override;
  void accept(InputResult &R) override;
  llvm::Error commit() override;
  void discard() override;
  /// The store being written, e.g. to add a file before the commit.
  store::StoreWriter &writer() { return *W; }

private:
  StoreJob(const Options &O, ModeHandler &H,
           std::unique_ptr<store::StoreWriter> W);

  const Options &O;
  ModeHandler &H;
  std::unique_ptr<store::StoreWriter> W;
};

/// The job of O.Subcommand (not Entities, which has none) and O.Format,
/// reading its inputs with \p H, which is prepared. \p SeveralInputs: the
/// run has more than one input, whose text output then says which module
/// each function comes from ("Module: <path>").
llvm::Expected<std::unique_ptr<Job>> createJob(const Options &O, ModeHandler &H,
                                               bool SeveralInputs);

/// Processes \p Inputs with \p J and hands each result, in input order and
/// on the calling thread, to \p Take, which decides what becomes of it
/// (J.accept for a result without error, as a rule). One input is processed
/// on the calling thread, writing to J's direct stream if it has one;
/// several on \p Threads threads (0: one per core), at most a few inputs
/// ahead of \p Take.
void processInputs(llvm::ArrayRef<std::string> Inputs, unsigned Threads, Job &J,
                   llvm::function_ref<void(size_t, InputResult &)> Take);

} // namespace irtk::batch

#endif // IRTK_BATCH_RUN_H
