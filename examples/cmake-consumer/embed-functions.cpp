//===- embed-functions.cpp - Embed a module's functions with irtk ---------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// An out-of-tree user of irtk's CMake package: loads the installed default
/// vocabulary, reads an LLVM IR file and prints each defined function's
/// symbolic embedding (dimension, then the first three elements), the way
/// `llvm-ir2vec embeddings --level=func` computes it.
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Embedder.h"
#include "irtk/ir2vec/Entities.h"
#include "irtk/ircommon/ModuleLoader.h"
#include "irtk/support/Version.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

int main(int Argc, char **Argv) {
  if (Argc != 2) {
    llvm::errs() << "usage: embed-functions <file.ll|file.bc>\n";
    return 2;
  }
  llvm::Expected<irtk::vocab::Vocabulary> V =
      irtk::ir2vec::loadVocabulary(IRTK_DEFAULT_VOCABULARY);
  if (!V) {
    llvm::errs() << "error: " << llvm::toString(V.takeError()) << '\n';
    return 1;
  }
  llvm::LLVMContext Ctx;
  irtk::ircommon::LoadedModule L = irtk::ircommon::loadModule(Argv[1], Ctx);
  if (!L.M) {
    llvm::errs() << "error: " << L.describe(Argv[1]) << '\n';
    return 1;
  }
  llvm::outs() << "irtk " << IRTK_VERSION << ", dimension " << V->dimension()
               << '\n';
  for (const llvm::Function &F : *L.M) {
    if (F.isDeclaration())
      continue;
    irtk::ir2vec::Embedding E =
        irtk::ir2vec::Embedder::create(irtk::ir2vec::EmbeddingKind::Symbolic, F,
                                       *V)
            ->getFunctionVector();
    llvm::outs() << F.getName() << ':';
    for (size_t I = 0; I < 3 && I < E.size(); ++I)
      llvm::outs() << ' ' << llvm::format("%.2f", E[I]);
    llvm::outs() << '\n';
  }
  return 0;
}
