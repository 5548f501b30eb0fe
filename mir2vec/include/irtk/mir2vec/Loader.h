//===- Loader.h - Reading machine IR ----------------------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A .mir file read as llc reads it: its embedded IR module, a target
/// machine for the module's triple (or one given instead), and its machine
/// functions. LLVM's diagnostics are collected, never printed; a failure is
/// one line naming the file.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_MIR2VEC_LOADER_H
#define IRTK_MIR2VEC_LOADER_H

#include "irtk/mir2vec/Layout.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/CodeGen/MachineModuleInfo.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class MemoryBuffer;
class MachineFunction;
} // namespace llvm

namespace irtk::mir2vec {

/// Registers every target LLVM was built with (once per process).
void initializeTargets();

/// Code generation not run yet. A module lowered from IR hands out its
/// machine functions one at a time, each freed after it is visited, as llc
/// frees them: keeping them all changes how later functions are compiled
/// (a measured difference from llc's output on real code).
class DeferredLowering {
public:
  using Visitor = llvm::function_ref<void(const llvm::Function &,
                                          const llvm::MachineFunction &)>;
  virtual ~DeferredLowering();
  /// Runs code generation (once), calling \p Visit for each machine
  /// function at the stop point, in module order.
  virtual void run(Visitor Visit) = 0;
  /// After run(): the first error LLVM reported, "<name>: <message>", or "".
  virtual const std::string &error() const = 0;
  /// After run(): LLVM's warnings, one line each.
  virtual const std::vector<std::string> &warnings() const = 0;
};

/// A module with its machine functions: read from a .mir file (MMI holds
/// them), or lowered from IR (Lowering makes them when walked). Members are
/// destroyed in reverse order: the machine functions, the module, then the
/// target machine.
struct MachineModule {
  std::unique_ptr<llvm::TargetMachine> TM;
  std::unique_ptr<llvm::Module> M;
  /// Owns MMI when the module was read from a .mir file.
  std::unique_ptr<llvm::MachineModuleInfo> OwnedMMI;
  /// Set when the module was lowered from IR.
  std::unique_ptr<DeferredLowering> Lowering;
  /// The machine functions of a .mir file; null otherwise.
  llvm::MachineModuleInfo *MMI = nullptr;
  /// One line, naming the file, when reading failed (then M is null).
  std::string Error;
  std::vector<std::string> Warnings;

  /// The machine function of \p F in a .mir file, or null when \p F has
  /// none.
  llvm::MachineFunction *machineFunction(const llvm::Function &F) const;
  /// Drops the machine functions and the module, keeping Error and
  /// Warnings.
  void release();
};

/// Reads the .mir file \p Path ("-": standard input) into \p Ctx. The
/// target is \p Triple when it is not empty, else the module's triple, else
/// the host's. Call initializeTargets() first.
MachineModule loadMIRFile(llvm::StringRef Path, llvm::LLVMContext &Ctx,
                          llvm::StringRef Triple = "");
/// The same for MIR text in \p Buf, named \p Name in errors.
MachineModule loadMIRBuffer(std::unique_ptr<llvm::MemoryBuffer> Buf,
                            llvm::StringRef Name, llvm::LLVMContext &Ctx,
                            llvm::StringRef Triple = "");

/// A target machine for \p Triple (default CPU and features) at
/// \p OptLevel, as llc makes its own.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>> createTargetMachine(
    llvm::StringRef Triple,
    llvm::CodeGenOptLevel OptLevel = llvm::CodeGenOptLevel::Default);

/// The file name of the vocabulary irtk bundles for \p TM's target
/// (mir2vec-<target>-75d.json), or "" when irtk ships none for the target
/// (only X86-64 has one).
std::string defaultVocabularyName(const llvm::TargetMachine &TM);

/// That vocabulary, found beside the binary at \p BinaryPath as the IR one
/// is (<prefix>/share/irtk/vocab/), or "" when irtk ships none for the
/// target.
std::string defaultVocabularyPath(llvm::StringRef BinaryPath,
                                  const llvm::TargetMachine &TM);

/// The MIR2Vec vocabulary to load (vocab::resolveVocabularyPath): \p Given,
/// else \p Default, the target's bundled one, when it exists. Fails with
/// "MIR2Vec vocabulary file path not specified; <SetIt> (irtk bundles one
/// for x86-64 only[, none at '<Default>'])", where \p SetIt says how to name
/// one ("set it with -irtk-mir-vocab-path").
llvm::Expected<std::string> resolveVocabularyPath(llvm::StringRef Given,
                                                  llvm::StringRef Default,
                                                  const llvm::Twine &SetIt);

/// The MIR vocabulary layout of \p TM's target.
std::shared_ptr<const TargetLayout> layoutOf(const llvm::TargetMachine &TM);

/// How layouts of \p TM's target are named in messages: "<target> MIR".
std::string layoutDescription(const llvm::TargetMachine &TM);

} // namespace irtk::mir2vec

#endif // IRTK_MIR2VEC_LOADER_H
