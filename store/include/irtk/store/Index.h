//===- Index.h - The JSON-lines index of a store ----------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// index.jsonl names the rows of a store's matrix: line i describes row i
/// (module, function, demangled name, level, and the block and instruction
/// for bb and inst levels, as llvm-ir2vec's JSON lines). The reader maps the
/// file, finds the line starts and checks that every line is JSON (a line
/// that is not fails the open, with its line number) in one scan that
/// builds nothing, and parses a line only when its record is asked for.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_STORE_INDEX_H
#define IRTK_STORE_INDEX_H

#include "irtk/support/Format.h"
#include "irtk/support/Level.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class MemoryBuffer;
class raw_ostream;
} // namespace llvm

namespace irtk::store {

/// One row's description.
struct IndexRecord {
  uint64_t Row = 0;
  std::string Module;
  std::string Function;
  std::string Demangled;
  /// "func", "bb", "inst" or "module" (then Function and Demangled are "").
  std::string Level;
  /// bb and inst levels: block name ("" if unnamed) and position.
  std::optional<std::string> Block;
  std::optional<uint64_t> BlockIndex;
  /// inst level: position in the block and the instruction's text.
  std::optional<uint64_t> InstIndex;
  std::optional<std::string> Inst;
  /// The size of the row's function (at every level): its instructions and
  /// blocks; a module row's are the sums over its functions. Absent from
  /// the rows of stores written before irtk recorded them.
  std::optional<uint64_t> Instructions;
  std::optional<uint64_t> Blocks;

  bool operator==(const IndexRecord &O) const;
};

/// The record of an embedding at level \p L: the block fields for block and
/// instruction levels, the instruction fields for instruction level.
IndexRecord makeIndexRecord(support::LevelKind L, llvm::StringRef Module,
                            llvm::StringRef Function, llvm::StringRef Demangled,
                            llvm::StringRef Block, uint64_t BlockIndex,
                            uint64_t InstIndex, llvm::StringRef Inst);

/// Writes \p R as one JSON line, keys in the order row, module, function,
/// demangled, level, block, block_index, inst_index, inst, instructions,
/// blocks.
void writeIndexRecord(const IndexRecord &R, llvm::raw_ostream &OS);

/// Writes the fields of \p R other than the row and the sizes as members of
/// \p W, for tools that embed a record's description in their own objects.
/// \p Kind, when given, follows "level".
void writeIndexFields(const IndexRecord &R, support::JSONObjectWriter &W,
                      llvm::StringRef Kind = "");

/// One line of `llvm-ir2vec --format=jsonl`, for any IR kind: the fields of
/// \p Site, \p Kind, and the embedding at full precision.
void writeEmbeddingLine(const IndexRecord &Site, llvm::StringRef Kind,
                        llvm::ArrayRef<double> Embedding,
                        llvm::raw_ostream &OS);

/// Parses one line; \p Name and \p LineNo (from 1) locate it in errors.
llvm::Expected<IndexRecord>
parseIndexRecord(llvm::StringRef Line, llvm::StringRef Name, uint64_t LineNo);

/// The qualified name of the function whose symbol is \p Symbol, without
/// its parameters, return type or qualifiers ("mup::OprtAdd::Eval" for
/// "_ZN3mup7OprtAdd4EvalEPPdi"), or "" when \p Symbol is not an Itanium
/// mangled function name.
std::string qualifiedFunctionName(llvm::StringRef Symbol);

/// Told how many of a store's index lines have been checked, of how many,
/// while a large store opens (for a status line).
using LoadProgress = llvm::function_ref<void(uint64_t Done, uint64_t Total)>;

/// A store's index, read lazily. It may be the concatenation of several
/// index files (the shards of a sharded store): each keeps its own row
/// numbers, from 0, and is renumbered to follow the parts before it.
class IndexFile {
public:
  /// Maps \p Path, finds its lines and checks that each is JSON. An empty
  /// last line is allowed; a missing final newline is too. \p Progress,
  /// when given, is called every few thousand lines and after the last.
  static llvm::Expected<IndexFile> open(llvm::StringRef Path,
                                        LoadProgress Progress = {});
  /// The records of \p Parts one after another, renumbered; \p Path names
  /// the whole in messages.
  static IndexFile concatenate(std::vector<IndexFile> Parts,
                               llvm::StringRef Path);

  IndexFile(IndexFile &&);
  IndexFile &operator=(IndexFile &&);
  ~IndexFile();

  /// Number of records (lines).
  uint64_t size() const { return Size; }
  llvm::StringRef path() const { return Path; }
  /// Parses the record of \p Row and checks that it says it is that row
  /// (of its part).
  llvm::Expected<IndexRecord> record(uint64_t Row) const;
  /// Rows whose function is named \p Name, in row order: as symbol or
  /// demangled name, or else, when no row's is, as qualified name without
  /// parameters (qualifiedFunctionName). A qualified name that several
  /// functions (symbols) have is an error listing them, naming \p Where (the
  /// index file by default). Only lines that contain \p Name are parsed.
  llvm::Expected<std::vector<uint64_t>>
  findFunction(llvm::StringRef Name, llvm::StringRef Where = "") const;
  /// Rows whose module is \p Name, in row order: the module as the row
  /// records it (the input path llvm-ir2vec was given), or else, when no
  /// row's is, every module whose path ends in "/<Name>". A name that ends
  /// the paths of several modules is an error listing them, naming \p Where
  /// (the index file by default). Only lines that contain \p Name are
  /// parsed.
  llvm::Expected<std::vector<uint64_t>>
  findModule(llvm::StringRef Name, llvm::StringRef Where = "") const;

private:
  /// One mapped index file.
  struct Part {
    std::string Path;
    std::unique_ptr<llvm::MemoryBuffer> Buffer;
    /// Offset of each line's start, then one past the end.
    std::vector<uint64_t> Starts;
    /// The row of its first line in the whole.
    uint64_t FirstRow = 0;
    uint64_t size() const { return Starts.size() - 1; }
    llvm::StringRef line(uint64_t Row) const;
  };
  IndexFile() = default;
  const Part &partOf(uint64_t Row) const;
  /// Calls \p Fn with each line (part and line in it) that contains
  /// \p Needle, once per line, in row order.
  void
  forEachLineWith(llvm::StringRef Needle,
                  llvm::function_ref<void(const Part &, uint64_t)> Fn) const;
  /// Calls \p Fn with the record of each line that contains \p Needle, in
  /// row order; stops at the first record that cannot be read, and returns
  /// its error.
  llvm::Error
  forEachRecordWith(llvm::StringRef Needle,
                    llvm::function_ref<void(const IndexRecord &)> Fn) const;

  std::string Path;
  std::vector<Part> Parts;
  uint64_t Size = 0;
};

} // namespace irtk::store

#endif // IRTK_STORE_INDEX_H
