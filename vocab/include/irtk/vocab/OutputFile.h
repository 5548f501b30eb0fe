//===- OutputFile.h - Writing a whole output file or nothing ----*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// writeOutputFile writes a file under a temporary name beside it and renames
/// it into place once everything was written. Unlike llvm::writeToOutput it
/// checks the stream: a full disk gives an ordinary error and leaves no file,
/// where writeToOutput renames the truncated file into place and the process
/// then aborts ("LLVM ERROR: IO failure on output stream"). "-" is standard
/// output; an existing device or pipe (/dev/null, /dev/stdout) is written in
/// place.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_VOCAB_OUTPUTFILE_H
#define IRTK_VOCAB_OUTPUTFILE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace irtk {

namespace detail {
/// Flushes \p OS; a write error becomes an Error and is cleared on \p OS (a
/// stream destroyed with a pending error aborts the process).
inline llvm::Error takeWriteError(llvm::raw_fd_ostream &OS,
                                  llvm::StringRef Name) {
  OS.flush();
  if (!OS.has_error())
    return llvm::Error::success();
  std::error_code EC = OS.error();
  OS.clear_error();
  return llvm::createStringError(EC, "cannot write '" + Name +
                                         "': " + EC.message());
}
} // namespace detail

/// Flushes standard output; a write error (a full disk, a closed pipe)
/// becomes an Error instead of an abort when the process exits.
inline llvm::Error takeStdoutError() {
  return detail::takeWriteError(llvm::outs(), "<stdout>");
}

/// Calls \p Write with a stream for \p Path, then commits the file; on any
/// write error nothing is left at \p Path (an existing file is untouched).
inline llvm::Error
writeOutputFile(llvm::StringRef Path,
                llvm::function_ref<void(llvm::raw_ostream &)> Write) {
  using namespace llvm;
  if (Path == "-") {
    Write(outs());
    return detail::takeWriteError(outs(), "<stdout>");
  }
  sys::fs::file_status St;
  if (!sys::fs::status(Path, St) && sys::fs::exists(St) &&
      !sys::fs::is_regular_file(St) && !sys::fs::is_directory(St)) {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
    if (EC)
      return createStringError(EC,
                               "cannot open '" + Path + "': " + EC.message());
    Write(OS);
    return detail::takeWriteError(OS, Path);
  }
  Expected<sys::fs::TempFile> Temp =
      sys::fs::TempFile::create(Path + ".tmp-%%%%%%");
  if (!Temp) {
    std::string Msg = toString(Temp.takeError());
    return createStringError(inconvertibleErrorCode(),
                             "cannot write '" + Path + "': " + Msg);
  }
  Error E = Error::success();
  {
    raw_fd_ostream OS(Temp->FD, /*shouldClose=*/false);
    Write(OS);
    E = detail::takeWriteError(OS, Path);
  }
  if (E) {
    consumeError(Temp->discard());
    return E;
  }
  if (Error K = Temp->keep(Path)) {
    std::string Msg = toString(std::move(K));
    return createStringError(inconvertibleErrorCode(),
                             "cannot write '" + Path + "': " + Msg);
  }
  return Error::success();
}

} // namespace irtk

#endif // IRTK_VOCAB_OUTPUTFILE_H
