//===- ReadFile.cpp - Reading a whole input file --------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/support/ReadFile.h"

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

} // namespace irtk::support
