//===- StoreRows.cpp - IR2Vec embeddings as store rows --------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// IR2Vec embeddings as store rows (through ircommon::SiteSink), and the
/// store metadata of IR2Vec.
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/StoreRows.h"
#include "irtk/ircommon/ModuleLoader.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace irtk::ir2vec {

/// Weight names in store.json, in the IR layout's section order.
static constexpr const char *WeightNames[] = {"opcode", "type", "argument"};

store::StoreInfo makeStoreInfo(unsigned Dimension, LevelKind Level,
                               EmbeddingKind Kind, StringRef Vocabulary,
                               const Weights &W, StringRef Tool) {
  store::StoreInfo Info;
  Info.Dimension = Dimension;
  Info.Level = levelName(Level).str();
  Info.Kind = embeddingKindName(Kind).str();
  Info.Vocabulary = Vocabulary.str();
  vocab::SectionWeights S = W.sections();
  for (unsigned I = 0; I < S.size(); ++I)
    // The float's exact value: it reads back as the same float.
    Info.Weights.emplace_back(WeightNames[I], static_cast<double>(S[I]));
  Info.Tool = Tool.str();
  return Info;
}

Expected<StoreSettings> readStoreSettings(const store::StoreInfo &Info,
                                          StringRef Name) {
  auto Fail = [&](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(), Name + ": " + Msg);
  };
  StoreSettings S;
  std::optional<LevelKind> L = parseLevel(Info.Level);
  if (!L)
    return Fail("\"level\" is not " + support::levelNames());
  S.Level = *L;
  std::optional<EmbeddingKind> K = parseEmbeddingKind(Info.Kind);
  if (!K)
    return Fail("\"kind\" is not symbolic or flow-aware");
  S.Kind = *K;
  float *Slots[] = {&S.W.Opcode, &S.W.Type, &S.W.Argument};
  for (unsigned I = 0; I < std::size(WeightNames); ++I) {
    std::optional<double> D = Info.weight(WeightNames[I]);
    if (!D)
      return Fail("\"weights\" lacks a number \"" + Twine(WeightNames[I]) +
                  "\"");
    *Slots[I] = static_cast<float>(*D);
  }
  return S;
}

unsigned collectModuleRows(const Module &M, const vocab::Vocabulary &V,
                           const EmbeddingOutputOptions &Opts,
                           store::RowBatch &Out) {
  Walker W(V, Opts.walkOptions());
  ircommon::SiteSink S(Opts.ModuleName, Out);
  return W.walkModule(M, S);
}

Expected<store::RowBatch> embedIRFile(StringRef Path,
                                      const vocab::Vocabulary &V,
                                      EmbeddingOutputOptions Opts) {
  LLVMContext Ctx;
  // Warnings are dropped: a query file is not a corpus input.
  ircommon::LoadedModule L = ircommon::loadModule(Path, Ctx);
  if (!L.M)
    return createStringError(inconvertibleErrorCode(), L.describe(Path));
  Opts.ModuleName = Path.str();
  store::RowBatch Rows;
  collectModuleRows(*L.M, V, Opts, Rows);
  return Rows;
}

} // namespace irtk::ir2vec
