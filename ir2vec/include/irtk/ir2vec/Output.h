//===- Output.h - Writing embeddings and triplets ---------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What `llvm-ir2vec` writes for one module, in upstream LLVM 22's text
/// format (byte for byte) or as JSON lines. Kept in the library so that the
/// CLI is glue and the tests reach the formats directly.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_IR2VEC_OUTPUT_H
#define IRTK_IR2VEC_OUTPUT_H

#include "irtk/ir2vec/Embedder.h"
#include "irtk/ir2vec/Triplets.h"
#include "irtk/ir2vec/Walk.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace llvm {
class Module;
class raw_ostream;
} // namespace llvm

namespace irtk::ir2vec {

using ircommon::OutputFormatKind;

/// The options of both kinds' writers (level, format, function, module
/// name) and the embedding kind.
struct EmbeddingOutputOptions : ircommon::OutputOptions {
  EmbeddingKind Kind = EmbeddingKind::Symbolic;

  /// What the walker visits for these options.
  WalkOptions walkOptions() const;
};

/// Writes the embeddings of \p M. Returns the number of functions that
/// matched Opts.FunctionName (or the number of functions considered when it
/// is empty), so a caller can report a name that matched nowhere. At the
/// module level the one record is named Opts.ModuleName.
unsigned writeEmbeddings(const llvm::Module &M, const vocab::Vocabulary &V,
                         const EmbeddingOutputOptions &Opts,
                         llvm::raw_ostream &OS);

struct TripletSummary {
  /// Largest relation id written, at least 1 (Next).
  unsigned MaxRelation = 1;
  /// Defined functions whose triplets were written.
  unsigned Functions = 0;
};

/// Appends the triplets of \p M to \p Out, only for \p FunctionName (symbol
/// or demangled) when it is not empty.
TripletSummary collectModuleTriplets(const llvm::Module &M,
                                     std::vector<vocab::Triplet> &Out,
                                     llvm::StringRef FunctionName = "");

/// Writes the triplet lines of \p M (no header), only for \p FunctionName
/// when it is not empty.
TripletSummary writeTriplets(const llvm::Module &M, llvm::raw_ostream &OS,
                             llvm::StringRef FunctionName = "");

/// Writes OpenKE's relation2id: the count, then "Type\t0", "Next\t1" and
/// "Arg<i>\t<i+2>" up to \p MaxRelation, as upstream's triplet recipe does.
void writeRelations(unsigned MaxRelation, llvm::raw_ostream &OS);

} // namespace irtk::ir2vec

#endif // IRTK_IR2VEC_OUTPUT_H
