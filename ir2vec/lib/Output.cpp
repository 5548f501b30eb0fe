//===- Output.cpp - Writing embeddings and triplets -----------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The text sink of the walker (upstream's format); JSON lines are
/// ircommon::SiteSink's.
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Output.h"
#include "irtk/ir2vec/Triplets.h"
#include "irtk/support/Format.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace irtk::support;

namespace irtk::ir2vec {

WalkOptions EmbeddingOutputOptions::walkOptions() const {
  WalkOptions W;
  static_cast<ircommon::WalkOptions &>(W) = OutputOptions::walkOptions();
  W.Kind = Kind;
  return W;
}

namespace {
/// Upstream llvm-ir2vec's text: "Function: <name>", then one vector line per
/// function, "<block>: [...]" per block, or "<instruction> [...]" per
/// instruction; and irtk's module level in the same shape: "Module: <module
/// name>", then the vector line.
class TextSink : public EmbeddingSink {
public:
  TextSink(raw_ostream &OS, StringRef ModuleName)
      : OS(OS), ModuleName(ModuleName) {}
  void beginFunction(const Function &F) override {
    OS << "Function: " << F.getName() << '\n';
  }
  void skippedDeclaration(const Function &F) override {
    OS << "Function " << F.getName() << " is a declaration, skipping.\n";
  }
  void record(const EmbeddingRecord &R) override {
    switch (R.Level) {
    case LevelKind::Module:
      OS << "Module: " << ModuleName << '\n';
      [[fallthrough]];
    case LevelKind::Function:
      printVector(OS, R.Vector);
      return;
    case LevelKind::BasicBlock:
      OS << R.BlockName << ':';
      break;
    case LevelKind::Instruction:
      OS << R.InstText;
      break;
    }
    // Block and instruction vectors repeat a great deal.
    VectorPrinter.print(OS, R.Vector);
  }

private:
  raw_ostream &OS;
  StringRef ModuleName;
  CachedVectorPrinter VectorPrinter;
};

} // namespace

unsigned writeEmbeddings(const Module &M, const vocab::Vocabulary &V,
                         const EmbeddingOutputOptions &Opts, raw_ostream &OS) {
  Walker W(V, Opts.walkOptions());
  if (Opts.Format == OutputFormatKind::Text) {
    TextSink S(OS, Opts.ModuleName);
    return W.walkModule(M, S);
  }
  ircommon::SiteSink S(Opts.ModuleName, embeddingKindName(Opts.Kind), OS);
  return W.walkModule(M, S);
}

TripletSummary collectModuleTriplets(const Module &M,
                                     std::vector<vocab::Triplet> &Out,
                                     StringRef FunctionName) {
  TripletSummary Summary;
  for (const Function &F : M) {
    if (F.isDeclaration())
      continue;
    if (!FunctionName.empty() && !functionMatches(F, FunctionName))
      continue;
    Summary.MaxRelation =
        std::max(Summary.MaxRelation, collectTriplets(F, Out));
    ++Summary.Functions;
  }
  return Summary;
}

TripletSummary writeTriplets(const Module &M, raw_ostream &OS,
                             StringRef FunctionName) {
  std::vector<vocab::Triplet> Triplets;
  TripletSummary Summary = collectModuleTriplets(M, Triplets, FunctionName);
  for (const vocab::Triplet &T : Triplets)
    vocab::writeTripletLine(T, OS);
  return Summary;
}

void writeRelations(unsigned MaxRelation, raw_ostream &OS) {
  OS << MaxRelation + 1 << '\n';
  OS << "Type\t" << TypeRelation << '\n';
  OS << "Next\t" << NextRelation << '\n';
  for (unsigned R = ArgBase; R <= MaxRelation; ++R)
    OS << "Arg" << R - ArgBase << '\t' << R << '\n';
}

} // namespace irtk::ir2vec
