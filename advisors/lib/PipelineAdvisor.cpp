//===- PipelineAdvisor.cpp - Per-module size pipeline choices in clang ----===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/advisors/PipelineAdvisor.h"
#include "irtk/advisors/PipelineModel.h"
#include "irtk/ir2vec/Entities.h"
#include "irtk/ircommon/Diagnostics.h"
#include "irtk/support/JSON.h"
#include "irtk/support/ReadFile.h"

#include "llvm/ADT/Any.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/LazyCallGraph.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <memory>

using namespace llvm;

namespace irtk::advisors {

static Error choicesError(StringRef Path, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Path + ": " + Msg.str());
}

Expected<PipelineChoice> readPipelineChoice(StringRef Path, const Twine &What,
                                            const json::Value &V) {
  const std::string Name = What.str();
  const json::Object *O = V.getAsObject();
  if (!O)
    return choicesError(Path, Name + ": not an object");
  PipelineChoice C;
  for (const auto &[Key, Value] : *O) {
    if (Key == "append") {
      std::optional<StringRef> S = Value.getAsString();
      if (!S)
        return choicesError(Path, Name + ": 'append' is not a string");
      C.Append = S->str();
    } else if (Key == "veto") {
      const json::Array *A = Value.getAsArray();
      if (!A)
        return choicesError(Path, Name + ": 'veto' is not a list");
      for (const json::Value &P : *A) {
        std::optional<StringRef> S = P.getAsString();
        if (!S || S->empty())
          return choicesError(Path, Name + ": 'veto' holds a non-name");
        C.Veto.push_back(S->str());
      }
    } else if (Key == "outline") {
      std::optional<bool> B = Value.getAsBoolean();
      if (!B)
        return choicesError(Path, Name + ": 'outline' is not true or false");
      C.Outline = *B;
    }
  }
  return C;
}

Expected<StringMap<PipelineChoice>> readPipelineChoices(StringRef Path) {
  support::ReadOptions RO;
  RO.AllowStdin = false;
  Expected<std::unique_ptr<MemoryBuffer>> Text =
      support::readFile(Path, "choices file", RO);
  if (!Text)
    return Text.takeError();
  Expected<json::Value> Doc = support::parseJSON((*Text)->getBuffer(), Path);
  if (!Doc)
    return Doc.takeError();
  const json::Object *Top = Doc->getAsObject();
  if (!Top || Top->getString("format") != PipelineChoicesFormat)
    return choicesError(Path, "not a pipeline choices file (format \"" +
                                  PipelineChoicesFormat + "\")");
  if (Top->getInteger("version") != PipelineChoicesVersion)
    return choicesError(Path, "version " + Twine(PipelineChoicesVersion) +
                                  " is the one this irtk reads");
  const json::Object *Modules = Top->getObject("modules");
  if (!Modules)
    return choicesError(Path, "no 'modules' object");
  StringMap<PipelineChoice> Out;
  for (const auto &[Name, V] : *Modules) {
    Expected<PipelineChoice> C =
        readPipelineChoice(Path, "module '" + Name + "'", V);
    if (!C)
      return C.takeError();
    Out[Name] = std::move(*C);
  }
  return Out;
}

namespace {

/// The choices of a compile (or why they could not be read), and the module
/// the last question was about.
struct Replay {
  StringMap<PipelineChoice> Choices;
  /// The model policy: it decides each module's choice from its state.
  std::optional<PipelineModel> Model;
  std::shared_ptr<const vocab::Vocabulary> Vocab;
  std::string Error;
  const Module *Last = nullptr;
  const PipelineChoice *LastChoice = nullptr;
  StringSet<> LastVeto;

  const PipelineChoice *choice(const Module &M) {
    if (&M == Last)
      return LastChoice;
    Last = &M;
    LastChoice = Model ? decide(M) : find(M);
    LastVeto.clear();
    if (LastChoice)
      for (const std::string &V : LastChoice->Veto)
        LastVeto.insert(V);
    return LastChoice;
  }

private:
  /// The model's choice, decided once per module on the IR as the pipeline
  /// starts.
  const PipelineChoice *decide(const Module &M) const {
    std::vector<double> X = Model->stateOf(M, Vocab.get());
    return X.size() == Model->width() ? &Model->choice(Model->decide(X))
                                      : nullptr;
  }

