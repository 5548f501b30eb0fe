//===- Symbols.cpp - Naming functions on the command line -----------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/support/Symbols.h"

#include "llvm/Demangle/Demangle.h"

using namespace llvm;

namespace irtk::support {

bool symbolMatches(StringRef Symbol, StringRef Name) {
  if (Symbol == Name)
    return true;
  // Only mangled names can demangle to something else.
  if (!Symbol.starts_with("_Z") && !Symbol.starts_with("?"))
    return false;
  return demangle(Symbol) == Name;
}

} // namespace irtk::support
