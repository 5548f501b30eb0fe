//===- Format.h - Printing numbers, vectors and JSON -----------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The two ways irtk prints a vector: upstream LLVM 22's text shape
/// (" [ 1.00  2.00 ]", each element as printf's "%.2f") and full-precision
/// JSON numbers. Both are hot at instruction level, so neither goes through
/// printf: the "%.2f" formatter rounds exactly as glibc does (correctly
/// rounded, ties to even on the exact binary value) and falls back to
/// snprintf only where its fast path cannot be exact.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_SUPPORT_FORMAT_H
#define IRTK_SUPPORT_FORMAT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace irtk::support {

/// Buffer size that fits any output of formatFixed2 or formatShortest.
inline constexpr size_t MaxNumberChars = 330;

/// Writes \p X as printf("%.2f") would into \p Buf (not NUL-terminated) and
/// returns the number of characters written.
size_t formatFixed2(double X, char *Buf);

/// Writes the shortest decimal that reads back as exactly \p X; non-finite
/// values become JSON null.
size_t formatShortest(double X, char *Buf);

/// Writes \p X to \p OS as formatShortest does, but -0 as "-0.0": llvm::json
/// reads "-0" as the integer 0, so this is the form that reads back as
/// exactly \p X, sign of zero included.
void writeJSONNumber(llvm::raw_ostream &OS, double X);

/// Prints \p V as upstream's Embedding::print does, including the newline:
/// " [ 1.00  2.00 ]\n".
void printVector(llvm::raw_ostream &OS, llvm::ArrayRef<double> V);

/// Prints vectors as printVector does, remembering the text of vectors it
/// has printed: instruction vectors repeat a great deal (a symbolic one
/// depends only on opcode, type and operand kinds), and looking a vector up
/// costs far less than formatting its elements. Keys are compared exactly.
class CachedVectorPrinter {
public:
  void print(llvm::raw_ostream &OS, llvm::ArrayRef<double> V);

private:
  struct Entry {
    std::vector<double> Key;
    std::string Text;
  };
  /// Stop remembering past this many distinct vectors.
  static constexpr size_t MaxEntries = 1 << 16;
  llvm::DenseMap<uint64_t, unsigned> Index;
  std::vector<Entry> Entries;
  std::string Scratch;
};

/// Prints \p V as a JSON array of full-precision numbers: "[1,2.5]".
void printJSONVector(llvm::raw_ostream &OS, llvm::ArrayRef<double> V);

/// Prints \p S as a JSON string literal, quotes included. Bytes that are not
/// valid UTF-8 (LLVM names are arbitrary bytes) are printed as U+FFFD.
void printJSONString(llvm::raw_ostream &OS, llvm::StringRef S);

/// Writes one JSON object member by member, in the order of the calls, with
/// the escaping and number formats above: every JSON record irtk writes
/// (JSON lines, store index rows, recorded embeddings) goes through it.
///   JSONObjectWriter(OS).string("function", Name).vector("embedding", V);
/// writes {"function":"f","embedding":[1,2]}. The object is closed (and, with
/// \p NewLine, a newline written) when the writer goes out of scope.
class JSONObjectWriter {
public:
  explicit JSONObjectWriter(llvm::raw_ostream &OS, bool NewLine = true);
  ~JSONObjectWriter();
  JSONObjectWriter(const JSONObjectWriter &) = delete;
  JSONObjectWriter &operator=(const JSONObjectWriter &) = delete;

  JSONObjectWriter &string(llvm::StringRef Key, llvm::StringRef Value);
  JSONObjectWriter &number(llvm::StringRef Key, uint64_t Value);
  /// A double in shortest round-trip form (null when not finite).
  JSONObjectWriter &real(llvm::StringRef Key, double Value);
  JSONObjectWriter &vector(llvm::StringRef Key, llvm::ArrayRef<double> V);
  /// A nested object, written by \p Members.
  JSONObjectWriter &
  object(llvm::StringRef Key,
         llvm::function_ref<void(JSONObjectWriter &)> Members);
  /// A member whose value \p Raw is already JSON text.
  JSONObjectWriter &raw(llvm::StringRef Key, llvm::StringRef Raw);

private:
  void key(llvm::StringRef Key);
  llvm::raw_ostream &OS;
  bool NewLine;
  bool First = true;
};

} // namespace irtk::support

#endif // IRTK_SUPPORT_FORMAT_H
