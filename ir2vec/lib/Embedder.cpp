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

// No fused or reassociated operations here (GCC contracts only a * b + c):
// each element is one addition, the same in any vector width. Defined
// before its first use: clang refuses to make a function multiversioned
// after it has been called.
__attribute__((target_clones("avx2", "default"))) void
addVector(double *__restrict Acc, const double *__restrict V, unsigned Dim) {
#pragma GCC unroll 4
  for (unsigned I = 0; I < Dim; ++I)
    Acc[I] += V[I];
}

Embedder::~Embedder() = default;

const double *Embedder::instVector(const Instruction &I) {
  computeInstVector(I, InstScratch.data());
  return InstScratch.data();
}

void Embedder::computeBBVector(const BasicBlock &BB, double *Out) {
  VecMap Acc(Out, Dim);
  Acc.setZero();
  for (const Instruction &I : BB.instructionsWithoutDebug())
    addVector(Out, instVector(I), Dim);
}

void Embedder::computeFunctionVector(double *Out) {
  VecMap Acc(Out, Dim);
  Acc.setZero();
  if (F.isDeclaration())
    return;
  BlockNumberSet Seen(F);
  for (const BasicBlock *BB : blocksDepthFirst(F, Seen)) {
    computeBBVector(*BB, BBScratch.data());
    addVector(Out, BBScratch.data(), Dim);
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

class SymbolicEmbedder final : public Embedder {
public:
  SymbolicEmbedder(const Function &F, const vocab::Vocabulary &V,
                   InstVectorCache *Shared)
      : Embedder(F, V), Own(V), C(Shared ? *Shared : Own) {
    assert(&C.vocabulary() == &V && "a cache of another vocabulary");
  }

  void computeInstVector(const Instruction &I, double *Out) override {
    const double *Vec = instVector(I);
    std::copy(Vec, Vec + Dim, Out);
  }

  /// A symbolic instruction vector depends only on the instruction's
  /// opcode, type, predicate and the kinds of its operands, in order: the
  /// vectors of the combinations met are kept, computed once by the same
  /// additions in the same order, so the doubles are the same.
  const double *instVector(const Instruction &I) override {
    std::optional<uint64_t> Key = keyOf(I);
    if (!Key) {
      compute(I, InstScratch.data());
      return InstScratch.data();
    }
    auto [It, New] = C.Index.try_emplace(*Key, C.Index.size());
    if (New) {
      C.Store.resize(C.Store.size() + Dim);
      compute(I, C.Store.data() + size_t(It->second) * Dim);
    }
    return C.Store.data() + size_t(It->second) * Dim;
  }

private:
  void compute(const Instruction &I, double *Out) {
    VecMap Args(ArgScratch.data(), Dim);
    Args.setZero();
    for (const Use &Op : I.operands())
      Args += ConstVecMap(V.data(operandEntity(Op.get())), Dim);
    combineWithOperands(I, Out);
  }

  /// Opcode (7 bits), type (4), predicate or none (5), operand count (5)
  /// and each operand's kind (2 bits each): 63 bits for up to 21
  /// operands; none for more.
  static std::optional<uint64_t> keyOf(const Instruction &I) {
    static_assert(NumOpcodes < 128 && NumCanonicalTypes <= 16 &&
                      NumPredicates < 32 && NumOperandKinds <= 4,
                  "the key's fields are too narrow");
    unsigned N = I.getNumOperands();
    if (N > 21 || I.getOpcode() - 1 >= 128)
      return std::nullopt;
    uint64_t Key = I.getOpcode() - 1;
    Key |= uint64_t(typeEntity(I.getType()) - CanonicalTypeBase) << 7;
    if (const auto *Cmp = dyn_cast<CmpInst>(&I))
      Key |= uint64_t(predicateEntity(Cmp->getPredicate()) - PredicateBase + 1)
             << 11;
    Key |= uint64_t(N) << 16;
    unsigned Shift = 21;
    for (const Use &Op : I.operands()) {
      Key |= uint64_t(operandEntity(Op.get()) - OperandKindBase) << Shift;
      Shift += 2;
    }
    return Key;
  }

  InstVectorCache Own;
  InstVectorCache &C;
};

namespace {

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

  const double *instVector(const Instruction &I) override {
    unsigned S = Slot.lookup(&I);
    if (!Computed[S])
      computeInstVector(I, InstScratch.data());
    return Cache.data() + size_t(S) * Dim;
  }

private:
  DenseMap<const Instruction *, unsigned> Slot;
  std::vector<double> Cache;
  std::vector<bool> Computed;
};

} // namespace

std::unique_ptr<Embedder> Embedder::create(EmbeddingKind K, const Function &F,
                                           const vocab::Vocabulary &V,
                                           InstVectorCache *Cache) {
  switch (K) {
  case EmbeddingKind::Symbolic:
    return std::make_unique<SymbolicEmbedder>(F, V, Cache);
  case EmbeddingKind::FlowAware:
    return std::make_unique<FlowAwareEmbedder>(F, V);
  }
  return nullptr;
}

} // namespace irtk::ir2vec
