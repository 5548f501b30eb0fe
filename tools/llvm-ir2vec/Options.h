//===- Options.h - llvm-ir2vec command line ---------------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The command line of llvm-ir2vec, parsed with llvm::cl (as upstream's
/// tool parses it) into a plain struct, so that an upstream command line
/// works unchanged: the same subcommands and options, response files, the
/// generic options and exit status 1 for every usage error.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_TOOLS_LLVMIR2VEC_OPTIONS_H
#define IRTK_TOOLS_LLVMIR2VEC_OPTIONS_H

#include "Progress.h"
#include "ToolMain.h"
#include "irtk/ir2vec/Output.h"

#include "irtk/ir2vec/Entities.h"
#include "irtk/mir2vec/Layout.h"
#include "irtk/mir2vec/Lowering.h"

#include <string>
#include <vector>

namespace irtk::cli {

enum class SubcommandKind { Triplets, Entities, Embeddings };
enum class FormatKind { Text, JSONL, Store };
/// --mode: LLVM IR or machine IR.
enum class ModeKind { LLVM, MIR };

struct Options {
  SubcommandKind Subcommand = SubcommandKind::Embeddings;
  ModeKind Mode = ModeKind::LLVM;
  std::vector<std::string> Inputs;
  std::string Output = "-";
  std::string FunctionName;
  std::string VocabPath;
  ir2vec::Weights Weights;
  /// --mode=mir: the vocabulary, its weights, and the target when the
  /// inputs' own triple is not wanted.
  std::string MIRVocabPath;
  mir2vec::Weights MIRWeights;
  std::string MTriple;
  /// This binary, beside which the bundled vocabularies are.
  std::string ExecutablePath;
  /// --mode=mir: how LLVM IR inputs are lowered to machine IR.
  mir2vec::LoweringOptions Lowering;
  ir2vec::EmbeddingKind Kind = ir2vec::EmbeddingKind::Symbolic;
  ir2vec::LevelKind Level = ir2vec::LevelKind::Function;
  /// embeddings --format: text or JSON lines to Output, or a store directory
  /// (store/Store.h) named by Output.
  FormatKind Format = FormatKind::Text;
  /// 0: one per core.
  unsigned Threads = 0;
  /// triplets: drop triplets already written (across all inputs).
  bool Dedup = false;
  /// triplets: write OpenKE's train2id.txt, entity2id.txt and
  /// relation2id.txt into this directory instead of -o (implies Dedup).
  std::string OpenKEDir;
  /// The status line on standard error (see Progress.h).
  ProgressModeKind Progress = ProgressModeKind::Auto;
};

using ParseResult = tools::ParseResult<Options>;

/// Parses the command line. llvm::cl's own errors (unknown option or
/// subcommand, bad value) are printed and exit 1 there, as upstream's; --help
/// and --version print and exit 0 there. Checks llvm::cl cannot make come back
/// as a usage error.
ParseResult parseCommandLine(int Argc, const char *const *Argv);

/// What --version prints: "llvm-ir2vec (IR2Vec Toolkit) <version>, ...\n".
extern const char *const VersionText;

} // namespace irtk::cli

#endif // IRTK_TOOLS_LLVMIR2VEC_OPTIONS_H
