//===- StoreRows.h - IR2Vec embeddings as store rows ------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Embedding stores (store/) know rows, an index and metadata strings; this
/// is where IR2Vec embeddings become rows and an IR2Vec configuration
/// becomes, and is read back from, a store's metadata.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_IR2VEC_STOREROWS_H
#define IRTK_IR2VEC_STOREROWS_H

#include "irtk/ir2vec/Entities.h"
#include "irtk/ir2vec/Output.h"
#include "irtk/store/Store.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace llvm {
class Module;
} // namespace llvm

namespace irtk::ir2vec {

/// store.json for IR2Vec rows: level and kind names, the vocabulary path,
/// and the weights as "opcode", "type" and "argument".
store::StoreInfo makeStoreInfo(unsigned Dimension, LevelKind Level,
                               EmbeddingKind Kind, llvm::StringRef Vocabulary,
                               const Weights &W, llvm::StringRef Tool);

/// How the rows of a store were embedded, read back from its store.json.
struct StoreSettings {
  LevelKind Level;
  EmbeddingKind Kind;
  Weights W;
};

/// Fails, naming \p Name, when \p Info does not describe IR2Vec rows.
llvm::Expected<StoreSettings> readStoreSettings(const store::StoreInfo &Info,
                                                llvm::StringRef Name);

/// Appends the embeddings of \p M, as llvm-ir2vec's JSON lines give them
/// (same order, same doubles), rounded to float32, to \p Out; records get
/// the module name Opts.ModuleName and rows numbered from Out.size().
/// Returns what writeEmbeddings returns.
unsigned collectModuleRows(const llvm::Module &M, const vocab::Vocabulary &V,
                           const EmbeddingOutputOptions &Opts,
                           store::RowBatch &Out);

/// Parses and verifies the LLVM IR file \p Path (.ll or .bc) and collects the
/// embeddings of its functions as collectModuleRows does, with Opts.ModuleName
/// set to \p Path. Errors are one line: "file:line:col: message" for a parse
/// error, "file: invalid module: ..." when verification fails.
llvm::Expected<store::RowBatch> embedIRFile(llvm::StringRef Path,
                                            const vocab::Vocabulary &V,
                                            EmbeddingOutputOptions Opts);

} // namespace irtk::ir2vec

#endif // IRTK_IR2VEC_STOREROWS_H
