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
#include "irtk/ir2vec/Format.h"
#include "irtk/ir2vec/Output.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace irtk::ir2vec {

AnalysisKey VocabAnalysis::Key;
AnalysisKey FunctionEmbeddingAnalysis::Key;

VocabAnalysis::Result VocabAnalysis::run(Module &M, ModuleAnalysisManager &) {
  Result R;
  if (Cached) {
    R.V = Cached;
    return R;
  }
  StringRef Path = Opts.Path;
  if (Path.empty()) {
    if (Opts.DefaultPath.empty() || !sys::fs::exists(Opts.DefaultPath)) {
      std::string Msg = "irtk: IR2Vec vocabulary file path not specified; "
                        "set it with -irtk-vocab-path";
      if (!Opts.DefaultPath.empty())
        Msg += " (no default vocabulary at '" + Opts.DefaultPath + "')";
      M.getContext().emitError(Msg);
      return R;
    }
    Path = Opts.DefaultPath;
  }
  Expected<vocab::Vocabulary> V =
      vocab::Vocabulary::loadFromFile(Path, Opts.Weights);
  if (!V) {
    M.getContext().emitError("irtk: " + toString(V.takeError()));
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

PreservedAnalyses EmbeddingPrinterPass::run(Module &M,
                                            ModuleAnalysisManager &MAM) {
  const VocabAnalysis::Result &VR = MAM.getResult<VocabAnalysis>(M);
  if (!VR.isValid())
    return PreservedAnalyses::all();
  const vocab::Vocabulary &V = *VR.vocabulary();
  std::vector<double> Vec(V.dimension());
  InstructionPrinter Printer;
  for (const Function &F : M) {
    std::unique_ptr<Embedder> E = Embedder::create(Kind, F, V);
    OS << "IR2Vec embeddings for function " << F.getName() << ":\n";
    E->computeFunctionVector(Vec.data());
    OS << "Function vector: ";
    printVector(OS, Vec);
    OS << "Basic block vectors:\n";
    for (const BasicBlock &BB : F) {
      E->computeBBVector(BB, Vec.data());
      OS << "Basic block: " << BB.getName() << ":\n";
      printVector(OS, Vec);
    }
    OS << "Instruction vectors:\n";
    if (!F.isDeclaration())
      Printer.setFunction(F);
    for (const BasicBlock &BB : F) {
      for (const Instruction &I : BB) {
        E->computeInstVector(I, Vec.data());
        OS << "Instruction: ";
        Printer.print(OS, I);
        printVector(OS, Vec);
      }
    }
  }
  return PreservedAnalyses::all();
}

PreservedAnalyses VocabPrinterPass::run(Module &M, ModuleAnalysisManager &MAM) {
  const VocabAnalysis::Result &VR = MAM.getResult<VocabAnalysis>(M);
  if (!VR.isValid())
    return PreservedAnalyses::all();
  const vocab::Vocabulary &V = *VR.vocabulary();
  for (vocab::EntityId Id = 0; Id < vocab::NumEntities; ++Id) {
    OS << "Key: " << vocab::entityName(Id) << ": ";
    printVector(OS, V.vector(Id));
  }
  return PreservedAnalyses::all();
}

/// Appends \p Text to \p Path under an exclusive lock, so that parallel
/// compilations can share one file without interleaving lines.
static Error appendLocked(StringRef Path, StringRef Text) {
  int FD;
  if (std::error_code EC = sys::fs::openFileForWrite(
          Path, FD, sys::fs::CD_OpenAlways, sys::fs::OF_Append))
    return createFileError(Path, EC);
  raw_fd_ostream OS(FD, /*shouldClose=*/true);
  if (std::error_code EC = sys::fs::lockFile(FD))
    return createFileError(Path, EC);
  OS << Text;
  OS.flush();
  std::error_code EC = OS.error();
  OS.clear_error();
  (void)sys::fs::unlockFile(FD);
  if (EC)
    return createFileError(Path, EC);
  return Error::success();
}

PreservedAnalyses EmbeddingRecorderPass::run(Module &M,
                                             ModuleAnalysisManager &MAM) {
  if (Opts.OutputPath.empty() && !Opts.AttachMetadata) {
    M.getContext().emitError("irtk: irtk-record-embeddings has nothing to do; "
                             "set -irtk-record-embeddings=FILE and/or "
                             "-irtk-record-metadata");
    return PreservedAnalyses::all();
  }
  const VocabAnalysis::Result &VR = MAM.getResult<VocabAnalysis>(M);
  if (!VR.isValid())
    return PreservedAnalyses::all();
  const vocab::Vocabulary &V = *VR.vocabulary();

  std::string Lines;
  raw_string_ostream LS(Lines);
  LLVMContext &Ctx = M.getContext();
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    Embedding E = Embedder::create(Opts.Kind, F, V)->getFunctionVector();
    if (Opts.AttachMetadata) {
      SmallVector<Metadata *, 128> Elts;
      for (double X : E)
        Elts.push_back(ConstantAsMetadata::get(
            ConstantFP::get(Type::getDoubleTy(Ctx), X)));
      F.setMetadata(EmbeddingMetadataName, MDNode::get(Ctx, Elts));
    }
    if (!Opts.OutputPath.empty()) {
      LS << "{\"module\":";
      printJSONString(LS, M.getModuleIdentifier());
      LS << ",\"source_file\":";
      printJSONString(LS, M.getSourceFileName());
      LS << ",\"function\":";
      printJSONString(LS, F.getName());
      LS << ",\"demangled\":";
      printJSONString(LS, demangle(F.getName()));
      LS << ",\"kind\":\"" << embeddingKindName(Opts.Kind) << "\"";
      LS << ",\"pipeline_point\":";
      printJSONString(LS, Opts.PipelinePoint);
      LS << ",\"embedding\":";
      printJSONVector(LS, E);
      LS << "}\n";
    }
  }
  if (!Opts.OutputPath.empty() && !Lines.empty())
    if (Error Err = appendLocked(Opts.OutputPath, Lines))
      Ctx.emitError("irtk: cannot write embeddings: " +
                    toString(std::move(Err)));
  // Attaching metadata changes no analysis result.
  return PreservedAnalyses::all();
}

} // namespace irtk::ir2vec
