//===- Loader.cpp - Reading machine IR ------------------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/mir2vec/Loader.h"

#include "irtk/ircommon/Diagnostics.h"
#include "irtk/support/ReadFile.h"
#include "irtk/vocab/VocabularyPath.h"

#include "Verify.h"

#include "llvm/CodeGen/MIRParser/MIRParser.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace llvm;

namespace irtk::mir2vec {

void initializeTargets() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    InitializeAllTargetInfos();
    InitializeAllTargets();
    InitializeAllTargetMCs();
    InitializeAllAsmParsers();
    InitializeAllAsmPrinters();
  });
}

MachineFunction *MachineModule::machineFunction(const Function &F) const {
  return MMI ? MMI->getMachineFunction(F) : nullptr;
}

DeferredLowering::~DeferredLowering() = default;

void MachineModule::release() {
  MMI = nullptr;
  Lowering.reset();
  OwnedMMI.reset();
  M.reset();
}

/// "<file>:<line>:<col>: <message>" from \p D, or \p Name and the message.
static std::string describe(const SMDiagnostic &D, StringRef Name) {
  std::string S = Name.str();
  if (D.getLineNo() > 0) {
    S += ":" + std::to_string(D.getLineNo());
    if (D.getColumnNo() >= 0)
      S += ":" + std::to_string(D.getColumnNo() + 1);
  }
  return S + ": " + D.getMessage().str();
}

MachineModule loadMIRFile(StringRef Path, LLVMContext &Ctx,
                          StringRef TripleOverride) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = support::readFile(Path, "");
  std::string Name = Path == "-" ? "<stdin>" : Path.str();
  if (!Buf) {
    MachineModule R;
    R.Error = toString(Buf.takeError());
    return R;
  }
  return loadMIRBuffer(std::move(*Buf), Name, Ctx, TripleOverride);
}

MachineModule loadMIRBuffer(std::unique_ptr<MemoryBuffer> Buf, StringRef Name,
                            LLVMContext &Ctx, StringRef TripleOverride) {
  MachineModule R;
  ircommon::DiagnosticCollector C(Ctx);
  // What the parser reads: the file with the verifier deferred (Verify.h).
  std::string BufferName = Buf->getBufferIdentifier().str();
  DeferredVerification Deferred = deferVerification(Buf->getBuffer());
  if (!Deferred.Error.empty()) {
    R.Error = (Name + ":" + Deferred.Error).str();
    return R;
  }
  Buf = MemoryBuffer::getMemBufferCopy(Deferred.Text, BufferName);
  // A location in the parser's copy, moved back to the file's line.
  auto Relocate = [&](std::string Msg) {
    bool InBuffer = StringRef(Msg).starts_with(BufferName + ":");
    return Deferred.originalLocation(std::move(Msg),
                                     InBuffer ? StringRef(BufferName) : Name);
  };
  // The target a file without a triple (and no override) is read for.
  std::string AssumedTriple;
  auto Finish = [&](std::string Error) {
    R.Warnings.clear();
    for (std::string &W : C.Warnings)
      R.Warnings.push_back(Relocate(std::move(W)));
    if (!AssumedTriple.empty())
      R.Warnings.push_back("the file names no target triple; read as " +
                           AssumedTriple + " (the host's)");
    if (Error.empty() && !C.FirstError.empty())
      Error = C.FirstError;
    // The YAML reader names the buffer "YAML", and some of the MIR
    // parser's errors have no location; name the file instead.
    if (StringRef(Error).starts_with("YAML:"))
      Error = (Name + Error.substr(4)).str();
    else if (StringRef(Error).starts_with("<unknown>:0: "))
      Error = (Name + Error.substr(11)).str();
    Error = Relocate(std::move(Error));
    if (!Error.empty()) {
      R.Error = std::move(Error);
      R.release();
    }
    return std::move(R);
  };

  SMDiagnostic Diag;
  std::unique_ptr<MIRParser> Parser = createMIRParser(std::move(Buf), Ctx);
  if (!Parser)
    return Finish(describe(Diag, Name));

  std::string TargetError;
  auto SetDataLayout = [&](StringRef DataLayoutTriple,
                           StringRef) -> std::optional<std::string> {
    Triple TT(TripleOverride.empty()
                  ? (DataLayoutTriple.empty() ? sys::getDefaultTargetTriple()
                                              : DataLayoutTriple.str())
                  : TripleOverride.str());
    if (TripleOverride.empty() && DataLayoutTriple.empty())
      AssumedTriple = TT.str();
    std::string Err;
    const Target *T = TargetRegistry::lookupTarget(TT, Err);
    if (!T) {
      TargetError = Err;
      return std::nullopt;
    }
    R.TM.reset(
        T->createTargetMachine(TT, "", "", TargetOptions(), std::nullopt));
    if (!R.TM) {
      TargetError = "cannot create a target machine for " + TT.str();
      return std::nullopt;
    }
    return R.TM->createDataLayout().getStringRepresentation();
  };
  R.M = Parser->parseIRModule(SetDataLayout);
  if (!TargetError.empty())
    return Finish((Name + ": " + TargetError).str());
  if (!R.M || !C.FirstError.empty())
    return Finish(C.FirstError.empty()
                      ? (Name + ": cannot parse the IR module").str()
                      : "");
  if (!R.TM)
    return Finish((Name + ": no target machine").str());
  if (!TripleOverride.empty())
    R.M->setTargetTriple(Triple(TripleOverride));
  R.OwnedMMI = std::make_unique<MachineModuleInfo>(R.TM.get());
  R.MMI = R.OwnedMMI.get();
  if (Parser->parseMachineFunctions(*R.M, *R.MMI))
    return Finish(C.FirstError.empty()
                      ? (Name + ": cannot parse the machine functions").str()
                      : "");
  for (Function &F : *R.M) {
    MachineFunction *MF = R.MMI->getMachineFunction(F);
    if (!MF || Deferred.FailedISel.contains(MF->getName()))
      continue;
    if (std::string Problem = verifyMachineFunction(*MF); !Problem.empty())
      return Finish((Name + ": " + Problem).str());
  }
  return Finish("");
}

