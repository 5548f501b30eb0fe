//===- Passes.h - MIR2Vec embeddings during code generation -----*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A machine function pass that embeds each machine function at a chosen
/// point of the code generation pipeline (after a given run of a pass) and
/// prints the embeddings or appends them to a file, inserted into llc's or
/// clang's pipeline by the plugin's TargetPassConfig callback.
///
/// Its output is llvm-ir2vec's: the text of `embeddings --mode=mir`, or the
/// JSON lines of `--format=jsonl`, so that compiling with the plugin and
/// `llvm-ir2vec embeddings --mode=mir --stop-after=<pass>` agree.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_MIR2VEC_PASSES_H
#define IRTK_MIR2VEC_PASSES_H

#include "irtk/mir2vec/Layout.h"
#include "irtk/support/Level.h"

#include <string>

namespace llvm {
class TargetMachine;
class TargetPassConfig;
} // namespace llvm

namespace irtk::mir2vec {

struct CodeGenPassOptions {
  /// "<pass>[,<instance>]": embed after this run of a pass; empty: never.
  std::string After;
  /// Print the embeddings to standard error.
  bool Print = false;
  /// Append them as JSON lines to this file (locked, so that parallel
  /// compilations can share it); empty: none.
  std::string RecordFile;
  support::LevelKind Level = support::LevelKind::Function;
  /// The vocabulary; when empty, the target's bundled one beside the
  /// binary (the plugin) at BinaryPath.
  std::string VocabularyPath;
  std::string BinaryPath;
  Weights VocabularyWeights;
  /// Names the options in messages: "-irtk-mir-after" and so on.
  std::string OptionPrefix = "-irtk-mir-";
  /// The files the tool reads, which RecordFile must not be.
  std::vector<std::string> Inputs;
};

/// Inserts the embedding pass into \p Config, the pipeline of \p TM, after
/// the run O.After names. A bad point (an unknown pass, a run the pipeline
/// never reaches, a point before instruction selection), options that ask
/// for nothing, or a vocabulary that cannot be loaded are reported as the
/// compiler reports its own errors: through the context of the first
/// function compiled ("error: irtk: ..."), so the compilation fails cleanly.
void insertEmbeddingPass(const llvm::TargetMachine &TM,
                         llvm::TargetPassConfig &Config,
                         const CodeGenPassOptions &O);

} // namespace irtk::mir2vec

#endif // IRTK_MIR2VEC_PASSES_H
