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

#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Target/TargetMachine.h"

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

/// A target machine and its subtarget's instruction and register info.
struct Target {
  std::unique_ptr<TargetMachine> TM;
  const TargetInstrInfo *TII = nullptr;
  const TargetRegisterInfo *TRI = nullptr;

  explicit Target(const char *Triple) {
    initializeTargets();
    Expected<std::unique_ptr<TargetMachine>> M = createTargetMachine(Triple);
    if (!M) {
      ADD_FAILURE() << toString(M.takeError());
      return;
    }
    TM = std::move(*M);
    // The subtarget lives in the target machine; any function gives it.
    LLVMContext Ctx;
    Module Mod("m", Ctx);
    Function *F =
        Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false),
                         GlobalValue::ExternalLinkage, "f", Mod);
    const TargetSubtargetInfo *STI = TM->getSubtargetImpl(*F);
    TII = STI->getInstrInfo();
    TRI = STI->getRegisterInfo();
  }
  std::string description() const { return layoutDescription(*TM); }
};

TEST(MIRLayoutTest, TablesMakeTheSameLayoutWithoutBuildingIt) {
  for (const char *Triple :
       {"x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"}) {
    Target T(Triple);
    ASSERT_TRUE(T.TM);
    std::shared_ptr<const TargetLayout> Built =
        TargetLayout::create(*T.TII, *T.TRI, T.description());
    std::shared_ptr<const TargetLayout> Made = TargetLayout::fromTables(
        Built->tables(), *T.TII, *T.TRI, T.description());
    ASSERT_TRUE(Made) << Triple;
    const irtk::vocab::Layout &B = *Built->layout(), &M = *Made->layout();
    EXPECT_TRUE(M.isPending());
    ASSERT_EQ(M.size(), B.size());
    EXPECT_EQ(M.checksum(), B.checksum());
    EXPECT_EQ(M.numSections(), 4u);
    for (EntityId Id = 0; Id < B.size(); ++Id)
      ASSERT_EQ(M.entitySection(Id), B.entitySection(Id)) << Id;
    for (unsigned Opc = 0; Opc < T.TII->getNumOpcodes(); ++Opc)
      ASSERT_EQ(Made->opcodeEntity(Opc), Built->opcodeEntity(Opc)) << Opc;
    for (unsigned Reg = 0; Reg < T.TRI->getNumRegs(); ++Reg)
      ASSERT_EQ(Made->physicalRegisterEntityOf(Reg),
                Built->physicalRegisterEntityOf(Reg))
          << Reg;
    EXPECT_EQ(Made->noRegisterEntity(), Built->noRegisterEntity());
    EXPECT_EQ(Made->commonOperandEntity(MachineOperand::MO_LaneMask),
              Built->commonOperandEntity(MachineOperand::MO_LaneMask));
    EXPECT_TRUE(M.isPending()); // no key asked for yet
    // The keys, made when asked for: the built layout's, in its groups.
    for (EntityId Id = 0; Id < B.size(); ++Id) {
      ASSERT_EQ(M.entityName(Id), B.entityName(Id)) << Id;
      ASSERT_EQ(M.entityLabel(Id), B.entityLabel(Id)) << Id;
      ASSERT_EQ(M.entityGroup(Id), B.entityGroup(Id)) << Id;
    }
    EXPECT_FALSE(M.isPending());
    EXPECT_EQ(M.lookup(2, "GPR64"), B.lookup(2, "GPR64"));
  }
}

