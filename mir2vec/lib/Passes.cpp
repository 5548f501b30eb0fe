//===- Passes.cpp - MIR2Vec embeddings during code generation -------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/mir2vec/Passes.h"
#include "irtk/ircommon/Diagnostics.h"
#include "irtk/mir2vec/InsertedPass.h"

#include "Pipeline.h"

#include "irtk/mir2vec/Loader.h"
#include "irtk/mir2vec/Output.h"
#include "irtk/support/OutputFile.h"

#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineFunctionPass.h"
#include "llvm/CodeGen/Passes.h"
#include "llvm/CodeGen/TargetPassConfig.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <mutex>
#include <optional>

using namespace llvm;

namespace irtk::mir2vec {

namespace {

/// What the pass instances of one pipeline share: the options, which of
/// them runs, and the vocabulary, loaded by the first function embedded.
struct PipelineState {
  CodeGenPassOptions Options;
  unsigned Wanted = 0;
  /// Instances made so far: the pass is inserted after every run of the
  /// chosen pass and only the Wanted-th instance embeds.
  unsigned Made = 0;
  std::once_flag Loaded;
  std::shared_ptr<const TargetLayout> Layout;
  std::optional<vocab::Vocabulary> Vocabulary;
  /// Why nothing can be embedded: bad options, or the vocabulary.
  std::string Error;
};

class EmbeddingPass;
/// Inserted into the pipeline by insertEmbeddingPass, with its state.
using InsertedEmbeddingPass =
    mir2vec::InsertedPass<EmbeddingPass, PipelineState>;

class EmbeddingPass : public MachineFunctionPass {
public:
  static char ID;
  EmbeddingPass()
      : MachineFunctionPass(ID), State(InsertedEmbeddingPass::building()) {
    if (State)
      Active = State->Made++ == State->Wanted;
  }

  StringRef getPassName() const override { return "irtk MIR2Vec embeddings"; }

  void getAnalysisUsage(AnalysisUsage &AU) const override {
    AU.setPreservesAll();
    MachineFunctionPass::getAnalysisUsage(AU);
  }

  bool runOnMachineFunction(MachineFunction &MF) override {
    if (!Active)
      return false;
    PipelineState &S = *State;
    const CodeGenPassOptions &O = S.Options;
    LLVMContext &Ctx = MF.getFunction().getContext();
    std::call_once(S.Loaded, [&] {
      if (!S.Error.empty())
        return;
      const TargetSubtargetInfo &STI = MF.getSubtarget();
      Expected<std::string> Path = resolveVocabularyPath(
          O.VocabularyPath, defaultVocabularyPath(O.BinaryPath, MF.getTarget()),
          "set it with " + O.OptionPrefix + "vocab-path");
      Expected<TargetVocabulary> V =
          Path ? loadTargetVocabulary(
                     *Path, *STI.getInstrInfo(), *STI.getRegisterInfo(),
                     layoutDescription(MF.getTarget()), O.VocabularyWeights)
               : Expected<TargetVocabulary>(Path.takeError());
      if (!V) {
        S.Error = toString(V.takeError());
        return;
      }
      S.Layout = std::move(V->Layout);
      S.Vocabulary.emplace(std::move(V->Vocabulary));
    });
    if (!S.Vocabulary) {
      // Once per module, not per function.
      if (ReportedFor != MF.getFunction().getParent()) {
        ReportedFor = MF.getFunction().getParent();
        ircommon::reportError(Ctx, "irtk: " + S.Error);
      }
      return false;
    }

    EmbeddingOutputOptions EO;
    EO.Level = O.Level;
    EO.ModuleName = MF.getFunction().getParent()->getModuleIdentifier();
    if (O.Print)
      writeFunctionEmbeddings(MF, *S.Vocabulary, *S.Layout, EO, errs());
    if (!O.RecordFile.empty()) {
      EO.Format = ircommon::OutputFormatKind::JSONL;
      std::string Lines;
      raw_string_ostream OS(Lines);
      writeFunctionEmbeddings(MF, *S.Vocabulary, *S.Layout, EO, OS);
      Error E = support::checkNotAnInput(O.RecordFile, O.Inputs);
      if (!E)
        E = support::appendLocked(O.RecordFile, Lines);
      if (E)
        ircommon::reportError(Ctx, "irtk: cannot record MIR embeddings: " +
                                       toString(std::move(E)));
    }
    return false;
  }

private:
  std::shared_ptr<PipelineState> State;
  bool Active = false;
  const Module *ReportedFor = nullptr;
};

char EmbeddingPass::ID = 0;

} // namespace

void insertEmbeddingPass(const TargetMachine &TM, TargetPassConfig &Config,
                         const CodeGenPassOptions &O) {
  auto S = std::make_shared<PipelineState>();
  S->Options = O;
  const void *After = nullptr;
  if (O.After.empty()) {
    S->Error = "set " + O.OptionPrefix +
               "after=<pass>[,<instance>]: where in code generation to embed";
  } else if (!O.Print && O.RecordFile.empty()) {
    S->Error = O.OptionPrefix + "after has nothing to do; set " +
               O.OptionPrefix + "print and/or " + O.OptionPrefix +
               "record-embeddings=FILE";
  } else if (Expected<PipelinePoint> P =
                 findPipelinePoint(TM, O.OptionPrefix + "after", O.After)) {
    After = P->Pass->getTypeInfo();
    S->Wanted = P->Instance;
  } else {
    S->Error = toString(P.takeError());
  }
  // An error is reported by the first function compiled, through its
  // context, as the compiler reports its own errors; instruction selection
  // is in every pipeline.
  if (!After)
    After = &FinalizeISelID;
  InsertedEmbeddingPass::insert(Config, After, std::move(S),
                                "irtk MIR2Vec embeddings",
                                "irtk-mir2vec-embeddings");
}

} // namespace irtk::mir2vec
