//===- JSONDiagnostics.h - One-line JSON syntax errors ----------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Turns an llvm::json::parse error into "file:line:col: invalid JSON: msg",
/// with line and column (both from 1) computed from the byte offset, for
/// every JSON file irtk reads (vocabularies, corpus descriptions).
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_VOCAB_JSONDIAGNOSTICS_H
#define IRTK_VOCAB_JSONDIAGNOSTICS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace irtk::vocab {

/// \p E is the error llvm::json::parse gave for \p Text, read from \p Name.
llvm::Error jsonSyntaxError(llvm::StringRef Name, llvm::StringRef Text,
                            llvm::Error E);

} // namespace irtk::vocab

#endif // IRTK_VOCAB_JSONDIAGNOSTICS_H
