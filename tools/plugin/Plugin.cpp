//===- Plugin.cpp - irtk pass plugin for opt and clang --------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Registers irtk's analyses and passes with a PassBuilder and maps the
/// plugin's -irtk-* options onto the option structs of the library:
///   opt -load-pass-plugin=IRTKPlugin.so -passes='print<irtk-ir2vec>' ...
///   clang -O2 -fpass-plugin=IRTKPlugin.so -mllvm -irtk-vocab-path=V
///         -mllvm -irtk-record-embeddings=out.jsonl
/// (clang-22 loads pass plugins before it parses -mllvm options.)
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Passes.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

using namespace llvm;
using namespace irtk::ir2vec;

static cl::OptionCategory IRTKCategory("IR2Vec Toolkit (irtk) options");

static cl::opt<std::string> VocabPath("irtk-vocab-path",
                                      cl::desc("Path to the IR2Vec vocabulary"),
                                      cl::value_desc("file"),
                                      cl::cat(IRTKCategory));
static cl::opt<float> OpcWeight("irtk-opc-weight", cl::init(1.0f),
                                cl::desc("Weight for opcode embeddings"),
                                cl::cat(IRTKCategory));
static cl::opt<float> TypeWeight("irtk-type-weight", cl::init(0.5f),
                                 cl::desc("Weight for type embeddings"),
                                 cl::cat(IRTKCategory));
static cl::opt<float> ArgWeight("irtk-arg-weight", cl::init(0.2f),
                                cl::desc("Weight for argument embeddings"),
                                cl::cat(IRTKCategory));
static cl::opt<EmbeddingKind>
    Kind("irtk-kind", cl::init(EmbeddingKind::Symbolic),
         cl::desc("IR2Vec embedding kind"),
         cl::values(clEnumValN(EmbeddingKind::Symbolic, "symbolic",
                               "Symbolic embeddings"),
                    clEnumValN(EmbeddingKind::FlowAware, "flow-aware",
                               "Flow-aware embeddings")),
         cl::cat(IRTKCategory));
static cl::opt<std::string> RecordFile(
    "irtk-record-embeddings",
    cl::desc("Append every defined function's embedding to this JSON-lines "
             "file while compiling"),
    cl::value_desc("file"), cl::cat(IRTKCategory));
static cl::opt<bool> RecordMetadata(
    "irtk-record-metadata",
    cl::desc("Attach every defined function's embedding as !irtk.embedding "
             "metadata while compiling"),
    cl::cat(IRTKCategory));

enum class PipelinePointKind { Start, OptimizerEarly, OptimizerLast };
static cl::opt<PipelinePointKind> RecordPoint(
    "irtk-record-point", cl::init(PipelinePointKind::OptimizerLast),
    cl::desc("Where in the default pipeline embeddings are recorded"),
    cl::values(clEnumValN(PipelinePointKind::Start, "pipeline-start",
                          "Before any optimization"),
               clEnumValN(PipelinePointKind::OptimizerEarly, "optimizer-early",
                          "After simplification, before the optimizer"),
               clEnumValN(PipelinePointKind::OptimizerLast, "optimizer-last",
                          "At the end of the optimizer")),
    cl::cat(IRTKCategory));

static StringRef pipelinePointName(PipelinePointKind P) {
  switch (P) {
  case PipelinePointKind::Start:
    return "pipeline-start";
  case PipelinePointKind::OptimizerEarly:
    return "optimizer-early";
  case PipelinePointKind::OptimizerLast:
    return "optimizer-last";
  }
  llvm_unreachable("unknown pipeline point");
}

/// The file this plugin was loaded from, for finding the default vocabulary
/// beside it.
static std::string pluginPath() {
  Dl_info Info;
  if (!dladdr(reinterpret_cast<void *>(&pluginPath), &Info) || !Info.dli_fname)
    return "";
  return Info.dli_fname;
}

static VocabOptions vocabOptions() {
  VocabOptions O;
  O.Path = VocabPath;
  if (std::string Self = pluginPath(); !Self.empty())
    O.DefaultPath = irtk::ir2vec::defaultVocabularyPath(Self);
  O.Weights.Opcode = OpcWeight;
  O.Weights.Type = TypeWeight;
  O.Weights.Argument = ArgWeight;
  return O;
}

static RecorderOptions recorderOptions(PipelinePointKind Point) {
  RecorderOptions O;
  O.Kind = Kind;
  O.OutputPath = RecordFile;
  O.AttachMetadata = RecordMetadata;
  O.PipelinePoint = pipelinePointName(Point).str();
  return O;
}

static bool recordingRequested() {
  return !RecordFile.empty() || RecordMetadata;
}

static void registerCallbacks(PassBuilder &PB) {
  PB.registerAnalysisRegistrationCallback([](ModuleAnalysisManager &MAM) {
    MAM.registerPass([] { return VocabAnalysis(vocabOptions()); });
  });
  PB.registerAnalysisRegistrationCallback([](FunctionAnalysisManager &FAM) {
    FAM.registerPass([] { return FunctionEmbeddingAnalysis(Kind); });
  });

  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "print<irtk-ir2vec>") {
          MPM.addPass(EmbeddingPrinterPass(errs(), Kind));
          return true;
        }
        if (Name == "print<irtk-ir2vec-vocab>") {
          MPM.addPass(VocabPrinterPass(errs()));
          return true;
        }
        if (Name == "irtk-record-embeddings") {
          RecorderOptions O = recorderOptions(PipelinePointKind::Start);
          O.PipelinePoint = "explicit";
          MPM.addPass(EmbeddingRecorderPass(O));
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
      [](ModulePassManager &MPM, OptimizationLevel) {
        if (recordingRequested() && RecordPoint == PipelinePointKind::Start)
          MPM.addPass(
              EmbeddingRecorderPass(recorderOptions(PipelinePointKind::Start)));
      });
  PB.registerOptimizerEarlyEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase) {
        if (recordingRequested() &&
            RecordPoint == PipelinePointKind::OptimizerEarly)
          MPM.addPass(EmbeddingRecorderPass(
              recorderOptions(PipelinePointKind::OptimizerEarly)));
      });
  PB.registerOptimizerLastEPCallback([](ModulePassManager &MPM,
                                        OptimizationLevel, ThinOrFullLTOPhase) {
    if (recordingRequested() && RecordPoint == PipelinePointKind::OptimizerLast)
      MPM.addPass(EmbeddingRecorderPass(
          recorderOptions(PipelinePointKind::OptimizerLast)));
  });
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "IR2VecToolkit", "0.1.0", registerCallbacks};
}
