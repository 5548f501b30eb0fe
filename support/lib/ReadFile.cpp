//===- ReadFile.cpp - Reading a whole input file --------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/support/ReadFile.h"

#include "llvm/Support/FileSystem.h"

using namespace llvm;

namespace irtk::support {

Expected<std::unique_ptr<MemoryBuffer>> readFile(StringRef Path, StringRef What,
                                                 bool IsText) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getFileOrSTDIN(Path, IsText);
  if (!Buf)
    return createStringError(Buf.getError(), Path + ": cannot read " + What +
                                                 ": " +
                                                 Buf.getError().message());
  return std::move(*Buf);
}

Error checkReadable(StringRef Path, StringRef What) {
  auto Fail = [&](std::error_code EC) {
    return createStringError(EC, Path + ": cannot read " + What + ": " +
                                     EC.message());
  };
  int FD;
  if (std::error_code EC = sys::fs::openFileForRead(Path, FD))
    return Fail(EC);
  sys::fs::file_status S;
  std::error_code EC = sys::fs::status(FD, S);
  sys::fs::closeFile(FD);
  if (EC)
    return Fail(EC);
  if (sys::fs::is_directory(S))
    return Fail(std::make_error_code(std::errc::is_a_directory));
  return Error::success();
}

} // namespace irtk::support
