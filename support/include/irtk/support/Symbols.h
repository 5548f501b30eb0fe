//===- Symbols.h - Naming functions on the command line ---------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `--function` and the Python queries name a function by its symbol or by
/// its demangled name, in LLVM IR and machine IR alike.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_SUPPORT_SYMBOLS_H
#define IRTK_SUPPORT_SYMBOLS_H

#include "llvm/ADT/StringRef.h"

namespace irtk::support {

/// Whether \p Symbol is \p Name, either as it is or demangled (Itanium or
/// Microsoft mangling).
bool symbolMatches(llvm::StringRef Symbol, llvm::StringRef Name);

} // namespace irtk::support

#endif // IRTK_SUPPORT_SYMBOLS_H
