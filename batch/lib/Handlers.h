//===- Handlers.h - The mode handlers of each IR kind -----------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Private: the handlers createModeHandler chooses from.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_BATCH_LIB_HANDLERS_H
#define IRTK_BATCH_LIB_HANDLERS_H

#include "irtk/batch/Mode.h"

#include <memory>
#include <string>

namespace irtk::batch {

/// --mode=llvm: LLVM IR, textual or bitcode.
std::unique_ptr<ModeHandler> createIRModeHandler();
/// --mode=mir: machine IR in .mir files, or LLVM IR lowered in-process.
std::unique_ptr<ModeHandler> createMIRModeHandler();

/// What both kinds' writers take for input \p Path: O's level, format
/// (text or JSON lines) and function, and the input's name as the module.
ircommon::OutputOptions inputOutputOptions(const std::string &Path,
                                           const Options &O);

} // namespace irtk::batch

#endif // IRTK_BATCH_LIB_HANDLERS_H
