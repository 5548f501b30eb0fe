//===- Corpus.h - MLGO corpus descriptions ----------------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reading an MLGO corpus (as mlgo-utils' extract_ir.py and make_corpus.py
/// write it): a corpus_description.json at the corpus root whose "modules"
/// list names each module by its path relative to the root, without the
/// ".bc" extension; the bitcode is "<root>/<module>.bc".
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_IR2VEC_CORPUS_H
#define IRTK_IR2VEC_CORPUS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace irtk::ir2vec {

inline constexpr const char *CorpusDescriptionName = "corpus_description.json";

/// Whether \p Path is a corpus: a directory holding corpus_description.json,
/// or such a file itself.
bool isCorpus(llvm::StringRef Path);

/// The bitcode paths of the corpus at \p Path (directory or description
/// file), in the description's order. Fails, naming the description, when it
/// cannot be read, is not JSON, or has no "modules" list of strings.
llvm::Expected<std::vector<std::string>>
readCorpusModules(llvm::StringRef Path);

} // namespace irtk::ir2vec

#endif // IRTK_IR2VEC_CORPUS_H
