//===- EmbedderTest.cpp - Symbolic and flow-aware embedder tests ----------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Hand-computed embeddings. The vocabulary maps entity k to [k, 1] with all
/// weights 1, so the first component of a vector is the sum of the entity
/// ids it adds and the second counts them: Add=12, Ret=0, Br=1, PHI=55,
/// Call=56, Load=31, ICmp=53, FCmp=54, IntegerTy=74, VoidTy=69,
/// Function=80, Pointer=81, Constant=82, Variable=83, FCMP_olt=88,
/// ICMP_sgt=106 (llvm::ir2vec::Vocabulary::getIndex in llvm/Analysis/IR2Vec.h;
/// EntitiesTest checks them).
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Embedder.h"
#include "irtk/ir2vec/EntityMapping.h"

#include "../TestHelpers.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace irtk;
using namespace irtk::ir2vec;
using namespace llvm;

namespace {

class EmbedderTest : public ::testing::Test {
protected:
  void SetUp() override {
    Expected<vocab::Vocabulary> V = test::idsVocabulary();
    IRTK_ASSERT_OK(V);
    Vocab.emplace(std::move(*V));
  }

  Function &parse(StringRef IR, StringRef FnName) {
    SMDiagnostic Err;
    M = parseAssemblyString(IR, Err, Ctx);
    if (!M) {
      std::string Msg;
      raw_string_ostream OS(Msg);
      Err.print("EmbedderTest", OS);
      ADD_FAILURE() << Msg;
      abort();
    }
    return *M->getFunction(FnName);
  }

  static const Instruction &named(Function &F, StringRef Name) {
    for (Instruction &I : instructions(F))
      if (I.getName() == Name)
        return I;
    abort();
  }

  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  std::optional<vocab::Vocabulary> Vocab;
};

const char *AddIR = R"(
define i32 @add(i32 %a, i32 %b) {
  %s = add i32 %a, %b
  ret i32 %s
}
)";

// entry -> a, b; b -> a (phi back edge); dead is unreachable.
const char *CfgIR = R"(
define i32 @f(i1 %c, i32 %x) {
entry:
  br i1 %c, label %a, label %b
a:
  %p = phi i32 [ 0, %entry ], [ %q, %b ]
  ret i32 %p
b:
  %q = add i32 %x, 1
  br label %a
dead:
  ret i32 7
}
declare void @ext()
)";

TEST_F(EmbedderTest, SymbolicInstruction) {
  Function &F = parse(AddIR, "add");
  auto E = Embedder::create(EmbeddingKind::Symbolic, F, *Vocab);
  // Add + IntegerTy + 2 Variable.
  EXPECT_EQ(E->getInstVector(named(F, "s")), (Embedding{252, 4}));
  // Ret + VoidTy + Variable.
  EXPECT_EQ(E->getInstVector(F.getEntryBlock().back()), (Embedding{152, 3}));
}

// Instructions alike but for one part of what a symbolic vector depends
// on: the predicate, the type, one operand's kind, their order and number.
const char *AlikeIR = R"(
define void @alike(i32 %a, i32 %b, i64 %w, ptr %p) {
  %eq = icmp eq i32 %a, %b
  %eq2 = icmp eq i32 %b, %a
  %slt = icmp slt i32 %a, %b
  %k = icmp eq i32 %a, 1
  %k2 = icmp eq i32 1, %a
  %x = add i32 %a, %b
  %y = add i64 %w, %w
  %z = add i32 %a, 1
  %g = getelementptr i8, ptr %p, i32 %a
  %g2 = getelementptr [4 x i8], ptr %p, i32 %a, i32 %b
  ret void
}
)";

TEST_F(EmbedderTest, SymbolicVectorsOfAlikeInstructions) {
  Function &F = parse(AlikeIR, "alike");
  auto E = Embedder::create(EmbeddingKind::Symbolic, F, *Vocab);
  auto Vec = [&](StringRef N) { return E->getInstVector(named(F, N)); };
  // Each vector is that of its own parts (kept vectors are per parts).
  auto Sum = [](std::initializer_list<unsigned> Ids) {
    double S = 0;
    for (unsigned Id : Ids)
      S += Id;
    return Embedding{S, double(Ids.size())};
  };
  unsigned Var = operandKindEntity(OperandKindKind::Variable),
           Const = operandKindEntity(OperandKindKind::Constant),
           Ptr = operandKindEntity(OperandKindKind::Pointer),
           Int = canonicalTypeEntity(CanonicalTypeKind::IntegerTy),
           PtrTy = canonicalTypeEntity(CanonicalTypeKind::PointerTy);
  unsigned ICmp = opcodeEntity(Instruction::ICmp),
           Add = opcodeEntity(Instruction::Add),
           Gep = opcodeEntity(Instruction::GetElementPtr);
  unsigned Eq = predicateEntity(CmpInst::ICMP_EQ),
           Slt = predicateEntity(CmpInst::ICMP_SLT);
  EXPECT_EQ(Vec("eq"), Sum({ICmp, Int, Var, Var, Eq}));
  EXPECT_EQ(Vec("eq2"), Vec("eq"));
  EXPECT_EQ(Vec("slt"), Sum({ICmp, Int, Var, Var, Slt}));
  EXPECT_EQ(Vec("k"), Sum({ICmp, Int, Var, Const, Eq}));
  EXPECT_EQ(Vec("k2"), Sum({ICmp, Int, Const, Var, Eq}));
  EXPECT_EQ(Vec("x"), Sum({Add, Int, Var, Var}));
  EXPECT_EQ(Vec("y"), Sum({Add, Int, Var, Var}));
  EXPECT_EQ(Vec("z"), Sum({Add, Int, Var, Const}));
  EXPECT_EQ(Vec("g"), Sum({Gep, PtrTy, Ptr, Var}));
  EXPECT_EQ(Vec("g2"), Sum({Gep, PtrTy, Ptr, Var, Var}));
  // The block adds up the same vectors, asked in any order.
  EXPECT_EQ(E->getBBVector(F.getEntryBlock()), [&] {
    auto Fresh = Embedder::create(EmbeddingKind::Symbolic, F, *Vocab);
    Embedding B(2, 0.0);
    for (const Instruction &I : F.getEntryBlock()) {
      Embedding V = Fresh->getInstVector(I);
      B[0] += V[0];
      B[1] += V[1];
    }
    return B;
  }());
}