Expected<std::unique_ptr<TargetMachine>>
createTargetMachine(StringRef TripleName, CodeGenOptLevel OptLevel) {
  Triple T(TripleName);
  std::string Err;
  const Target *Tgt = TargetRegistry::lookupTarget(T, Err);
  if (!Tgt)
    return createStringError(inconvertibleErrorCode(), Err);
  std::unique_ptr<TargetMachine> TM(Tgt->createTargetMachine(
      T, "", "", TargetOptions(), std::nullopt, std::nullopt, OptLevel));
  if (!TM)
    return createStringError(inconvertibleErrorCode(),
                             "cannot create a target machine for " + T.str());
  return TM;
}

std::string defaultVocabularyName(const TargetMachine &TM) {
  StringRef Target = TM.getTarget().getName();
  if (Target != "x86-64")
    return "";
  return ("mir2vec-" + Target + "-75d.json").str();
}

std::string defaultVocabularyPath(StringRef BinaryPath,
                                  const TargetMachine &TM) {
  std::string Name = defaultVocabularyName(TM);
  if (Name.empty())
    return "";
  return vocab::bundledVocabularyPath(BinaryPath, Name);
}

Expected<std::string> resolveVocabularyPath(StringRef Given, StringRef Default,
                                            const Twine &SetIt) {
  return vocab::resolveVocabularyPath(Given, Default, [&](StringRef Missing) {
    return ("MIR2Vec vocabulary file path not specified; " + SetIt +
            " (irtk bundles one for x86-64 only" +
            (Missing.empty() ? Twine(")") : ", none at '" + Missing + "')"))
        .str();
  });
}

std::shared_ptr<const TargetLayout> layoutOf(const TargetMachine &TM) {
  // The opcode and register tables are the target's; any function gives
  // a subtarget that holds them.
  LLVMContext Ctx;
  Module M("irtk-layout", Ctx);
  M.setTargetTriple(TM.getTargetTriple());
  Function *F = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false),
                                 GlobalValue::ExternalLinkage, "f", M);
  const TargetSubtargetInfo *STI = TM.getSubtargetImpl(*F);
  return TargetLayout::create(*STI->getInstrInfo(), *STI->getRegisterInfo(),
                              layoutDescription(TM));
}

std::string layoutDescription(const TargetMachine &TM) {
  return (TM.getTarget().getName() + Twine(" MIR")).str();
}

} // namespace irtk::mir2vec
