//===- Walk.cpp - One walk over a module's embeddings ---------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The walker and the linear-time instruction printer. Instructions are cut
/// out of one listing per function; instructions that take a metadata node
/// as an operand, which Instruction::print numbers against the whole module,
/// are printed the slow way to stay identical.
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Walk.h"
#include "irtk/support/Symbols.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/AssemblyAnnotationWriter.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ModuleSlotTracker.h"
#include "llvm/Support/FormattedStream.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace irtk::ir2vec {

bool functionMatches(const Function &F, StringRef Name) {
  return support::symbolMatches(F.getName(), Name);
}

static bool referencesMDNode(const Instruction &I) {
  for (const Use &Op : I.operands())
    if (const auto *MV = dyn_cast<MetadataAsValue>(Op.get()))
      if (isa<MDNode>(MV->getMetadata()))
        return true;
  return false;
}

/// Records where each instruction's text starts and ends in a function
/// listing: the assembly writer calls emitInstructionAnnot right before an
/// instruction and printInfoComment right after it.
class InstructionPrinter::Recorder : public AssemblyAnnotationWriter {
public:
  void emitInstructionAnnot(const Instruction *I,
                            formatted_raw_ostream &OS) override {
    Start = OS.tell();
  }
  void printInfoComment(const Value &V, formatted_raw_ostream &OS) override {
    if (const auto *I = dyn_cast<Instruction>(&V))
      Spans[I] = {Start, static_cast<uint64_t>(OS.tell())};
  }

  std::string Listing;
  DenseMap<const Instruction *, std::pair<uint64_t, uint64_t>> Spans;

private:
  uint64_t Start = 0;
};

InstructionPrinter::InstructionPrinter() : Rec(std::make_unique<Recorder>()) {}
InstructionPrinter::~InstructionPrinter() = default;

void InstructionPrinter::setFunction(const Function &F) {
  Rec->Listing.clear();
  Rec->Spans.clear();
  raw_string_ostream OS(Rec->Listing);
  // Buffered: over an unbuffered stream the assembly writer's formatted
  // stream turns every token into a separate write.
  OS.SetBuffered();
  F.print(OS, Rec.get());
  OS.flush();
}

StringRef InstructionPrinter::text(const Instruction &I) {
  // Instruction::print numbers metadata against the whole module when the
  // instruction takes a metadata node operand; follow it there.
  auto It = Rec->Spans.find(&I);
  if (referencesMDNode(I) || It == Rec->Spans.end()) {
    Scratch.clear();
    raw_string_ostream OS(Scratch);
    I.print(OS);
    return Scratch;
  }
  return StringRef(Rec->Listing).slice(It->second.first, It->second.second);
}

void InstructionPrinter::print(raw_ostream &OS, const Instruction &I) {
  OS << text(I);
}

WalkOptions WalkOptions::forLevel(EmbeddingKind K, LevelKind L) {
  WalkOptions O;
  O.Kind = K;
  O.selectLevel(L);
  return O;
}

Walker::Walker(const vocab::Vocabulary &V, WalkOptions Opts)
    : V(V), Opts(std::move(Opts)), Vec(V.dimension()), Cache(V) {}
Walker::~Walker() = default;

void Walker::numberBlocks(const Function &F) {
  if (!Slots || Slots->getModule() != F.getParent())
    Slots = std::make_unique<ModuleSlotTracker>(
        F.getParent(), /*ShouldInitializeAllMetadata=*/false);
  Slots->incorporateFunction(F);
}

StringRef Walker::blockLabel(const BasicBlock &BB) {
  if (BB.hasName())
    return BB.getName();
  // BasicBlock::printAsOperand's numbering, without its type and with
  // one tracker for the whole walk.
  Label = "%";
  int Slot = Slots->getLocalSlot(&BB);
  Label += Slot < 0 ? std::string("<badref>") : std::to_string(Slot);
  return Label;
}

void Walker::walkFunction(const Function &F, EmbeddingSink &S) {
  walkFunction(F, S, nullptr);
}

void Walker::walkFunction(const Function &F, EmbeddingSink &S,
                          ircommon::ModuleSum *Sum) {
  std::unique_ptr<Embedder> E = Embedder::create(Opts.Kind, F, V, &Cache);
  // At the module level alone a function has no records of its own.
  if (Opts.functionRecords())
    S.beginFunction(F);
  EmbeddingRecord R;
  R.F = &F;
  R.Vector = Vec;
  R.FunctionInstructions = F.getInstructionCount();
  R.FunctionBlocks = F.size();
  if (Opts.Functions || Sum) {
    // First, as for the function level alone: the flow-aware cache fills
    // in the same order.
    R.Level = LevelKind::Function;
    E->computeFunctionVector(Vec.data());
    ircommon::recordFunction(Opts, R, S, Sum);
  }
  if (Opts.BlockLabels && (Opts.Blocks || Opts.Instructions))
    numberBlocks(F);
  if (Opts.Blocks) {
    S.beginLevel(LevelKind::BasicBlock);
    R.Level = LevelKind::BasicBlock;
    R.BlockIndex = 0;
    for (const BasicBlock &BB : F) {
      R.BlockName = BB.getName();
      if (Opts.BlockLabels)
        R.BlockLabel = blockLabel(BB);
      E->computeBBVector(BB, Vec.data());
      S.record(R);
      ++R.BlockIndex;
    }
  }
  if (Opts.Instructions) {
    S.beginLevel(LevelKind::Instruction);
    R.Level = LevelKind::Instruction;
    if (Opts.InstructionText && !F.isDeclaration())
      Printer.setFunction(F);
    R.BlockIndex = 0;
    for (const BasicBlock &BB : F) {
      R.BlockName = BB.getName();
      if (Opts.BlockLabels)
        R.BlockLabel = blockLabel(BB);
      R.InstIndex = 0;
      // Every instruction, pseudo probes included, as upstream prints them
      // (block and function sums still skip debug and probe instructions).
      for (const Instruction &I : BB) {
        E->computeInstVector(I, Vec.data());
        if (Opts.InstructionText)
          R.InstText = Printer.text(I);
        S.record(R);
        ++R.InstIndex;
      }
      ++R.BlockIndex;
    }
  }
}

unsigned Walker::walkModule(const Module &M, EmbeddingSink &S) {
  std::optional<ircommon::ModuleSum> Sum;
  if (Opts.Module)
    Sum.emplace(V.dimension());
  ircommon::ModuleSum *SumPtr = Sum ? &*Sum : nullptr;
  unsigned Matched = 0;
  for (const Function &F : M) {
    if (!Opts.FunctionName.empty()) {
      if (!functionMatches(F, Opts.FunctionName))
        continue;
      ++Matched;
      if (F.isDeclaration() && !Opts.Declarations) {
        S.skippedDeclaration(F);
        continue;
      }
      walkFunction(F, S, SumPtr);
      continue;
    }
    if (F.isDeclaration() && !Opts.Declarations)
      continue;
    ++Matched;
    walkFunction(F, S, SumPtr);
  }
  if (Sum)
    Sum->emit(S);
  return Matched;
}

} // namespace irtk::ir2vec
