//===- Pipeline.h - The target's code generation pipeline -------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What in-process lowering and the plugin's embedding pass share: building
/// the pipeline llc builds, and finding a point in it.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_MIR2VEC_LIB_PIPELINE_H
#define IRTK_MIR2VEC_LIB_PIPELINE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>

namespace llvm {
class MachineModuleInfoWrapperPass;
class PassInfo;
class TargetMachine;
class TargetPassConfig;
namespace legacy {
class PassManager;
} // namespace legacy
} // namespace llvm

namespace irtk::mir2vec {

/// Registers the passes llc registers before it builds a pipeline (once).
void initializeCodeGenPasses();

/// Adds to \p PM the pipeline llc's addPassesToEmitFile adds, without the
/// assembly printer and without freeing the machine functions; \p MMIWP
/// (owned by \p PM from now on) holds them. \p Adjust, if set, sees the
/// pass configuration before any pass is added.
llvm::Error addCodeGenPipeline(
    llvm::TargetMachine &TM, llvm::legacy::PassManager &PM,
    llvm::MachineModuleInfoWrapperPass *MMIWP,
    const std::function<void(llvm::TargetPassConfig &)> &Adjust = nullptr);

/// A run of a pass in a pipeline: the pass and which of its runs (from 0).
struct PipelinePoint {
  const llvm::PassInfo *Pass = nullptr;
  unsigned Instance = 0;
};

/// Finds \p Value ("<pass>[,<instance>]", as llc's -stop-after takes it) in
/// the pipeline of a fresh target machine like \p TM. Errors, which start
/// with "<Option>=<Value>: ": an unknown pass, an instance the pipeline
/// never reaches, or a point before instruction selection, where there is
/// no machine code yet.
llvm::Expected<PipelinePoint> findPipelinePoint(const llvm::TargetMachine &TM,
                                                llvm::StringRef Option,
                                                llvm::StringRef Value);

} // namespace irtk::mir2vec

#endif // IRTK_MIR2VEC_LIB_PIPELINE_H
