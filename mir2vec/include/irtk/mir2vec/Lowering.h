//===- Lowering.h - IR lowered to machine IR in-process ---------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// An IR module run through its target's code generation pipeline, as llc
/// runs it, up to a chosen pass: the machine functions are kept instead of
/// being printed, so no separate `llc -stop-after=...` step is needed.
///
/// LLVM reads the stop point from its global -stop-after / -stop-before
/// options, so a process has one stop point: configureLowering() sets it
/// once, before any module is lowered.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_MIR2VEC_LOWERING_H
#define IRTK_MIR2VEC_LOWERING_H

#include "irtk/mir2vec/Loader.h"

#include "llvm/Support/CodeGen.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace irtk::mir2vec {

struct LoweringOptions {
  /// "<pass>[,<instance>]" as llc's -stop-after / -stop-before take it;
  /// at most one is set. Neither: the whole pipeline, up to (not
  /// including) the assembly printer.
  std::string StopAfter, StopBefore;
  llvm::CodeGenOptLevel OptLevel = llvm::CodeGenOptLevel::Default;

  /// "after <pass>", "before <pass>" or "at the end of code generation".
  std::string describe() const;
};

/// Checks \p O against \p TM's pipeline and makes it this process's stop
/// point. Errors: an unknown pass, an instance the pipeline does not reach
/// (e.g. -stop-after=greedy at -O0, which allocates with regallocfast), a
/// point before instruction selection (no machine code yet), or a second
/// call with another stop point. \p TM is only read: its pipeline is built
/// on a copy.
llvm::Error configureLowering(const LoweringOptions &O,
                              const llvm::TargetMachine &TM);

/// The target triple \p M is lowered for: \p Override when not empty, else
/// the module's, else the host's.
std::string loweringTriple(const llvm::Module &M, llvm::StringRef Override);

/// Lowers \p M (a verified module) through a new target machine for
/// loweringTriple(*M, \p Triple), stopping where configureLowering() said.
/// \p Name names the module in the error, which is one line; LLVM's
/// warnings are collected.
MachineModule lowerModule(std::unique_ptr<llvm::Module> M, llvm::StringRef Name,
                          const LoweringOptions &O,
                          llvm::StringRef Triple = "");

/// Reads the machine functions of \p Buf, named \p Name in errors: a .mir
/// file (loadMIRBuffer), or LLVM IR, text or bitcode, verified and lowered
/// (lowerModule). \p BeforeLowering, if set, sees the IR module first (to
/// configure the stop point for its target); its error fails the read and
/// \p LoweringFailed, if given, is then set.
MachineModule readMachineModule(
    std::unique_ptr<llvm::MemoryBuffer> Buf, llvm::StringRef Name,
    llvm::LLVMContext &Ctx, llvm::StringRef Triple, const LoweringOptions &O,
    llvm::function_ref<llvm::Error(const llvm::Module &)> BeforeLowering =
        nullptr,
    bool *LoweringFailed = nullptr);

/// True when \p Buf holds machine IR (a YAML document, as `llc
/// -stop-after` writes it) rather than LLVM IR text or bitcode.
bool looksLikeMIR(llvm::StringRef Buf);

} // namespace irtk::mir2vec

#endif // IRTK_MIR2VEC_LOWERING_H
