//===- StoreInfoFuzzer.cpp - Fuzz store.json metadata ---------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// libFuzzer target: the input as a store's store.json
/// (store::parseStoreInfo).
///
//===----------------------------------------------------------------------===//

#include "irtk/store/Store.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<irtk::store::StoreInfo> Info =
      irtk::store::parseStoreInfo(Text, "store.json");
  if (!Info)
    llvm::consumeError(Info.takeError());
  return 0;
}
