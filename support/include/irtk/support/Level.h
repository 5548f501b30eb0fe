//===- Level.h - What one embedding stands for ------------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Embeddings are computed at three levels, for LLVM IR and machine IR
/// alike: instructions, basic blocks and functions. The names are
/// upstream's `--level` values, and what a store's rows are.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_SUPPORT_LEVEL_H
#define IRTK_SUPPORT_LEVEL_H

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace irtk::support {

enum class LevelKind { Instruction, BasicBlock, Function };

/// Parses "inst", "bb" or "func".
std::optional<LevelKind> parseLevel(llvm::StringRef S);
/// "inst", "bb" or "func".
llvm::StringRef levelName(LevelKind L);
/// What upstream's text output prints before a function's vectors at level
/// \p L (both IR2Vec and MIR2Vec): "Function vector: " (the vector follows
/// on the same line), "Basic block vectors:\n" or "Instruction vectors:\n".
llvm::StringRef levelHeading(LevelKind L);

} // namespace irtk::support

#endif // IRTK_SUPPORT_LEVEL_H
