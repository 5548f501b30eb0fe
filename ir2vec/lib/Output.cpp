//===- Output.cpp - Writing embeddings, triplets and entities -------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Output writers. Instructions are printed through one ModuleSlotTracker per
/// function: Instruction::print without one renumbers the whole function for
/// every instruction, which is what makes upstream's instruction level
/// quadratic. The text is the same, except for instructions that take a
/// metadata node as an operand, which upstream numbers against the whole
/// module: those are printed the slow way to stay identical.
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Output.h"
#include "irtk/ir2vec/Format.h"
#include "irtk/ir2vec/Triplets.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/AssemblyAnnotationWriter.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormattedStream.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace irtk::ir2vec {

std::optional<LevelKind> parseLevel(StringRef S) {
  if (S == "inst")
    return LevelKind::Instruction;
  if (S == "bb")
    return LevelKind::BasicBlock;
  if (S == "func")
    return LevelKind::Function;
  return std::nullopt;
}

StringRef levelName(LevelKind L) {
  switch (L) {
  case LevelKind::Instruction:
    return "inst";
  case LevelKind::BasicBlock:
    return "bb";
  case LevelKind::Function:
    return "func";
  }
  llvm_unreachable("unknown level");
}

bool functionMatches(const Function &F, StringRef Name) {
  if (F.getName() == Name)
    return true;
  // Only mangled names can demangle to something else.
  if (!F.getName().starts_with("_Z") && !F.getName().starts_with("?"))
    return false;
  return demangle(F.getName()) == Name;
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

void InstructionPrinter::print(raw_ostream &OS, const Instruction &I) {
  // Instruction::print numbers metadata against the whole module when the
  // instruction takes a metadata node operand; follow it there.
  auto It = Rec->Spans.find(&I);
  if (referencesMDNode(I) || It == Rec->Spans.end()) {
    I.print(OS);
    return;
  }
  OS << StringRef(Rec->Listing).slice(It->second.first, It->second.second);
}

namespace {
/// Writes one module's embeddings in text or JSON-lines form, or hands each
/// one to a visitor instead.
class EmbeddingWriter {
public:
  EmbeddingWriter(const vocab::Vocabulary &V,
                  const EmbeddingOutputOptions &Opts, raw_ostream &OS,
                  function_ref<void(const EmbeddingRecord &)> Visit = nullptr)
      : V(V), Opts(Opts), OS(OS), Visit(Visit), Vec(V.dimension()) {}

  /// Whether this writer prints upstream's text format.
  bool isText() const {
    return !Visit && Opts.Format == OutputFormatKind::Text;
  }

  void writeFunction(const Function &F) {
    std::unique_ptr<Embedder> E = Embedder::create(Opts.Kind, F, V);
    bool Text = isText();
    if (Text)
      OS << "Function: " << F.getName() << '\n';
    switch (Opts.Level) {
    case LevelKind::Function:
      E->computeFunctionVector(Vec.data());
      if (Text)
        printVector(OS, Vec);
      else
        writeRecord(F, nullptr, 0, nullptr, 0);
      break;
    case LevelKind::BasicBlock: {
      unsigned BBIndex = 0;
      for (const BasicBlock &BB : F) {
        E->computeBBVector(BB, Vec.data());
        if (Text) {
          OS << BB.getName() << ':';
          VectorPrinter.print(OS, Vec);
        } else {
          writeRecord(F, &BB, BBIndex, nullptr, 0);
        }
        ++BBIndex;
      }
      break;
    }
    case LevelKind::Instruction: {
      Printer.setFunction(F);
      unsigned BBIndex = 0;
      for (const BasicBlock &BB : F) {
        unsigned InstIndex = 0;
        // Every instruction, pseudo probes included, as upstream prints
        // them (block and function sums still skip debug and probe
        // instructions).
        for (const Instruction &I : BB) {
          E->computeInstVector(I, Vec.data());
          if (Text) {
            Printer.print(OS, I);
            VectorPrinter.print(OS, Vec);
          } else {
            InstText.clear();
            raw_string_ostream IS(InstText);
            Printer.print(IS, I);
            writeRecord(F, &BB, BBIndex, &I, InstIndex);
          }
          ++InstIndex;
        }
        ++BBIndex;
      }
      break;
    }
    }
  }

private:
  void writeRecord(const Function &F, const BasicBlock *BB, unsigned BBIndex,
                   const Instruction *I, unsigned InstIndex) {
    if (Visit) {
      EmbeddingRecord R;
      R.F = &F;
      R.BB = BB;
      R.BlockIndex = BBIndex;
      R.I = I;
      R.InstIndex = InstIndex;
      if (I)
        R.InstText = StringRef(InstText).ltrim(' ');
      R.Vector = Vec;
      Visit(R);
      return;
    }
    OS << "{\"module\":";
    printJSONString(OS, Opts.ModuleName);
    OS << ",\"function\":";
    printJSONString(OS, F.getName());
    OS << ",\"demangled\":";
    printJSONString(OS, demangle(F.getName()));
    OS << ",\"level\":\"" << levelName(Opts.Level) << "\",\"kind\":\""
       << embeddingKindName(Opts.Kind) << '"';
    if (BB) {
      OS << ",\"block\":";
      printJSONString(OS, BB->getName());
      OS << ",\"block_index\":" << BBIndex;
    }
    if (I) {
      OS << ",\"inst_index\":" << InstIndex << ",\"inst\":";
      printJSONString(OS, StringRef(InstText).ltrim(' '));
    }
    OS << ",\"embedding\":";
    printJSONVector(OS, Vec);
    OS << "}\n";
  }

  const vocab::Vocabulary &V;
  const EmbeddingOutputOptions &Opts;
  raw_ostream &OS;
  function_ref<void(const EmbeddingRecord &)> Visit;
  InstructionPrinter Printer;
  CachedVectorPrinter VectorPrinter;
  std::vector<double> Vec;
  std::string InstText;
};
} // namespace

static unsigned writeModule(const Module &M, EmbeddingWriter &W,
                            const EmbeddingOutputOptions &Opts,
                            raw_ostream &OS) {
  unsigned Matched = 0;
  for (const Function &F : M) {
    if (!Opts.FunctionName.empty()) {
      if (!functionMatches(F, Opts.FunctionName))
        continue;
      ++Matched;
      if (F.isDeclaration()) {
        if (W.isText())
          OS << "Function " << F.getName() << " is a declaration, skipping.\n";
        continue;
      }
      W.writeFunction(F);
      continue;
    }
    if (F.isDeclaration())
      continue;
    ++Matched;
    W.writeFunction(F);
  }
  return Matched;
}

unsigned writeEmbeddings(const Module &M, const vocab::Vocabulary &V,
                         const EmbeddingOutputOptions &Opts, raw_ostream &OS) {
  EmbeddingWriter W(V, Opts, OS);
  return writeModule(M, W, Opts, OS);
}

unsigned forEachEmbedding(const Module &M, const vocab::Vocabulary &V,
                          const EmbeddingOutputOptions &Opts,
                          function_ref<void(const EmbeddingRecord &)> Visit) {
  EmbeddingWriter W(V, Opts, nulls(), Visit);
  return writeModule(M, W, Opts, nulls());
}

TripletSummary collectModuleTriplets(const Module &M, std::vector<Triplet> &Out,
                                     StringRef FunctionName) {
  TripletSummary Summary;
  size_t Before = Out.size();
  for (const Function &F : M) {
    if (F.isDeclaration())
      continue;
    if (!FunctionName.empty() && !functionMatches(F, FunctionName))
      continue;
    Summary.MaxRelation =
        std::max(Summary.MaxRelation, collectTriplets(F, Out));
    ++Summary.Functions;
  }
  Summary.Triplets = Out.size() - Before;
  return Summary;
}

void writeTripletLine(const Triplet &T, raw_ostream &OS) {
  OS << T.Head << '\t' << T.Tail << '\t' << T.Relation << '\n';
}

TripletSummary writeTriplets(const Module &M, raw_ostream &OS,
                             StringRef FunctionName) {
  std::vector<Triplet> Triplets;
  TripletSummary Summary = collectModuleTriplets(M, Triplets, FunctionName);
  for (const Triplet &T : Triplets)
    writeTripletLine(T, OS);
  return Summary;
}

bool TripletDeduplicator::insert(const Triplet &T) {
  // Ids and relations are far below 2^21: one 64-bit key per triplet.
  uint64_t Key = (uint64_t(T.Head) << 42) | (uint64_t(T.Tail) << 21) |
                 uint64_t(T.Relation);
  return Seen.insert(Key).second;
}

void writeRelations(unsigned MaxRelation, raw_ostream &OS) {
  OS << MaxRelation + 1 << '\n';
  OS << "Type\t" << TypeRelation << '\n';
  OS << "Next\t" << NextRelation << '\n';
  for (unsigned R = ArgBase; R <= MaxRelation; ++R)
    OS << "Arg" << R - ArgBase << '\t' << R << '\n';
}

void writeTripletHeader(unsigned MaxRelation, raw_ostream &OS) {
  OS << "MAX_RELATION=" << MaxRelation << '\n';
}

void writeEntities(raw_ostream &OS) {
  OS << vocab::NumEntities << '\n';
  for (vocab::EntityId Id = 0; Id < vocab::NumEntities; ++Id)
    OS << vocab::entityName(Id) << '\t' << Id << '\n';
}

} // namespace irtk::ir2vec
