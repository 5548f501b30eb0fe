//===- EmbedderTest.cpp - MIR2Vec embeddings by hand
//-----------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The vocabulary maps entity k of the X86-64 layout to [k, 1], all weights
/// 1: an embedding is [sum of the entity ids it adds, number of entities
/// added] (a zero contribution adds nothing to either). Ids: COPY 187,
/// RET 1549, Immediate 6868; register classes are looked up by name.
///
//===----------------------------------------------------------------------===//

#include "irtk/mir2vec/Embedder.h"
#include "irtk/mir2vec/Loader.h"
#include "irtk/mir2vec/Output.h"

#include "../TestHelpers.h"

#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

using namespace irtk;
using namespace irtk::mir2vec;
using namespace llvm;

namespace {

class MIREmbedderTest : public ::testing::Test {
protected:
  void SetUp() override { initializeTargets(); }

  /// Parses \p MIR (machine function documents, after an IR module with
  /// the functions \p IR).
  void load(StringRef IR, StringRef MIR) {
    std::string Text =
        "--- |\n  target triple = \"x86_64-unknown-linux-gnu\"\n";
    for (StringRef Line : split(IR, '\n'))
      Text += "  " + Line.str() + "\n";
    Text += "...\n" + MIR.str();
    MM = loadMIRBuffer(MemoryBuffer::getMemBufferCopy(Text), "test.mir", Ctx);
    ASSERT_TRUE(MM.M) << MM.Error;
    L = layoutOf(*MM.TM);
    std::vector<std::vector<double>> Vs;
    for (unsigned K = 0; K < L->size(); ++K)
      Vs.push_back({double(K), 1.0});
    Expected<vocab::Vocabulary> VOrErr =
        vocab::Vocabulary::fromVectors(L->layout(), Vs);
    IRTK_ASSERT_OK(VOrErr);
    V.emplace(std::move(*VOrErr));
  }
  const MachineFunction &mf(StringRef Name) {
    return *MM.machineFunction(*MM.M->getFunction(Name));
  }
  double virt(StringRef Class) {
    return double(*L->layout()->lookup(
        static_cast<unsigned>(irtk::mir2vec::SectionKind::VirtualRegisters),
        Class));
  }
  std::vector<double> inst(const MachineFunction &MF, unsigned Block,
                           unsigned Index) {
    Embedder E(MF, *V, *L);
    std::vector<double> Out(2);
    auto It = std::next(MF.begin(), Block)->begin();
    E.computeInstVector(*std::next(It, Index), Out.data());
    return Out;
  }
  std::vector<double> func(const MachineFunction &MF) {
    Embedder E(MF, *V, *L);
    std::vector<double> Out(2);
    E.computeFunctionVector(Out.data());
    return Out;
  }

  LLVMContext Ctx;
  MachineModule MM;
  std::shared_ptr<const TargetLayout> L;
  std::optional<vocab::Vocabulary> V;
};

/// f: a COPY of two GR32 virtual registers, and RET 0.
constexpr StringRef CopyAndRet = R"(---
name: f
registers:
  - { id: 0, class: gr32 }
  - { id: 1, class: gr32 }
body: |
  bb.0:
    %1:gr32 = COPY %0
    RET 0
...
)";

TEST_F(MIREmbedderTest, OpcodePlusEveryOperand) {
  load("define void @f() { ret void }", CopyAndRet);
  // COPY + two GR32 virtual registers.
  EXPECT_EQ(inst(mf("f"), 0, 0),
            (std::vector<double>{187 + 2 * virt("GR32"), 3}));
  // RET + the immediate 0.
  EXPECT_EQ(inst(mf("f"), 0, 1), (std::vector<double>{1549 + 6868, 2}));
}

TEST_F(MIREmbedderTest, RegistersWithoutClassAddZero) {
  // $mxcsr and $ssp belong to no register class: LLVM 22 crashes on them,
  // LLVM main (and this embedder) add zero. So does $noreg.
  load("define void @f() { ret void }", R"(---
name: f
registers:
  - { id: 0, class: gr32 }
  - { id: 1, class: gr32 }
body: |
  bb.0:
    %1:gr32 = COPY %0, implicit $mxcsr, implicit $ssp, implicit $noreg
    RET 0
...
)");
  EXPECT_EQ(inst(mf("f"), 0, 0),
            (std::vector<double>{187 + 2 * virt("GR32"), 3}));
}

TEST_F(MIREmbedderTest, EachFunctionUsesItsOwnRegisterInfo) {
  // %0 is a GR32 in f and a GR64 in g. LLVM 22 classifies g's %0 through
  // f's register info; here g embeds the same after f as alone.
  StringRef G = R"(---
name: g
registers:
  - { id: 0, class: gr64 }
  - { id: 1, class: gr64 }
body: |
  bb.0:
    %1:gr64 = COPY %0
    RET 0
...
)";
  load("define void @g() { ret void }", G);
  std::vector<double> Alone = func(mf("g"));
  EXPECT_EQ(Alone,
            (std::vector<double>{187 + 2 * virt("GR64") + 1549 + 6868, 5}));
  load("define void @f() { ret void }\ndefine void @g() { ret void }",
       (R"(---
name: f
registers:
  - { id: 0, class: gr32 }
  - { id: 1, class: gr32 }
body: |
  bb.0:
    %1:gr32 = COPY %0
    RET 0
...
)" + G)
           .str());
  EXPECT_EQ(func(mf("g")), Alone);
}

TEST_F(MIREmbedderTest, UnreachableBlocksAreLeftOut) {
  load("define void @f() { ret void }", R"(---
name: f
body: |
  bb.0:
    RET 0
  bb.1:
    RET 0
...
)");
  EXPECT_EQ(func(mf("f")), (std::vector<double>{1549 + 6868, 2}));
}

TEST_F(MIREmbedderTest, EmptyMachineFunctionIsZero) {
  load("define void @f() { ret void }", R"(---
name: f
body: |
...
)");
  EXPECT_EQ(func(mf("f")), (std::vector<double>{0, 0}));
}

/// Keeps the vector and the level of the last record.
class LastRecordSink : public EmbeddingSink {
public:
  void beginFunction(const Function &) override { ++Functions; }
  void record(const EmbeddingRecord &R) override {
    Level = R.Level;
    Vector.assign(R.Vector.begin(), R.Vector.end());
    ++Records;
  }
  LevelKind Level = LevelKind::Function;
  std::vector<double> Vector;
  unsigned Records = 0, Functions = 0;
};

TEST_F(MIREmbedderTest, ModuleLevelSumsTheMachineFunctions) {
  // h has no machine function: it adds nothing.
  load("define void @f() { ret void }\ndefine void @g() { ret void }\n"
       "define void @h() { ret void }",
       (CopyAndRet + R"(---
name: g
body: |
  bb.0:
    RET 0
...
)")
           .str());
  WalkOptions O;
  O.selectLevel(LevelKind::Module);
  LastRecordSink S;
  walkModule(MM, *V, *L, O, S);
  // f: COPY + two GR32, then RET + the immediate; g: RET + the immediate.
  EXPECT_EQ(S.Records, 1u);
  EXPECT_EQ(S.Functions, 0u);
  EXPECT_EQ(S.Level, LevelKind::Module);
  EXPECT_EQ(S.Vector, (std::vector<double>{
                          187 + 2 * virt("GR32") + 2 * (1549 + 6868), 7}));
}

} // namespace
