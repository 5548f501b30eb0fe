//===- llvm-ir2vec.cpp - IR2Vec Toolkit command-line tool -----------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Entry point: parse (usage errors exit 2), run (errors exit 1).
///
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "Options.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

int main(int Argc, char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  irtk::cli::ParseResult R = irtk::cli::parseCommandLine(Argc, Argv);
  switch (R.status()) {
  case irtk::cli::ParseResult::UsageError:
    llvm::WithColor::error(llvm::errs(), "llvm-ir2vec") << R.message() << '\n';
    return 2;
  case irtk::cli::ParseResult::PrintAndExit:
    llvm::outs() << R.message();
    return 0;
  case irtk::cli::ParseResult::Run:
    break;
  }
  if (llvm::Error E = irtk::cli::run(R.options())) {
    // An empty message means every problem was already reported.
    std::string Msg = llvm::toString(std::move(E));
    if (!Msg.empty())
      llvm::WithColor::error(llvm::errs(), "llvm-ir2vec") << Msg << '\n';
    return 1;
  }
  return 0;
}
