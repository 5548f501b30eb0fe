//===- InputList.h - Input files and MLGO corpora ---------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The inputs of a corpus run: files named on the command line and MLGO
/// corpora (as mlgo-utils' extract_ir.py and make_corpus.py write them): a
/// corpus_description.json at the corpus root whose "modules" list names
/// each module by its path relative to the root, without the ".bc"
/// extension; the bitcode is "<root>/<module>.bc".
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_SUPPORT_INPUTLIST_H
#define IRTK_SUPPORT_INPUTLIST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace irtk::support {

inline constexpr const char *CorpusDescriptionName = "corpus_description.json";

/// Whether \p Path is a corpus: a directory holding corpus_description.json,
/// or such a file itself.
bool isCorpus(llvm::StringRef Path);

/// The bitcode paths of the corpus at \p Path (directory or description
/// file), in the description's order. Fails, naming the description, when it
/// cannot be read, is not JSON, has no "modules" list of strings, or names
/// a module outside the corpus root (an absolute path, or one with a ".."
/// component).
llvm::Expected<std::vector<std::string>>
readCorpusModules(llvm::StringRef Path);

/// Expands \p Args in order: a corpus stands for its modules, anything else
/// (a file, "-") for itself. A corpus whose description cannot be read is
/// passed to \p OnError and left out; the others are still expanded.
std::vector<std::string>
expandInputs(llvm::ArrayRef<std::string> Args,
             llvm::function_ref<void(llvm::Error)> OnError);

} // namespace irtk::support

#endif // IRTK_SUPPORT_INPUTLIST_H
