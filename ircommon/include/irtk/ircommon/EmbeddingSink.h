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
  /// Instruction records carry their text.
  bool InstructionText = false;
  /// Block and instruction records carry their block's label.
  bool BlockLabels = false;
  /// Only functions with this name (symbol or demangled); empty for all.
  std::string FunctionName;

  /// Visits \p L alone.
  void selectLevel(LevelKind L);
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
  /// every level: instructions and blocks.
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

/// Where embedding \p R comes from, as a store's index and the JSON lines
/// name it: \p Module, the function (and \p Demangled, its demangled name),
/// the level, the block and instruction (its text without leading spaces)
/// for those levels, and the function's size.
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
