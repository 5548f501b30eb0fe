//===- IRMode.cpp - LLVM IR inputs ----------------------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// LLVM IR inputs (`--mode=llvm`): each is parsed and verified in a context
/// of its own, then handed to the ir2vec library's writers.
///
//===----------------------------------------------------------------------===//

#include "Handlers.h"

#include "irtk/ir2vec/Entities.h"
#include "irtk/ir2vec/Output.h"
#include "irtk/ir2vec/StoreRows.h"
#include "irtk/ir2vec/Walk.h"
#include "irtk/ircommon/ModuleLoader.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace irtk::batch {

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
    if (O.Vocabulary) {
      V = O.Vocabulary;
      return Error::success();
    }
    Expected<vocab::Vocabulary> VOrErr =
        ir2vec::loadVocabulary(O.VocabPath, O.Weights);
    if (!VOrErr)
      return VOrErr.takeError();
    V = std::make_shared<const vocab::Vocabulary>(std::move(*VOrErr));
    return Error::success();
  }

  store::StoreInfo storeInfo(const Options &O) override {
    return ir2vec::makeStoreInfo(V->dimension(), O.Level, O.Kind,
                                 recordedVocabularyPath(O.VocabPath), O.Weights,
                                 O.Tool);
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

  void walk(const std::string &Path, const Options &O,
            const ircommon::WalkOptions &W, ircommon::EmbeddingSink &S,
            InputResult &R) override {
    LLVMContext Ctx;
    std::unique_ptr<Module> M = load(Path, Ctx, R);
    if (!M)
      return;
    ir2vec::WalkOptions IW;
    static_cast<ircommon::WalkOptions &>(IW) = W;
    IW.Kind = O.Kind;
    R.Matched = ir2vec::Walker(*V, IW).walkModule(*M, S);
  }

private:
  /// Parses and verifies \p Path into \p Ctx; on failure the error is in
  /// \p R and the result is null.
  static std::unique_ptr<Module> load(const std::string &Path, LLVMContext &Ctx,
                                      InputResult &R) {
    std::string Name = displayName(Path);
    ircommon::LoadedModule L = ircommon::loadModule(Path, Ctx);
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
    static_cast<ircommon::OutputOptions &>(EO) = inputOutputOptions(Path, O);
    EO.Kind = O.Kind;
    return EO;
  }

  std::shared_ptr<const vocab::Vocabulary> V;
};

} // namespace

std::unique_ptr<ModeHandler> createIRModeHandler() {
  return std::make_unique<IRModeHandler>();
}

} // namespace irtk::batch
