//===- IRMode.cpp - llvm-ir2vec --mode=llvm -------------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// LLVM IR inputs: each is parsed and verified in a context of its own, then
/// handed to the ir2vec library's writers.
///
//===----------------------------------------------------------------------===//

#include "Mode.h"

#include "irtk/ir2vec/Entities.h"
#include "irtk/ir2vec/ModuleLoader.h"
#include "irtk/ir2vec/Output.h"
#include "irtk/ir2vec/StoreRows.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace llvm;

namespace irtk::cli {

ModeHandler::~ModeHandler() = default;

std::string recordedVocabularyPath(StringRef Path) {
  SmallString<256> P(Path);
  if (Path != "-")
    sys::fs::make_absolute(P);
  return std::string(P);
}

namespace {

class IRModeHandler : public ModeHandler {
public:
  void writeEntities(raw_ostream &OS) override {
    vocab::writeEntityList(*ir2vec::irLayout(), OS);
  }

  void writeRelations(unsigned MaxRelation, raw_ostream &OS) override {
    ir2vec::writeRelations(MaxRelation, OS);
  }

  unsigned minMaxRelation() const override { return ir2vec::NextRelation; }

  Error prepare(const Options &O, ArrayRef<std::string>,
                bool NeedVocabulary) override {
    if (!NeedVocabulary)
      return Error::success();
    Expected<vocab::Vocabulary> VOrErr =
        ir2vec::loadVocabulary(O.VocabPath, O.Weights);
    if (!VOrErr)
      return VOrErr.takeError();
    V.emplace(std::move(*VOrErr));
    return Error::success();
  }

  store::StoreInfo storeInfo(const Options &O) override {
    return ir2vec::makeStoreInfo(V->dimension(), O.Level, O.Kind,
                                 recordedVocabularyPath(O.VocabPath), O.Weights,
                                 StringRef(VersionText).trim());
  }

  void triplets(const std::string &Path, const Options &O,
                TripletsResult &R) override {
    LLVMContext Ctx;
    std::unique_ptr<Module> M = load(Path, Ctx, R);
    if (!M)
      return;
    ir2vec::TripletSummary S =
        ir2vec::collectModuleTriplets(*M, R.Triplets, O.FunctionName);
    R.MaxRelation = S.MaxRelation;
    R.Matched = S.Functions;
  }

  void embeddings(const std::string &Path, const Options &O, TextResult &R,
                  raw_ostream *Direct) override {
    LLVMContext Ctx;
    std::unique_ptr<Module> M = load(Path, Ctx, R);
    if (!M)
      return;
    raw_string_ostream Buffer(R.Text);
    R.Matched = ir2vec::writeEmbeddings(*M, *V, outputOptions(Path, O),
                                        Direct ? *Direct : Buffer);
  }

  void rows(const std::string &Path, const Options &O, RowsResult &R) override {
    LLVMContext Ctx;
    std::unique_ptr<Module> M = load(Path, Ctx, R);
    if (!M)
      return;
    R.Matched =
        ir2vec::collectModuleRows(*M, *V, outputOptions(Path, O), R.Rows);
  }

private:
  /// Parses and verifies \p Path into \p Ctx; on failure the error is in
  /// \p R and the result is null.
  static std::unique_ptr<Module> load(const std::string &Path, LLVMContext &Ctx,
                                      InputResult &R) {
    std::string Name = displayName(Path);
    ir2vec::LoadedModule L = ir2vec::loadModule(Path, Ctx);
    for (const std::string &W : L.Warnings)
      R.Warnings.push_back(Name + ": " + W);
    if (!L.M) {
      R.Error = L.describe(Name);
      return nullptr;
    }
    return std::move(L.M);
  }

  static ir2vec::EmbeddingOutputOptions outputOptions(const std::string &Path,
                                                      const Options &O) {
    ir2vec::EmbeddingOutputOptions EO;
    EO.Kind = O.Kind;
    EO.Level = O.Level;
    EO.Format = O.Format == FormatKind::JSONL ? ir2vec::OutputFormatKind::JSONL
                                              : ir2vec::OutputFormatKind::Text;
    EO.FunctionName = O.FunctionName;
    EO.ModuleName = displayName(Path);
    return EO;
  }

  std::optional<vocab::Vocabulary> V;
};

} // namespace

std::unique_ptr<ModeHandler> createIRModeHandler() {
  return std::make_unique<IRModeHandler>();
}

} // namespace irtk::cli
