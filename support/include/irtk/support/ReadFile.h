//===- ReadFile.h - Reading a whole input file ------------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The one way irtk reads an input file, with the one-line error every tool
/// prints: "<path>: cannot read <what>: <reason>".
///
/// An input must be a regular file: a FIFO would block forever and a device
/// such as /dev/zero would be read until memory runs out, so both are
/// refused ("not a regular file") before anything is opened, and a file is
/// read up to the size it had when it was opened, never further. Reading a
/// stream is a feature a reader documents: "-" is standard input where the
/// caller allows it (ReadOptions::AllowStdin).
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_SUPPORT_READFILE_H
#define IRTK_SUPPORT_READFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

namespace irtk::support {

struct ReadOptions {
  /// Text mode where the platform has one.
  bool IsText = true;
  /// The buffer ends with a NUL after the file's bytes (LLVM's parsers
  /// need it; binary readers do not).
  bool RequiresNullTerminator = true;
  /// "-" reads standard input; otherwise "-" is a file of that name.
  bool AllowStdin = true;

  /// A binary file's bytes as they are: no text mode, no NUL after them,
  /// and "-" a file name (binary forms, npy matrices, indexes).
  static ReadOptions bytes() {
    ReadOptions O;
    O.IsText = false;
    O.RequiresNullTerminator = false;
    O.AllowStdin = false;
    return O;
  }
};

/// Reads \p Path whole; \p What names the content in the error ("model",
/// "log"; empty: "cannot read: <reason>").
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readFile(llvm::StringRef Path, llvm::StringRef What, const ReadOptions &Opts);

/// readFile with \p IsText and the other options' defaults.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readFile(llvm::StringRef Path, llvm::StringRef What, bool IsText = true);

/// The first \p Size bytes of \p Path (fewer when the file is shorter),
/// with readFile's checks: for a header read before the rest is needed.
llvm::Expected<std::string> readFilePrefix(llvm::StringRef Path,
                                           llvm::StringRef What, size_t Size);

/// Fails as readFile would on \p Path (missing, unreadable, a directory,
/// not a regular file), without reading it: for a file the user named that
/// this run does not need, which must still be there, or for an input that
/// another reader (LLVM's IR parser, FAISS) opens by its name.
llvm::Error checkReadable(llvm::StringRef Path, llvm::StringRef What);

/// Fails when \p Path exists and is neither a regular file nor a directory
/// (a FIFO, a device, a socket): for inputs that another reader (LLVM's IR
/// parser, FAISS) opens by name, whose errors for a missing file or a
/// directory are kept as they are. "-" (standard input) passes.
llvm::Error checkNotAStream(llvm::StringRef Path, llvm::StringRef What);

} // namespace irtk::support

#endif // IRTK_SUPPORT_READFILE_H
