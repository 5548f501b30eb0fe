//===- Layout.cpp - The machine-IR vocabulary layout of a target ----------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/mir2vec/Layout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
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
  // std::set<std::string> orders them). The names live in the target's
  // tables, so the bases are slices of them; an llc run makes this layout
  // once, and a set of strings made it cost more than the decisions.
  std::vector<StringRef> Bases(TII.getNumOpcodes());
  StringMap<EntityId> BaseEntity;
  for (unsigned Opc = 0; Opc < TII.getNumOpcodes(); ++Opc) {
    Bases[Opc] = baseOpcodeName(TII.getName(Opc));
    BaseEntity.try_emplace(Bases[Opc], 0);
  }
  std::vector<StringRef> Unique;
  Unique.reserve(BaseEntity.size());
  for (const auto &E : BaseEntity)
    Unique.push_back(E.getKey());
  llvm::sort(Unique);
  L->addGroup(Opcodes, "opcodes");
  for (StringRef B : Unique)
    BaseEntity[B] = L->addEntity(B);
  T->OpcodeEntity.resize(Bases.size());
  for (unsigned Opc = 0; Opc < Bases.size(); ++Opc)
    T->OpcodeEntity[Opc] = BaseEntity.lookup(Bases[Opc]);

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
