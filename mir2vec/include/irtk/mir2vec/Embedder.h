//===- Embedder.h - Symbolic MIR2Vec embeddings -----------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Embeddings of machine instructions, blocks and functions with LLVM 22's
/// definitions (llvm/lib/CodeGen/MIR2Vec.cpp, SymbolicMIREmbedder):
///   instr    = V[base opcode] + V[operand 0] + V[operand 1] + ...
///   block    = sum over its non-debug instructions
///   function = sum over the blocks reachable from the entry, DFS preorder
/// added in that order, left to right, so that results agree bit for bit.
/// A register operand contributes the vector of its class: for a physical
/// register the minimal class containing it, for a virtual one the class
/// the function's own MachineRegisterInfo gives it. Where LLVM 22 crashes,
/// this embedder does what LLVM main does since its fix (#212280): a
/// register without a class ($ssp, $mxcsr, $fpcw, a generic virtual
/// register) contributes zero, as $noreg and stack slots do.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_MIR2VEC_EMBEDDER_H
#define IRTK_MIR2VEC_EMBEDDER_H

#include "irtk/mir2vec/Layout.h"
#include "irtk/vocab/Vocabulary.h"

#include <optional>
#include <vector>

namespace llvm {
class MachineBasicBlock;
class MachineFunction;
class MachineInstr;
class MachineOperand;
class MachineRegisterInfo;
} // namespace llvm

namespace irtk::mir2vec {

using Embedding = std::vector<double>;

/// The entity operand \p MO of a function with register info \p MRI stands
/// for: its operand kind, or the class of its register (a physical
/// register's smallest class, from \p L); std::nullopt for a register
/// without a class ($noreg, a stack slot, $mxcsr, a generic virtual
/// register) and for a debug instruction reference.
std::optional<EntityId> operandEntity(const llvm::MachineOperand &MO,
                                      const TargetLayout &L,
                                      const llvm::MachineRegisterInfo &MRI);

class Embedder {
public:
  /// \p V must be a vocabulary of layout \p L, the layout of \p MF's target.
  Embedder(const llvm::MachineFunction &MF, const vocab::Vocabulary &V,
           const TargetLayout &L);

  unsigned dimension() const { return Dim; }

  /// Writes the embedding of \p MI to \p Out[0..dimension()); zero for a
  /// debug instruction.
  void computeInstVector(const llvm::MachineInstr &MI, double *Out) const;
  void computeBlockVector(const llvm::MachineBasicBlock &MBB,
                          double *Out) const;
  void computeFunctionVector(double *Out) const;

private:
  const llvm::MachineFunction &MF;
  const vocab::Vocabulary &V;
  const TargetLayout &L;
  const llvm::MachineRegisterInfo &MRI;
  const unsigned Dim;
  mutable std::vector<double> InstScratch, BlockScratch;
};

} // namespace irtk::mir2vec

#endif // IRTK_MIR2VEC_EMBEDDER_H
