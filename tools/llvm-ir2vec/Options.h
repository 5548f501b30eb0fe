//===- Options.h - llvm-ir2vec command line ---------------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The command line of llvm-ir2vec, parsed with Boost.Program_options into a
/// plain struct. Option names follow upstream's tool, so an upstream command
/// line works unchanged (single- or double-dash, "=value" or " value").
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_TOOLS_LLVMIR2VEC_OPTIONS_H
#define IRTK_TOOLS_LLVMIR2VEC_OPTIONS_H

#include "Progress.h"
#include "irtk/ir2vec/Output.h"

#include "irtk/ir2vec/Entities.h"

#include <string>
#include <vector>

namespace irtk::cli {

enum class SubcommandKind { Triplets, Entities, Embeddings };

struct Options {
  SubcommandKind Subcommand = SubcommandKind::Embeddings;
  std::vector<std::string> Inputs;
  std::string Output = "-";
  std::string FunctionName;
  std::string VocabPath;
  ir2vec::Weights Weights;
  ir2vec::EmbeddingKind Kind = ir2vec::EmbeddingKind::Symbolic;
  ir2vec::LevelKind Level = ir2vec::LevelKind::Function;
  ir2vec::OutputFormatKind Format = ir2vec::OutputFormatKind::Text;
  /// embeddings --format=npy: write a store directory (store/Store.h) at
  /// Output instead of text.
  bool WriteStore = false;
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

class ParseResult {
public:
  enum StatusKind { Run, PrintAndExit, UsageError };

  static ParseResult run(Options O) {
    ParseResult R(Run);
    R.Opts = std::move(O);
    return R;
  }
  static ParseResult print(std::string Text) {
    ParseResult R(PrintAndExit);
    R.Text = std::move(Text);
    return R;
  }
  static ParseResult usageError(std::string Msg) {
    ParseResult R(UsageError);
    R.Text = std::move(Msg);
    return R;
  }

  StatusKind status() const { return Status; }
  bool isUsageError() const { return Status == UsageError; }
  /// Help/version text, or the usage error message.
  const std::string &message() const { return Text; }
  const Options &options() const { return Opts; }

private:
  explicit ParseResult(StatusKind S) : Status(S) {}
  StatusKind Status;
  std::string Text;
  Options Opts;
};

ParseResult parseCommandLine(int Argc, const char *const *Argv);

/// What --version prints: "llvm-ir2vec (IR2Vec Toolkit) <version>, ...\n".
extern const char *const VersionText;

} // namespace irtk::cli

#endif // IRTK_TOOLS_LLVMIR2VEC_OPTIONS_H
