//===- MIRMode.cpp - llvm-ir2vec --mode=mir -------------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Machine IR inputs (.mir files), each read with its own context and target
/// machine. A run has one target: the one --mtriple names, else the first
/// input's. Its layout gives the entity ids and the vocabulary; an input of
/// another target fails (its ids would mean other entities).
///
//===----------------------------------------------------------------------===//

#include "Mode.h"

#include "irtk/mir2vec/Loader.h"
#include "irtk/mir2vec/Output.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <optional>

using namespace llvm;

namespace irtk::cli {

namespace {

/// A module with the context it lives in; the module goes first.
struct LoadedMIR {
  std::unique_ptr<LLVMContext> Ctx = std::make_unique<LLVMContext>();
  mir2vec::MachineModule MM;
};

class MIRModeHandler : public ModeHandler {
public:
  Error prepare(const Options &O, ArrayRef<std::string> Inputs,
                bool NeedVocabulary) override {
    mir2vec::initializeTargets();
    if (!O.MTriple.empty()) {
      Expected<std::unique_ptr<TargetMachine>> TM =
          mir2vec::createTargetMachine(O.MTriple);
      if (!TM)
        return createStringError(inconvertibleErrorCode(),
                                 "--mtriple=" + O.MTriple + ": " +
                                     toString(TM.takeError()));
      setTarget(**TM);
    } else {
      // The first input that can be read names the target.
      std::string FirstError;
      for (const std::string &Path : Inputs) {
        LoadedMIR L = load(Path, O);
        if (L.MM.M) {
          setTarget(*L.MM.TM);
          // Kept for when the run reaches it: reading it is most of the
          // work.
          FirstPath = Path;
          First = std::make_unique<LoadedMIR>(std::move(L));
          break;
        }
        if (FirstError.empty())
          FirstError = L.MM.Error;
      }
      if (!Layout)
        return createStringError(
            inconvertibleErrorCode(),
            FirstError.empty()
                ? std::string("no input to take the target from; name it "
                              "with --mtriple")
                : FirstError);
    }
    if (!NeedVocabulary)
      return Error::success();
    Expected<vocab::Vocabulary> VOrErr =
        mir2vec::loadVocabulary(O.MIRVocabPath, *Layout, O.MIRWeights);
    if (!VOrErr)
      return VOrErr.takeError();
    V.emplace(std::move(*VOrErr));
    return Error::success();
  }

  void writeEntities(raw_ostream &OS) override {
    vocab::writeEntityList(*Layout->layout(), OS);
  }

  void writeRelations(unsigned MaxRelation, raw_ostream &OS) override {
    mir2vec::writeRelations(MaxRelation, OS);
  }

  unsigned minMaxRelation() const override { return mir2vec::NextRelation; }

  store::StoreInfo storeInfo(const Options &O) override {
    return mir2vec::makeStoreInfo(V->dimension(), O.Level,
                                  recordedVocabularyPath(O.MIRVocabPath),
                                  O.MIRWeights, StringRef(VersionText).trim());
  }

  void triplets(const std::string &Path, const Options &O,
                TripletsResult &R) override {
    LoadedMIR L = loadChecked(Path, O, R);
    const mir2vec::MachineModule &MM = L.MM;
    if (!MM.M)
      return;
    mir2vec::TripletSummary S =
        mir2vec::collectModuleTriplets(MM, *Layout, R.Triplets, O.FunctionName);
    R.MaxRelation = S.MaxRelation;
    R.Matched = S.Functions;
  }

  void embeddings(const std::string &Path, const Options &O, TextResult &R,
                  raw_ostream *Direct) override {
    LoadedMIR L = loadChecked(Path, O, R);
    const mir2vec::MachineModule &MM = L.MM;
    if (!MM.M)
      return;
    raw_string_ostream Buffer(R.Text);
    R.Matched = mir2vec::writeEmbeddings(
        MM, *V, *Layout, outputOptions(Path, O), Direct ? *Direct : Buffer);
  }

  void rows(const std::string &Path, const Options &O, RowsResult &R) override {
    LoadedMIR L = loadChecked(Path, O, R);
    const mir2vec::MachineModule &MM = L.MM;
    if (!MM.M)
      return;
    R.Matched = mir2vec::collectModuleRows(MM, *V, *Layout,
                                           outputOptions(Path, O), R.Rows);
  }

private:
  void setTarget(const TargetMachine &TM) {
    Layout = mir2vec::layoutOf(TM);
    Target = mir2vec::layoutDescription(TM);
  }

  /// Reads \p Path; standard input is read once and kept, since the first
  /// input is read twice when it names the target.
  LoadedMIR load(const std::string &Path, const Options &O) {
    LoadedMIR L;
    if (Path != "-") {
      L.MM = mir2vec::loadMIRFile(Path, *L.Ctx, O.MTriple);
      return L;
    }
    std::unique_ptr<MemoryBuffer> Copy;
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      if (!Stdin) {
        ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getSTDIN();
        if (!Buf) {
          L.MM.Error = "<stdin>: " + Buf.getError().message();
          return L;
        }
        Stdin = std::move(*Buf);
      }
      Copy = MemoryBuffer::getMemBufferCopy(Stdin->getBuffer(), "<stdin>");
    }
    L.MM =
        mir2vec::loadMIRBuffer(std::move(Copy), "<stdin>", *L.Ctx, O.MTriple);
    return L;
  }

  /// The module prepare() read, if \p Path is its input and it is still
  /// there; then load(). The warnings and the error go to \p R, and a module
  /// of another target than the run's is an error.
  LoadedMIR loadChecked(const std::string &Path, const Options &O,
                        InputResult &R) {
    LoadedMIR L;
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      if (First && Path == FirstPath) {
        L = std::move(*First);
        First.reset();
      }
    }
    if (!L.MM.M)
      L = load(Path, O);
    mir2vec::MachineModule &MM = L.MM;
    std::string Name = displayName(Path);
    for (const std::string &W : MM.Warnings)
      R.Warnings.push_back(Name + ": " + W);
    if (!MM.M) {
      R.Error = MM.Error;
      return L;
    }
    for (const Function *F :
         mir2vec::functionsWithoutMachineCode(MM, O.FunctionName))
      R.Warnings.push_back(Name + ": No MachineFunction for " +
                           F->getName().str());
    std::string Mine = mir2vec::layoutDescription(*MM.TM);
    if (Mine != Target) {
      R.Error = Name + ": the target is " + Mine + ", but this run's is " +
                Target + " (one target per run)";
      MM.MMI.reset();
      MM.M.reset();
    }
    return L;
  }

  static mir2vec::EmbeddingOutputOptions outputOptions(const std::string &Path,
                                                       const Options &O) {
    mir2vec::EmbeddingOutputOptions EO;
    EO.Level = O.Level;
    EO.JSONLines = O.Format == FormatKind::JSONL;
    EO.FunctionName = O.FunctionName;
    EO.ModuleName = displayName(Path);
    return EO;
  }

  std::shared_ptr<const mir2vec::TargetLayout> Layout;
  std::string Target;
  std::optional<vocab::Vocabulary> V;
  std::mutex Mutex;
  std::unique_ptr<MemoryBuffer> Stdin;
  std::string FirstPath;
  std::unique_ptr<LoadedMIR> First;
};

} // namespace

std::unique_ptr<ModeHandler> createMIRModeHandler() {
  return std::make_unique<MIRModeHandler>();
}

} // namespace irtk::cli
