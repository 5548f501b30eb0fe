//===- VocabularyPath.h - Which vocabulary file to load ---------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every front end (llvm-ir2vec, the plugin's passes and advisors, the
/// Python module) loads the vocabulary an option names or, without one,
/// the one irtk bundles: found beside the binary, and maybe missing (a
/// binary moved out of its installation, a target irtk ships none for).
/// Each words the failure with its own option names.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_VOCAB_VOCABULARYPATH_H
#define IRTK_VOCAB_VOCABULARYPATH_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace irtk::vocab {

/// Where the vocabularies bundled with irtk sit for a binary at
/// \p BinaryPath: an executable in <prefix>/bin or a plugin or module in
/// <prefix>/lib finds them in <prefix>/share/irtk/vocab. The build tree has
/// the same shape. (irtk bundles no advisor model: docs/InlineTraining.md.)
std::string bundledVocabularyDir(llvm::StringRef BinaryPath);

/// bundledVocabularyDir(\p BinaryPath)/\p FileName. The file may not exist;
/// callers check (resolveVocabularyPath).
std::string bundledVocabularyPath(llvm::StringRef BinaryPath,
                                  llvm::StringRef FileName);

/// The vocabulary file to load: \p Given (what an option named) when it is
/// not empty, else \p Default (a bundled vocabulary; "" when irtk bundles
/// none for the case) when that file exists. Otherwise fails with
/// \p Unset(Default), the caller's one-line message, which names the option
/// that sets a vocabulary.
llvm::Expected<std::string> resolveVocabularyPath(
    llvm::StringRef Given, llvm::StringRef Default,
    llvm::function_ref<std::string(llvm::StringRef Default)> Unset);

} // namespace irtk::vocab

#endif // IRTK_VOCAB_VOCABULARYPATH_H
