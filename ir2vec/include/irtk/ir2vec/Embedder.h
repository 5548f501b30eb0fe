//===- Embedder.h - Symbolic and flow-aware IR2Vec embeddings ---*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Embeddings of instructions, basic blocks and functions with exactly LLVM
/// 22's definitions:
///   inst = V[opcode] + V[type] + sum of operand vectors (+ V[predicate])
///   block = sum over its non-debug instructions
///   function = sum over the blocks reachable from entry, in DFS preorder
/// Symbolic operands are V[operand kind]. Flow-aware operands use the
/// embedding of the defining instruction when it was already computed by this
/// embedder, else V[operand kind]; that makes flow-aware results depend on
/// the order of queries, as upstream's do, and an embedder keeps its cache
/// for its whole life. Additions happen in upstream's order, so results agree
/// bit for bit.
///
/// The compute* functions write into caller-provided storage and allocate
/// nothing per instruction; the get* functions return a fresh Embedding.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_IR2VEC_EMBEDDER_H
#define IRTK_IR2VEC_EMBEDDER_H

#include "irtk/vocab/Vocabulary.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Function.h"

#include <memory>
#include <optional>
#include <vector>

namespace llvm {
class BasicBlock;
class Function;
class Instruction;
} // namespace llvm

namespace irtk::ir2vec {

enum class EmbeddingKind { Symbolic, FlowAware };

/// Parses "symbolic" / "flow-aware" (upstream's -ir2vec-kind values).
std::optional<EmbeddingKind> parseEmbeddingKind(llvm::StringRef S);
llvm::StringRef embeddingKindName(EmbeddingKind K);

using Embedding = std::vector<double>;

/// Symbolic instruction vectors kept across functions: a symbolic vector
/// depends only on the instruction's opcode, type, predicate and the kinds
/// of its operands, so each combination met is computed once, by the same
/// additions in the same order (the doubles are the same). Give one to
/// Embedder::create for every function of a module or a run; one per
/// thread and per vocabulary.
class InstVectorCache {
public:
  explicit InstVectorCache(const vocab::Vocabulary &V) : V(&V) {}
  const vocab::Vocabulary &vocabulary() const { return *V; }

private:
  friend class SymbolicEmbedder;
  const vocab::Vocabulary *V;
  llvm::DenseMap<uint64_t, unsigned> Index;
  std::vector<double> Store;
};

class Embedder {
public:
  /// An embedder of \p F over \p V. A symbolic one keeps its instruction
  /// vectors in \p Cache when given (of the same vocabulary), else in its
  /// own.
  static std::unique_ptr<Embedder> create(EmbeddingKind K,
                                          const llvm::Function &F,
                                          const vocab::Vocabulary &V,
                                          InstVectorCache *Cache = nullptr);
  virtual ~Embedder();

  unsigned dimension() const { return Dim; }
  const llvm::Function &function() const { return F; }

  /// Writes the embedding of \p I (an instruction of this function) to
  /// \p Out[0..dimension()).
  virtual void computeInstVector(const llvm::Instruction &I, double *Out) = 0;
  /// The embedding of \p I in storage the embedder owns, valid until its
  /// next call: what block and function vectors add up, without a copy.
  virtual const double *instVector(const llvm::Instruction &I);
  /// Writes the embedding of block \p BB to \p Out.
  void computeBBVector(const llvm::BasicBlock &BB, double *Out);
  /// Writes the function's embedding to \p Out (zero for a declaration).
  void computeFunctionVector(double *Out);

  Embedding getInstVector(const llvm::Instruction &I);
  Embedding getBBVector(const llvm::BasicBlock &BB);
  Embedding getFunctionVector();

protected:
  Embedder(const llvm::Function &F, const vocab::Vocabulary &V);

  const llvm::Function &F;
  const vocab::Vocabulary &V;
  const unsigned Dim;
  /// Writes (V[opcode] + V[type]) + ArgScratch (+ V[predicate]) to \p Out:
  /// the instruction vector once ArgScratch holds the operand sum.
  void combineWithOperands(const llvm::Instruction &I, double *Out) const;

  /// Scratch for one instruction vector, one block vector and one operand
  /// sum.
  std::vector<double> InstScratch, BBScratch, ArgScratch;
};

/// Acc[I] += V[I] for I < Dim: the additions the embeddings are sums of,
/// element by element in one order, so the result is the same bits whatever
/// the vector width (AVX2 where the processor has it).
void addVector(double *Acc, const double *V, unsigned Dim);

/// The visited set of a depth-first walk over a function's blocks, a bit a
/// block number rather than a set of pointers: the walk of
/// llvm::depth_first(&F), in the same order, for less.
class BlockNumberSet {
  llvm::BitVector Seen;

public:
  explicit BlockNumberSet(const llvm::Function &F)
      : Seen(F.getMaxBlockNumber()) {}
  std::pair<const llvm::BasicBlock *, bool> insert(const llvm::BasicBlock *BB) {
    bool New = !Seen.test(BB->getNumber());
    Seen.set(BB->getNumber());
    return {BB, New};
  }
  bool contains(const llvm::BasicBlock *BB) const {
    return Seen.test(BB->getNumber());
  }
  void completed(const llvm::BasicBlock *) {}
};

/// The blocks of \p F in depth-first preorder from the entry (unreachable
/// blocks left out), as llvm::depth_first(&F) gives them; \p Seen is the
/// walk's state, made for \p F.
inline llvm::iterator_range<
    llvm::df_ext_iterator<const llvm::Function *, BlockNumberSet>>
blocksDepthFirst(const llvm::Function &F, BlockNumberSet &Seen) {
  return llvm::depth_first_ext(&F, Seen);
}

} // namespace irtk::ir2vec

#endif // IRTK_IR2VEC_EMBEDDER_H
