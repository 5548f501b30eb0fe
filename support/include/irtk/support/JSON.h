//===- JSON.h - Reading JSON files with one-line errors ---------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every JSON document irtk reads (vocabularies, corpus descriptions, store
/// metadata and index lines) is parsed here, with llvm::json, the parser
/// upstream uses, so that what one accepts the other does. A syntax error
/// becomes "file:line:col: invalid JSON: msg", with line and column (both
/// from 1) computed from the parser's byte offset.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_SUPPORT_JSON_H
#define IRTK_SUPPORT_JSON_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace irtk::support {

/// Parses \p Text, read from \p Name (a file name, or a description such as
/// "<stdin>"), into a JSON value; errors are one line naming \p Name.
llvm::Expected<llvm::json::Value> parseJSON(llvm::StringRef Text,
                                            llvm::StringRef Name);

/// \p E is the error llvm::json::parse gave for \p Text, read from \p Name.
llvm::Error jsonSyntaxError(llvm::StringRef Name, llvm::StringRef Text,
                            llvm::Error E);

} // namespace irtk::support

#endif // IRTK_SUPPORT_JSON_H
