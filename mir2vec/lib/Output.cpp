//===- Output.cpp - Walking and writing MIR2Vec embeddings ----------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/mir2vec/Output.h"
#include "irtk/mir2vec/Embedder.h"

#include "irtk/support/Format.h"
#include "irtk/support/Symbols.h"

#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ModuleSlotTracker.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace irtk::support;

namespace irtk::mir2vec {

/// Calls \p Visit for the defined functions of \p MM that \p FunctionName
/// selects, in module order, with their machine function or null; returns
/// how many there were. A module lowered from IR is compiled now.
template <typename FnT>
static unsigned forEachFunction(const MachineModule &MM, StringRef FunctionName,
                                FnT Visit) {
  unsigned Matched = 0;
  auto VisitIfSelected = [&](const Function &F, const MachineFunction *MF) {
    if (!FunctionName.empty() &&
        !support::symbolMatches(F.getName(), FunctionName))
      return;
    ++Matched;
    Visit(F, MF);
  };
  if (!MM.Lowering) {
    for (const Function &F : MM.M->getFunctionDefs())
      VisitIfSelected(F, MM.machineFunction(F));
    return Matched;
  }
  // Code generation visits the functions it compiles in module order; the
  // definitions it skips between them have no machine function.
  auto Defs = MM.M->getFunctionDefs();
  auto Next = Defs.begin();
  MM.Lowering->run([&](const Function &F, const MachineFunction &MF) {
    while (Next != Defs.end() && &*Next != &F)
      VisitIfSelected(*Next++, nullptr);
    if (Next != Defs.end())
      ++Next;
    VisitIfSelected(F, &MF);
  });
  while (Next != Defs.end())
    VisitIfSelected(*Next++, nullptr);
  return Matched;
}

std::vector<const Function *>
functionsWithoutMachineCode(const MachineModule &MM, StringRef FunctionName) {
  std::vector<const Function *> Missing;
  for (const Function &F : MM.M->getFunctionDefs()) {
    if (!FunctionName.empty() &&
        !support::symbolMatches(F.getName(), FunctionName))
      continue;
    // Code generation skips available_externally definitions.
    bool HasMachineCode = MM.Lowering ? !F.hasAvailableExternallyLinkage()
                                      : MM.machineFunction(F) != nullptr;
    if (!HasMachineCode)
      Missing.push_back(&F);
  }
  return Missing;
}

/// The label of \p MBB (EmbeddingRecord::BlockLabel), in \p Storage: its
/// name as the MIR printer prints a block's, without the attributes and
/// the reference to an unnamed IR block.
static StringRef blockLabel(const MachineBasicBlock &MBB,
                            std::string &Storage) {
  Storage.clear();
  raw_string_ostream OS(Storage);
  const BasicBlock *BB = MBB.getBasicBlock();
  MBB.printName(OS, BB && BB->hasName() ? MachineBasicBlock::PrintNameIr : 0);
  return Storage;
}

/// Walks \p MF, the machine function of \p F. \p MST prints instruction
/// text: MachineInstr's own print builds a slot tracker of the whole
/// module, metadata included, for every instruction (quadratic); its
/// numbering is the module's whatever function is printed, so one tracker
/// for a walk prints the same text.
/// \p Sum, when given, gets the function vector (the module level).
static void walkFunction(const Function &F, const MachineFunction &MF,
                         const vocab::Vocabulary &V, const TargetLayout &L,
                         const WalkOptions &Opts, EmbeddingSink &S,
                         std::optional<ModuleSlotTracker> &MST,
                         ircommon::ModuleSum *Sum) {
  std::vector<double> Vec(V.dimension());
  std::string Label;
  EmbeddingRecord R;
  R.F = &F;
  R.Vector = Vec;
  R.FunctionInstructions = MF.getInstructionCount();
  R.FunctionBlocks = MF.size();
  // At the module level alone a function has no records of its own.
  if (Opts.functionRecords())
    S.beginFunction(F);
  Embedder E(MF, V, L);
  if (Opts.Functions || Sum) {
    R.Level = LevelKind::Function;
    E.computeFunctionVector(Vec.data());
    ircommon::recordFunction(Opts, R, S, Sum);
  }
  if (Opts.Blocks) {
    S.beginLevel(LevelKind::BasicBlock);
    R.Level = LevelKind::BasicBlock;
    R.BlockIndex = 0;
    for (const MachineBasicBlock &MBB : MF) {
      R.BlockName = MBB.getName();
      if (Opts.BlockLabels)
        R.BlockLabel = blockLabel(MBB, Label);
      E.computeBlockVector(MBB, Vec.data());
      S.record(R);
      ++R.BlockIndex;
    }
  }
  if (Opts.Instructions) {
    S.beginLevel(LevelKind::Instruction);
    R.Level = LevelKind::Instruction;
    const TargetInstrInfo *TII = MF.getSubtarget().getInstrInfo();
    if (Opts.InstructionText) {
      if (!MST)
        MST.emplace(F.getParent());
      MST->incorporateFunction(F);
    }
    std::string Text;
    R.BlockIndex = 0;
    for (const MachineBasicBlock &MBB : MF) {
      R.BlockName = MBB.getName();
      if (Opts.BlockLabels)
        R.BlockLabel = blockLabel(MBB, Label);
      R.InstIndex = 0;
      for (const MachineInstr &MI : MBB) {
        E.computeInstVector(MI, Vec.data());
        if (Opts.InstructionText) {
          Text.clear();
          raw_string_ostream OS(Text);
          MI.print(OS, *MST, /*IsStandalone=*/true, /*SkipOpers=*/false,
                   /*SkipDebugLoc=*/false, /*AddNewLine=*/true, TII);
          R.InstText = StringRef(Text).rtrim('\n');
        }
        S.record(R);
        ++R.InstIndex;
      }
      ++R.BlockIndex;
    }
  }
}

unsigned walkModule(const MachineModule &MM, const vocab::Vocabulary &V,
                    const TargetLayout &L, const WalkOptions &Opts,
                    EmbeddingSink &S) {
  std::optional<ModuleSlotTracker> MST;
  std::optional<ircommon::ModuleSum> Sum;
  if (Opts.Module)
    Sum.emplace(V.dimension());
  unsigned Matched = forEachFunction(
      MM, Opts.FunctionName, [&](const Function &F, const MachineFunction *MF) {
        // As upstream: no machine function, no embedding.
        if (MF)
          walkFunction(F, *MF, V, L, Opts, S, MST, Sum ? &*Sum : nullptr);
      });
  if (Sum)
    Sum->emit(S);
  return Matched;
}

namespace {
/// Upstream's text for `llvm-ir2vec embeddings --mode=mir`, and irtk's
/// module level in its shape: "MIR2Vec embeddings for module <module
/// name>:", then "Module vector: " and the vector.
class TextSink : public EmbeddingSink {
public:
  TextSink(raw_ostream &OS, StringRef ModuleName)
      : OS(OS), ModuleName(ModuleName) {}
  void beginFunction(const Function &F) override {
    OS << "MIR2Vec embeddings for machine function " << F.getName() << ":\n";
  }
  void beginLevel(LevelKind L) override {
    if (L == LevelKind::Module)
      OS << "MIR2Vec embeddings for module " << ModuleName << ":\n";
    OS << levelHeading(L);
  }
  void record(const EmbeddingRecord &R) override {
    switch (R.Level) {
    case LevelKind::Function:
    case LevelKind::Module:
      printVector(OS, R.Vector);
      return;
    case LevelKind::BasicBlock:
      OS << "MBB " << R.BlockName << ": ";
      break;
    case LevelKind::Instruction:
      OS << R.InstText << "\n -> ";
      break;
    }
    VectorPrinter.print(OS, R.Vector);
  }

private:
  raw_ostream &OS;
  StringRef ModuleName;
  CachedVectorPrinter VectorPrinter;
};

} // namespace

unsigned writeEmbeddings(const MachineModule &MM, const vocab::Vocabulary &V,
                         const TargetLayout &L,
                         const EmbeddingOutputOptions &Opts, raw_ostream &OS) {
  if (Opts.Format == ircommon::OutputFormatKind::JSONL) {
    ircommon::SiteSink S(Opts.ModuleName, EmbeddingKindName, OS);
    return walkModule(MM, V, L, Opts.walkOptions(), S);
  }
  TextSink S(OS, Opts.ModuleName);
  return walkModule(MM, V, L, Opts.walkOptions(), S);
}

void writeFunctionEmbeddings(const MachineFunction &MF,
                             const vocab::Vocabulary &V, const TargetLayout &L,
                             const EmbeddingOutputOptions &Opts,
                             raw_ostream &OS) {
  std::optional<ModuleSlotTracker> MST;
  const Function &F = MF.getFunction();
  if (Opts.Format == ircommon::OutputFormatKind::JSONL) {
    ircommon::SiteSink S(Opts.ModuleName, EmbeddingKindName, OS);
    walkFunction(F, MF, V, L, Opts.walkOptions(), S, MST, nullptr);
  } else {
    TextSink S(OS, Opts.ModuleName);
    walkFunction(F, MF, V, L, Opts.walkOptions(), S, MST, nullptr);
  }
}

unsigned collectModuleRows(const MachineModule &MM, const vocab::Vocabulary &V,
                           const TargetLayout &L,
                           const EmbeddingOutputOptions &Opts,
                           store::RowBatch &Out) {
  ircommon::SiteSink S(Opts.ModuleName, Out);
  return walkModule(MM, V, L, Opts.walkOptions(), S);
}

store::StoreInfo makeStoreInfo(unsigned Dimension, LevelKind Level,
                               StringRef Vocabulary, const Weights &W,
                               StringRef Tool, StringRef Target,
                               const LoweringOptions &L) {
  store::StoreInfo Info;
  Info.Dimension = Dimension;
  Info.Level = levelName(Level).str();
  Info.Kind = EmbeddingKindName;
  Info.Vocabulary = Vocabulary.str();
  Info.Weights = {{"opcode", static_cast<double>(W.Opcode)},
                  {"common_operand", static_cast<double>(W.CommonOperand)},
                  {"register", static_cast<double>(W.Register)}};
  Info.Tool = Tool.str();
  Info.Source = {{"target", Target.str()},
                 {"opt_level", std::to_string(static_cast<int>(L.OptLevel))}};
  if (!L.StopAfter.empty())
    Info.Source.emplace_back("stop_after", L.StopAfter);
  if (!L.StopBefore.empty())
    Info.Source.emplace_back("stop_before", L.StopBefore);
  return Info;
}

Expected<StoreSettings> readStoreSettings(const store::StoreInfo &Info,
                                          StringRef Name) {
  auto Fail = [&](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(), Name + ": " + Msg);
  };
  if (Info.Kind != EmbeddingKindName)
    return Fail("\"kind\" is " + Info.Kind + ", not " + EmbeddingKindName);
  StoreSettings S;
  std::optional<LevelKind> Level = parseLevel(Info.Level);
  if (!Level)
    return Fail("\"level\" is not " + support::levelNames());
  S.Level = *Level;
  std::optional<double> Opc = Info.weight("opcode"),
                        Common = Info.weight("common_operand"),
                        Reg = Info.weight("register");
  if (!Opc || !Common || !Reg)
    return Fail("the weights are not opcode, common_operand and register");
  S.W.Opcode = static_cast<float>(*Opc);
  S.W.CommonOperand = static_cast<float>(*Common);
  S.W.Register = static_cast<float>(*Reg);
  S.Target = Info.source("target").str();
  if (S.Target.empty())
    return Fail("no \"source\" target: the store was written before "
                "llvm-ir2vec recorded how machine IR is made");
  StringRef OptLevel = Info.source("opt_level");
  if (OptLevel.size() != 1 || OptLevel[0] < '0' || OptLevel[0] > '3')
    return Fail("source \"opt_level\" is not 0 to 3");
  S.Lowering.OptLevel = static_cast<CodeGenOptLevel>(OptLevel[0] - '0');
  S.Lowering.StopAfter = Info.source("stop_after").str();
  S.Lowering.StopBefore = Info.source("stop_before").str();
  return S;
}

