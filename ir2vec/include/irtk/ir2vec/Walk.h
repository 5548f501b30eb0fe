//===- Walk.h - One walk over a module's embeddings -------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every consumer of a module's embeddings (llvm-ir2vec's text and JSON
/// lines, store rows, the printer and recorder passes, the Python module)
/// gets them from one walker, which owns the order in which the embedder is
/// queried. That order decides flow-aware results bit for bit: an
/// instruction's operands contribute the embeddings of defining instructions
/// the embedder has already computed. The walker queries as upstream's tools
/// do: a fresh embedder per function, then the function vector, the block
/// vectors in layout order, and the instruction vectors in layout order, for
/// the levels asked for. The module level (irtk's; upstream has none) adds
/// the function vectors up, computed as for the function level, and hands
/// out their sum after the last function (ircommon::ModuleSum).
///
/// A sink (ircommon/EmbeddingSink.h, shared with machine IR) receives the
/// records; it never calls the embedder itself.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_IR2VEC_WALK_H
#define IRTK_IR2VEC_WALK_H

#include "irtk/ir2vec/Embedder.h"
#include "irtk/ircommon/EmbeddingSink.h"
#include "irtk/support/Level.h"

#include "llvm/ADT/ArrayRef.h"
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
class ModuleSlotTracker;
class raw_ostream;
} // namespace llvm

namespace irtk::ir2vec {

using ircommon::EmbeddingRecord;
using ircommon::EmbeddingSink;
using support::LevelKind;
using support::levelName;
using support::parseLevel;

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
  /// The text of \p I, an instruction of the current function, with its
  /// leading spaces. Valid until the next call.
  llvm::StringRef text(const llvm::Instruction &I);
  /// Prints text(I).
  void print(llvm::raw_ostream &OS, const llvm::Instruction &I);

private:
  class Recorder;
  std::unique_ptr<Recorder> Rec;
  std::string Scratch;
};

/// Whether \p F is named \p Name, either as its symbol or demangled.
bool functionMatches(const llvm::Function &F, llvm::StringRef Name);

/// What the walk visits (ircommon::WalkOptions: levels, instruction text,
/// function name) and how LLVM IR is embedded.
struct WalkOptions : ircommon::WalkOptions {
  EmbeddingKind Kind = EmbeddingKind::Symbolic;
  /// Visit declarations too (their function vector is zero, and they have
  /// no blocks); otherwise a declaration is skipped.
  bool Declarations = false;

  /// The options that visit \p L alone.
  static WalkOptions forLevel(EmbeddingKind K, LevelKind L);
};

class Walker {
public:
  Walker(const vocab::Vocabulary &V, WalkOptions Opts);
  ~Walker();

  /// Walks the functions of \p M in module order, then, with Opts.Module,
  /// hands out the module's record: the sum of the vectors of the functions
  /// walked (the definitions, or those Opts.FunctionName names). Returns
  /// the number of functions that matched Opts.FunctionName (when it is
  /// empty: the number walked), so that a caller can report a name that
  /// matched nowhere.
  unsigned walkModule(const llvm::Module &M, EmbeddingSink &S);
  /// Walks \p F alone (with a fresh embedder, as walkModule does); a
  /// function's walk has no module level.
  void walkFunction(const llvm::Function &F, EmbeddingSink &S);

private:
  /// Walks \p F, adding its function vector to \p Sum when given.
  void walkFunction(const llvm::Function &F, EmbeddingSink &S,
                    ircommon::ModuleSum *Sum);
  /// Numbers the unnamed blocks of \p F, for blockLabel.
  void numberBlocks(const llvm::Function &F);
  /// The label of \p BB, a block of the function last numbered
  /// (EmbeddingRecord::BlockLabel). Valid until the next call.
  llvm::StringRef blockLabel(const llvm::BasicBlock &BB);

  const vocab::Vocabulary &V;
  WalkOptions Opts;
  InstructionPrinter Printer;
  /// The module's slot numbers, made for the first function whose blocks
  /// are labelled (kept across functions: making it costs a pass over the
  /// module's globals).
  std::unique_ptr<llvm::ModuleSlotTracker> Slots;
  std::string Label;
  std::vector<double> Vec;
  /// Symbolic instruction vectors, across the functions walked.
  InstVectorCache Cache;
};

} // namespace irtk::ir2vec

#endif // IRTK_IR2VEC_WALK_H
