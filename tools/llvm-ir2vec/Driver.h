//===- Driver.h - llvm-ir2vec run loop --------------------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Runs one parsed llvm-ir2vec command: loads the vocabulary, parses the
/// inputs in parallel, writes each input's output in input order.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_TOOLS_LLVMIR2VEC_DRIVER_H
#define IRTK_TOOLS_LLVMIR2VEC_DRIVER_H

#include "Options.h"

#include "llvm/Support/Error.h"

namespace irtk::cli {

/// Runs \p O. Problems with single inputs are printed as they are met, one
/// line each, and the other inputs still processed; the returned error then
/// says how many failed.
llvm::Error run(const Options &O);

} // namespace irtk::cli

#endif // IRTK_TOOLS_LLVMIR2VEC_DRIVER_H
