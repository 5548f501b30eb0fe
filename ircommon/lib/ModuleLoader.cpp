//===- ModuleLoader.cpp - Reading and verifying one IR file ---------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/ircommon/ModuleLoader.h"
#include "irtk/ircommon/Diagnostics.h"
#include "irtk/support/ReadFile.h"

#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace irtk::ircommon {

static StringRef firstLine(StringRef S) {
  return S.trim().split('\n').first.trim();
}

/// Parses with \p Parse, then verifies.
static LoadedModule
load(LLVMContext &Ctx,
     function_ref<std::unique_ptr<Module>(SMDiagnostic &)> Parse) {
  LoadedModule L;
  SMDiagnostic Diag;
  std::string FirstError;
  {
    DiagnosticCollector C(Ctx);
    L.M = Parse(Diag);
    L.Warnings = std::move(C.Warnings);
    FirstError = std::move(C.FirstError);
  }
  if (!FirstError.empty() || !L.M) {
    L.Failure = LoadFailureKind::Parse;
    if (!FirstError.empty()) {
      L.Message = std::move(FirstError);
    } else {
      L.Message = Diag.getMessage().str();
      if (Diag.getLineNo() > 0) {
        L.Line = Diag.getLineNo();
        L.Column = Diag.getColumnNo() >= 0 ? Diag.getColumnNo() + 1 : 0;
      }
    }
    L.M.reset();
    return L;
  }
  std::string VerifyMsg;
  raw_string_ostream VS(VerifyMsg);
  if (verifyModule(*L.M, &VS)) {
    L.Failure = LoadFailureKind::Invalid;
    L.Message = firstLine(VerifyMsg).str();
    L.M.reset();
  }
  return L;
}

LoadedModule loadModule(StringRef Path, LLVMContext &Ctx) {
  // A FIFO or a device would block or be read without end; LLVM's own
  // messages for a missing file or a directory are kept.
  if (Error E = support::checkNotAStream(Path, "")) {
    LoadedModule L;
    L.Failure = LoadFailureKind::Parse;
    consumeError(std::move(E));
    L.Message = "cannot read: not a regular file";
    return L;
  }
  return load(Ctx,
              [&](SMDiagnostic &Diag) { return parseIRFile(Path, Diag, Ctx); });
}

LoadedModule loadModule(MemoryBufferRef Buf, LLVMContext &Ctx) {
  return load(Ctx, [&](SMDiagnostic &Diag) { return parseIR(Buf, Diag, Ctx); });
}

std::string LoadedModule::located() const {
  if (Line == 0)
    return Message;
  std::string S = std::to_string(Line);
  if (Column > 0)
    S += ":" + std::to_string(Column);
  return S + ": " + Message;
}

std::string LoadedModule::describe(StringRef Name) const {
  switch (Failure) {
  case LoadFailureKind::None:
    return "";
  case LoadFailureKind::Parse:
    return (Name + (Line ? ":" : ": ") + located()).str();
  case LoadFailureKind::Invalid:
    return (Name + ": invalid module: " + Message).str();
  }
  return "";
}

} // namespace irtk::ircommon
