//===- Diagnostics.cpp - LLVM diagnostics collected, never printed --------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/ircommon/Diagnostics.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <typeinfo>

using namespace llvm;

namespace irtk::ircommon {

static StringRef firstLine(StringRef S) {
  return S.trim().split('\n').first.trim();
}

static void collect(const DiagnosticInfo *DI, void *Context) {
  auto &C = *static_cast<DiagnosticCollector *>(Context);
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

DiagnosticCollector::DiagnosticCollector(LLVMContext &Ctx) : Ctx(Ctx) {
  Ctx.setDiagnosticHandlerCallBack(collect, this, /*RespectFilters=*/true);
}

DiagnosticCollector::~DiagnosticCollector() {
  Ctx.setDiagnosticHandlerCallBack(ignore, nullptr);
}

void reportError(LLVMContext &Ctx, const Twine &Msg) {
  // LLVMContext::diagnose exits after printing an error that no handler
  // took: the base DiagnosticHandler without a callback takes none.
  const DiagnosticHandler *H = Ctx.getDiagHandlerPtr();
  if (!H ||
      (typeid(*H) == typeid(DiagnosticHandler) && !H->DiagHandlerCallback))
    sys::RunInterruptHandlers();
  Ctx.emitError(Msg);
}

} // namespace irtk::ircommon
