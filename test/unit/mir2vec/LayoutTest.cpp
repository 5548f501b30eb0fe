//===- LayoutTest.cpp - The MIR vocabulary layout of a target -------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Base opcode names are upstream's unit-test examples
/// (llvm/unittests/CodeGen/MIR2VecTest.cpp); the X86-64 ids are the ones
/// upstream LLVM 22's `llvm-ir2vec entities --mode=mir` prints.
///
//===----------------------------------------------------------------------===//

#include "irtk/mir2vec/Layout.h"
#include "irtk/mir2vec/Loader.h"

#include "../TestHelpers.h"

#include "gtest/gtest.h"

using namespace irtk::mir2vec;
using namespace llvm;

namespace {

TEST(MIRLayoutTest, BaseOpcodeNames) {
  const std::pair<const char *, const char *> Cases[] = {
      {"ADD16ri", "ADD"},
      {"ADD32rr", "ADD"},
      {"ADD64rm", "ADD"},
      {"MOV8ri", "MOV"},
      {"MOV32mr", "MOV"},
      {"PUSH64r", "PUSH"},
      {"POP64r", "POP"},
      {"JMP_4", "JMP"},
      {"CALL64pcrel32", "CALL"},
      {"SOME_INSTR_123", "SOME_INSTR"},
      {"123ADD", "ADD"},
      {"NOP", "NOP"},
      {"RET", "RET"},
      {"ADDPDrr", "ADDPDrr"},
      {"ARITH_FENCE", "ARITH_FENCE"},
      {"123", "123"},
      {"G_ADD", "G_ADD"},
      {"_X_", "_X"},
  };
  for (const auto &[Name, Base] : Cases)
    EXPECT_EQ(baseOpcodeName(Name), Base) << Name;
}

/// The X86-64 layout, built from a target machine.
std::shared_ptr<const TargetLayout> x86Layout() {
  initializeTargets();
  Expected<std::unique_ptr<TargetMachine>> TM =
      createTargetMachine("x86_64-unknown-linux-gnu");
  if (!TM) {
    ADD_FAILURE() << toString(TM.takeError());
    return nullptr;
  }
  return layoutOf(**TM);
}

TEST(MIRLayoutTest, X86IdsAreUpstreams) {
  std::shared_ptr<const TargetLayout> L = x86Layout();
  ASSERT_TRUE(L);
  const irtk::vocab::Layout &V = *L->layout();
  EXPECT_EQ(V.size(), 7158u);
  EXPECT_EQ(L->numRegisterClasses(), 135u);
  const std::pair<const char *, unsigned> Ids[] = {
      {"AAA", 0},
      {"ADD", 10},
      {"COPY", 187},
      {"G_ADD", 325},
      {"JCC", 641},
      {"JMP", 644},
      {"MOV", 1015},
      {"PHI", 1273},
      {"RET", 1549},
      {"Immediate", 6868},
      {"LaneMask", 6887},
      {"PhyReg_GR8", 6888},
      {"VirtReg_GR8", 7023},
      {"VirtReg_TILE", 7157},
  };
  for (const auto &[Label, Id] : Ids)
    EXPECT_EQ(V.entityLabel(Id), Label) << Id;
  // Register classes are keyed by bare name in both register sections.
  EXPECT_EQ(V.entityName(6888), "GR8");
  EXPECT_EQ(V.lookup(static_cast<unsigned>(
                         irtk::mir2vec::SectionKind::VirtualRegisters),
                     "GR8"),
            7023u);
  EXPECT_EQ(L->noRegisterEntity(), 7023u);
  EXPECT_EQ(L->commonOperandEntity(MachineOperand::MO_Immediate), 6868u);
  EXPECT_EQ(L->commonOperandEntity(MachineOperand::MO_ShuffleMask), 6886u);
  // Upstream's index (type - 1) would give 6888, PhyReg_GR8, for a lane
  // mask; it is LaneMask here. Debug instruction references have none.
  EXPECT_EQ(L->commonOperandEntity(MachineOperand::MO_LaneMask), 6887u);
  EXPECT_FALSE(L->commonOperandEntity(MachineOperand::MO_DbgInstrRef));
}

TEST(MIRLayoutTest, SectionsAndWeights) {
  std::shared_ptr<const TargetLayout> L = x86Layout();
  ASSERT_TRUE(L);
  const irtk::vocab::Layout &V = *L->layout();
  ASSERT_EQ(V.numSections(), 4u);
  EXPECT_EQ(V.sectionName(0), "Opcodes");
  EXPECT_EQ(V.sectionName(1), "CommonOperands");
  EXPECT_EQ(V.sectionName(2), "PhysicalRegisters");
  EXPECT_EQ(V.sectionName(3), "VirtualRegisters");
  Weights W{0.5f, 0.25f, 2.0f};
  EXPECT_EQ(W.sections(),
            (irtk::vocab::SectionWeights{0.5f, 0.25f, 2.0f, 2.0f}));
}

TEST(MIRLayoutTest, OtherTargets) {
  initializeTargets();
  for (const char *Triple :
       {"aarch64-unknown-linux-gnu", "riscv64-unknown-linux-gnu"}) {
    Expected<std::unique_ptr<TargetMachine>> TM = createTargetMachine(Triple);
    IRTK_ASSERT_OK(TM);
    std::shared_ptr<const TargetLayout> L = layoutOf(**TM);
    EXPECT_GT(L->size(), 1000u) << Triple;
    EXPECT_EQ(L->layout()->entityLabel(
                  *L->commonOperandEntity(MachineOperand::MO_Immediate)),
              "Immediate");
  }
  Expected<std::unique_ptr<TargetMachine>> Bad =
      createTargetMachine("nonesuch-unknown-unknown");
  EXPECT_FALSE(static_cast<bool>(Bad));
  consumeError(Bad.takeError());
}

} // namespace
