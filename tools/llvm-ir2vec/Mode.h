//===- Mode.h - What an IR kind contributes to llvm-ir2vec ------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// llvm-ir2vec is a run loop (Driver.cpp: inputs, parallelism, ordered
/// output, failures, progress) over a mode handler: how one kind of IR
/// (`--mode=llvm` today) reads an input and turns it into what a subcommand
/// writes. Adding an IR kind means adding a handler; the run loop, the output
/// files, the store and the progress line stay as they are.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_TOOLS_LLVMIR2VEC_MODE_H
#define IRTK_TOOLS_LLVMIR2VEC_MODE_H

#include "Options.h"

#include "irtk/store/Store.h"
#include "irtk/vocab/Triplets.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace irtk::cli {

/// What one input gave, as every subcommand has it.
struct InputResult {
  virtual ~InputResult() = default;
  /// Set when the input failed: one line naming the input.
  std::string Error;
  /// What LLVM warned about while reading it, one line each.
  std::vector<std::string> Warnings;
  /// Functions written (with --function: functions that matched).
  unsigned Matched = 0;
};

/// embeddings in text or JSON lines.
struct TextResult : InputResult {
  std::string Text;
};

/// embeddings --format=npy.
struct RowsResult : InputResult {
  store::RowBatch Rows;
};

/// triplets: the input's triplets, written (with --dedup: the new ones) by
/// the run loop in input order.
struct TripletsResult : InputResult {
  std::vector<vocab::Triplet> Triplets;
  unsigned MaxRelation = 1;
};

/// How one kind of IR is read and embedded. The per-input functions run on
/// worker threads, several at once; they write to \p Direct instead of the
/// result's text when it is given (a single input needs no buffering).
class ModeHandler {
public:
  virtual ~ModeHandler();

  /// Before any input is processed: what every input needs (the vocabulary
  /// when \p NeedVocabulary, the layout of the target for machine IR,
  /// found from \p Inputs when the options do not name it).
  virtual llvm::Error prepare(const Options &O,
                              llvm::ArrayRef<std::string> Inputs,
                              bool NeedVocabulary) = 0;
  /// entities: entity2id's lines, the count first.
  virtual void writeEntities(llvm::raw_ostream &OS) = 0;
  /// triplets --openke-dir: relation2id's lines up to \p MaxRelation.
  virtual void writeRelations(unsigned MaxRelation, llvm::raw_ostream &OS) = 0;
  /// The MAX_RELATION of triplets without operands (LLVM IR: 1, Next;
  /// machine IR: 0, Next).
  virtual unsigned minMaxRelation() const = 0;
  /// embeddings --format=npy: the store's description.
  virtual store::StoreInfo storeInfo(const Options &O) = 0;

  virtual void triplets(const std::string &Path, const Options &O,
                        TripletsResult &R) = 0;
  virtual void embeddings(const std::string &Path, const Options &O,
                          TextResult &R, llvm::raw_ostream *Direct) = 0;
  virtual void rows(const std::string &Path, const Options &O,
                    RowsResult &R) = 0;
};

/// How an input is named in messages and records ("-" is "<stdin>").
inline std::string displayName(const std::string &Path) {
  return Path == "-" ? "<stdin>" : Path;
}

/// The vocabulary path a store records: absolute, or "-".
std::string recordedVocabularyPath(llvm::StringRef Path);

/// --mode=llvm: LLVM IR, textual or bitcode.
std::unique_ptr<ModeHandler> createIRModeHandler();
/// --mode=mir: machine IR in .mir files.
std::unique_ptr<ModeHandler> createMIRModeHandler();

} // namespace irtk::cli

#endif // IRTK_TOOLS_LLVMIR2VEC_MODE_H
