//===- InsertedPass.h - A pass inserted into code generation ----*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A machine pass of ours inserted into a legacy code generation pipeline
/// (llc's, clang's) by TargetPassConfig::insertPass. LLVM makes inserted
/// passes itself, through the pass registry with their default constructor,
/// while it builds the pipeline on this thread after insertPass returns:
/// there is no way to hand them arguments. So the state of the pipeline
/// goes through a thread-local slot, set just before insertPass and read by
/// the pass's constructor; the last pipeline built on a thread is the one
/// its passes belong to.
///
/// \code
///   class MyPass;
///   using Inserted = mir2vec::InsertedPass<MyPass, MyState>;
///   class MyPass : public MachineFunctionPass {
///     MyPass() : MachineFunctionPass(ID), State(Inserted::building()) {}
///     ...
///   };
///   Inserted::insert(Config, &VirtRegRewriterID, State, "My pass",
///                    "my-pass");
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_MIR2VEC_INSERTEDPASS_H
#define IRTK_MIR2VEC_INSERTEDPASS_H

#include "llvm/CodeGen/TargetPassConfig.h"
#include "llvm/Pass.h"
#include "llvm/PassInfo.h"
#include "llvm/PassRegistry.h"

#include <memory>
#include <mutex>

namespace irtk::mir2vec {

/// \p PassT, a pass with a `static char ID` and a default constructor that
/// takes building(), shares a \p StateT with the other instances of its
/// pipeline.
template <typename PassT, typename StateT> class InsertedPass {
public:
  /// Registers \p PassT under \p Name and \p Arg (string literals) once per
  /// process, makes \p State the state of the instances made next on this
  /// thread, and inserts \p PassT after every run of the pass \p After.
  static void insert(llvm::TargetPassConfig &Config, llvm::AnalysisID After,
                     std::shared_ptr<StateT> State, const char *Name,
                     const char *Arg) {
    static std::once_flag Once;
    std::call_once(Once, [&] {
      static llvm::PassInfo Info(
          Name, Arg, &PassT::ID,
          llvm::PassInfo::NormalCtor_t(llvm::callDefaultCtor<PassT>),
          /*CFGOnly=*/false, /*IsAnalysis=*/false);
      llvm::PassRegistry::getPassRegistry()->registerPass(Info);
    });
    Building = std::move(State);
    Config.insertPass(After, &PassT::ID);
  }

  /// For \p PassT's constructor: the state of the pipeline this thread is
  /// building (null for an instance made otherwise, e.g. by name).
  static std::shared_ptr<StateT> building() { return Building; }

private:
  static thread_local std::shared_ptr<StateT> Building;
};

template <typename PassT, typename StateT>
thread_local std::shared_ptr<StateT> InsertedPass<PassT, StateT>::Building;

} // namespace irtk::mir2vec

#endif // IRTK_MIR2VEC_INSERTEDPASS_H
