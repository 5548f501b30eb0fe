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

#include "llvm/ADT/StringRef.h"
#include "llvm/CodeGen/MachineModuleInfo.h"
#include "llvm/IR/Module.h"
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

/// A module with its machine functions. Members are destroyed in reverse
/// order: the machine functions, the module, then the target machine.
struct MachineModule {
  std::unique_ptr<llvm::TargetMachine> TM;
  std::unique_ptr<llvm::Module> M;
  std::unique_ptr<llvm::MachineModuleInfo> MMI;
  /// One line, naming the file, when reading failed (then M is null).
  std::string Error;
  std::vector<std::string> Warnings;

  /// The machine function of \p F, or null when \p F has none.
  llvm::MachineFunction *machineFunction(const llvm::Function &F) const;
  /// The first machine function, which gives the target's layout.
  const llvm::MachineFunction *firstMachineFunction() const;
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

/// A target machine for triple \p Triple (default CPU and features).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(llvm::StringRef Triple);

/// The MIR vocabulary layout of \p TM's target.
std::shared_ptr<const TargetLayout> layoutOf(const llvm::TargetMachine &TM);

/// How layouts of \p TM's target are named in messages: "<target> MIR".
std::string layoutDescription(const llvm::TargetMachine &TM);

} // namespace irtk::mir2vec

#endif // IRTK_MIR2VEC_LOADER_H
