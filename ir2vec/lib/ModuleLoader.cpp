//===- ModuleLoader.cpp - Reading and verifying one IR file ---------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/ModuleLoader.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace irtk::ir2vec {

static StringRef firstLine(StringRef S) {
  return S.trim().split('\n').first.trim();
}

namespace {
/// What the context's handler saw while the module was read.
struct Collected {
  std::string FirstError;
  std::vector<std::string> Warnings;
};
} // namespace

static void collect(const DiagnosticInfo *DI, void *Context) {
  auto &C = *static_cast<Collected *>(Context);
  std::string Msg;
  raw_string_ostream OS(Msg);
  DiagnosticPrinterRawOStream DP(OS);
  DI->print(DP);
  if (DI->getSeverity() == DS_Error) {
    if (C.FirstError.empty())
      C.FirstError = firstLine(Msg).str();
  } else if (DI->getSeverity() == DS_Warning) {
    C.Warnings.push_back(firstLine(Msg).str());
  }
}

static void ignore(const DiagnosticInfo *, void *) {}

LoadedModule loadModule(StringRef Path, LLVMContext &Ctx) {
  LoadedModule L;
  Collected C;
  Ctx.setDiagnosticHandlerCallBack(collect, &C, /*RespectFilters=*/true);
  SMDiagnostic Diag;
  L.M = parseIRFile(Path, Diag, Ctx);
  // C lives on this stack frame only.
  Ctx.setDiagnosticHandlerCallBack(ignore, nullptr);
  L.Warnings = std::move(C.Warnings);
  if (!C.FirstError.empty() || !L.M) {
    L.Failure = LoadFailureKind::Parse;
    if (!C.FirstError.empty()) {
      L.Message = std::move(C.FirstError);
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

} // namespace irtk::ir2vec
