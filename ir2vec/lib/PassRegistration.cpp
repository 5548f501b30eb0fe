//===- PassRegistration.cpp - ir2vec's passes in a PassBuilder ------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/PassRegistration.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace irtk::ir2vec {

StringRef recordPointName(RecordPointKind P) {
  switch (P) {
  case RecordPointKind::PipelineStart:
    return "pipeline-start";
  case RecordPointKind::OptimizerEarly:
    return "optimizer-early";
  case RecordPointKind::OptimizerLast:
    return "optimizer-last";
  }
  llvm_unreachable("unknown record point");
}

static RecorderOptions recorderOptions(const PassOptions &O,
                                       StringRef PipelinePoint) {
  RecorderOptions R;
  R.Kind = O.Kind;
  R.OutputPath = O.RecordFile;
  R.Inputs = O.Inputs;
  R.AttachMetadata = O.RecordMetadata;
  R.PipelinePoint = PipelinePoint.str();
  return R;
}

/// Adds the recorder to \p MPM when recording is asked for at \p Point.
static void addRecorderAt(ModulePassManager &MPM, const PassOptions &O,
                          RecordPointKind Point) {
  if ((O.RecordFile.empty() && !O.RecordMetadata) || O.RecordPoint != Point)
    return;
  MPM.addPass(
      EmbeddingRecorderPass(recorderOptions(O, recordPointName(Point))));
}

void registerPasses(PassBuilder &PB, std::function<PassOptions()> Options) {
  PB.registerAnalysisRegistrationCallback(
      [Options](ModuleAnalysisManager &MAM) {
        MAM.registerPass([&] { return VocabAnalysis(Options().Vocab); });
      });
  PB.registerAnalysisRegistrationCallback([Options](
                                              FunctionAnalysisManager &FAM) {
    FAM.registerPass([&] { return FunctionEmbeddingAnalysis(Options().Kind); });
  });

  PB.registerPipelineParsingCallback(
      [Options](StringRef Name, ModulePassManager &MPM,
                ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "print<irtk-ir2vec>") {
          MPM.addPass(EmbeddingPrinterPass(errs(), Options().Kind));
          return true;
        }
        if (Name == "print<irtk-ir2vec-vocab>") {
          MPM.addPass(VocabPrinterPass(errs()));
          return true;
        }
        if (Name == "irtk-record-embeddings") {
          MPM.addPass(
              EmbeddingRecorderPass(recorderOptions(Options(), "explicit")));
          return true;
        }
        if (Name == "require<irtk-vocab>") {
          MPM.addPass(RequireAnalysisPass<VocabAnalysis, Module>());
          return true;
        }
        if (Name == "invalidate<irtk-vocab>") {
          MPM.addPass(InvalidateAnalysisPass<VocabAnalysis>());
          return true;
        }
        return false;
      });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, FunctionPassManager &FPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "require<irtk-function-embedding>") {
          FPM.addPass(
              RequireAnalysisPass<FunctionEmbeddingAnalysis, Function>());
          return true;
        }
        return false;
      });

  // Recording during a normal -O build: only when asked, at one point.
  PB.registerPipelineStartEPCallback(
      [Options](ModulePassManager &MPM, OptimizationLevel) {
        addRecorderAt(MPM, Options(), RecordPointKind::PipelineStart);
      });
  PB.registerOptimizerEarlyEPCallback(
      [Options](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase) {
        addRecorderAt(MPM, Options(), RecordPointKind::OptimizerEarly);
      });
  PB.registerOptimizerLastEPCallback(
      [Options](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase) {
        addRecorderAt(MPM, Options(), RecordPointKind::OptimizerLast);
      });
}

} // namespace irtk::ir2vec
