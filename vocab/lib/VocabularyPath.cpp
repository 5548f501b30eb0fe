//===- VocabularyPath.cpp - Which vocabulary file to load -----------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/vocab/VocabularyPath.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace irtk::vocab {

std::string bundledVocabularyDir(StringRef BinaryPath) {
  SmallString<256> P(
      sys::path::parent_path(sys::path::parent_path(BinaryPath)));
  sys::path::append(P, "share", "irtk", "vocab");
  return std::string(P);
}

std::string bundledVocabularyPath(StringRef BinaryPath, StringRef FileName) {
  SmallString<256> P(bundledVocabularyDir(BinaryPath));
  sys::path::append(P, FileName);
  return std::string(P);
}

Expected<std::string>
resolveVocabularyPath(StringRef Given, StringRef Default,
                      function_ref<std::string(StringRef Default)> Unset) {
  if (!Given.empty())
    return Given.str();
  if (Default.empty() || !sys::fs::exists(Default))
    return createStringError(inconvertibleErrorCode(), Unset(Default));
  return Default.str();
}

} // namespace irtk::vocab
