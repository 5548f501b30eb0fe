//===- Passes.h - New-pass-manager analyses and passes ----------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The IR2Vec embedders as new-pass-manager citizens:
///  - VocabAnalysis (module, "irtk-vocab"): the loaded vocabulary;
///  - FunctionEmbeddingAnalysis (function, "irtk-function-embedding"): a
///    function's embedding; it needs VocabAnalysis cached on the module
///    (run `require<irtk-vocab>` first, as every pass here does);
///  - EmbeddingPrinterPass (`print<irtk-ir2vec>`) and VocabPrinterPass
///    (`print<irtk-ir2vec-vocab>`): upstream's print<ir2vec> and
///    print<ir2vec-vocab> content, on stderr;
///  - EmbeddingRecorderPass ("irtk-record-embeddings"): records every defined
///    function's embedding as metadata and/or JSON lines during a build.
/// Options travel in structs; the plugin maps its -irtk-* flags onto them.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_IR2VEC_PASSES_H
#define IRTK_IR2VEC_PASSES_H

#include "irtk/ir2vec/Embedder.h"
#include "irtk/ir2vec/Entities.h"
#include "irtk/vocab/Vocabulary.h"

#include "llvm/IR/PassManager.h"

#include <memory>
#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace irtk::ir2vec {

struct VocabOptions {
  /// Vocabulary file; empty means "not given".
  std::string Path;
  /// Used when Path is empty and this file exists: the bundled default.
  std::string DefaultPath;
  ir2vec::Weights Weights;
};

class VocabAnalysis : public llvm::AnalysisInfoMixin<VocabAnalysis> {
public:
  explicit VocabAnalysis(VocabOptions Opts = {}) : Opts(std::move(Opts)) {}

  class Result {
  public:
    /// The vocabulary, or null when loading failed (the error was emitted
    /// through the module's LLVMContext).
    const vocab::Vocabulary *vocabulary() const { return V.get(); }
    bool isValid() const { return V != nullptr; }
    bool invalidate(llvm::Module &, const llvm::PreservedAnalyses &,
                    llvm::ModuleAnalysisManager::Invalidator &) {
      return false; // A vocabulary does not depend on the IR.
    }

  private:
    friend class VocabAnalysis;
    std::shared_ptr<const vocab::Vocabulary> V;
  };

  Result run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);

private:
  friend llvm::AnalysisInfoMixin<VocabAnalysis>;
  static llvm::AnalysisKey Key;
  VocabOptions Opts;
  /// Loaded once per analysis object: opt's pipeline may ask per module.
  std::shared_ptr<const vocab::Vocabulary> Cached;
};

class FunctionEmbeddingAnalysis
    : public llvm::AnalysisInfoMixin<FunctionEmbeddingAnalysis> {
public:
  explicit FunctionEmbeddingAnalysis(
      EmbeddingKind Kind = EmbeddingKind::Symbolic)
      : Kind(Kind) {}

  struct Result {
    /// Empty when no valid vocabulary was cached for the module.
    Embedding Function;
    bool isValid() const { return !Function.empty(); }
  };

  Result run(llvm::Function &F, llvm::FunctionAnalysisManager &FAM);

private:
  friend llvm::AnalysisInfoMixin<FunctionEmbeddingAnalysis>;
  static llvm::AnalysisKey Key;
  EmbeddingKind Kind;
};

class EmbeddingPrinterPass : public llvm::PassInfoMixin<EmbeddingPrinterPass> {
public:
  EmbeddingPrinterPass(llvm::raw_ostream &OS, EmbeddingKind Kind)
      : OS(OS), Kind(Kind) {}
  llvm::PreservedAnalyses run(llvm::Module &M,
                              llvm::ModuleAnalysisManager &MAM);
  static bool isRequired() { return true; }

private:
  llvm::raw_ostream &OS;
  EmbeddingKind Kind;
};

class VocabPrinterPass : public llvm::PassInfoMixin<VocabPrinterPass> {
public:
  explicit VocabPrinterPass(llvm::raw_ostream &OS) : OS(OS) {}
  llvm::PreservedAnalyses run(llvm::Module &M,
                              llvm::ModuleAnalysisManager &MAM);
  static bool isRequired() { return true; }

private:
  llvm::raw_ostream &OS;
};

struct RecorderOptions {
  EmbeddingKind Kind = EmbeddingKind::Symbolic;
  /// Append one JSON line per defined function to this file (empty: none).
  std::string OutputPath;
  /// Attach the embedding as !irtk.embedding metadata on each function.
  bool AttachMetadata = false;
  /// Where in the pipeline the pass ran, recorded in each JSON line.
  std::string PipelinePoint;
  /// The files the run reads, which OutputPath must not be (it would be
  /// appended to).
  std::vector<std::string> Inputs;
};

/// Name of the function metadata EmbeddingRecorderPass attaches.
inline constexpr const char *EmbeddingMetadataName = "irtk.embedding";

class EmbeddingRecorderPass
    : public llvm::PassInfoMixin<EmbeddingRecorderPass> {
public:
  explicit EmbeddingRecorderPass(RecorderOptions Opts)
      : Opts(std::move(Opts)) {}
  llvm::PreservedAnalyses run(llvm::Module &M,
                              llvm::ModuleAnalysisManager &MAM);
  static bool isRequired() { return true; }

private:
  RecorderOptions Opts;
};

} // namespace irtk::ir2vec

#endif // IRTK_IR2VEC_PASSES_H