TEST_F(EmbedderTest, SymbolicBlockAndFunction) {
  Function &F = parse(AddIR, "add");
  auto E = Embedder::create(EmbeddingKind::Symbolic, F, *Vocab);
  EXPECT_EQ(E->getBBVector(F.getEntryBlock()), (Embedding{404, 7}));
  EXPECT_EQ(E->getFunctionVector(), (Embedding{404, 7}));
}

TEST_F(EmbedderTest, FunctionSkipsUnreachableBlocks) {
  Function &F = parse(CfgIR, "f");
  auto E = Embedder::create(EmbeddingKind::Symbolic, F, *Vocab);
  // br(319,5) + phi(294,4) + ret(152,3) + add(251,4) + br(153,3); the dead
  // block's ret (151,3) is left out.
  EXPECT_EQ(E->getFunctionVector(), (Embedding{1169, 19}));
  const BasicBlock &Dead = F.back();
  ASSERT_EQ(Dead.getName(), "dead");
  EXPECT_EQ(E->getBBVector(Dead), (Embedding{151, 3}));
}

TEST_F(EmbedderTest, BlocksDepthFirstIsLLVMsDepthFirstOrder) {
  Function &F = parse(R"(
define void @g(i1 %c, i1 %d) {
entry:
  br i1 %c, label %l, label %r
l:
  br i1 %d, label %join, label %loop
loop:
  br i1 %d, label %loop, label %r
r:
  br label %join
join:
  ret void
dead:
  br label %join
}
)",
                      "g");
  // An unreachable block added after parsing has a number of its own.
  BasicBlock *Extra = BasicBlock::Create(Ctx, "extra", &F);
  ReturnInst::Create(Ctx, Extra);
  std::vector<const BasicBlock *> Want, Got;
  for (const BasicBlock *BB : depth_first(&F))
    Want.push_back(BB);
  BlockNumberSet Seen(F);
  for (const BasicBlock *BB : blocksDepthFirst(F, Seen))
    Got.push_back(BB);
  EXPECT_EQ(Got, Want);
  ASSERT_EQ(Got.size(), 5u); // entry l join loop r; dead and extra left out
  EXPECT_EQ(Got[2]->getName(), "join");
  EXPECT_FALSE(Seen.contains(Extra));
}

TEST_F(EmbedderTest, DeclarationIsZero) {
  parse(CfgIR, "f");
  Function &Ext = *M->getFunction("ext");
  for (EmbeddingKind K : {EmbeddingKind::Symbolic, EmbeddingKind::FlowAware})
    EXPECT_EQ(Embedder::create(K, Ext, *Vocab)->getFunctionVector(),
              (Embedding{0, 0}));
}

TEST_F(EmbedderTest, FlowAwareUsesDefinitionsEmbedding) {
  Function &F = parse(AddIR, "add");
  auto E = Embedder::create(EmbeddingKind::FlowAware, F, *Vocab);
  // Arguments are not instructions: same as symbolic.
  EXPECT_EQ(E->getInstVector(named(F, "s")), (Embedding{252, 4}));
  // ret uses %s, whose embedding (252, 4) is now cached: Ret + VoidTy + %s.
  EXPECT_EQ(E->getInstVector(F.getEntryBlock().back()), (Embedding{321, 6}));
}

TEST_F(EmbedderTest, FlowAwareFallsBackForUncomputedOperands) {
  Function &F = parse(AddIR, "add");
  auto E = Embedder::create(EmbeddingKind::FlowAware, F, *Vocab);
  // %s was not computed yet, so ret sees Variable, as upstream does.
  EXPECT_EQ(E->getInstVector(F.getEntryBlock().back()), (Embedding{152, 3}));
}

