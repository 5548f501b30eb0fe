//===- Policy.h - The decision machinery every advisor shares --*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// An advisor (the inliner's, the register allocator's eviction advisor)
/// writes its features into a PolicyRunner and asks it for a decision. The
/// runner is an llvm::MLModelRunner, so LLVM's own ML advisors can fill it,
/// and decides by one of three policies:
///   default      the value of the default-decision input feature, which the
///                advisor sets from LLVM's heuristic;
///   model        an embedded MLP (MLP.h) over the features it names;
///   interactive  an external process, over LLVM's interactive protocol
///                (two named pipes; every wait bounded by a timeout).
/// With a log path, every decision is also written to a training log in
/// LLVM's format (llvm/Analysis/Utils/TrainingLogger.h): the features, the
/// decision and a reward the advisor reports after the fact.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_ADVISORS_POLICY_H
#define IRTK_ADVISORS_POLICY_H

#include "irtk/advisors/Features.h"
#include "irtk/advisors/MLP.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Analysis/MLModelRunner.h"
#include "llvm/Analysis/TensorSpec.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class raw_ostream;
} // namespace llvm

namespace irtk::support {
class OutputFile;
} // namespace irtk::support

namespace irtk::advisors {

class InteractiveChannel;
class MLPModel;
class LogWriter;

enum class PolicyKind { Default, Model, Interactive };

std::optional<PolicyKind> parsePolicyKind(llvm::StringRef Name);
llvm::StringRef policyKindName(PolicyKind K);

struct PolicyOptions {
  PolicyKind Kind = PolicyKind::Default;
  /// The model file (PolicyKind::Model).
  std::string ModelPath;
  /// The pipes <base>.in and <base>.out (PolicyKind::Interactive).
  std::string InteractiveBase;
  /// How long the interactive policy waits for the host, in seconds: to
  /// attach, to take an observation, to answer.
  unsigned ChannelTimeout = 60;
  /// Training log to write; empty: none.
  std::string LogPath;
  /// The files this run reads (models, vocabularies, their binary forms,
  /// decision files): the log, and any other file the advisor writes, must
  /// not be one of them (support::checkNotAnInput).
  std::vector<std::string> Inputs;
  /// How the tool spells the options, for errors ("-irtk-inline-" gives
  /// "-irtk-inline-model=<file>").
  std::string OptionPrefix;
};

/// A policy's options, with what is read before its runner exists: the
/// model policy's file, so that an advisor can ask which features the
/// policy reads and build the costly ones (embeddings) only when something
/// reads them; the runner then takes the model read here.
class PreparedPolicy {
public:
  /// Options whose model, if any, is read when the runner is made.
  PreparedPolicy(PolicyOptions Opts) : Opts(std::move(Opts)) {}
  /// Options with the model policy's file read now (errors name it).
  static llvm::Expected<PreparedPolicy> read(PolicyOptions Opts);

  const PolicyOptions &options() const { return Opts; }
  /// Whether the policy can read a feature \p IsFeature accepts: a log or
  /// an interactive host reads every feature, the default policy only its
  /// default decision, a model the inputs it names. A model not read (or
  /// without a file: the runner reports that) counts as reading all.
  bool readsAny(llvm::function_ref<bool(llvm::StringRef)> IsFeature) const;

private:
  friend class PolicyRunner;
  PolicyOptions Opts;
  std::optional<MLPDescription> Model;
};

/// A model runner deciding by one policy, and logging what it decides.
class PolicyRunner : public llvm::MLModelRunner {
public:
  /// Opens what the policy needs: loads (unless prepared) and checks the
  /// model against the inputs, creates the log file, opens the pipes (which
  /// waits for the other process, up to the channel timeout). Errors name
  /// the file and the problem.
  static llvm::Expected<std::unique_ptr<PolicyRunner>>
  create(llvm::LLVMContext &Ctx, PolicySpec Spec, PreparedPolicy Policy);
  ~PolicyRunner() override;

  const PolicySpec &spec() const { return Spec; }
  PolicyKind kind() const { return Opts.Kind; }

  /// Starts a new context of the log and the interactive channel (one per
  /// module or function); written at its first decision.
  void switchContext(llvm::StringRef Name) override;

  /// Records the reward of the last decision, if it has none yet.
  void logReward(float Value);

  /// Moves the log into place; called by the destructor too, where errors
  /// go to the LLVMContext.
  llvm::Error finish();

  /// Whether the decision or the log reads input \p Index: an advisor can
  /// skip computing an input nobody reads (the embeddings for a model that
  /// does not use them, with no log).
  bool readsInput(size_t Index) const;

  /// The number of decisions taken so far.
  size_t decisions() const { return Decisions; }

  /// Counts a decision of the model or the host that the advisor did not
  /// carry out (stock's was taken instead). The runner itself overrules,
  /// counts and logs as stock's every answer that is not a legal choice by
  /// the registry (Features.h); an advisor with a rule of its own counts
  /// here. finish reports the count as a warning.
  void noteOverruled() { ++Overruled; }
  size_t overruled() const { return Overruled; }

  /// With the default policy, the next decision is \p Decision rather than
  /// the default feature's (a search trying a departure from the default);
  /// it is logged as the decision.
  void overrideNextDefault(int64_t Decision) { Override = Decision; }

private:
  PolicyRunner(llvm::LLVMContext &Ctx, PolicySpec Spec, PolicyOptions Opts);
  void *evaluateUntyped() override;
  int64_t decide();
  /// The default-decision input's value.
  int64_t defaultDecision() const;
  /// Whether \p Decision is a legal choice of the advisor (the registry's
  /// output kind and mask, read from the inputs).
  bool isLegal(int64_t Decision) const;
  /// Reports a broken channel once; the default decides from then on.
  void failChannel(llvm::Error E);
  void startPendingContext();

  /// The inputs' buffers, one zeroed allocation (calloc: a large one is
  /// fresh zero pages, touched only by the decisions that write them).
  /// MLModelRunner's own would allocate each input as a vector of
  /// pointers, eight times its size, and zero-fill it.
  struct FreeArena {
    void operator()(char *P) const;
  };
  std::unique_ptr<char, FreeArena> Arena;
  PolicySpec Spec;
  PolicyOptions Opts;
  /// The registry's entry of Spec.Advisor (null for an advisor it lacks)
  /// and the index of its mask among the inputs: what isLegal checks.
  const AdvisorInfo *Advisor;
  std::optional<size_t> MaskIndex;
  std::unique_ptr<MLPModel> Model;
  std::unique_ptr<InteractiveChannel> Interactive;
  /// Set once the channel failed (reported once); the default decides
  /// from then on.
  bool ChannelFailed = false;
  size_t Overruled = 0;
  std::unique_ptr<support::OutputFile> LogFile;
  std::unique_ptr<LogWriter> Log;
  bool RewardPending = false;
  std::optional<std::string> PendingContext;
  bool ContextStarted = false;
  size_t Decisions = 0;
  int64_t Result = 0;
  std::optional<int64_t> Override;
};

} // namespace irtk::advisors

#endif // IRTK_ADVISORS_POLICY_H
