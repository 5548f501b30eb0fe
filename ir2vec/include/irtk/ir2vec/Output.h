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

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/ModuleSlotTracker.h"

#include <string>

namespace llvm {
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

/// Prints instructions exactly as Instruction::print does, in linear time:
/// Instruction::print without a slot tracker renumbers the whole function
/// for every instruction, which makes upstream's instruction level
/// quadratic.
class InstructionPrinter {
public:
  explicit InstructionPrinter(const llvm::Module &M);
  /// Numbers the local values of \p F; call before printing its code.
  void setFunction(const llvm::Function &F);
  void print(llvm::raw_ostream &OS, const llvm::Instruction &I);

private:
  llvm::ModuleSlotTracker MST;
};

/// Whether \p F is named \p Name, either as its symbol or demangled.
bool functionMatches(const llvm::Function &F, llvm::StringRef Name);

/// Writes the embeddings of \p M. Returns the number of functions that
/// matched Opts.FunctionName (or the number of functions considered when it
/// is empty), so a caller can report a name that matched nowhere.
unsigned writeEmbeddings(const llvm::Module &M, const vocab::Vocabulary &V,
                         const EmbeddingOutputOptions &Opts,
                         llvm::raw_ostream &OS);

/// Writes the triplet lines of \p M ("head\ttail\trelation", no header) and
/// returns the largest relation id (at least 1). Only \p FunctionName when
/// it is not empty.
unsigned writeTriplets(const llvm::Module &M, llvm::raw_ostream &OS,
                       llvm::StringRef FunctionName = "");

/// Writes the MAX_RELATION header line for \p MaxRelation.
void writeTripletHeader(unsigned MaxRelation, llvm::raw_ostream &OS);

/// Writes entity2id: the count, then "name\tid" per entity.
void writeEntities(llvm::raw_ostream &OS);

} // namespace irtk::ir2vec

#endif // IRTK_IR2VEC_OUTPUT_H
