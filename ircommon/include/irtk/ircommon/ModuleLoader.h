//===- ModuleLoader.h - Reading and verifying one IR file -------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every front end (llvm-ir2vec, irtk-similarity's IR queries, the Python
/// module) reads its inputs the same way: textual IR or bitcode parsed into a
/// context of its own, LLVM's diagnostics collected rather than printed (an
/// error diagnostic without a handler would end the process), and the module
/// checked with the verifier. Each front end words the failure its own way,
/// so the result keeps its parts.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_IRCOMMON_MODULELOADER_H
#define IRTK_IRCOMMON_MODULELOADER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <memory>
#include <string>
#include <vector>

namespace irtk::ircommon {

enum class LoadFailureKind {
  None,
  /// Not readable, not IR, or LLVM reported an error while reading it.
  Parse,
  /// Parsed, but the verifier rejects it.
  Invalid,
};

struct LoadedModule {
  /// Null on failure.
  std::unique_ptr<llvm::Module> M;
  LoadFailureKind Failure = LoadFailureKind::None;
  /// Parse failures: where (1-based; Line 0 when unknown, as for bitcode).
  unsigned Line = 0, Column = 0;
  /// One line: the parser's or LLVM's message, or the verifier's first line.
  std::string Message;
  /// The warnings LLVM reported while reading, one line each.
  std::vector<std::string> Warnings;

  /// "<line>:<col>: <message>", or the message alone when the place is not
  /// known.
  std::string located() const;
  /// llvm-ir2vec's one-line error: "<Name>:<line>:<col>: <message>",
  /// "<Name>: <message>" or "<Name>: invalid module: <message>".
  std::string describe(llvm::StringRef Name) const;
};

/// Reads \p Path ("-" is standard input) into \p Ctx and verifies it. Once
/// it returns, \p Ctx ignores further diagnostics.
LoadedModule loadModule(llvm::StringRef Path, llvm::LLVMContext &Ctx);
/// The same for IR text or bitcode in \p Buf.
LoadedModule loadModule(llvm::MemoryBufferRef Buf, llvm::LLVMContext &Ctx);

} // namespace irtk::ircommon

#endif // IRTK_IRCOMMON_MODULELOADER_H
