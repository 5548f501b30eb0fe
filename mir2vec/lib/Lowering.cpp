//===- Lowering.cpp - IR lowered to machine IR in-process -----------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/mir2vec/Lowering.h"

#include "irtk/ircommon/Diagnostics.h"
#include "irtk/ircommon/ModuleLoader.h"

#include "Pipeline.h"

#include "llvm/CodeGen/MachineFunctionPass.h"
#include "llvm/CodeGen/MachineModuleInfo.h"
#include "llvm/CodeGen/Passes.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/MCContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Target/TargetLoweringObjectFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace llvm;

namespace irtk::mir2vec {

std::string LoweringOptions::describe() const {
  if (!StopAfter.empty())
    return "after " + StopAfter;
  if (!StopBefore.empty())
    return "before " + StopBefore;
  return "at the end of code generation";
}

/// Sets LLVM's command-line option \p Name as if given on the command line.
static Error setGlobalOption(StringRef Name, StringRef Value) {
  auto Options = cl::getRegisteredOptions();
  auto It = Options.find(Name);
  if (It == Options.end())
    return createStringError(inconvertibleErrorCode(),
                             "LLVM has no -" + Name + " option");
  if (It->second->addOccurrence(0, Name, Value))
    return createStringError(inconvertibleErrorCode(),
                             "LLVM rejected -" + Name + "=" + Value);
  return Error::success();
}

Error configureLowering(const LoweringOptions &O, const TargetMachine &TM) {
  initializeCodeGenPasses();
  static std::mutex Mutex;
  static std::optional<std::pair<std::string, std::string>> Configured;
  std::lock_guard<std::mutex> Lock(Mutex);
  if (Configured) {
    if (*Configured == std::make_pair(O.StopAfter, O.StopBefore))
      return Error::success();
    return createStringError(
        inconvertibleErrorCode(),
        "one stop point per process: code generation "
        "already stops " +
            LoweringOptions{Configured->first, Configured->second}.describe());
  }
  if (!O.StopAfter.empty() && !O.StopBefore.empty())
    return createStringError(inconvertibleErrorCode(),
                             "--stop-after and --stop-before exclude each "
                             "other");
  StringRef Option = O.StopAfter.empty() ? "stop-before" : "stop-after";
  StringRef Value = O.StopAfter.empty() ? O.StopBefore : O.StopAfter;
  if (Value.empty()) {
    Configured.emplace(O.StopAfter, O.StopBefore);
    return Error::success();
  }

  if (Expected<PipelinePoint> P =
          findPipelinePoint(TM, "--" + Option.str(), Value);
      !P)
    return P.takeError();
  if (Error E = setGlobalOption(Option, Value))
    return E;
  Configured.emplace(O.StopAfter, O.StopBefore);
  return Error::success();
}

std::string loweringTriple(const Module &M, StringRef Override) {
  if (!Override.empty())
    return Override.str();
  if (!M.getTargetTriple().empty())
    return M.getTargetTriple().str();
  return sys::getDefaultTargetTriple();
}

namespace {

class PipelineRun;

/// The last pass before the machine functions are freed: hands each to the
/// visitor.
class CapturePass : public MachineFunctionPass {
public:
  static char ID;
  explicit CapturePass(PipelineRun &Run) : MachineFunctionPass(ID), Run(Run) {}
  StringRef getPassName() const override { return "irtk MIR capture"; }
  void getAnalysisUsage(AnalysisUsage &AU) const override {
    AU.setPreservesAll();
    MachineFunctionPass::getAnalysisUsage(AU);
  }
  bool runOnMachineFunction(MachineFunction &MF) override;

private:
  PipelineRun &Run;
};

char CapturePass::ID = 0;

/// llc's pipeline for one module, its printer replaced by CapturePass.
class PipelineRun : public DeferredLowering {
public:
  PipelineRun(Module &M, TargetMachine &TM, StringRef Name)
      : M(M), Name(Name.str()) {
    // The machine functions' symbols live in a context of ours, as llc's
    // do in the MachineModuleInfo's.
    MC = std::make_unique<MCContext>(
        TM.getTargetTriple(), TM.getMCAsmInfo(), TM.getMCRegisterInfo(),
        TM.getMCSubtargetInfo(), nullptr, &TM.Options.MCOptions, false);
    MC->setObjectFileInfo(TM.getObjFileLowering());
    PM = std::make_unique<legacy::PassManager>();
  }

  Error build(TargetMachine &TM) {
    if (Error E = addCodeGenPipeline(
            TM, *PM, new MachineModuleInfoWrapperPass(&TM, MC.get())))
      return E;
    PM->add(new CapturePass(*this));
    PM->add(createFreeMachineFunctionPass());
    return Error::success();
  }