TEST(MIRLayoutTest, TablesOfAnotherTargetOrDamagedAreNotUsed) {
  Target X86("x86_64-unknown-linux-gnu"), Arm("aarch64-unknown-linux-gnu");
  ASSERT_TRUE(X86.TM && Arm.TM);
  std::string Tables =
      TargetLayout::create(*X86.TII, *X86.TRI, X86.description())->tables();
  ASSERT_TRUE(
      TargetLayout::fromTables(Tables, *X86.TII, *X86.TRI, X86.description()));
  EXPECT_FALSE(
      TargetLayout::fromTables(Tables, *Arm.TII, *Arm.TRI, Arm.description()));
  EXPECT_FALSE(
      TargetLayout::fromTables(Tables, *X86.TII, *X86.TRI, "other MIR"));
  auto Load = [&](const std::string &T) {
    return TargetLayout::fromTables(T, *X86.TII, *X86.TRI, X86.description());
  };
  auto Damaged = [&](size_t At, char C) {
    std::string T = Tables;
    T[At] = C;
    return Load(T);
  };
  // Header: magic 0, version 8, counts 12-31 (opcode entities at 24),
  // fingerprint 32, identity 40, layout checksum 48, body hash 56; the
  // body from 64.
  EXPECT_FALSE(Damaged(0, 'X'));     // the magic
  EXPECT_FALSE(Damaged(8, 1));       // the version
  EXPECT_FALSE(Damaged(67, '\x01')); // the body, unhashed
  // Another identity (another build of LLVM): the names decide, and they
  // are the same; with another fingerprint too, refused.
  EXPECT_TRUE(Damaged(40, ~Tables[40]));
  std::string Foreign = Tables;
  Foreign[32] = ~Foreign[32];
  Foreign[40] = ~Foreign[40];
  EXPECT_FALSE(Load(Foreign));
  // The same identity (an LLVM with a build id, as Debian's): the names
  // are not read, so the fingerprint is not checked.
  if (support::endian::read64le(Tables.data() + 40))
    EXPECT_TRUE(Damaged(32, ~Tables[32]));
  else
    EXPECT_FALSE(Damaged(32, ~Tables[32]));
  EXPECT_FALSE(Damaged(Tables.size() - 1, '\x01')); // a register's class
  // Damaged and hashed again: still checked.
  auto Rehashed = [&](std::string T) {
    uint64_t H = xxh3_64bits(StringRef(T).drop_front(64));
    for (int B = 0; B < 8; ++B)
      T[56 + B] = static_cast<char>(H >> (8 * B));
    return Load(T);
  };
  EXPECT_TRUE(Rehashed(Tables));
  std::string OutOfRange = Tables;
  OutOfRange[67] = '\x7f'; // opcode 0's entity
  EXPECT_FALSE(Rehashed(OutOfRange));
  std::string Unnamed = Tables; // every opcode of entity 0: bases unnamed
  for (size_t At = 64; At < 64 + 4 * size_t(X86.TII->getNumOpcodes()); ++At)
    Unnamed[At] = 0;
  EXPECT_FALSE(Rehashed(Unnamed));
  std::string NoBases = Tables;
  for (int B = 0; B < 4; ++B)
    NoBases[24 + B] = 0;
  EXPECT_FALSE(Rehashed(NoBases));
  EXPECT_FALSE(TargetLayout::fromTables(Tables.substr(0, Tables.size() - 4),
                                        *X86.TII, *X86.TRI, X86.description()));
  EXPECT_FALSE(
      TargetLayout::fromTables("", *X86.TII, *X86.TRI, X86.description()));
}

TEST(MIRLayoutTest, LoadTargetVocabularyUsesTheTablesOfItsBinaryForm) {
  Target X86("x86_64-unknown-linux-gnu");
  ASSERT_TRUE(X86.TM);
  std::shared_ptr<const TargetLayout> Built =
      TargetLayout::create(*X86.TII, *X86.TRI, X86.description());
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("irtk-layout", Dir));
  std::string Json = (Dir + "/v.json").str();
  ASSERT_FALSE(sys::fs::copy_file(IRTK_TEST_INPUTS "/mir-dim2.json", Json));
  Weights W{0.5f, 1.0f, 2.0f};
  Expected<irtk::vocab::Vocabulary> Reference = loadVocabulary(Json, *Built, W);
  IRTK_ASSERT_OK(Reference);
  auto Load = [&] {
    return loadTargetVocabulary(Json, *X86.TII, *X86.TRI, X86.description(), W);
  };
  auto Pack = [&](StringRef Tables) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Text = MemoryBuffer::getFile(Json);
    ASSERT_TRUE(!!Text);
    Expected<irtk::vocab::Vocabulary> V =
        irtk::vocab::Vocabulary::loadFromBuffer((*Text)->getBuffer(), Json,
                                                Built->layout());
    IRTK_ASSERT_OK(V);
    std::error_code EC;
    raw_fd_ostream OS(irtk::vocab::Vocabulary::binaryPath(Json), EC);
    ASSERT_FALSE(EC);
    V->writeBinary((*Text)->getBuffer(), OS, Tables);
  };
  auto SameVectors = [&](const irtk::vocab::Vocabulary &V) {
    ASSERT_EQ(V.size(), Reference->size());
    for (EntityId Id = 0; Id < V.size(); ++Id)
      ASSERT_EQ(V.vector(Id), Reference->vector(Id)) << Id;
  };
  // No binary form: the layout is built.
  Expected<TargetVocabulary> FromJson = Load();
  IRTK_ASSERT_OK(FromJson);
  EXPECT_FALSE(FromJson->Layout->layout()->isPending());
  SameVectors(FromJson->Vocabulary);
  // A binary form with the tables: nothing built.
  Pack(Built->tables());
  Expected<TargetVocabulary> FromTables = Load();
  IRTK_ASSERT_OK(FromTables);
  EXPECT_TRUE(FromTables->Layout->layout()->isPending());
  SameVectors(FromTables->Vocabulary);
  // Tables that are not this target's (another identity and fingerprint):
  // built, and the same vocabulary.
  std::string Other = Built->tables();
  Other[32] = ~Other[32];
  Other[40] = ~Other[40];
  Pack(Other);
  Expected<TargetVocabulary> Rebuilt = Load();
  IRTK_ASSERT_OK(Rebuilt);
  EXPECT_FALSE(Rebuilt->Layout->layout()->isPending());
  SameVectors(Rebuilt->Vocabulary);
  sys::fs::remove_directories(Dir);
}

} // namespace
