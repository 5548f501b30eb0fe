//===- Embedder.cpp - Symbolic and flow-aware IR2Vec embeddings -----------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The embedders. Vector arithmetic goes through Eigen maps over the
/// vocabulary's contiguous storage; element-wise sums are exact IEEE adds in
/// a fixed order, so vectorization does not change results.
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Embedder.h"
#include "irtk/ir2vec/EntityMapping.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

#include <Eigen/Core>

using namespace llvm;

namespace irtk::ir2vec {

using VecMap = Eigen::Map<Eigen::VectorXd>;
using ConstVecMap = Eigen::Map<const Eigen::VectorXd>;

std::optional<EmbeddingKind> parseEmbeddingKind(StringRef S) {
  if (S == "symbolic")
    return EmbeddingKind::Symbolic;
  if (S == "flow-aware")
    return EmbeddingKind::FlowAware;
  return std::nullopt;
}

StringRef embeddingKindName(EmbeddingKind K) {
  return K == EmbeddingKind::Symbolic ? "symbolic" : "flow-aware";
}

Embedder::Embedder(const Function &F, const vocab::Vocabulary &V)
    : F(F), V(V), Dim(V.dimension()), InstScratch(Dim), BBScratch(Dim),
      ArgScratch(Dim) {}

void Embedder::combineWithOperands(const Instruction &I, double *Out) const {
  // Upstream's bracketing: (opcode + type) + operand sum, then the
  // predicate. Rounding makes the order visible in the results.
  VecMap Acc(Out, Dim);
  Acc = ConstVecMap(V.data(opcodeEntity(I.getOpcode())), Dim);
  Acc += ConstVecMap(V.data(typeEntity(I.getType())), Dim);
  Acc += ConstVecMap(ArgScratch.data(), Dim);
  if (const auto *Cmp = dyn_cast<CmpInst>(&I))
    Acc += ConstVecMap(V.data(predicateEntity(Cmp->getPredicate())), Dim);
}

Embedder::~Embedder() = default;

void Embedder::computeBBVector(const BasicBlock &BB, double *Out) {
  VecMap Acc(Out, Dim);
  Acc.setZero();
  ConstVecMap Inst(InstScratch.data(), Dim);
  for (const Instruction &I : BB.instructionsWithoutDebug()) {
    computeInstVector(I, InstScratch.data());
    Acc += Inst;
  }
}

void Embedder::computeFunctionVector(double *Out) {
  VecMap Acc(Out, Dim);
  Acc.setZero();
  if (F.isDeclaration())
    return;
  ConstVecMap Block(BBScratch.data(), Dim);
  for (const BasicBlock *BB : depth_first(&F)) {
    computeBBVector(*BB, BBScratch.data());
    Acc += Block;
  }
}

Embedding Embedder::getInstVector(const Instruction &I) {
  Embedding E(Dim);
  computeInstVector(I, E.data());
  return E;
}

Embedding Embedder::getBBVector(const BasicBlock &BB) {
  Embedding E(Dim);
  computeBBVector(BB, E.data());
  return E;
}

Embedding Embedder::getFunctionVector() {
  Embedding E(Dim);
  computeFunctionVector(E.data());
  return E;
}

namespace {

class SymbolicEmbedder final : public Embedder {
public:
  SymbolicEmbedder(const Function &F, const vocab::Vocabulary &V)
      : Embedder(F, V) {}

  void computeInstVector(const Instruction &I, double *Out) override {
    VecMap Args(ArgScratch.data(), Dim);
    Args.setZero();
    for (const Use &Op : I.operands())
      Args += ConstVecMap(V.data(operandEntity(Op.get())), Dim);
    combineWithOperands(I, Out);
  }
};

class FlowAwareEmbedder final : public Embedder {
public:
  FlowAwareEmbedder(const Function &F, const vocab::Vocabulary &V)
      : Embedder(F, V) {
    unsigned N = 0;
    for (const BasicBlock &BB : F)
      for (const Instruction &I : BB)
        Slot[&I] = N++;
    Cache.assign(size_t(N) * Dim, 0.0);
    Computed.assign(N, false);
  }

  void computeInstVector(const Instruction &I, double *Out) override {
    unsigned S = Slot.lookup(&I);
    double *Cached = Cache.data() + size_t(S) * Dim;
    if (!Computed[S]) {
      VecMap Args(ArgScratch.data(), Dim);
      Args.setZero();
      for (const Use &Op : I.operands()) {
        const double *OpVec = nullptr;
        if (const auto *OpI = dyn_cast<Instruction>(Op.get())) {
          auto It = Slot.find(OpI);
          if (It != Slot.end() && Computed[It->second])
            OpVec = Cache.data() + size_t(It->second) * Dim;
        }
        if (!OpVec)
          OpVec = V.data(operandEntity(Op.get()));
        Args += ConstVecMap(OpVec, Dim);
      }
      combineWithOperands(I, Cached);
      Computed[S] = true;
    }
    std::copy(Cached, Cached + Dim, Out);
  }

private:
  DenseMap<const Instruction *, unsigned> Slot;
  std::vector<double> Cache;
  std::vector<bool> Computed;
};

} // namespace

std::unique_ptr<Embedder> Embedder::create(EmbeddingKind K, const Function &F,
                                           const vocab::Vocabulary &V) {
  switch (K) {
  case EmbeddingKind::Symbolic:
    return std::make_unique<SymbolicEmbedder>(F, V);
  case EmbeddingKind::FlowAware:
    return std::make_unique<FlowAwareEmbedder>(F, V);
  }
  return nullptr;
}

} // namespace irtk::ir2vec
