//===- Options.h - llvm-ir2vec command line ---------------------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The command line of llvm-ir2vec, parsed with llvm::cl (as upstream's
/// tool parses it) into a plain struct, so that an upstream command line
/// works unchanged: the same subcommands and options, response files, the
/// generic options and exit status 1 for every usage error.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_TOOLS_LLVMIR2VEC_OPTIONS_H
#define IRTK_TOOLS_LLVMIR2VEC_OPTIONS_H

#include "Progress.h"
#include "ToolMain.h"

#include "irtk/batch/Mode.h"

#include <string>
#include <vector>

namespace irtk::cli {

using batch::FormatKind;
using batch::ModeKind;
using batch::SubcommandKind;

/// What the run (batch::Options) and the tool around it need.
struct Options : batch::Options {
  std::vector<std::string> Inputs;
  /// This binary, beside which the bundled vocabularies are.
  std::string ExecutablePath;
  /// 0: one per core.
  unsigned Threads = 0;
  /// The status line on standard error (see Progress.h).
  ProgressModeKind Progress = ProgressModeKind::Auto;
};

using ParseResult = tools::ParseResult<Options>;

/// Parses the command line. llvm::cl's own errors (unknown option or
/// subcommand, bad value) are printed and exit 1 there, as upstream's; --help
/// and --version print and exit 0 there. Checks llvm::cl cannot make come back
/// as a usage error.
ParseResult parseCommandLine(int Argc, const char *const *Argv);

/// What --version prints: "llvm-ir2vec (IR2Vec Toolkit) <version>, ...\n".
extern const char *const VersionText;

} // namespace irtk::cli

#endif // IRTK_TOOLS_LLVMIR2VEC_OPTIONS_H
