//===- Diagnostics.h - LLVM diagnostics, collected --------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// LLVM's diagnostics, as both IR kinds meet them: collected into one-line
/// messages while LLVM reads or compiles a module, and errors reported
/// through a context by passes.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_IRCOMMON_DIAGNOSTICS_H
#define IRTK_IRCOMMON_DIAGNOSTICS_H

#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Twine;
} // namespace llvm

namespace irtk::ircommon {

/// While alive, takes the diagnostics of a context: the first error and
/// every warning, one line each. Afterwards the context drops them. Used
/// wherever LLVM reads or compiles a module (IR, machine IR, code
/// generation), so that its messages become irtk's one-line errors.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(llvm::LLVMContext &Ctx);
  ~DiagnosticCollector();
  DiagnosticCollector(const DiagnosticCollector &) = delete;
  DiagnosticCollector &operator=(const DiagnosticCollector &) = delete;

  std::string FirstError;
  std::vector<std::string> Warnings;

private:
  llvm::LLVMContext &Ctx;
};

/// Ctx.emitError(Msg), for an error that fails the compilation. A context
/// without a handler of its own (opt's) prints the error and exits at once,
/// before the tool deletes its half-made output file: so the files the tool
/// registered for removal on a crash (its ToolOutputFile) are removed first.
/// Tools with a handler (clang, llc) delete their output themselves.
void reportError(llvm::LLVMContext &Ctx, const llvm::Twine &Msg);

} // namespace irtk::ircommon

#endif // IRTK_IRCOMMON_DIAGNOSTICS_H