TripletSummary collectModuleTriplets(const MachineModule &MM,
                                     const TargetLayout &L,
                                     std::vector<vocab::Triplet> &Out,
                                     StringRef FunctionName) {
  TripletSummary Summary;
  // The entity of an operand needs no vocabulary, only the layout.
  Summary.Functions = forEachFunction(
      MM, FunctionName, [&](const Function &, const MachineFunction *MF) {
        if (!MF)
          return;
        const MachineRegisterInfo &MRI = MF->getRegInfo();
        bool HasPrev = false;
        EntityId Prev = 0;
        for (const MachineBasicBlock &MBB : *MF)
          for (const MachineInstr &MI : MBB) {
            if (MI.isDebugInstr())
              continue;
            EntityId Opc = L.opcodeEntity(MI.getOpcode());
            if (HasPrev)
              Out.push_back({Prev, Opc, NextRelation});
            unsigned Arg = 0;
            for (const MachineOperand &MO : MI.operands())
              Out.push_back(
                  {Opc,
                   operandEntity(MO, L, MRI).value_or(L.noRegisterEntity()),
                   ArgBase + Arg++});
            if (Arg > 0)
              Summary.MaxRelation =
                  std::max(Summary.MaxRelation, ArgBase + Arg - 1);
            Prev = Opc;
            HasPrev = true;
          }
      });
  return Summary;
}

void writeRelations(unsigned MaxRelation, raw_ostream &OS) {
  OS << MaxRelation + 1 << '\n';
  OS << "Next\t" << NextRelation << '\n';
  for (unsigned R = ArgBase; R <= MaxRelation; ++R)
    OS << "Arg" << R - ArgBase << '\t' << R << '\n';
}

} // namespace irtk::mir2vec
