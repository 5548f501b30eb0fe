//===- Policy.cpp - The decision machinery every advisor shares -----------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/advisors/Policy.h"
#include "Channel.h"
#include "LogWriter.h"
#include "irtk/advisors/MLP.h"
#include "irtk/ircommon/Diagnostics.h"
#include "irtk/support/OutputFile.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace llvm;

namespace irtk::advisors {

std::optional<PolicyKind> parsePolicyKind(StringRef Name) {
  if (Name == "default")
    return PolicyKind::Default;
  if (Name == "model")
    return PolicyKind::Model;
  if (Name == "interactive")
    return PolicyKind::Interactive;
  return std::nullopt;
}

StringRef policyKindName(PolicyKind K) {
  switch (K) {
  case PolicyKind::Default:
    return "default";
  case PolicyKind::Model:
    return "model";
  case PolicyKind::Interactive:
    return "interactive";
  }
  return "default";
}

PolicyRunner::PolicyRunner(LLVMContext &Ctx, PolicySpec Spec,
                           PolicyOptions Opts)
    : MLModelRunner(Ctx, Kind::Release, Spec.Inputs.size()),
      Spec(std::move(Spec)), Opts(std::move(Opts)),
      Advisor(findAdvisor(this->Spec.Advisor)) {
  // Each input at a 16-byte boundary of one zeroed allocation.
  auto Rounded = [](size_t N) { return (N + 15) & ~size_t(15); };
  size_t Total = 0;
  for (const TensorSpec &T : this->Spec.Inputs)
    Total += Rounded(T.getTotalTensorBufferSize());
  Arena.reset(static_cast<char *>(std::calloc(std::max<size_t>(Total, 1), 1)));
  if (!Arena)
    report_bad_alloc_error("irtk: the policy's input buffers");
  size_t Offset = 0;
  for (size_t I = 0; I < this->Spec.Inputs.size(); ++I) {
    setUpBufferForTensor(I, this->Spec.Inputs[I], Arena.get() + Offset);
    Offset += Rounded(this->Spec.Inputs[I].getTotalTensorBufferSize());
  }
  if (Advisor && !Advisor->Mask.empty())
    MaskIndex = findFeature(this->Spec.Inputs, Advisor->Mask);
}

void PolicyRunner::FreeArena::operator()(char *P) const { std::free(P); }

PolicyRunner::~PolicyRunner() {
  if (Error E = finish())
    ircommon::reportError(Ctx, "irtk: " + toString(std::move(E)));
}

Expected<PreparedPolicy> PreparedPolicy::read(PolicyOptions Opts) {
  PreparedPolicy P(std::move(Opts));
  if (P.Opts.Kind == PolicyKind::Model && !P.Opts.ModelPath.empty()) {
    Expected<MLPDescription> D = MLPDescription::load(P.Opts.ModelPath);
    if (!D)
      return D.takeError();
    P.Model = std::move(*D);
  }
  return P;
}

bool PreparedPolicy::readsAny(function_ref<bool(StringRef)> IsFeature) const {
  if (!Opts.LogPath.empty() || Opts.Kind == PolicyKind::Interactive)
    return true;
  if (Opts.Kind == PolicyKind::Default)
    return false;
  if (!Model)
    return true;
  return any_of(Model->Inputs, [&](const MLPDescription::Input &I) {
    return IsFeature(I.Name);
  });
}

Expected<std::unique_ptr<PolicyRunner>>
PolicyRunner::create(LLVMContext &Ctx, PolicySpec Spec, PreparedPolicy Policy) {
  const PolicyOptions &Opts = Policy.options();
  if (Spec.DefaultIndex >= Spec.Inputs.size())
    return createStringError(inconvertibleErrorCode(),
                             "the default decision is not an input");
  std::unique_ptr<PolicyRunner> R(new PolicyRunner(Ctx, std::move(Spec), Opts));
  const PolicySpec &S = R->Spec;

  switch (Opts.Kind) {
  case PolicyKind::Default:
    break;
  case PolicyKind::Model: {
    if (Opts.ModelPath.empty())
      return createStringError(inconvertibleErrorCode(),
                               "the model policy needs a model file (%smodel="
                               "<file>)",
                               Opts.OptionPrefix.c_str());
    Expected<MLPDescription> D =
        Policy.Model ? Expected<MLPDescription>(std::move(*Policy.Model))
                     : MLPDescription::load(Opts.ModelPath);
    if (!D)
      return D.takeError();
    Expected<std::unique_ptr<MLPModel>> M =
        MLPModel::bind(std::move(*D), S, Opts.ModelPath);
    if (!M)
      return M.takeError();
    R->Model = std::move(*M);
    break;
  }
  case PolicyKind::Interactive: {
    if (Opts.InteractiveBase.empty())
      return createStringError(inconvertibleErrorCode(),
                               "the interactive policy needs the pipes' base "
                               "name (%schannel=<base>)",
                               Opts.OptionPrefix.c_str());
    if (Opts.ChannelTimeout == 0)
      return createStringError(inconvertibleErrorCode(),
                               "%schannel-timeout must be at least 1 second",
                               Opts.OptionPrefix.c_str());
    Expected<std::unique_ptr<InteractiveChannel>> C = InteractiveChannel::open(
        Opts.InteractiveBase, S.Inputs, S.Decision, Opts.ChannelTimeout,
        Opts.OptionPrefix + "channel-timeout");
    if (!C)
      return C.takeError();
    R->Interactive = std::move(*C);
    break;
  }
  }

  if (!Opts.LogPath.empty()) {
    if (Error E = support::checkNotAnInput(Opts.LogPath, Opts.Inputs))
      return std::move(E);
    Expected<std::unique_ptr<support::OutputFile>> F =
        support::OutputFile::open(Opts.LogPath);
    if (!F)
      return F.takeError();
    R->LogFile = std::move(*F);
    // The decision is logged as the last feature, as LLVM's development
    // mode advisors log it.
    std::vector<TensorSpec> Logged = S.Inputs;
    Logged.push_back(S.Decision);
    R->Log = std::make_unique<LogWriter>(R->LogFile->os(), std::move(Logged),
                                         S.Reward);
  }
  return R;
}

bool PolicyRunner::readsInput(size_t Index) const {
  if (Log || Interactive)
    return true;
  if (Model)
    return Model->readsInput(Index);
  return Index == Spec.DefaultIndex;
}

void PolicyRunner::switchContext(StringRef Name) {
  // Written at the context's first decision, so that contexts without any
  // (functions the advisor was never asked about) leave no trace.
  PendingContext = Name.str();
}

void PolicyRunner::startPendingContext() {
  if (!PendingContext)
    return;
  if (Log) {
    logReward(0);
    Log->switchContext(*PendingContext);
  }
  if (Interactive && !ChannelFailed)
    if (Error E = Interactive->switchContext(*PendingContext))
      failChannel(std::move(E));
  PendingContext.reset();
}

int64_t PolicyRunner::decide() {
  switch (Opts.Kind) {
  case PolicyKind::Default:
    if (Override) {
      int64_t D = *Override;
      Override.reset();
      return D;
    }
    return defaultDecision();
  case PolicyKind::Model: {
    std::vector<const void *> Buffers(Spec.Inputs.size());
    for (size_t I = 0; I < Buffers.size(); ++I)
      Buffers[I] = getTensorUntyped(I);
    return Model->evaluate(Buffers);
  }
  case PolicyKind::Interactive: {
    if (!ChannelFailed) {
      std::vector<const void *> Buffers(Spec.Inputs.size());
      for (size_t I = 0; I < Buffers.size(); ++I)
        Buffers[I] = getTensorUntyped(I);
      Expected<int64_t> D = Interactive->ask(Buffers);
      if (D)
        return *D;
      failChannel(D.takeError());
    }
    return defaultDecision();
  }
  }
  return 0;
}

bool PolicyRunner::isLegal(int64_t Decision) const {
  if (!Advisor)
    return true;
  if (Advisor->Output == OutputKind::Logit)
    return Decision == 0 || Decision == 1;
  if (Decision < 0)
    return false;
  if (!MaskIndex)
    return true;
  const TensorSpec &Mask = Spec.Inputs[*MaskIndex];
  return static_cast<uint64_t>(Decision) < Mask.getElementCount() &&
         readScalar(Mask, getTensorUntyped(*MaskIndex), Decision) != 0;
}

int64_t PolicyRunner::defaultDecision() const {
  return static_cast<int64_t>(readScalar(
      Spec.Inputs[Spec.DefaultIndex], getTensorUntyped(Spec.DefaultIndex), 0));
}

void PolicyRunner::failChannel(Error E) {
  ChannelFailed = true;
  ircommon::reportError(Ctx, "irtk: " + toString(std::move(E)));
}

void *PolicyRunner::evaluateUntyped() {
  if (!PendingContext && !ContextStarted)
    PendingContext = "";
  startPendingContext();
  ContextStarted = true;
  Result = decide();
  // A model's or a host's answer that is not a legal choice is not carried
  // out: stock's is, and is what the log records.
  if (Opts.Kind != PolicyKind::Default && !isLegal(Result)) {
    ++Overruled;
    Result = defaultDecision();
  }
  ++Decisions;
  if (Log) {
    logReward(0);
    Log->startObservation();
    for (size_t I = 0; I < Spec.Inputs.size(); ++I)
      Log->logTensorValue(I, static_cast<const char *>(getTensorUntyped(I)));
    Log->logTensorValue(Spec.Inputs.size(),
                        reinterpret_cast<const char *>(&Result));
    Log->endObservation();
    RewardPending = true;
  }
  return &Result;
}

void PolicyRunner::logReward(float Value) {
  if (!Log || !RewardPending)
    return;
  Log->logReward(Value);
  RewardPending = false;
}

Error PolicyRunner::finish() {
  if (Overruled) {
    Ctx.diagnose(DiagnosticInfoGeneric(
        "irtk: " + Twine(Overruled) + " of " + Twine(Decisions) + " " +
            Spec.Advisor + " decisions of the " + policyKindName(Opts.Kind) +
            " policy were not legal choices; stock's were taken for them",
        DS_Warning));
    Overruled = 0;
  }
  if (!LogFile)
    return Error::success();
  logReward(0);
  Log.reset();
  Error E = LogFile->commit();
  LogFile.reset();
  return E;
}

} // namespace irtk::advisors
