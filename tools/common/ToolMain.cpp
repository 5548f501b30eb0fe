//===- ToolMain.cpp - What every irtk command-line tool shares ------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "ToolMain.h"

#include "irtk/support/OutputFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace irtk::tools {

namespace {
/// See reportedError().
class ReportedError : public ErrorInfo<ReportedError> {
public:
  static char ID;
  void log(raw_ostream &OS) const override { OS << "errors were reported"; }
  std::error_code convertToErrorCode() const override {
    return inconvertibleErrorCode();
  }
};
char ReportedError::ID = 0;
} // namespace

Error reportedError() { return make_error<ReportedError>(); }

std::string parseCountOption(StringRef Option, StringRef Text, uint64_t Min,
                             uint64_t Max, uint64_t &Out) {
  uint64_t V;
  // getAsInteger alone would accept a radix prefix ("0x10").
  bool Digits = !Text.empty() &&
                llvm::all_of(Text, [](char C) { return C >= '0' && C <= '9'; });
  if (!Digits || Text.getAsInteger(10, V) || V < Min || V > Max)
    return ("invalid " + Option + " '" + Text + "'; expected a number from " +
            Twine(Min) + " to " + Twine(Max))
        .str();
  Out = V;
  return "";
}

int usageExit(StringRef ToolName, StringRef Message) {
  WithColor::error(errs(), ToolName) << Message << '\n';
  return ExitUsage;
}

int printExit(StringRef ToolName, StringRef Text) {
  outs() << Text;
  return finishExit(ToolName, Error::success());
}

int finishExit(StringRef ToolName, Error E) {
  int Status = ExitSuccess;
  handleAllErrors(
      std::move(E), [&](const ReportedError &) { Status = ExitFailure; },
      [&](const ErrorInfoBase &EI) {
        WithColor::error(errs(), ToolName) << EI.message() << '\n';
        Status = ExitFailure;
      });
  if (Error Out = support::takeStdoutError()) {
    WithColor::error(errs(), ToolName) << toString(std::move(Out)) << '\n';
    Status = ExitFailure;
  }
  return Status;
}

std::string listOfChoices(llvm::ArrayRef<llvm::StringRef> Names) {
  std::string S;
  for (size_t I = 0; I < Names.size(); ++I) {
    if (I)
      S += I + 1 == Names.size() ? " or " : ", ";
    S += Names[I].str();
  }
  return S;
}

} // namespace irtk::tools