  void run(Visitor Visit) override {
    if (!PM)
      return;
    ircommon::DiagnosticCollector C(M.getContext());
    Current = &Visit;
    PM->run(M);
    Current = nullptr;
    PM.reset();
    Warnings = std::move(C.Warnings);
    if (!C.FirstError.empty())
      Err = Name + ": " + C.FirstError;
  }

  const std::string &error() const override { return Err; }
  const std::vector<std::string> &warnings() const override { return Warnings; }

  void visit(const MachineFunction &MF) {
    if (Current && Err.empty())
      (*Current)(MF.getFunction(), MF);
  }

private:
  Module &M;
  std::string Name, Err;
  std::vector<std::string> Warnings;
  std::unique_ptr<MCContext> MC;
  /// Destroyed before MC: the machine functions refer to it.
  std::unique_ptr<legacy::PassManager> PM;
  Visitor *Current = nullptr;
};

bool CapturePass::runOnMachineFunction(MachineFunction &MF) {
  Run.visit(MF);
  return false;
}

} // namespace

/// The first call to another target's intrinsic (llvm.aarch64.* in an x86-64
/// module), which instruction selection cannot lower: it aborts the process
/// ("Cannot select"), so such modules are refused before lowering.
static std::optional<std::string> foreignIntrinsicCall(const Module &M,
                                                       const Triple &TT) {
  StringRef Ours = Triple::getArchTypePrefix(TT.getArch());
  for (const Function &F : M) {
    if (!F.isTargetIntrinsic())
      continue;
    StringRef Prefix = F.getName().drop_front(5).split('.').first;
    if (Prefix == Ours)
      continue;
    for (const User *U : F.users())
      if (const auto *CB = dyn_cast<CallBase>(U))
        return ("function '" + CB->getFunction()->getName() + "' calls " +
                F.getName() + ", an intrinsic of another target (" + Prefix +
                ") than " + TT.str() + ", which cannot be lowered")
            .str();
  }
  return std::nullopt;
}

MachineModule lowerModule(std::unique_ptr<Module> M, StringRef Name,
                          const LoweringOptions &O, StringRef TripleName) {
  MachineModule R;
  std::string TT = loweringTriple(*M, TripleName);
  if (std::optional<std::string> Call = foreignIntrinsicCall(*M, Triple(TT))) {
    R.Error = (Name + ": " + *Call).str();
    return R;
  }
  Expected<std::unique_ptr<TargetMachine>> TM =
      createTargetMachine(TT, O.OptLevel);
  if (!TM) {
    R.Error = (Name + ": " + toString(TM.takeError())).str();
    return R;
  }
  R.TM = std::move(*TM);
  M->setTargetTriple(Triple(TT));
  M->setDataLayout(R.TM->createDataLayout());
  R.M = std::move(M);
  auto Run = std::make_unique<PipelineRun>(*R.M, *R.TM, Name);
  if (Error E = Run->build(*R.TM)) {
    R.Error = (Name + ": " + toString(std::move(E))).str();
    R.release();
    return R;
  }
  R.Lowering = std::move(Run);
  return R;
}

MachineModule readMachineModule(
    std::unique_ptr<MemoryBuffer> Buf, StringRef Name, LLVMContext &Ctx,
    StringRef TripleName, const LoweringOptions &O,
    function_ref<Error(const Module &)> BeforeLowering, bool *LoweringFailed) {
  if (looksLikeMIR(Buf->getBuffer()))
    return loadMIRBuffer(std::move(Buf), Name, Ctx, TripleName);
  MachineModule R;
  ircommon::LoadedModule IR = ircommon::loadModule(*Buf, Ctx);
  if (!IR.M) {
    R.Error = IR.describe(Name);
    R.Warnings = std::move(IR.Warnings);
    return R;
  }
  if (BeforeLowering) {
    if (Error E = BeforeLowering(*IR.M)) {
      R.Error = toString(std::move(E));
      if (LoweringFailed)
        *LoweringFailed = true;
      return R;
    }
  }
  R = lowerModule(std::move(IR.M), Name, O, TripleName);
  R.Warnings.insert(R.Warnings.begin(), IR.Warnings.begin(), IR.Warnings.end());
  return R;
}

bool looksLikeMIR(StringRef Buf) {
  // Bitcode (raw or wrapped) and IR text never start a line with "---";
  // a .mir file is a YAML stream whose first document starts so.
  while (!Buf.empty()) {
    StringRef Line;
    std::tie(Line, Buf) = Buf.split('\n');
    Line = Line.trim();
    if (Line.empty() || Line.starts_with("#"))
      continue;
    return Line.starts_with("---");
  }
  return false;
}

} // namespace irtk::mir2vec
