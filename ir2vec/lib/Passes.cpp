//===- Passes.cpp - New-pass-manager analyses and passes ------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Analyses, printers and the embedding recorder. Failures are reported
/// through LLVMContext::emitError; passes then leave the IR alone.
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Passes.h"
#include "irtk/ir2vec/Walk.h"
#include "irtk/ircommon/Diagnostics.h"
#include "irtk/support/Format.h"
#include "irtk/support/OutputFile.h"
#include "irtk/vocab/VocabularyPath.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace irtk::support;

namespace irtk::ir2vec {

AnalysisKey VocabAnalysis::Key;
AnalysisKey FunctionEmbeddingAnalysis::Key;

VocabAnalysis::Result VocabAnalysis::run(Module &M, ModuleAnalysisManager &) {
  Result R;
  if (Cached) {
    R.V = Cached;
    return R;
  }
  Expected<std::string> Path = vocab::resolveVocabularyPath(
      Opts.Path, Opts.DefaultPath, [](StringRef Default) {
        std::string Msg = "IR2Vec vocabulary file path not specified; set it "
                          "with -irtk-vocab-path";
        if (!Default.empty())
          Msg += " (no default vocabulary at '" + Default.str() + "')";
        return Msg;
      });
  Expected<vocab::Vocabulary> V =
      Path ? loadVocabulary(*Path, Opts.Weights)
           : Expected<vocab::Vocabulary>(Path.takeError());
  if (!V) {
    ircommon::reportError(M.getContext(), "irtk: " + toString(V.takeError()));
    return R;
  }
  Cached = std::make_shared<const vocab::Vocabulary>(std::move(*V));
  R.V = Cached;
  return R;
}

FunctionEmbeddingAnalysis::Result
FunctionEmbeddingAnalysis::run(Function &F, FunctionAnalysisManager &FAM) {
  Result R;
  const auto &MAMProxy = FAM.getResult<ModuleAnalysisManagerFunctionProxy>(F);
  const VocabAnalysis::Result *VR =
      MAMProxy.getCachedResult<VocabAnalysis>(*F.getParent());
  if (!VR || !VR->isValid())
    return R;
  R.Function =
      Embedder::create(Kind, F, *VR->vocabulary())->getFunctionVector();
  return R;
}

namespace {
/// print<irtk-ir2vec>'s content, as upstream's print<ir2vec>: for every
/// function, declarations included, the function vector, the block vectors
/// and the instruction vectors.
class PrinterSink : public EmbeddingSink {
public:
  explicit PrinterSink(raw_ostream &OS) : OS(OS) {}
  void beginFunction(const Function &F) override {
    OS << "IR2Vec embeddings for function " << F.getName() << ":\n";
  }
  void beginLevel(LevelKind L) override { OS << levelHeading(L); }
  void record(const EmbeddingRecord &R) override {
    if (R.Level == LevelKind::BasicBlock)
      OS << "Basic block: " << R.BlockName << ":\n";
    else if (R.Level == LevelKind::Instruction)
      OS << "Instruction: " << R.InstText;
    printVector(OS, R.Vector);
  }

private:
  raw_ostream &OS;
};
} // namespace

PreservedAnalyses EmbeddingPrinterPass::run(Module &M,
                                            ModuleAnalysisManager &MAM) {
  const VocabAnalysis::Result &VR = MAM.getResult<VocabAnalysis>(M);
  if (!VR.isValid())
    return PreservedAnalyses::all();
  WalkOptions O;
  O.Kind = Kind;
  O.Functions = O.Blocks = O.Instructions = true;
  O.InstructionText = true;
  O.Declarations = true;
  Walker W(*VR.vocabulary(), O);
  PrinterSink S(OS);
  W.walkModule(M, S);
  return PreservedAnalyses::all();
}

PreservedAnalyses VocabPrinterPass::run(Module &M, ModuleAnalysisManager &MAM) {
  const VocabAnalysis::Result &VR = MAM.getResult<VocabAnalysis>(M);
  if (!VR.isValid())
    return PreservedAnalyses::all();
  const vocab::Vocabulary &V = *VR.vocabulary();
  for (EntityId Id = 0; Id < V.size(); ++Id) {
    OS << "Key: " << V.layout().entityName(Id) << ": ";
    printVector(OS, V.vector(Id));
  }
  return PreservedAnalyses::all();
}

namespace {
/// Attaches each function's embedding as metadata and/or writes it as a
/// JSON line.
class RecorderSink : public EmbeddingSink {
public:
  RecorderSink(Module &M, const RecorderOptions &Opts, raw_ostream &OS)
      : M(M), Opts(Opts), OS(OS) {}
  void record(const EmbeddingRecord &R) override {
    // The walker hands out const functions of the module this pass may
    // change.
    Function &F = const_cast<Function &>(*R.F);
    if (Opts.AttachMetadata) {
      LLVMContext &Ctx = M.getContext();
      SmallVector<Metadata *, 128> Elts;
      for (double X : R.Vector)
        Elts.push_back(ConstantAsMetadata::get(
            ConstantFP::get(Type::getDoubleTy(Ctx), X)));
      F.setMetadata(EmbeddingMetadataName, MDNode::get(Ctx, Elts));
    }
    if (!Opts.OutputPath.empty())
      JSONObjectWriter(OS)
          .string("module", M.getModuleIdentifier())
          .string("source_file", M.getSourceFileName())
          .string("function", F.getName())
          .string("demangled", demangle(F.getName()))
          .string("kind", embeddingKindName(Opts.Kind))
          .string("pipeline_point", Opts.PipelinePoint)
          .vector("embedding", R.Vector);
  }

private:
  Module &M;
  const RecorderOptions &Opts;
  raw_ostream &OS;
};
} // namespace

PreservedAnalyses EmbeddingRecorderPass::run(Module &M,
                                             ModuleAnalysisManager &MAM) {
  if (Opts.OutputPath.empty() && !Opts.AttachMetadata) {
    ircommon::reportError(M.getContext(),
                          "irtk: irtk-record-embeddings has nothing to do; "
                          "set -irtk-record-embeddings=FILE and/or "
                          "-irtk-record-metadata");
    return PreservedAnalyses::all();
  }
  const VocabAnalysis::Result &VR = MAM.getResult<VocabAnalysis>(M);
  if (!VR.isValid())
    return PreservedAnalyses::all();
  std::string Lines;
  raw_string_ostream LS(Lines);
  RecorderSink S(M, Opts, LS);
  Walker W(*VR.vocabulary(),
           WalkOptions::forLevel(Opts.Kind, LevelKind::Function));
  W.walkModule(M, S);
  if (!Opts.OutputPath.empty() && !Lines.empty()) {
    Error Err = checkNotAnInput(Opts.OutputPath, Opts.Inputs);
    if (!Err)
      Err = appendLocked(Opts.OutputPath, Lines);
    if (Err)
      ircommon::reportError(M.getContext(), "irtk: cannot write embeddings: " +
                                                toString(std::move(Err)));
  }
  // Attaching metadata changes no analysis result.
  return PreservedAnalyses::all();
}

} // namespace irtk::ir2vec