TEST_F(EmbedderTest, FlowAwareFunctionInDFSOrder) {
  Function &F = parse(CfgIR, "f");
  auto E = Embedder::create(EmbeddingKind::FlowAware, F, *Vocab);
  // DFS visits entry, a, b: the phi sees %q before it is computed
  // (Variable), ret sees the phi's (294, 4).
  EXPECT_EQ(E->getFunctionVector(), (Embedding{1380, 22}));
}

TEST_F(EmbedderTest, FlowAwareDependsOnQueryOrderAndCaches) {
  Function &F = parse(CfgIR, "f");
  auto E = Embedder::create(EmbeddingKind::FlowAware, F, *Vocab);
  EXPECT_EQ(E->getInstVector(named(F, "q")), (Embedding{251, 4}));
  // Now the back edge is known: PHI + IntegerTy + Constant + %q.
  EXPECT_EQ(E->getInstVector(named(F, "p")), (Embedding{462, 7}));
  // Cached: the same answer whatever was computed since.
  EXPECT_EQ(E->getInstVector(named(F, "p")), (Embedding{462, 7}));
  // A fresh embedder has an empty cache.
  auto Fresh = Embedder::create(EmbeddingKind::FlowAware, F, *Vocab);
  EXPECT_EQ(Fresh->getInstVector(named(F, "p")), (Embedding{294, 4}));
}

TEST_F(EmbedderTest, PredicatesCallsAndPointers) {
  Function &F = parse(R"(
declare void @ext()
define void @g(i32 %x, double %d, ptr %p) {
  %c = icmp sgt i32 %x, 0
  %f = fcmp olt double %d, 1.0
  call void @ext()
  %v = load i32, ptr %p
  ret void
}
)",
                      "g");
  auto E = Embedder::create(EmbeddingKind::Symbolic, F, *Vocab);
  // ICmp + IntegerTy(i1) + Variable + Constant + ICMP_sgt.
  EXPECT_EQ(E->getInstVector(named(F, "c")), (Embedding{398, 5}));
  // FCmp + IntegerTy(i1) + Variable + Constant + FCMP_olt.
  EXPECT_EQ(E->getInstVector(named(F, "f")), (Embedding{381, 5}));
  // Call + VoidTy + Function (the callee).
  const Instruction &Call = *std::next(F.getEntryBlock().begin(), 2);
  EXPECT_EQ(E->getInstVector(Call), (Embedding{205, 3}));
  // Load + IntegerTy + Pointer.
  EXPECT_EQ(E->getInstVector(named(F, "v")), (Embedding{186, 3}));
}

TEST_F(EmbedderTest, OperandsAreSummedBeforeOpcodeAndType) {
  // Upstream adds (opcode + type) + (sum of operands). With Add = 0.125 and
  // Variable = v = 2^-56 (half an ulp of 0.125) that is 0.125 + 2v, one ulp
  // above 0.125; adding v twice to 0.125 would round back to 0.125 twice.
  const double Tiny = std::ldexp(1.0, -56);
  std::vector<std::vector<double>> Vs(NumEntities, {0.0});
  Vs[12] = {0.125}; // Add
  Vs[83] = {Tiny};  // Variable
  Expected<vocab::Vocabulary> V =
      vocab::Vocabulary::fromVectors(irLayout(), Vs, {1.0f, 1.0f, 1.0f});
  IRTK_ASSERT_OK(V);
  Function &F = parse(AddIR, "add");
  const double Expected = std::nextafter(0.125, 1.0);
  for (EmbeddingKind K : {EmbeddingKind::Symbolic, EmbeddingKind::FlowAware})
    EXPECT_EQ(Embedder::create(K, F, *V)->getInstVector(named(F, "s")),
              (Embedding{Expected}));
}

TEST_F(EmbedderTest, CanonicalTypes) {
  using ir2vec::CanonicalTypeKind;
  EXPECT_EQ(canonicalType(Type::HalfTyID), CanonicalTypeKind::FloatTy);
  EXPECT_EQ(canonicalType(Type::PPC_FP128TyID), CanonicalTypeKind::FloatTy);
  EXPECT_EQ(canonicalType(Type::X86_AMXTyID), CanonicalTypeKind::VectorTy);
  EXPECT_EQ(canonicalType(Type::ScalableVectorTyID),
            CanonicalTypeKind::VectorTy);
  EXPECT_EQ(canonicalType(Type::TypedPointerTyID),
            CanonicalTypeKind::PointerTy);
  EXPECT_EQ(canonicalType(Type::TargetExtTyID), CanonicalTypeKind::UnknownTy);
  EXPECT_EQ(canonicalType(Type::TokenTyID), CanonicalTypeKind::TokenTy);
  EXPECT_EQ(canonicalType(Type::LabelTyID), CanonicalTypeKind::LabelTy);
}

TEST_F(EmbedderTest, ParsesKindNames) {
  EXPECT_EQ(parseEmbeddingKind("symbolic"), EmbeddingKind::Symbolic);
  EXPECT_EQ(parseEmbeddingKind("flow-aware"), EmbeddingKind::FlowAware);
  EXPECT_FALSE(parseEmbeddingKind("flowaware"));
}

} // namespace
