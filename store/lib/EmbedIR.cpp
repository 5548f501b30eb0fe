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

#include "irtk/ir2vec/ModuleLoader.h"
#include "irtk/store/Store.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace irtk::store {

Expected<RowBatch> embedIRFile(StringRef Path, const vocab::Vocabulary &V,
                               ir2vec::EmbeddingOutputOptions Opts) {
  LLVMContext Ctx;
  // Warnings are dropped: a query file is not a corpus input.
  ir2vec::LoadedModule L = ir2vec::loadModule(Path, Ctx);
  if (!L.M)
    return createStringError(inconvertibleErrorCode(), L.describe(Path));
  Opts.ModuleName = Path.str();
  RowBatch Rows;
  collectModuleRows(*L.M, V, Opts, Rows);
  return Rows;
}

} // namespace irtk::store
