//===- ReadInput.h - How the store's readers read a file --------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every file of a store (store.json, embeddings.npy, index.jsonl) and an
/// approximate index file is read whole through support::readFile: a FIFO
/// or a device in its place is refused, never waited on or read without
/// end. "-" is a file of that name here, not standard input.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_STORE_LIB_READINPUT_H
#define IRTK_STORE_LIB_READINPUT_H

#include "irtk/support/ReadFile.h"

namespace irtk::store {

/// \p Path's bytes; the error reads "<path>: cannot read: <reason>".
inline llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readInput(llvm::StringRef Path) {
  return support::readFile(Path, "", support::ReadOptions::bytes());
}

} // namespace irtk::store

#endif // IRTK_STORE_LIB_READINPUT_H
