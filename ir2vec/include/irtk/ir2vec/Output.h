//===- Output.h - Writing embeddings, triplets and entities -----*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What `llvm-ir2vec` writes for one module, in upstream LLVM 22's text
/// format (byte for byte) or as JSON lines. Kept in the library so that the
/// CLI is glue and the tests reach the formats directly.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_IR2VEC_OUTPUT_H
#define IRTK_IR2VEC_OUTPUT_H

#include "irtk/ir2vec/Embedder.h"
#include "irtk/ir2vec/Triplets.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class BasicBlock;
class Function;
class Instruction;
class Module;
class raw_ostream;
} // namespace llvm

namespace irtk::ir2vec {

enum class LevelKind { Instruction, BasicBlock, Function };
enum class OutputFormatKind { Text, JSONL };

std::optional<LevelKind> parseLevel(llvm::StringRef S);
llvm::StringRef levelName(LevelKind L);

struct EmbeddingOutputOptions {
  EmbeddingKind Kind = EmbeddingKind::Symbolic;
  LevelKind Level = LevelKind::Function;
  OutputFormatKind Format = OutputFormatKind::Text;
  /// Only this function (matched by name or demangled name); empty for all
  /// defined functions.
  std::string FunctionName;
  /// Module name recorded in JSON lines (usually the input path).
  std::string ModuleName;
};

/// Prints instructions exactly as Instruction::print does, in linear time.
/// Instruction::print builds a fresh slot tracker and assembly writer for
/// every instruction, each costing a pass over the function and the module's
/// globals; that is what makes upstream's instruction level slow. Here each
/// function is printed once, with the same numbering upstream's
/// per-instruction printing uses (metadata numbers such as !llvm.loop !11
/// restart in every function), and each instruction's text is cut out of
/// that listing.
class InstructionPrinter {
public:
  InstructionPrinter();
  ~InstructionPrinter();
  /// Prints \p F into the listing; call before printing its instructions.
  void setFunction(const llvm::Function &F);
  /// Prints \p I, an instruction of the current function.
  void print(llvm::raw_ostream &OS, const llvm::Instruction &I);

private:
  class Recorder;
  std::unique_ptr<Recorder> Rec;
};

/// Whether \p F is named \p Name, either as its symbol or demangled.
bool functionMatches(const llvm::Function &F, llvm::StringRef Name);

/// Writes the embeddings of \p M. Returns the number of functions that
/// matched Opts.FunctionName (or the number of functions considered when it
/// is empty), so a caller can report a name that matched nowhere.
unsigned writeEmbeddings(const llvm::Module &M, const vocab::Vocabulary &V,
                         const EmbeddingOutputOptions &Opts,
                         llvm::raw_ostream &OS);

/// One embedding as writeEmbeddings would write it: where it comes from and
/// its vector. Valid only during the callback.
struct EmbeddingRecord {
  const llvm::Function *F = nullptr;
  /// bb and inst levels: the block and its position in the function.
  const llvm::BasicBlock *BB = nullptr;
  unsigned BlockIndex = 0;
  /// inst level: the instruction, its position in its block and its text as
  /// the JSON-lines output has it (no leading spaces).
  const llvm::Instruction *I = nullptr;
  unsigned InstIndex = 0;
  llvm::StringRef InstText;
  llvm::ArrayRef<double> Vector;
};

/// Calls \p Visit for every embedding writeEmbeddings would write, in the
/// same order and computed in the same query order (so flow-aware vectors
/// are the same); Opts.Format is ignored. Returns what writeEmbeddings
/// returns.
unsigned
forEachEmbedding(const llvm::Module &M, const vocab::Vocabulary &V,
                 const EmbeddingOutputOptions &Opts,
                 llvm::function_ref<void(const EmbeddingRecord &)> Visit);

struct TripletSummary {
  /// Largest relation id written, at least 1 (Next).
  unsigned MaxRelation = 1;
  /// Defined functions whose triplets were written.
  unsigned Functions = 0;
  /// Triplets written or collected (before any de-duplication).
  size_t Triplets = 0;
};

/// Appends the triplets of \p M to \p Out, only for \p FunctionName (symbol
/// or demangled) when it is not empty.
TripletSummary collectModuleTriplets(const llvm::Module &M,
                                     std::vector<Triplet> &Out,
                                     llvm::StringRef FunctionName = "");

/// Writes one triplet line: "head\ttail\trelation\n".
void writeTripletLine(const Triplet &T, llvm::raw_ostream &OS);

/// Writes the triplet lines of \p M (no header), only for \p FunctionName
/// when it is not empty.
TripletSummary writeTriplets(const llvm::Module &M, llvm::raw_ostream &OS,
                             llvm::StringRef FunctionName = "");

/// Remembers triplets to drop repeats across modules.
class TripletDeduplicator {
public:
  /// True the first time \p T is seen.
  bool insert(const Triplet &T);

private:
  llvm::DenseSet<uint64_t> Seen;
};

/// Writes OpenKE's relation2id: the count, then "Type\t0", "Next\t1" and
/// "Arg<i>\t<i+2>" up to \p MaxRelation, as upstream's triplet recipe does.
void writeRelations(unsigned MaxRelation, llvm::raw_ostream &OS);

/// Writes the MAX_RELATION header line for \p MaxRelation.
void writeTripletHeader(unsigned MaxRelation, llvm::raw_ostream &OS);

/// Writes entity2id: the count, then "name\tid" per entity.
void writeEntities(llvm::raw_ostream &OS);

} // namespace irtk::ir2vec

#endif // IRTK_IR2VEC_OUTPUT_H
