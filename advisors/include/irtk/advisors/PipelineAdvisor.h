//===- PipelineAdvisor.h - Per-module size pipeline choices in clang -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The size pipeline's advisor (docs/Pipeline.md): what a pass plugin can
/// change of clang's -Oz pipeline, per module. A module's choice adds
/// sub-pipelines at the optimizer-last extension point, vetoes optional
/// passes (they are skipped wherever they run on the module), and keeps the
/// machine outliner off the module's functions (the "nooutline" attribute,
/// which LLVM 22's machine outliner honours; the outliner itself is turned
/// on for the whole build with -mllvm -enable-machine-outliner).
///
/// The replay policy takes each module's choice from a file that
/// `python3 -m ir2vec.mlgo tune` writes, matched by the module's source file
/// name. A module the file does not name is compiled as stock.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_ADVISORS_PIPELINEADVISOR_H
#define IRTK_ADVISORS_PIPELINEADVISOR_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class PassBuilder;
} // namespace llvm

namespace irtk::advisors {

/// One module's choice.
struct PipelineChoice {
  /// Pass pipeline text run at the optimizer-last point; empty: none.
  std::string Append;
  /// Pass names (as in pass pipeline text, e.g. "licm") of optional passes
  /// skipped on the module.
  std::vector<std::string> Veto;
  /// False: every function the module defines gets "nooutline".
  bool Outline = true;
};

/// The choices file: {"format": "irtk-pipeline-choices", "version": 1,
/// "modules": {"<source file name>": {"append": "...", "veto": [...],
/// "outline": true|false}}}.
inline constexpr llvm::StringLiteral PipelineChoicesFormat =
    "irtk-pipeline-choices";
inline constexpr unsigned PipelineChoicesVersion = 1;

/// Reads and checks a choices file; one-line errors naming \p Path.
llvm::Expected<llvm::StringMap<PipelineChoice>>
readPipelineChoices(llvm::StringRef Path);

/// One choice ({"append", "veto", "outline"}; a key left out keeps its
/// default) of a file at \p Path; \p What names it in errors ("module
/// 'a.c'").
llvm::Expected<PipelineChoice> readPipelineChoice(llvm::StringRef Path,
                                                  const llvm::Twine &What,
                                                  const llvm::json::Value &V);

struct PipelineAdvisorOptions {
  /// The replay policy's choices file.
  std::string ChoicesPath;
  /// The model policy (PipelineModel.h) decides instead of a choices
  /// file, from ModelPath.
  bool Model = false;
  std::string ModelPath;
  /// The model irtk ships (shippedPipelineModelPath), taken when ModelPath
  /// is empty.
  std::string ShippedModelPath;
  /// The IR vocabulary a model's module vector is computed with.
  std::string VocabPath;
};

/// Registers the advisor with \p PB; \p GetOptions gives the options when a
/// pipeline is built (none: stock, and nothing is registered).
void registerPipelineAdvisor(
    llvm::PassBuilder &PB,
    std::function<std::optional<PipelineAdvisorOptions>()> GetOptions);

} // namespace irtk::advisors

#endif // IRTK_ADVISORS_PIPELINEADVISOR_H