  /// The choices file's entry of the module.
  const PipelineChoice *find(const Module &M) const {
    auto It = Choices.find(M.getSourceFileName());
    // A build that names its sources relative to where it runs finds the
    // choice of the absolute path (a corpus's modules name theirs so).
    if (It == Choices.end() && sys::path::is_relative(M.getSourceFileName())) {
      SmallString<256> Path(M.getSourceFileName());
      if (!sys::fs::make_absolute(Path)) {
        sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
        It = Choices.find(Path);
      }
    }
    return It == Choices.end() ? nullptr : &It->second;
  }
};

/// The module a pass is about to run on (a function, loop, SCC or module).
const Module *moduleOf(const Any &IR) {
  if (const auto *M = llvm::any_cast<const Module *>(&IR))
    return *M;
  if (const auto *F = llvm::any_cast<const Function *>(&IR))
    return (*F)->getParent();
  if (const auto *L = llvm::any_cast<const Loop *>(&IR))
    return (*L)->getHeader()->getModule();
  if (const auto *C = llvm::any_cast<const LazyCallGraph::SCC *>(&IR))
    return (*C)->begin()->getFunction().getParent();
  return nullptr;
}

/// At the optimizer-last point: the module's appended sub-pipelines and its
/// "nooutline" attributes.
class ReplayPass : public PassInfoMixin<ReplayPass> {
public:
  ReplayPass(PassBuilder &PB, std::shared_ptr<Replay> R)
      : PB(PB), R(std::move(R)) {}

  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    if (!R->Error.empty()) {
      ircommon::reportError(M.getContext(), "irtk: " + R->Error);
      return PreservedAnalyses::all();
    }
    const PipelineChoice *C = R->choice(M);
    if (!C)
      return PreservedAnalyses::all();
    bool Changed = false;
    if (!C->Append.empty()) {
      ModulePassManager MPM;
      if (Error E = PB.parsePassPipeline(MPM, C->Append)) {
        ircommon::reportError(M.getContext(), "irtk: the pipeline choice of " +
                                                  M.getSourceFileName() + ": " +
                                                  toString(std::move(E)));
        return PreservedAnalyses::all();
      }
      MPM.run(M, MAM);
      Changed = true;
    }
    if (!C->Outline)
      for (Function &F : M)
        if (!F.isDeclaration() && !F.hasFnAttribute("nooutline")) {
          F.addFnAttr("nooutline");
          Changed = true;
        }
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }

  static bool isRequired() { return true; }

private:
  PassBuilder &PB;
  std::shared_ptr<Replay> R;
};

} // namespace

void registerPipelineAdvisor(
    PassBuilder &PB,
    std::function<std::optional<PipelineAdvisorOptions>()> GetOptions) {
  // Read when the first pipeline is built (the options are parsed by
  // then); the vetoes look at what that read gave.
  auto State = std::make_shared<std::shared_ptr<Replay>>();
  PB.registerOptimizerLastEPCallback(
      [&PB, GetOptions, State](ModulePassManager &MPM, OptimizationLevel,
                               ThinOrFullLTOPhase) {
        if (!*State) {
          std::optional<PipelineAdvisorOptions> O = GetOptions();
          if (!O)
            return;
          auto R = std::make_shared<Replay>();
          if (O->Model && O->ModelPath.empty() &&
              !O->ShippedModelPath.empty() &&
              sys::fs::exists(O->ShippedModelPath))
            O->ModelPath = O->ShippedModelPath;
          if (O->Model && O->ModelPath.empty()) {
            R->Error = "-irtk-pipeline-policy=model wants "
                       "-irtk-pipeline-model=<file> (written by python3 -m "
                       "ir2vec.mlgo learn --save or nearest --save): the "
                       "shipped model is not beside the plugin (" +
                       O->ShippedModelPath + ")";
          } else if (O->Model) {
            if (Expected<PipelineModel> M = PipelineModel::read(O->ModelPath)) {
              R->Model = std::move(*M);
              if (R->Model->needsVocabulary()) {
                if (Expected<vocab::Vocabulary> V =
                        ir2vec::loadVocabulary(O->VocabPath))
                  R->Vocab =
                      std::make_shared<const vocab::Vocabulary>(std::move(*V));
                else
                  R->Error = toString(V.takeError());
              }
              if (R->Error.empty() && R->Vocab &&
                  !R->Model->fitsVocabulary(R->Vocab->dimension()))
                R->Error = O->ModelPath + ": the model's states are " +
                           std::to_string(R->Model->width()) +
                           " numbers wide; the vocabulary's vectors do not "
                           "make that";
            } else {
              R->Error = toString(M.takeError());
            }
          } else if (O->ChoicesPath.empty()) {
            R->Error = "-irtk-pipeline-policy=replay wants "
                       "-irtk-pipeline-choices=<file>";
          } else if (Expected<StringMap<PipelineChoice>> C =
                         readPipelineChoices(O->ChoicesPath)) {
            R->Choices = std::move(*C);
          } else {
            R->Error = toString(C.takeError());
          }
          *State = std::move(R);
        }
        MPM.addPass(ReplayPass(PB, *State));
      });
  PassInstrumentationCallbacks *PIC = PB.getPassInstrumentationCallbacks();
  if (!PIC)
    return;
  PIC->registerShouldRunOptionalPassCallback(
      [PIC, State](StringRef ClassName, Any IR) {
        Replay *R = State->get();
        if (!R)
          return true;
        const Module *M = moduleOf(IR);
        if (!M || !R->choice(*M) || R->LastVeto.empty())
          return true;
        return !R->LastVeto.contains(PIC->getPassNameForClassName(ClassName));
      });
}

} // namespace irtk::advisors
