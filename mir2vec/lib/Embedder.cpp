//===- Embedder.cpp - Symbolic MIR2Vec embeddings -------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every addition is elementwise in double, in upstream's order. A zero
/// vector is added, not skipped: -0.0 + 0.0 is +0.0, and upstream adds its
/// zero vector for $noreg.
///
//===----------------------------------------------------------------------===//

#include "irtk/mir2vec/Embedder.h"

#include "llvm/ADT/DepthFirstIterator.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/CodeGen/MachineRegisterInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"

#include <algorithm>

using namespace llvm;

namespace irtk::mir2vec {

Embedder::Embedder(const MachineFunction &MF, const vocab::Vocabulary &V,
                   const TargetLayout &L)
    : MF(MF), V(V), L(L), MRI(MF.getRegInfo()), Dim(V.dimension()),
      InstScratch(Dim), BlockScratch(Dim) {}

std::optional<EntityId> operandEntity(const MachineOperand &MO,
                                      const TargetLayout &L,
                                      const MachineRegisterInfo &MRI) {
  if (!MO.isReg())
    return L.commonOperandEntity(MO.getType());
  Register Reg = MO.getReg();
  if (!Reg.isValid() || Reg.isStack())
    return std::nullopt;
  // A physical register: the smallest class that holds it. A virtual one:
  // the class this function's register info gives it (LLVM 22 asks the
  // first function's, which misplaces every later function's registers).
  if (Reg.isPhysical())
    return L.physicalRegisterEntityOf(Reg.id());
  const TargetRegisterClass *RC = MRI.getRegClassOrNull(Reg);
  if (!RC)
    return std::nullopt;
  return L.virtualRegisterEntity(RC->getID());
}

void Embedder::computeInstVector(const MachineInstr &MI, double *Out) const {
  if (MI.isDebugInstr()) {
    std::fill(Out, Out + Dim, 0.0);
    return;
  }
  const double *Opc = V.data(L.opcodeEntity(MI.getOpcode()));
  std::copy(Opc, Opc + Dim, Out);
  for (const MachineOperand &MO : MI.operands()) {
    if (std::optional<EntityId> E = operandEntity(MO, L, MRI)) {
      const double *P = V.data(*E);
      for (unsigned I = 0; I < Dim; ++I)
        Out[I] += P[I];
    } else {
      for (unsigned I = 0; I < Dim; ++I)
        Out[I] += 0.0;
    }
  }
}

void Embedder::computeBlockVector(const MachineBasicBlock &MBB,
                                  double *Out) const {
  std::fill(Out, Out + Dim, 0.0);
  for (const MachineInstr &MI : MBB) {
    if (MI.isDebugInstr())
      continue;
    computeInstVector(MI, InstScratch.data());
    for (unsigned I = 0; I < Dim; ++I)
      Out[I] += InstScratch[I];
  }
}

void Embedder::computeFunctionVector(double *Out) const {
  std::fill(Out, Out + Dim, 0.0);
  if (MF.empty())
    return;
  for (const MachineBasicBlock *MBB : depth_first(&MF)) {
    computeBlockVector(*MBB, BlockScratch.data());
    for (unsigned I = 0; I < Dim; ++I)
      Out[I] += BlockScratch[I];
  }
}

} // namespace irtk::mir2vec
