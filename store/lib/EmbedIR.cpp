//===- EmbedIR.cpp - Embedding rows of an IR file -------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reads one IR file in its own LLVMContext, as llvm-ir2vec does for each
/// input, and turns its functions into store rows: the query side of a
/// similarity search.
///
//===----------------------------------------------------------------------===//

#include "irtk/store/Store.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace irtk::store {

static StringRef firstLine(StringRef S) {
  return S.trim().split('\n').first.trim();
}

Expected<RowBatch> embedIRFile(StringRef Path, const vocab::Vocabulary &V,
                               ir2vec::EmbeddingOutputOptions Opts) {
  LLVMContext Ctx;
  // The first error the context reports (bitcode problems come this way);
  // warnings are dropped.
  std::string FirstError;
  struct State {
    std::string &First;
    StringRef Path;
  } S{FirstError, Path};
  Ctx.setDiagnosticHandlerCallBack(
      [](const DiagnosticInfo *DI, void *Context) {
        auto &St = *static_cast<State *>(Context);
        if (DI->getSeverity() != DS_Error || !St.First.empty())
          return;
        std::string Msg;
        raw_string_ostream OS(Msg);
        DiagnosticPrinterRawOStream DP(OS);
        DI->print(DP);
        St.First = (St.Path + ": " + firstLine(Msg)).str();
      },
      &S, /*RespectFilters=*/true);
  SMDiagnostic Diag;
  std::unique_ptr<Module> M = parseIRFile(Path, Diag, Ctx);
  if (!FirstError.empty())
    return createStringError(inconvertibleErrorCode(), FirstError);
  if (!M) {
    std::string Msg;
    raw_string_ostream OS(Msg);
    OS << Diag.getFilename();
    if (Diag.getLineNo() > 0) {
      OS << ':' << Diag.getLineNo();
      if (Diag.getColumnNo() >= 0)
        OS << ':' << Diag.getColumnNo() + 1;
    }
    OS << ": " << Diag.getMessage();
    return createStringError(inconvertibleErrorCode(), Msg);
  }
  std::string VerifyMsg;
  raw_string_ostream VS(VerifyMsg);
  if (verifyModule(*M, &VS))
    return createStringError(inconvertibleErrorCode(),
                             Path +
                                 ": invalid module: " + firstLine(VerifyMsg));
  Opts.ModuleName = Path.str();
  RowBatch Rows;
  collectModuleRows(*M, V, Opts, Rows);
  return Rows;
}

} // namespace irtk::store
