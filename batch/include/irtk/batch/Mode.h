//===- Mode.h - Reading and embedding inputs of either IR kind --*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A run over many inputs (llvm-ir2vec, the Python module) is a loop
/// (Run.h: inputs, parallelism, ordered results, output files, stores) over
/// a mode handler: how one kind of IR (`--mode=llvm` or `--mode=mir`) reads
/// an input and turns it into what a subcommand writes. Adding an IR kind
/// means adding a handler; the loop, the output files, the store and the
/// front ends' reporting stay as they are.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_BATCH_MODE_H
#define IRTK_BATCH_MODE_H

#include "irtk/ir2vec/Entities.h"
#include "irtk/ir2vec/Output.h"
#include "irtk/ircommon/EmbeddingSink.h"
#include "irtk/mir2vec/Layout.h"
#include "irtk/mir2vec/Lowering.h"
#include "irtk/store/Store.h"
#include "irtk/support/Level.h"
#include "irtk/vocab/Triplets.h"
#include "irtk/vocab/Vocabulary.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace irtk::batch {

/// What a run produces: upstream llvm-ir2vec's subcommands.
enum class SubcommandKind { Triplets, Entities, Embeddings };
/// embeddings: text or JSON lines to Output, or a store directory
/// (store/Store.h) named by Output.
enum class FormatKind { Text, JSONL, Store };
/// The kind of IR: LLVM IR or machine IR.
enum class ModeKind { LLVM, MIR };

/// What a run over inputs of either IR kind needs.
struct Options {
  SubcommandKind Subcommand = SubcommandKind::Embeddings;
  ModeKind Mode = ModeKind::LLVM;
  std::string Output = "-";
  std::string FunctionName;
  /// LLVM IR: the vocabulary, its weights and the embedding kind.
  std::string VocabPath;
  ir2vec::Weights Weights;
  ir2vec::EmbeddingKind Kind = ir2vec::EmbeddingKind::Symbolic;
  /// LLVM IR: the vocabulary VocabPath holds, already loaded with Weights;
  /// then prepare() loads none.
  std::shared_ptr<const vocab::Vocabulary> Vocabulary;
  /// Machine IR: the vocabulary, its weights, and the target when the
  /// inputs' own triple is not wanted.
  std::string MIRVocabPath;
  mir2vec::Weights MIRWeights;
  std::string MTriple;
  /// Machine IR: how LLVM IR inputs are lowered.
  mir2vec::LoweringOptions Lowering;
  /// Machine IR without MIRVocabPath: the directory of the bundled
  /// vocabularies, which holds the target's (mir2vec::defaultVocabularyName),
  /// and the name of the option that sets MIRVocabPath, for the message
  /// when there is none.
  std::string BundledVocabularyDir;
  std::string MIRVocabOption = "--mir2vec-vocab-path";
  support::LevelKind Level = support::LevelKind::Function;
  FormatKind Format = FormatKind::Text;
  /// triplets: drop triplets already written (across all inputs).
  bool Dedup = false;
  /// triplets: write OpenKE's train2id.txt, entity2id.txt and
  /// relation2id.txt into this directory instead of Output (implies Dedup).
  std::string OpenKEDir;
  /// embeddings --format=npy: the "tool" the store records.
  std::string Tool;
};

/// What one input gave, as every subcommand has it.
struct InputResult {
  virtual ~InputResult() = default;
  /// Set when the input failed: one line naming the input.
  std::string Error;
  /// What LLVM warned about while reading it, one line each.
  std::vector<std::string> Warnings;
  /// Functions written (with a function name: functions that matched).
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

/// triplets: the input's triplets, written (with Dedup: the new ones) by
/// the job in input order.
struct TripletsResult : InputResult {
  std::vector<vocab::Triplet> Triplets;
  unsigned MaxRelation = 1;
};

/// How one kind of IR is read and embedded. The per-input functions run on
/// worker threads, several at once; embeddings() writes to \p Direct
/// instead of the result's text when it is given (a single input needs no
/// buffering).
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
  /// triplets with OpenKEDir: relation2id's lines up to \p MaxRelation.
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
  /// Walks the embeddings of \p Path into \p S, as \p W asks (LLVM IR: with
  /// O.Kind's embedder); sets R.Matched. When it fails, R.Error says why,
  /// and what \p S received (code generation can fail half-way) is to be
  /// discarded.
  virtual void walk(const std::string &Path, const Options &O,
                    const ircommon::WalkOptions &W, ircommon::EmbeddingSink &S,
                    InputResult &R) = 0;
};

/// The handler of \p Mode: LLVM IR, textual or bitcode; or machine IR,
/// .mir files or LLVM IR lowered in-process.
std::unique_ptr<ModeHandler> createModeHandler(ModeKind Mode);

/// How an input is named in messages and records ("-" is "<stdin>").
inline std::string displayName(const std::string &Path) {
  return Path == "-" ? "<stdin>" : Path;
}

/// The vocabulary path a store records: absolute, or "-".
std::string recordedVocabularyPath(llvm::StringRef Path);

} // namespace irtk::batch

#endif // IRTK_BATCH_MODE_H
