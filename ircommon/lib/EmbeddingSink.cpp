//===- EmbeddingSink.cpp - Embedding records of both IR kinds -------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/ircommon/EmbeddingSink.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Function.h"

#include <cassert>

using namespace llvm;

namespace irtk::ircommon {

void WalkOptions::selectLevel(LevelKind L) {
  Functions = L == LevelKind::Function;
  Blocks = L == LevelKind::BasicBlock;
  Instructions = L == LevelKind::Instruction;
  Module = L == LevelKind::Module;
}

WalkOptions OutputOptions::walkOptions() const {
  WalkOptions W;
  W.selectLevel(Level);
  W.InstructionText = Level == LevelKind::Instruction;
  W.FunctionName = FunctionName;
  return W;
}

EmbeddingSink::~EmbeddingSink() = default;

void ModuleSum::add(const EmbeddingRecord &R) {
  assert(R.Vector.size() == Sum.size() && "dimension mismatch");
  for (size_t I = 0; I < Sum.size(); ++I)
    Sum[I] += R.Vector[I];
  Instructions += R.FunctionInstructions;
  Blocks += R.FunctionBlocks;
}

void ModuleSum::emit(EmbeddingSink &S) const {
  EmbeddingRecord R;
  R.Level = LevelKind::Module;
  R.Vector = Sum;
  R.FunctionInstructions = Instructions;
  R.FunctionBlocks = Blocks;
  S.beginLevel(LevelKind::Module);
  S.record(R);
}

void recordFunction(const WalkOptions &Opts, const EmbeddingRecord &R,
                    EmbeddingSink &S, ModuleSum *Sum) {
  if (Sum)
    Sum->add(R);
  if (Opts.Functions) {
    S.beginLevel(LevelKind::Function);
    S.record(R);
  }
}

store::IndexRecord siteOf(const EmbeddingRecord &R, StringRef Module,
                          StringRef Demangled) {
  store::IndexRecord Site = store::makeIndexRecord(
      R.Level, Module, R.F ? R.F->getName() : "", R.F ? Demangled : "",
      R.BlockName, R.BlockIndex, R.InstIndex, R.InstText.ltrim(' '));
  Site.Instructions = R.FunctionInstructions;
  Site.Blocks = R.FunctionBlocks;
  return Site;
}

SiteSink::SiteSink(StringRef Module, StringRef Kind, raw_ostream &OS)
    : Module(Module.str()), Kind(Kind.str()), OS(&OS) {}

SiteSink::SiteSink(StringRef Module, store::RowBatch &Out)
    : Module(Module.str()), Out(&Out) {}

void SiteSink::beginFunction(const Function &F) {
  Demangled = demangle(F.getName());
}

void SiteSink::record(const EmbeddingRecord &R) {
  store::IndexRecord Site = siteOf(R, Module, Demangled);
  if (OS)
    store::writeEmbeddingLine(Site, Kind, R.Vector, *OS);
  else
    Out->append(R.Vector, std::move(Site));
}

} // namespace irtk::ircommon
