//===- llvm-ir2vec.cpp - IR2Vec Toolkit command-line tool -----------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Entry point: parse, run (ToolMain.h). Every error exits 1, usage errors
/// too, as upstream's llvm-ir2vec does: scripts written against it test
/// for that.
///
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "Options.h"

#include "llvm/Support/InitLLVM.h"

int main(int Argc, char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  return irtk::tools::runMain<irtk::cli::Options>(
      "llvm-ir2vec", irtk::cli::parseCommandLine(Argc, Argv), irtk::cli::run,
      irtk::tools::ExitFailure);
}
