//===- Level.cpp - What one embedding stands for --------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/support/Level.h"

#include "llvm/Support/ErrorHandling.h"

using namespace llvm;

namespace irtk::support {

std::optional<LevelKind> parseLevel(StringRef S) {
  if (S == "inst")
    return LevelKind::Instruction;
  if (S == "bb")
    return LevelKind::BasicBlock;
  if (S == "func")
    return LevelKind::Function;
  if (S == "module")
    return LevelKind::Module;
  return std::nullopt;
}

StringRef levelName(LevelKind L) {
  switch (L) {
  case LevelKind::Instruction:
    return "inst";
  case LevelKind::BasicBlock:
    return "bb";
  case LevelKind::Function:
    return "func";
  case LevelKind::Module:
    return "module";
  }
  llvm_unreachable("unknown level");
}

StringRef levelNames() { return "inst, bb, func or module"; }

StringRef levelHeading(LevelKind L) {
  switch (L) {
  case LevelKind::Function:
    return "Function vector: ";
  case LevelKind::BasicBlock:
    return "Basic block vectors:\n";
  case LevelKind::Instruction:
    return "Instruction vectors:\n";
  case LevelKind::Module:
    return "Module vector: ";
  }
  llvm_unreachable("unknown level");
}

} // namespace irtk::support
