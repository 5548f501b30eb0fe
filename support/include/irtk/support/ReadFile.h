//===- ReadFile.h - Reading a whole input file -------------------*- C++
//-*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The one way irtk reads a whole file, with the one-line error every tool
/// prints: "<path>: cannot read <what>: <reason>".
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_SUPPORT_READFILE_H
#define IRTK_SUPPORT_READFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

namespace irtk::support {

/// Reads \p Path ("-" for standard input) whole; \p What names the content
/// in the error ("model", "log").
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readFile(llvm::StringRef Path, llvm::StringRef What, bool IsText = true);

/// Fails as readFile would on \p Path (missing, unreadable, a directory),
/// without reading it: for a file the user named that this run does not
/// need, which must still be there.
llvm::Error checkReadable(llvm::StringRef Path, llvm::StringRef What);

} // namespace irtk::support

#endif // IRTK_SUPPORT_READFILE_H
