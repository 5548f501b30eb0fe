//===- ScratchFile.h - The current fuzz input as a file ---------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// For parsers whose public API reads a path: each fuzz input is written to
/// a file in a directory of its own, made once per process and removed at
/// exit. A failure to write is the harness's, not the input's: it aborts.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_TEST_FUZZ_SCRATCHFILE_H
#define IRTK_TEST_FUZZ_SCRATCHFILE_H

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace irtk::fuzz {

/// A file named \p FileName in a per-process scratch directory.
class ScratchFile {
public:
  explicit ScratchFile(llvm::StringRef FileName) {
    if (llvm::sys::fs::createUniqueDirectory("irtk-fuzz", Dir))
      std::abort();
    Path = Dir;
    llvm::sys::path::append(Path, FileName);
  }
  ~ScratchFile() {
    llvm::sys::fs::remove(Path);
    llvm::sys::fs::remove(Dir);
  }
  ScratchFile(const ScratchFile &) = delete;
  ScratchFile &operator=(const ScratchFile &) = delete;

  /// Replaces the file's contents with \p Size bytes at \p Data.
  void write(const uint8_t *Data, size_t Size) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    if (EC)
      std::abort();
    OS.write(reinterpret_cast<const char *>(Data), Size);
    OS.close();
    if (OS.has_error())
      std::abort();
  }

  llvm::StringRef dir() const { return Dir; }
  llvm::StringRef path() const { return Path; }

private:
  llvm::SmallString<128> Dir;
  llvm::SmallString<128> Path;
};

} // namespace irtk::fuzz

#endif // IRTK_TEST_FUZZ_SCRATCHFILE_H
