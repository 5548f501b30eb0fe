//===- InlineAdvisor.h - The inliner's advisor: MLGO features + IR2Vec -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// An inline advisor for the new pass manager's inliner, loaded through
/// LLVM 22's PluginInlineAdvisorAnalysis. It reuses llvm::MLInlineAdvisor
/// for the standard MLGO features (names, types and shapes of
/// llvm/Analysis/InlineModelFeatureMaps.h) and for the module-wide state it
/// keeps across inlining, adds LLVM's default decision (inlining_default)
/// and our IR2Vec embeddings of callee and caller (callee_embedding,
/// caller_embedding, recomputed when a caller changes by inlining), and lets
/// a PolicyRunner decide. docs/AdvisorFeatures.md lists every feature.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_ADVISORS_INLINEADVISOR_H
#define IRTK_ADVISORS_INLINEADVISOR_H

#include "irtk/advisors/Policy.h"
#include "irtk/ir2vec/Embedder.h"
#include "irtk/ir2vec/Passes.h"

#include "llvm/ADT/StringMap.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class PassBuilder;
} // namespace llvm

namespace irtk::advisors {

/// A baseline heuristic whose decision is logged next to the features: the
/// stock heuristic with the threshold of -inline-threshold=<Threshold>
/// (which, unlike -Oz's, no minsize or optsize threshold lowers). Its
/// feature is teacher_thr<Threshold> (teacher_thr-100000 for -100000).
/// Teachers make data for imitating several baselines: the features stay
/// those of the user's own pipeline whichever baseline decides.
struct InlineTeacher {
  int Threshold = 0;
  std::string featureName() const;
};

struct InlineAdvisorOptions {
  PolicyOptions Policy;
  std::vector<InlineTeacher> Teachers;
  /// The default policy follows this teacher (one of Teachers) rather than
  /// the stock heuristic.
  std::optional<int> Follow;
  /// The kind of the embedding features; none: no embedding features.
  std::optional<ir2vec::EmbeddingKind> Embedding =
      ir2vec::EmbeddingKind::Symbolic;
  ir2vec::VocabOptions Vocab;
  /// After an inlining, embed again only the caller's blocks it changed
  /// (symbolic embeddings; the same doubles as embedding the caller from
  /// scratch). Off: from scratch, for checking that they agree.
  bool IncrementalEmbeddings = true;
  /// With the default policy, the module's FlipAt-th decision the policy is
  /// asked (from 0) is the opposite of the one it would take there (the
  /// default's, or in a caller of FollowCallersPath that caller's
  /// teacher's), for a search of better decisions; logged as taken.
  std::optional<unsigned> FlipAt;
  /// With the default policy, a file of lines "<threshold> <function>": at
  /// the call sites in each named caller, the default policy decides as
  /// that teacher (one of Teachers) does; logged as taken. Empty: none.
  std::string FollowCallersPath;
  /// With the default policy, a file of lines "<0|1> <caller> <callee>":
  /// at every call site from each named caller to its callee the default
  /// policy takes that decision (before FollowCallersPath's teachers and
  /// FlipAt); logged as taken. Empty: none.
  std::string DecisionsPath;
  /// A file to write, when the module is done, one line per decision the
  /// policy was asked: "<k>\t<caller>\t<callee>\t<decision>". Empty: none.
  std::string TracePath;
};

/// Reads a -irtk-inline-follow-callers file: each line "<threshold>
/// <function name>" (blank lines and lines starting with '#' skipped).
/// Errors name the file and line.
llvm::Expected<llvm::StringMap<int>> readCallerTeachers(llvm::StringRef Path);

/// The decisions of a -irtk-inline-decisions file, keyed by
/// edgeKey(caller, callee): 1 inline, 0 do not.
using EdgeDecisions = llvm::StringMap<bool>;
std::string edgeKey(llvm::StringRef Caller, llvm::StringRef Callee);

/// Reads a -irtk-inline-decisions file: each line "<0|1> <caller> <callee>"
/// (blank lines and lines starting with '#' skipped). Errors name the file
/// and line.
llvm::Expected<EdgeDecisions> readEdgeDecisions(llvm::StringRef Path);

/// The inline advisor's features, in buffer order, for embeddings of
/// \p EmbeddingDim dimensions (0: none): LLVM's feature map, then
/// inlining_default, then callee_embedding and caller_embedding, then the
/// teachers' decisions.
std::vector<llvm::TensorSpec>
inlineFeatures(unsigned EmbeddingDim,
               llvm::ArrayRef<InlineTeacher> Teachers = {});

/// Makes every inliner that asks the module analysis manager for an advisor
/// (inliner-wrapper, module-inline, the default<O*> pipelines; a bare
/// cgscc(inline) never does) use ours, when \p GetOptions (called as each
/// analysis manager is set up, after the command line was parsed) gives
/// options; without, the inliner is stock. Errors (a bad model file, a
/// missing vocabulary, an unwritable log) are reported through the module's
/// LLVMContext as one "irtk: ..." line, and the inliner then decides as
/// stock.
void registerInlineAdvisor(
    llvm::PassBuilder &PB,
    std::function<std::optional<InlineAdvisorOptions>()> GetOptions);

} // namespace irtk::advisors

#endif // IRTK_ADVISORS_INLINEADVISOR_H
