//===- ReadFile.cpp - Reading a whole input file --------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The type is checked with stat before the file is opened, since opening
/// a FIFO for reading blocks until a writer comes; it is checked again on
/// the open descriptor (the name may have been replaced in between), whose
/// size then bounds the read.
///
//===----------------------------------------------------------------------===//

#include "irtk/support/ReadFile.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"

using namespace llvm;

namespace irtk::support {

static Error readError(StringRef Path, StringRef What, const Twine &Reason,
                       std::error_code EC = inconvertibleErrorCode()) {
  return createStringError(EC, Path + ": cannot read" +
                                   (What.empty() ? "" : " ") + What + ": " +
                                   Reason);
}

/// The reason \p S is not a file to read, or "" when it is one.
static std::string refusal(const sys::fs::file_status &S) {
  if (sys::fs::is_directory(S))
    return std::make_error_code(std::errc::is_a_directory).message();
  if (!sys::fs::is_regular_file(S))
    return "not a regular file";
  return "";
}

/// Fails unless \p Path names a regular file (through links), without
/// opening it; \p S is then its status.
static Error checkRegular(StringRef Path, StringRef What,
                          sys::fs::file_status &S) {
  if (std::error_code EC = sys::fs::status(Path, S))
    return readError(Path, What, EC.message(), EC);
  if (std::string Why = refusal(S); !Why.empty())
    return readError(Path, What, Why);
  return Error::success();
}

Expected<std::unique_ptr<MemoryBuffer>> readFile(StringRef Path, StringRef What,
                                                 const ReadOptions &Opts) {
  if (Path == "-" && Opts.AllowStdin) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getSTDIN();
    if (!Buf)
      return readError("<stdin>", What, Buf.getError().message(),
                       Buf.getError());
    return std::move(*Buf);
  }
  sys::fs::file_status S;
  if (Error E = checkRegular(Path, What, S))
    return std::move(E);
  int FD;
  if (std::error_code EC = sys::fs::openFileForRead(
          Path, FD, Opts.IsText ? sys::fs::OF_Text : sys::fs::OF_None))
    return readError(Path, What, EC.message(), EC);
  auto Close = make_scope_exit([&] { sys::fs::closeFile(FD); });
  if (std::error_code EC = sys::fs::status(FD, S))
    return readError(Path, What, EC.message(), EC);
  if (std::string Why = refusal(S); !Why.empty())
    return readError(Path, What, Why);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getOpenFile(sys::fs::convertFDToNativeFile(FD), Path,
                                S.getSize(), Opts.RequiresNullTerminator);
  if (!Buf)
    return readError(Path, What, Buf.getError().message(), Buf.getError());
  return std::move(*Buf);
}

Expected<std::unique_ptr<MemoryBuffer>> readFile(StringRef Path, StringRef What,
                                                 bool IsText) {
  ReadOptions Opts;
  Opts.IsText = IsText;
  return readFile(Path, What, Opts);
}

Expected<std::string> readFilePrefix(StringRef Path, StringRef What,
                                     size_t Size) {
  sys::fs::file_status S;
  if (Error E = checkRegular(Path, What, S))
    return std::move(E);
  Expected<sys::fs::file_t> F = sys::fs::openNativeFileForRead(Path);
  if (!F)
    return readError(Path, What, toString(F.takeError()));
  std::string Bytes(Size, '\0');
  Expected<size_t> Read =
      sys::fs::readNativeFile(*F, MutableArrayRef<char>(Bytes.data(), Size));
  sys::fs::closeFile(*F);
  if (!Read)
    return readError(Path, What, toString(Read.takeError()));
  Bytes.resize(*Read);
  return Bytes;
}

Error checkReadable(StringRef Path, StringRef What) {
  sys::fs::file_status S;
  if (Error E = checkRegular(Path, What, S))
    return E;
  int FD;
  if (std::error_code EC = sys::fs::openFileForRead(Path, FD))
    return readError(Path, What, EC.message(), EC);
  sys::fs::closeFile(FD);
  return Error::success();
}

Error checkNotAStream(StringRef Path, StringRef What) {
  sys::fs::file_status S;
  if (Path == "-" || sys::fs::status(Path, S) || sys::fs::is_directory(S) ||
      sys::fs::is_regular_file(S))
    return Error::success();
  return readError(Path, What, "not a regular file");
}

} // namespace irtk::support
