//===- Layout.h - The machine-IR vocabulary layout of a target --*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The layout of a MIR2Vec vocabulary, as LLVM 22 builds it from a target
/// (llvm/CodeGen/MIR2Vec.h, llvm/lib/CodeGen/MIR2Vec.cpp):
///   Opcodes           the base names of the target's opcodes (ADD32rr ->
///                     ADD), unique and sorted bytewise;
///   CommonOperands    the 20 machine operand kinds other than registers, in
///                     MachineOperandType order;
///   PhysicalRegisters the target's register classes, in class-id order;
///   VirtualRegisters  the same classes again.
/// Entity ids follow that order, as upstream's do: X86-64 in LLVM 22 has
/// 6868 + 20 + 135 + 135 = 7158 entities. Register classes are keyed by
/// their name in both register sections and listed as PhyReg_<class> and
/// VirtReg_<class>.
///
/// A TargetLayout also holds the tables the embedder looks entities up in:
/// machine opcode -> entity, register class id -> entity. Building it costs
/// an llc process about 18 M instructions (sorting 6,868 opcode names and
/// indexing 7,158 keys), so the bundled vocabulary's binary form carries
/// its tables (tables(), made by `irtk-vocab pack --mode=mir` at build
/// time): a compiler that loads it (loadTargetVocabulary) only checks that
/// they were made for its target and makes the keys if something asks.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_MIR2VEC_LAYOUT_H
#define IRTK_MIR2VEC_LAYOUT_H

#include "irtk/support/DefaultInitVector.h"
#include "irtk/vocab/Layout.h"
#include "irtk/vocab/Vocabulary.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/CodeGen/MachineOperand.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class TargetInstrInfo;
class TargetRegisterInfo;
} // namespace llvm

namespace irtk::mir2vec {

using vocab::EntityId;

/// The JSON sections, in layout order.
enum class SectionKind : unsigned {
  Opcodes,
  CommonOperands,
  PhysicalRegisters,
  VirtualRegisters
};

/// The common operand kinds, in MachineOperandType order without
/// MO_Register (which has sections of its own) and MO_DbgInstrRef (which
/// only debug instructions, never embedded, carry). Upstream indexes this
/// list with MachineOperandType - 1, which is off by one past
/// MO_ShuffleMask: an MO_LaneMask operand reads past the section there.
/// Here it is "LaneMask".
inline constexpr llvm::StringLiteral CommonOperandNames[] = {
    "Immediate",       "CImmediate",        "FPImmediate",  "MBB",
    "FrameIndex",      "ConstantPoolIndex", "TargetIndex",  "JumpTableIndex",
    "ExternalSymbol",  "GlobalAddress",     "BlockAddress", "RegisterMask",
    "RegisterLiveOut", "Metadata",          "MCSymbol",     "CFIIndex",
    "IntrinsicID",     "Predicate",         "ShuffleMask",  "LaneMask"};
inline constexpr unsigned NumCommonOperands = std::size(CommonOperandNames);
static_assert(NumCommonOperands == llvm::MachineOperand::MO_Last - 1,
              "LLVM's machine operand kinds differ from LLVM 22's");

/// Upstream's base opcode name: the first run of letters and underscores of
/// \p InstrName, trailing underscores trimmed (ADD32rr -> ADD, JMP_4 -> JMP,
/// 123ADD -> ADD); the whole name when it has no letter or underscore. A
/// slice of \p InstrName.
llvm::StringRef baseOpcodeName(llvm::StringRef InstrName);

class TargetLayout {
public:
  /// The layout of the target whose instruction and register info these
  /// are. \p Description names it in messages ("x86_64 MIR").
  static std::shared_ptr<const TargetLayout>
  create(const llvm::TargetInstrInfo &TII, const llvm::TargetRegisterInfo &TRI,
         llvm::StringRef Description);

  /// What fromTables() needs to make this layout again without building
  /// it: the opcode and register tables, the layout's checksum, and a
  /// fingerprint of the target's opcode, register and register class
  /// names, and an identity of the LLVM and target that made them (its
  /// version, the build id of the object holding the target's tables, the
  /// counts; 0 without a build id). Little-endian:
  ///   "IRTKMIRL" u32 version  u32 opcodes  u32 register classes
  ///   u32 registers  u32 opcode entities  u32 0
  ///   u64 fingerprint  u64 identity  u64 layout checksum
  ///   u64 xxh3 of what follows
  ///   u32 entity[opcodes]  i32 smallest class[registers]
  /// The fingerprint and the identity also cover irtk's rules for making a
  /// layout.
  std::string tables() const;

  /// The layout of the target of \p TII and \p TRI, named \p Description,
  /// from \p Tables (tables() of a layout made for the same target by the
  /// same LLVM), checked against the running LLVM's identity, or when that
  /// differs (or is unknown) against the target's names, which costs about
  /// 2 M instructions for X86-64: nothing is sorted or indexed, and the
  /// vocab::Layout is deferred (its keys are made the first time something asks
  /// for one). nullptr when the tables are not this target's, or are malformed;
  /// create() it then.
  static std::shared_ptr<const TargetLayout>
  fromTables(llvm::StringRef Tables, const llvm::TargetInstrInfo &TII,
             const llvm::TargetRegisterInfo &TRI, llvm::StringRef Description);

