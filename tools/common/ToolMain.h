//===- ToolMain.h - What every irtk command-line tool shares ----*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// One shape for every tool's main: parse the command line into an options
/// struct (a usage error is one line and exit status 2, or 1 in
/// llvm-ir2vec as in upstream's tool; --help and --version print and exit
/// 0), then run it, which returns an llvm::Error
/// (one line and exit status 1). A run that has already reported its
/// problems line by line (several bad inputs of a corpus) returns
/// reportedError(): exit status 1 and no further line. Standard output is
/// checked last, so a full disk or closed pipe is an error, not an abort.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_TOOLS_COMMON_TOOLMAIN_H
#define IRTK_TOOLS_COMMON_TOOLMAIN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace irtk::tools {

enum ExitStatus : int { ExitSuccess = 0, ExitFailure = 1, ExitUsage = 2 };

/// The error of a run whose problems were each reported as they were met.
llvm::Error reportedError();

/// What parsing a command line gave: options to run, text to print (help,
/// version), or a usage error.
template <typename OptionsT> class ParseResult {
public:
  enum StatusKind { Run, PrintAndExit, UsageError };

  static ParseResult run(OptionsT O) {
    ParseResult R(Run);
    R.Opts = std::move(O);
    return R;
  }
  static ParseResult print(std::string Text) {
    ParseResult R(PrintAndExit);
    R.Text = std::move(Text);
    return R;
  }
  static ParseResult usageError(std::string Msg) {
    ParseResult R(UsageError);
    R.Text = std::move(Msg);
    return R;
  }

  StatusKind status() const { return Status; }
  bool isUsageError() const { return Status == UsageError; }
  /// Help or version text, or the usage error message.
  const std::string &message() const { return Text; }
  const OptionsT &options() const { return Opts; }

private:
  explicit ParseResult(StatusKind S) : Status(S) {}
  StatusKind Status;
  std::string Text;
  OptionsT Opts;
};

/// Parses \p Text, the value of option \p Option, as a count (threads,
/// epochs, rows, a dimension) from \p Min to \p Max into \p Out: decimal
/// digits only, no sign and no blanks, so that "-1" is an error and not
/// 2^32 - 1. Returns the usage error message, "invalid <Option> '<Text>';
/// expected a number from <Min> to <Max>", or an empty string.
std::string parseCountOption(llvm::StringRef Option, llvm::StringRef Text,
                             uint64_t Min, uint64_t Max, uint64_t &Out);
template <typename T>
std::string parseCountOption(llvm::StringRef Option, llvm::StringRef Text,
                             uint64_t Min, uint64_t Max, T &Out) {
  static_assert(std::is_unsigned_v<T>, "counts are unsigned");
  uint64_t V = 0;
  std::string Msg = parseCountOption(
      Option, Text, Min, std::min<uint64_t>(Max, std::numeric_limits<T>::max()),
      V);
  if (Msg.empty())
    Out = static_cast<T>(V);
  return Msg;
}

/// Prints \p Message as "<tool>: error: <message>" and returns ExitUsage.
int usageExit(llvm::StringRef ToolName, llvm::StringRef Message);
/// Prints text to standard output and returns ExitSuccess (or ExitFailure
/// when standard output cannot be written).
int printExit(llvm::StringRef ToolName, llvm::StringRef Text);
/// Reports \p E (nothing for success or reportedError()), checks standard
/// output, and returns the exit status.
int finishExit(llvm::StringRef ToolName, llvm::Error E);

/// "a, b or c" for \p Names.
std::string listOfChoices(llvm::ArrayRef<llvm::StringRef> Names);

/// Reads the subcommand of a tool taking one (Argv[1]) into \p Out, from
/// \p Commands (its name, its kind). Returns what the tool should do
/// instead when there is none to run: print \p Usage (for help) or a usage
/// error (none given, an unknown one).
template <typename OptionsT, typename KindT>
std::optional<ParseResult<OptionsT>>
readSubcommand(int Argc, char **Argv, llvm::StringRef Usage,
               llvm::ArrayRef<std::pair<llvm::StringRef, KindT>> Commands,
               KindT &Out) {
  std::vector<llvm::StringRef> Names;
  for (const auto &C : Commands)
    Names.push_back(C.first);
  if (Argc < 2)
    return ParseResult<OptionsT>::usageError("please specify a command: " +
                                             listOfChoices(Names));
  llvm::StringRef Cmd = Argv[1];
  if (Cmd == "--help" || Cmd == "-h" || Cmd == "help")
    return ParseResult<OptionsT>::print(Usage.str());
  for (const auto &C : Commands)
    if (C.first == Cmd) {
      Out = C.second;
      return std::nullopt;
    }
  return ParseResult<OptionsT>::usageError(
      "unknown command '" + Cmd.str() + "'; expected " + listOfChoices(Names));
}

/// The whole of a tool's main after llvm::InitLLVM. A usage error exits
/// \p UsageStatus: ExitUsage, except in a drop-in for an upstream tool
/// that exits 1 (llvm-ir2vec).
template <typename OptionsT>
int runMain(llvm::StringRef ToolName, const ParseResult<OptionsT> &R,
            llvm::function_ref<llvm::Error(const OptionsT &)> Run,
            int UsageStatus = ExitUsage) {
  switch (R.status()) {
  case ParseResult<OptionsT>::UsageError:
    usageExit(ToolName, R.message());
    return UsageStatus;
  case ParseResult<OptionsT>::PrintAndExit:
    return printExit(ToolName, R.message());
  case ParseResult<OptionsT>::Run:
    break;
  }
  return finishExit(ToolName, Run(R.options()));
}

} // namespace irtk::tools

#endif // IRTK_TOOLS_COMMON_TOOLMAIN_H
