//===- EmbeddingSink.h - Embedding records of both IR kinds -----*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What the walkers of both IR kinds (ir2vec::Walker over LLVM IR,
/// mir2vec::walkModule over machine IR) hand out: one record per function,
/// block or instruction embedding, to a sink. The sinks that do not depend
/// on the kind live here: JSON lines and store rows, which name each record
/// by its site (module, function, block, instruction) the same way for both
/// kinds. The text formats are each kind's own (upstream's).
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_IRCOMMON_EMBEDDINGSINK_H
#define IRTK_IRCOMMON_EMBEDDINGSINK_H

#include "irtk/store/Index.h"
#include "irtk/store/Store.h"
#include "irtk/support/Level.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace llvm {
class Function;
class raw_ostream;
} // namespace llvm

namespace irtk::ircommon {

using support::LevelKind;

/// What a walk visits, for both kinds.
struct WalkOptions {
  /// Levels to visit, in this order for each function: function, blocks,
  /// instructions.
  bool Functions = true;
  bool Blocks = false;
  bool Instructions = false;
  /// A module walk's last record: the sum of the function vectors of the
  /// functions walked (ModuleSum). Alone (no other level), the functions
  /// are embedded without any record or beginFunction of theirs.
  bool Module = false;
  /// Instruction records carry their text.
  bool InstructionText = false;
  /// Block and instruction records carry their block's label.
  bool BlockLabels = false;
  /// Only functions with this name (symbol or demangled); empty for all.
  std::string FunctionName;

  /// Visits \p L alone.
  void selectLevel(LevelKind L);
  /// Whether functions have records (and a beginFunction) of their own:
  /// any level but the module's.
  bool functionRecords() const { return Functions || Blocks || Instructions; }
};

/// How a module's embeddings are written: upstream's text, or JSON lines.
enum class OutputFormatKind { Text, JSONL };

/// What both kinds' writers take.
struct OutputOptions {
  LevelKind Level = LevelKind::Function;
  OutputFormatKind Format = OutputFormatKind::Text;
  /// Only functions with this name (symbol or demangled); empty for all.
  std::string FunctionName;
  /// Module name recorded in JSON lines and store rows (usually the input
  /// path).
  std::string ModuleName;

  /// What the walk visits for these options: Level alone, with the
  /// instruction text at the instruction level, and FunctionName.
  WalkOptions walkOptions() const;
};

/// One embedding, valid during the sink's call.
struct EmbeddingRecord {
  LevelKind Level = LevelKind::Function;
  /// The function; for machine IR, the IR function of the machine function.
  /// Null at the module level.
  const llvm::Function *F = nullptr;
  /// Block and instruction levels: the block's name and its position in the
  /// function.
  llvm::StringRef BlockName;
  unsigned BlockIndex = 0;
  /// Block and instruction levels, when the walk was asked for it: a label
  /// that no other block of the function has, as the kind's printer names
  /// the block. LLVM IR: the block's name as it is (`entry`), or `%N` for an
  /// unnamed block, its slot number as BasicBlock::printAsOperand prints it
  /// (the number in the `.ll` file). Machine IR:
  /// `bb.N.name`, or `bb.N` for a block without a named IR block (as
  /// MachineBasicBlock::printName prints it).
  llvm::StringRef BlockLabel;
  /// Instruction level: the position in the block and, when the walk was
  /// asked for it, the text: Instruction::print's for LLVM IR (leading
  /// spaces included), MachineInstr::print's for machine IR (without the
  /// final newline).
  unsigned InstIndex = 0;
  llvm::StringRef InstText;
  llvm::ArrayRef<double> Vector;
  /// The size of the function (of the machine function for machine IR), at
  /// every level: instructions and blocks. At the module level, the sums
  /// over the functions the module's vector adds up.
  uint64_t FunctionInstructions = 0;
  uint64_t FunctionBlocks = 0;
};

class EmbeddingSink {
public:
  virtual ~EmbeddingSink();
  /// Before anything of \p F.
  virtual void beginFunction(const llvm::Function &F) {}
  /// Before the records of level \p L of the current function, even when
  /// there are none.
  virtual void beginLevel(LevelKind L) {}
  virtual void record(const EmbeddingRecord &R) = 0;
  /// A declaration that the walk's function name matched, skipped (LLVM IR
  /// only: a machine IR walk visits definitions alone).
  virtual void skippedDeclaration(const llvm::Function &F) {}
};

/// The module level of a walk (WalkOptions::Module), for both kinds: the
/// vectors of the functions walked added up in walk order (module order),
/// element by element in double from zero, ((0 + f0) + f1) + ..., as each
/// function's vector is computed for the function level; and their sizes.
/// A module without a function walked has the zero vector.
class ModuleSum {
public:
  explicit ModuleSum(unsigned Dimension) : Sum(Dimension, 0.0) {}
  /// Adds the function record \p R: its vector and its function's size.
  void add(const EmbeddingRecord &R);
  /// Hands the module's record to \p S: beginLevel(Module), then record().
  void emit(EmbeddingSink &S) const;
  llvm::ArrayRef<double> vector() const { return Sum; }

private:
  std::vector<double> Sum;
  uint64_t Instructions = 0, Blocks = 0;
};

/// The function level of a walk, for both kinds: \p R, a function's record
/// with its vector, is added to \p Sum when given (the module level) and,
/// when \p Opts has the function level, handed to \p S after
/// beginLevel(Function).
void recordFunction(const WalkOptions &Opts, const EmbeddingRecord &R,
                    EmbeddingSink &S, ModuleSum *Sum);

/// Where embedding \p R comes from, as a store's index and the JSON lines
/// name it: \p Module, the function (and \p Demangled, its demangled name;
/// both "" at the module level), the level, the block and instruction (its
/// text without leading spaces) for those levels, and the function's size
/// (the module's at the module level).
store::IndexRecord siteOf(const EmbeddingRecord &R, llvm::StringRef Module,
                          llvm::StringRef Demangled);

/// Each record as a JSON line (store::writeEmbeddingLine) or a store row,
/// named by siteOf.
class SiteSink : public EmbeddingSink {
public:
  /// JSON lines of embedding kind \p Kind (e.g. "symbolic",
  /// "mir2vec-symbolic") to \p OS.
  SiteSink(llvm::StringRef Module, llvm::StringRef Kind, llvm::raw_ostream &OS);
  /// Rows (rounded to float32) appended to \p Out.
  SiteSink(llvm::StringRef Module, store::RowBatch &Out);

  void beginFunction(const llvm::Function &F) override;
  void record(const EmbeddingRecord &R) override;

private:
  std::string Module, Kind;
  llvm::raw_ostream *OS = nullptr;
  store::RowBatch *Out = nullptr;
  std::string Demangled;
};

} // namespace irtk::ircommon

#endif // IRTK_IRCOMMON_EMBEDDINGSINK_H
