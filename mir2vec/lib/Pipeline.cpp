//===- Pipeline.cpp - The target's code generation pipeline ---------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Pipeline.h"

#include "irtk/mir2vec/Loader.h"

#include "llvm/Analysis/RuntimeLibcallInfo.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/CodeGen/MachineModuleInfo.h"
#include "llvm/CodeGen/Passes.h"
#include "llvm/CodeGen/TargetPassConfig.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/InitializePasses.h"
#include "llvm/Pass.h"
#include "llvm/PassInfo.h"
#include "llvm/PassRegistry.h"
#include "llvm/Target/TargetMachine.h"

#include <mutex>
#include <string>

using namespace llvm;

namespace irtk::mir2vec {

namespace {

/// The order in which the markers below were made while a pipeline was
/// built: 'S' after the pass looked for, 'I' after instruction selection.
thread_local std::string *MarkerLog = nullptr;

/// Passes that are built, never run: inserted after a pass of interest,
/// they tell where it occurs in a pipeline.
template <char Tag> struct Marker : public ImmutablePass {
  static char ID;
  Marker() : ImmutablePass(ID) {
    if (MarkerLog)
      MarkerLog->push_back(Tag);
  }
  StringRef getPassName() const override { return "irtk pipeline marker"; }
};
template <char Tag> char Marker<Tag>::ID = 0;

using PointMarker = Marker<'S'>;
using ISelMarker = Marker<'I'>;

template <typename PassT> void registerMarker(const char *Arg) {
  static PassInfo Info("irtk pipeline marker", Arg, &PassT::ID,
                       PassInfo::NormalCtor_t(callDefaultCtor<PassT>),
                       /*CFGOnly=*/false, /*IsAnalysis=*/true);
  PassRegistry::getPassRegistry()->registerPass(Info);
}

struct ParsedPoint {
  StringRef Pass;
  unsigned Instance = 0;
};

Expected<ParsedPoint> parsePoint(StringRef Option, StringRef Value) {
  ParsedPoint P;
  auto [Name, Instance] = Value.split(',');
  P.Pass = Name.trim();
  if (P.Pass.empty())
    return createStringError(inconvertibleErrorCode(),
                             Option + "=" + Value + ": no pass named");
  if (Value.contains(',') && Instance.trim().getAsInteger(10, P.Instance))
    return createStringError(inconvertibleErrorCode(),
                             Option + "=" + Value +
                                 ": the instance after ',' must be a "
                                 "non-negative integer");
  return P;
}

} // namespace

void initializeCodeGenPasses() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    PassRegistry &R = *PassRegistry::getPassRegistry();
    initializeCore(R);
    initializeCodeGen(R);
    initializeLoopStrengthReducePass(R);
    initializePostInlineEntryExitInstrumenterPass(R);
    initializeUnreachableBlockElimLegacyPassPass(R);
    initializeConstantHoistingLegacyPassPass(R);
    initializeScalarOpts(R);
    initializeVectorization(R);
    initializeScalarizeMaskedMemIntrinLegacyPassPass(R);
    initializeTransformUtils(R);
    registerMarker<PointMarker>("irtk-point-marker");
    registerMarker<ISelMarker>("irtk-isel-marker");
  });
}

Error addCodeGenPipeline(
    TargetMachine &TM, legacy::PassManager &PM,
    MachineModuleInfoWrapperPass *MMIWP,
    const std::function<void(TargetPassConfig &)> &Adjust) {
  // As llc: the library and runtime-call information of the target, not
  // the defaults the pass registry would make (which change instruction
  // selection, e.g. of memcpy).
  PM.add(new TargetLibraryInfoWrapperPass(
      TargetLibraryInfoImpl(TM.getTargetTriple(), TM.Options.VecLib)));
  PM.add(new RuntimeLibraryInfoWrapper(
      TM.getTargetTriple(), TM.Options.ExceptionModel, TM.Options.FloatABIType,
      TM.Options.EABIVersion, TM.Options.MCOptions.ABIName, TM.Options.VecLib));
  TargetPassConfig *Config = TM.createPassConfig(PM);
  PM.add(Config);
  PM.add(MMIWP);
  if (Adjust)
    Adjust(*Config);
  if (Config->addISelPasses())
    return createStringError(inconvertibleErrorCode(),
                             "the target cannot select instructions");
  Config->addMachinePasses();
  Config->setInitialized();
  return Error::success();
}

Expected<PipelinePoint> findPipelinePoint(const TargetMachine &TM,
                                          StringRef Option, StringRef Value) {
  initializeCodeGenPasses();
  Expected<ParsedPoint> P = parsePoint(Option, Value);
  if (!P)
    return P.takeError();
  std::string Where = (Option + "=" + Value).str();
  const PassInfo *Info = PassRegistry::getPassRegistry()->getPassInfo(P->Pass);
  if (!Info)
    return createStringError(inconvertibleErrorCode(),
                             Where + ": no pass '" + P->Pass +
                                 "' (`llc -debug-pass=Arguments` lists the "
                                 "pipeline's passes)");

  // The whole pipeline, built and not run, on a target machine of its own
  // (building a pipeline changes the machine).
  Expected<std::unique_ptr<TargetMachine>> Copy =
      createTargetMachine(TM.getTargetTriple().str(), TM.getOptLevel());
  if (!Copy)
    return Copy.takeError();
  std::string Log;
  {
    legacy::PassManager PM;
    MarkerLog = &Log;
    Error E = addCodeGenPipeline(
        **Copy, PM, new MachineModuleInfoWrapperPass(Copy->get()),
        [&](TargetPassConfig &C) {
          C.insertPass(&FinalizeISelID, &ISelMarker::ID);
          C.insertPass(Info->getTypeInfo(), &PointMarker::ID);
        });
    MarkerLog = nullptr;
    if (E)
      return E;
  }

  size_t Seen = 0, At = StringRef::npos;
  for (size_t I = 0; I < Log.size(); ++I)
    if (Log[I] == 'S' && Seen++ == P->Instance) {
      At = I;
      break;
    }
  if (At == StringRef::npos) {
    std::string Pipeline = "the " + TM.getTargetTriple().str() +
                           " pipeline at -O" +
                           std::to_string(static_cast<int>(TM.getOptLevel()));
    std::string Pass = "'" + P->Pass.str() + "'";
    std::string Runs = Seen == 0 ? "does not run " + Pass
                       : Seen == 1
                           ? "runs " + Pass + " once (instance 0)"
                           : "runs " + Pass + " " + std::to_string(Seen) +
                                 " times (instances 0 to " +
                                 std::to_string(Seen - 1) + ")";
    return createStringError(inconvertibleErrorCode(),
                             Where + ": " + Pipeline + " " + Runs);
  }
  // Markers follow the run they mark, selection's first when both follow
  // one pass: there is machine code before or after the run if selection's
  // marker comes first.
  size_t ISel = Log.find('I');
  if (ISel == StringRef::npos || ISel > At)
    return createStringError(inconvertibleErrorCode(),
                             Where +
                                 ": this point is before instruction "
                                 "selection, where there is no machine code");
  return PipelinePoint{Info, P->Instance};
}

} // namespace irtk::mir2vec
