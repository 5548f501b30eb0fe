//===- OutputFile.h - Writing a whole output file or nothing ----*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every file irtk writes is written under a temporary name beside it and
/// renamed into place once everything was written, so a failed run leaves no
/// half-written output and an existing file untouched. Unlike
/// llvm::writeToOutput this checks the stream: a full disk is an ordinary
/// error, where writeToOutput renames the truncated file into place and the
/// process then aborts ("LLVM ERROR: IO failure on output stream").
///
/// "-" is standard output. An existing device or pipe (/dev/null,
/// /dev/stdout) is written in place: renaming over it would replace it with
/// a file. An existing directory is an error.
///
/// Every error reads "cannot write '<path>': <reason>".
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_SUPPORT_OUTPUTFILE_H
#define IRTK_SUPPORT_OUTPUTFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>

namespace irtk::support {

/// Flushes \p OS; a write error becomes "cannot write '<Name>': <reason>"
/// and is cleared on \p OS (a stream destroyed with a pending error aborts
/// the process).
llvm::Error takeWriteError(llvm::raw_fd_ostream &OS, llvm::StringRef Name);

/// Flushes standard output; a write error (a full disk, a closed pipe)
/// becomes an Error instead of an abort when the process exits.
llvm::Error takeStdoutError();

/// An output file that streams: open, write to os() as results arrive, then
/// commit() (or discard(); destroying an uncommitted file discards it).
class OutputFile {
public:
  static llvm::Expected<std::unique_ptr<OutputFile>> open(llvm::StringRef Path);
  ~OutputFile();

  llvm::raw_ostream &os() { return *Stream; }
  /// The path as given ("-" for standard output).
  llvm::StringRef path() const { return Path; }
  /// Checks every write and moves the file into place.
  llvm::Error commit();
  /// Removes the temporary file; standard output and devices keep what was
  /// written.
  void discard();

  /// Commits \p Files together: either all of them appear or none. Every
  /// file's writes are checked before any is renamed into place; when a
  /// rename fails, the files already renamed are removed (a file they
  /// replaced is then gone too) and the others discarded.
  static llvm::Error commitAll(llvm::ArrayRef<OutputFile *> Files);

private:
  OutputFile() = default;
  /// Flushes and checks the writes, closes a temporary file's stream.
  llvm::Error finishWriting();
  std::string Path;
  std::optional<llvm::sys::fs::TempFile> Temp;
  /// Null for standard output.
  std::unique_ptr<llvm::raw_fd_ostream> File;
  llvm::raw_fd_ostream *Stream = nullptr;
  bool Done = false;
};

/// Fails when writing \p Output would replace one of \p Inputs: when it is
/// the same file (sys::fs::equivalent, so another path to it counts too).
/// Standard output ("-"), outputs that do not exist yet and outputs that
/// are not regular files (devices, pipes) never are. The error reads
/// "cannot write '<Output>': it is the input '<Input>'".
llvm::Error checkNotAnInput(llvm::StringRef Output,
                            llvm::ArrayRef<std::string> Inputs);

/// Calls \p Write with a stream for \p Path, then commits the file. When
/// \p Write or a write fails, nothing is left at \p Path and the error is
/// returned.
llvm::Error
writeOutputFile(llvm::StringRef Path,
                llvm::function_ref<llvm::Error(llvm::raw_ostream &)> Write);

/// Appends \p Text to \p Path (created if missing) under an exclusive lock,
/// so that parallel compilations can share one file without interleaving
/// their lines. The one output that is not written whole or not at all.
llvm::Error appendLocked(llvm::StringRef Path, llvm::StringRef Text);

} // namespace irtk::support

#endif // IRTK_SUPPORT_OUTPUTFILE_H
