//===- JSON.h - Reading JSON files with one-line errors ---------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every JSON document irtk reads (vocabularies, legacy flat vocabularies,
/// corpus descriptions, store metadata and index lines) is parsed here, with
/// llvm::json, the parser upstream uses, so that what one accepts the other
/// does. A syntax error becomes "file:line:col: invalid JSON: msg", with line
/// and column (both from 1) computed from the parser's byte offset.
///
/// Two checks come on top of llvm::json, from one scan of the text:
/// - arrays and objects nested deeper than MaxJSONDepth levels are refused
///   before llvm::json::parse sees them (it recurses once per level and
///   would overflow the stack on a file of a few thousand '[');
/// - an object with the same key twice is refused (llvm::json::Object keeps
///   the last one silently).
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_SUPPORT_JSON_H
#define IRTK_SUPPORT_JSON_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace irtk::support {

/// The deepest nesting of arrays and objects parseJSON accepts.
inline constexpr unsigned MaxJSONDepth = 512;

/// Parses \p Text, read from \p Name (a file name, or a description such as
/// "<stdin>"), into a JSON value; errors are one line naming \p Name, with
/// the line and column. \p FirstLine is the line of \p Name that \p Text
/// starts on (for one line of a JSON-lines file).
llvm::Expected<llvm::json::Value>
parseJSON(llvm::StringRef Text, llvm::StringRef Name, unsigned FirstLine = 1);

/// Fails exactly when parseJSON(\p Text, \p Name, \p FirstLine) fails, and
/// with the same error, but builds no value: for checking many documents
/// (every line of a store's index) of which few will be read. Plain
/// documents are checked by a scan that allocates nothing; anything it is
/// not sure of (an escape in a key, a number written in a form JSON does not
/// have, a problem) is left to parseJSON.
llvm::Error checkJSON(llvm::StringRef Text, llvm::StringRef Name,
                      unsigned FirstLine = 1);

/// Reads one number in JSON's grammar at \p P, correctly rounded, and
/// advances \p P past it: the fast path of readers that take the common
/// shape of a large file (arrays of numbers) without building JSON values.
/// False, with \p P anywhere, for what is not such a number, for a number
/// that is not finite as a double, and for "-0", which llvm::json keeps as
/// the integer 0 (+0.0): the caller then reads the text with llvm::json, so
/// that both paths give the same values.
bool readJSONNumber(const char *&P, const char *End, double &D);

/// Whether \p V holds a number that is not finite as a double (llvm::json
/// reads 1e400 as infinity, which no JSON writer can write back), at any
/// depth.
bool hasNonFiniteNumber(const llvm::json::Value &V);

} // namespace irtk::support

#endif // IRTK_SUPPORT_JSON_H
