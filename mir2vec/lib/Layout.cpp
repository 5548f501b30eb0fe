//===- Layout.cpp - The machine-IR vocabulary layout of a target ----------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/mir2vec/Layout.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"

using namespace llvm;

namespace irtk::mir2vec {

static bool isBaseChar(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_';
}

StringRef baseOpcodeName(StringRef InstrName) {
  // The first match of ([a-zA-Z_]+), as upstream's regex finds it.
  size_t Begin = 0;
  while (Begin < InstrName.size() && !isBaseChar(InstrName[Begin]))
    ++Begin;
  if (Begin == InstrName.size())
    return InstrName;
  size_t End = Begin;
  while (End < InstrName.size() && isBaseChar(InstrName[End]))
    ++End;
  return InstrName.slice(Begin, End).rtrim('_');
}

std::shared_ptr<const TargetLayout>
TargetLayout::create(const TargetInstrInfo &TII, const TargetRegisterInfo &TRI,
                     StringRef Description) {
  auto T = std::shared_ptr<TargetLayout>(new TargetLayout());
  auto L = std::make_shared<vocab::Layout>(Description.str());
  unsigned Opcodes = L->addSection("Opcodes");
  unsigned Common = L->addSection("CommonOperands");
  unsigned Phys = L->addSection("PhysicalRegisters");
  unsigned Virt = L->addSection("VirtualRegisters");

  // Opcodes: unique base names in bytewise order (as upstream's
  // std::set<std::string> orders them). An llc run makes this layout once
  // per process, so it is kept cheap: the bases are slices of the target's
  // own names, told apart by a DenseMap of StringRefs (no copies), and the
  // unique ones are sorted by their first 8 bytes as a big-endian integer,
  // the full names only breaking ties.
  unsigned NumOpcodes = TII.getNumOpcodes();
  std::vector<unsigned> BaseOf(NumOpcodes);
  DenseMap<StringRef, unsigned> BaseIndex;
  struct UniqueBase {
    uint64_t Prefix;
    StringRef Name;
    unsigned Index;
  };
  std::vector<UniqueBase> Unique;
  for (unsigned Opc = 0; Opc < NumOpcodes; ++Opc) {
    StringRef Base = baseOpcodeName(TII.getName(Opc));
    auto [It, New] = BaseIndex.try_emplace(Base, Unique.size());
    if (New) {
      uint64_t Prefix = 0;
      for (size_t I = 0; I < 8; ++I)
        Prefix = Prefix << 8 |
                 (I < Base.size() ? static_cast<unsigned char>(Base[I]) : 0);
      Unique.push_back({Prefix, Base, It->second});
    }
    BaseOf[Opc] = It->second;
  }
  llvm::sort(Unique, [](const UniqueBase &A, const UniqueBase &B) {
    if (A.Prefix != B.Prefix)
      return A.Prefix < B.Prefix;
    return A.Name < B.Name;
  });
  L->addGroup(Opcodes, "opcodes");
  std::vector<EntityId> EntityOfBase(Unique.size());
  for (const UniqueBase &U : Unique)
    EntityOfBase[U.Index] = L->addEntity(U.Name);
  T->OpcodeEntity.resize(NumOpcodes);
  for (unsigned Opc = 0; Opc < NumOpcodes; ++Opc)
    T->OpcodeEntity[Opc] = EntityOfBase[BaseOf[Opc]];

  L->addGroup(Common, "common operands");
  T->CommonOperandBase = L->size();
  for (StringRef N : CommonOperandNames)
    L->addEntity(N);

  // Register classes by id: the entity of class C is Base + C.
  L->addGroup(Phys, "physical register classes");
  T->PhysicalRegisterBase = L->size();
  for (unsigned RC = 0; RC < TRI.getNumRegClasses(); ++RC) {
    StringRef Name = TRI.getRegClassName(TRI.getRegClass(RC));
    L->addEntity(Name, ("PhyReg_" + Name).str());
  }
  L->addGroup(Virt, "virtual register classes");
  T->VirtualRegisterBase = L->size();
  for (unsigned RC = 0; RC < TRI.getNumRegClasses(); ++RC) {
    StringRef Name = TRI.getRegClassName(TRI.getRegClass(RC));
    L->addEntity(Name, ("VirtReg_" + Name).str());
  }
  // The smallest class of each physical register: searching every class
  // per operand would dominate the embedding's cost.
  T->PhysicalRegisterClass.assign(TRI.getNumRegs(), -1);
  for (unsigned Reg = 1; Reg < TRI.getNumRegs(); ++Reg)
    if (const TargetRegisterClass *RC =
            TRI.getMinimalPhysRegClass(MCRegister(Reg)))
      T->PhysicalRegisterClass[Reg] = static_cast<int>(RC->getID());
  T->L = std::move(L);
  return T;
}

Expected<vocab::Vocabulary>
loadVocabulary(StringRef Path, const TargetLayout &L, const Weights &W) {
  return vocab::Vocabulary::load(Path, L.layout(), W.sections());
}

} // namespace irtk::mir2vec
