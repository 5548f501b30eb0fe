//===- PassRegistration.h - ir2vec's passes in a PassBuilder ----*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Registers the ir2vec analyses and passes (Passes.h) with a PassBuilder:
/// the pipeline names irtk-vocab, irtk-function-embedding,
/// print<irtk-ir2vec>, print<irtk-ir2vec-vocab> and irtk-record-embeddings,
/// and, when recording is asked for, the recorder at one extension point of
/// the default pipelines. The plugin (tools/plugin) combines this with the
/// other components' registrations and maps its -irtk-* options onto
/// PassOptions.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_IR2VEC_PASSREGISTRATION_H
#define IRTK_IR2VEC_PASSREGISTRATION_H

#include "irtk/ir2vec/Passes.h"

#include <functional>

namespace llvm {
class PassBuilder;
} // namespace llvm

namespace irtk::ir2vec {

/// Where in the default pipelines embeddings are recorded.
enum class RecordPointKind { PipelineStart, OptimizerEarly, OptimizerLast };

/// "pipeline-start", "optimizer-early" or "optimizer-last".
llvm::StringRef recordPointName(RecordPointKind P);

struct PassOptions {
  VocabOptions Vocab;
  EmbeddingKind Kind = EmbeddingKind::Symbolic;
  /// Recording during a default pipeline: JSON lines to this file (empty:
  /// none) and/or metadata, at Point.
  std::string RecordFile;
  bool RecordMetadata = false;
  RecordPointKind RecordPoint = RecordPointKind::OptimizerLast;
  /// The files the tool reads, which RecordFile must not be.
  std::vector<std::string> Inputs;
};

/// Registers everything above with \p PB. \p Options is called whenever a
/// pass or analysis is built, not now: a plugin's command-line options are
/// parsed after the plugin is loaded.
void registerPasses(llvm::PassBuilder &PB,
                    std::function<PassOptions()> Options);

} // namespace irtk::ir2vec

#endif // IRTK_IR2VEC_PASSREGISTRATION_H