  const std::shared_ptr<const vocab::Layout> &layout() const { return L; }
  unsigned size() const { return L->size(); }

  /// The entity of machine opcode \p Opcode.
  EntityId opcodeEntity(unsigned Opcode) const { return OpcodeEntity[Opcode]; }
  /// The entity of a non-register operand kind; std::nullopt for
  /// MO_DbgInstrRef.
  std::optional<EntityId>
  commonOperandEntity(llvm::MachineOperand::MachineOperandType T) const {
    if (T == llvm::MachineOperand::MO_DbgInstrRef)
      return std::nullopt;
    unsigned Index = static_cast<unsigned>(T) - 1;
    if (T > llvm::MachineOperand::MO_DbgInstrRef)
      --Index;
    return CommonOperandBase + Index;
  }
  /// The entity of register class \p ClassID, for physical or virtual
  /// registers.
  EntityId physicalRegisterEntity(unsigned ClassID) const {
    return PhysicalRegisterBase + ClassID;
  }
  EntityId virtualRegisterEntity(unsigned ClassID) const {
    return VirtualRegisterBase + ClassID;
  }
  unsigned numRegisterClasses() const {
    return VirtualRegisterBase - PhysicalRegisterBase;
  }
  /// The entity of physical register \p Reg: its smallest register class
  /// (TargetRegisterInfo::getMinimalPhysRegClass, looked up once per
  /// register when the layout is built); std::nullopt without a class.
  std::optional<EntityId> physicalRegisterEntityOf(unsigned Reg) const {
    if (Reg >= PhysicalRegisterClass.size() || PhysicalRegisterClass[Reg] < 0)
      return std::nullopt;
    return PhysicalRegisterBase +
           static_cast<unsigned>(PhysicalRegisterClass[Reg]);
  }
  /// The entity upstream's triplets give a register without a class
  /// ($noreg, stack slots): the first virtual register class.
  EntityId noRegisterEntity() const { return VirtualRegisterBase; }

private:
  std::shared_ptr<const vocab::Layout> L;
  /// Of the target's names (the tables' fingerprint).
  uint64_t Fingerprint = 0;
  /// Of the running LLVM and target; 0 when unknown.
  uint64_t Identity = 0;
  support::DefaultInitVector<EntityId> OpcodeEntity;
  /// Physical register -> id of its smallest class, or -1.
  support::DefaultInitVector<int> PhysicalRegisterClass;
  EntityId CommonOperandBase = 0, PhysicalRegisterBase = 0,
           VirtualRegisterBase = 0;
};

/// Section weights, upstream's `-mir2vec-opc-weight`,
/// `-mir2vec-common-operand-weight` and `-mir2vec-reg-operand-weight` (the
/// last for both register sections).
struct Weights {
  float Opcode = 1.0f;
  float CommonOperand = 1.0f;
  float Register = 1.0f;
  vocab::SectionWeights sections() const {
    return {Opcode, CommonOperand, Register, Register};
  }
};

/// Fails when \p V, read from \p Name, is not a vocabulary of its layout's
/// target: when fewer than half of the keys in its Opcodes section name a
/// machine opcode of that target (an x86-64 vocabulary for an AArch64
/// module resolves about a tenth of them; a vocabulary of the target itself
/// all of them, as its opcodes are the target's own). A vocabulary without
/// opcode keys passes.
llvm::Error checkOpcodesOfTarget(const vocab::Vocabulary &V,
                                 llvm::StringRef Name);

/// Loads the MIR vocabulary at \p Path for layout \p L with \p W, from its
/// binary form when one is beside it (vocab::Vocabulary::load), and checks
/// that it is a vocabulary of L's target (checkOpcodesOfTarget).
llvm::Expected<vocab::Vocabulary> loadVocabulary(llvm::StringRef Path,
                                                 const TargetLayout &L,
                                                 const Weights &W = {});

/// A target's layout and the MIR vocabulary at \p Path for it.
struct TargetVocabulary {
  std::shared_ptr<const TargetLayout> Layout;
  vocab::Vocabulary Vocabulary;
};

/// Loads the layout of the target of \p TII and \p TRI (named
/// \p Description) and the MIR vocabulary at \p Path with \p W, as a
/// compiler does: from the layout tables in the vocabulary's binary form
/// when they were made for this target (TargetLayout::fromTables), else
/// building the layout (TargetLayout::create). The layout, the vocabulary
/// and the errors are create()'s and loadVocabulary()'s either way.
llvm::Expected<TargetVocabulary>
loadTargetVocabulary(llvm::StringRef Path, const llvm::TargetInstrInfo &TII,
                     const llvm::TargetRegisterInfo &TRI,
                     llvm::StringRef Description, const Weights &W = {});

} // namespace irtk::mir2vec

#endif // IRTK_MIR2VEC_LAYOUT_H
