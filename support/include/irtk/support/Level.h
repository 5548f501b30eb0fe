//===- Level.h - What one embedding stands for ------------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Embeddings are computed at four levels, for LLVM IR and machine IR
/// alike: instructions, basic blocks, functions and modules. The names are
/// upstream's `--level` values (`inst`, `bb`, `func`; upstream LLVM 22 has
/// no module level: `module` is irtk's), and what a store's rows are. A
/// module's vector is the sum of the vectors of the functions a walk visits
/// (ircommon::ModuleSum).
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_SUPPORT_LEVEL_H
#define IRTK_SUPPORT_LEVEL_H

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace irtk::support {

enum class LevelKind { Instruction, BasicBlock, Function, Module };

/// Parses "inst", "bb", "func" or "module".
std::optional<LevelKind> parseLevel(llvm::StringRef S);
/// "inst", "bb", "func" or "module".
llvm::StringRef levelName(LevelKind L);
/// The level names, for messages: "inst, bb, func or module".
llvm::StringRef levelNames();
/// What upstream's text output prints before a function's vectors at level
/// \p L (both IR2Vec and MIR2Vec): "Function vector: " (the vector follows
/// on the same line), "Basic block vectors:\n" or "Instruction vectors:\n";
/// and, in irtk's module level, "Module vector: " before a module's vector.
llvm::StringRef levelHeading(LevelKind L);

} // namespace irtk::support

#endif // IRTK_SUPPORT_LEVEL_H
