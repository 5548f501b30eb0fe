//===- MIRMode.cpp - Machine IR inputs ------------------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Machine IR inputs (`--mode=mir`: .mir files, or LLVM IR lowered
/// in-process), each read with its own context and target machine. A run has
/// one target: the one --mtriple names, else the first input's. Its layout
/// gives the entity ids and the vocabulary; an input of another target fails
/// (its ids would mean other entities).
///
//===----------------------------------------------------------------------===//

#include "Handlers.h"

#include "irtk/mir2vec/Loader.h"
#include "irtk/mir2vec/Lowering.h"
#include "irtk/mir2vec/Output.h"
#include "irtk/support/ReadFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <optional>

using namespace llvm;

namespace irtk::batch {

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
          mir2vec::createTargetMachine(O.MTriple, O.Lowering.OptLevel);
      if (!TM)
        return createStringError(inconvertibleErrorCode(),
                                 "--mtriple=" + O.MTriple + ": " +
                                     toString(TM.takeError()));
      setTarget(**TM, O);
      if (Error E = mir2vec::configureLowering(O.Lowering, **TM))
        return E;
      LoweringConfigured = true;
    } else {
      // The first input that can be read names the target.
      std::string FirstError;
      for (const std::string &Path : Inputs) {
        LoadedMIR L = load(Path, O);
        if (L.MM.M) {
          setTarget(*L.MM.TM, O);
          // Kept for when the run reaches it: reading it is most of the
          // work.
          FirstPath = Path;
          First = std::make_unique<LoadedMIR>(std::move(L));
          break;
        }
        if (LoweringFailed)
          return createStringError(inconvertibleErrorCode(), L.MM.Error);
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
    Expected<std::string> Path =
        mir2vec::resolveVocabularyPath(O.MIRVocabPath, DefaultVocabularyPath,
                                       "set it using " + O.MIRVocabOption);
    if (!Path)
      return Path.takeError();
    VocabularyPath = std::move(*Path);
    Expected<vocab::Vocabulary> VOrErr =
        mir2vec::loadVocabulary(VocabularyPath, *Layout, O.MIRWeights);
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
    return mir2vec::makeStoreInfo(
        V->dimension(), O.Level, recordedVocabularyPath(VocabularyPath),
        O.MIRWeights, O.Tool, TargetTriple, O.Lowering);
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
    if (loweringFailed(MM, Path, R))
      R.Triplets.clear();
  }

  void embeddings(const std::string &Path, const Options &O, TextResult &R,
                  raw_ostream *Direct) override {
    LoadedMIR L = loadChecked(Path, O, R);
    const mir2vec::MachineModule &MM = L.MM;
    if (!MM.M)
      return;
    raw_string_ostream Buffer(R.Text);
    // Code generation can fail half-way: keep a lowered module's text until
    // it has not.
    if (MM.Lowering)
      Direct = nullptr;
    R.Matched =
        mir2vec::writeEmbeddings(MM, *V, *Layout, inputOutputOptions(Path, O),
                                 Direct ? *Direct : Buffer);
    if (loweringFailed(MM, Path, R))
      R.Text.clear();
  }

  void rows(const std::string &Path, const Options &O, RowsResult &R) override {
    LoadedMIR L = loadChecked(Path, O, R);
    const mir2vec::MachineModule &MM = L.MM;
    if (!MM.M)
      return;
    R.Matched = mir2vec::collectModuleRows(MM, *V, *Layout,
                                           inputOutputOptions(Path, O), R.Rows);
    if (loweringFailed(MM, Path, R))
      R.Rows = {};
  }

  void walk(const std::string &Path, const Options &O,
            const ircommon::WalkOptions &W, ircommon::EmbeddingSink &S,
            InputResult &R) override {
    LoadedMIR L = loadChecked(Path, O, R);
    const mir2vec::MachineModule &MM = L.MM;
    if (!MM.M)
      return;
    R.Matched = mir2vec::walkModule(MM, *V, *Layout, W, S);
    loweringFailed(MM, Path, R);
  }

private:
  /// After the walk of a module lowered from IR: its warnings go to \p R,
  /// and whether code generation failed (then R.Error says why).
  static bool loweringFailed(const mir2vec::MachineModule &MM,
                             const std::string &Path, InputResult &R) {
    if (!MM.Lowering)
      return false;
    for (const std::string &W : MM.Lowering->warnings())
      R.Warnings.push_back(displayName(Path) + ": " + W);
    if (MM.Lowering->error().empty())
      return false;
    R.Error = MM.Lowering->error();
    return true;
  }

  void setTarget(const TargetMachine &TM, const Options &O) {
    TargetTriple = TM.getTargetTriple().str();
    std::string Name = mir2vec::defaultVocabularyName(TM);
    DefaultVocabularyPath.clear();
    if (!Name.empty()) {
      SmallString<256> P(O.BundledVocabularyDir);
      sys::path::append(P, Name);
      DefaultVocabularyPath = std::string(P);
    }
    Layout = mir2vec::layoutOf(TM);
    Target = mir2vec::layoutDescription(TM);
  }

  /// Reads \p Path: a .mir file, or LLVM IR (text or bitcode) lowered
  /// through code generation. Standard input is read once and kept, since
  /// the first input is read twice when it names the target.
  LoadedMIR load(const std::string &Path, const Options &O) {
    LoadedMIR L;
    std::string Name = displayName(Path);
    std::unique_ptr<MemoryBuffer> Buf;
    if (Path != "-") {
      support::ReadOptions RO;
      RO.IsText = false;
      RO.AllowStdin = false;
      Expected<std::unique_ptr<MemoryBuffer>> B =
          support::readFile(Path, "", RO);
      if (!B) {
        L.MM.Error = toString(B.takeError());
        return L;
      }
      Buf = std::move(*B);
    } else {
      std::lock_guard<std::mutex> Lock(Mutex);
      if (!Stdin) {
        ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getSTDIN();
        if (!B) {
          L.MM.Error = Name + ": " + B.getError().message();
          return L;
        }
        Stdin = std::move(*B);
      }
      Buf = MemoryBuffer::getMemBufferCopy(Stdin->getBuffer(), Name);
    }
    bool Failed = false;
    L.MM = mir2vec::readMachineModule(
        std::move(Buf), Name, *L.Ctx, O.MTriple, O.Lowering,
        [&](const Module &M) { return configureLowering(M, O); }, &Failed);
    if (Failed)
      LoweringFailed = true;
    return L;
  }

  /// Sets the process's code generation stop point (once), checked on the
  /// pipeline of \p M's target.
  Error configureLowering(const Module &M, const Options &O) {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (LoweringConfigured)
      return Error::success();
    Expected<std::unique_ptr<TargetMachine>> TM = mir2vec::createTargetMachine(
        mir2vec::loweringTriple(M, O.MTriple), O.Lowering.OptLevel);
    if (!TM)
      return TM.takeError();
    if (Error E = mir2vec::configureLowering(O.Lowering, **TM))
      return E;
    LoweringConfigured = true;
    return Error::success();
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
      MM.release();
    }
    return L;
  }

  std::shared_ptr<const mir2vec::TargetLayout> Layout;
  std::string Target;
  std::string TargetTriple;
  /// The vocabulary: --mir2vec-vocab-path, else the target's bundled one.
  std::string VocabularyPath, DefaultVocabularyPath;
  std::optional<vocab::Vocabulary> V;
  std::mutex Mutex;
  std::unique_ptr<MemoryBuffer> Stdin;
  bool LoweringConfigured = false;
  /// The stop point does not fit the pipeline: no input can be lowered.
  bool LoweringFailed = false;
  std::string FirstPath;
  std::unique_ptr<LoadedMIR> First;
};

} // namespace

std::unique_ptr<ModeHandler> createMIRModeHandler() {
  return std::make_unique<MIRModeHandler>();
}

} // namespace irtk::batch
