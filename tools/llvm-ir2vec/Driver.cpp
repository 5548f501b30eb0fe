//===- Driver.cpp - llvm-ir2vec run loop ----------------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// llvm-ir2vec's side of the run loop (batch/Run.h, shared with the Python
/// module): inputs (files and MLGO corpora) expanded, outputs that would
/// replace an input refused, each input's warnings and error printed as its
/// result is taken, the progress line, and whether the run commits: a run
/// where every input failed, or --function matched nowhere, leaves no
/// output.
///
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "Progress.h"

#include "irtk/batch/Run.h"
#include "irtk/support/InputList.h"
#include "irtk/support/OutputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace irtk::cli {

static constexpr const char *ToolName = "llvm-ir2vec";

/// Runs \p J over \p Inputs; \p Failed inputs failed before (corpus
/// descriptions that could not be read).
static Error runInputs(const Options &O, ArrayRef<std::string> Inputs,
                       unsigned Failed, batch::Job &J) {
  const size_t N = Inputs.size();
  const unsigned Total = N + Failed;

  // A status line redrawn over output printed to the same terminal would
  // garble it: auto shows none when the results go to the terminal.
  ProgressModeKind Mode = O.Progress;
  if (Mode == ProgressModeKind::Auto && O.Output == "-" &&
      O.OpenKEDir.empty() && O.Format != FormatKind::Store &&
      sys::Process::StandardOutIsDisplayed())
    Mode = ProgressModeKind::Never;
  ProgressLine Progress(errs(), Mode, Total,
                        O.Subcommand == SubcommandKind::Triplets);
  unsigned Done = 0, Matched = 0;
  auto Accept = [&](size_t, batch::InputResult &R) {
    ++Done;
    if (!R.Warnings.empty() || !R.Error.empty())
      Progress.clear();
    for (const std::string &W : R.Warnings)
      WithColor::warning(errs(), ToolName) << W << '\n';
    if (!R.Error.empty()) {
      WithColor::error(errs(), ToolName) << R.Error << '\n';
      ++Failed;
    } else {
      J.accept(R);
      Matched += R.Matched;
    }
    Progress.update(Done, Failed, J.progressCount());
  };

  batch::processInputs(Inputs, O.Threads, J, Accept);
  Progress.finish(Done + (Total - N), Failed, J.progressCount());

  if (Total > 0 && Failed == Total) {
    J.discard();
    // Each failure was reported as it was met; nothing more to say.
    return tools::reportedError();
  }
  if (!O.FunctionName.empty() && Matched == 0) {
    J.discard();
    return createStringError(inconvertibleErrorCode(),
                             "Function '" + O.FunctionName + "' not found");
  }
  if (Error E = J.commit())
    return E;
  if (Failed)
    return createStringError(inconvertibleErrorCode(),
                             Twine(Failed) + " of " + Twine(Total) +
                                 " inputs failed; the output holds the other " +
                                 Twine(Total - Failed));
  return Error::success();
}

/// Refuses outputs that would replace an input: an output file that is an
/// input, an OpenKE file that is one, or a store directory holding one.
static Error checkOutputs(const Options &O, ArrayRef<std::string> Inputs) {
  std::vector<std::string> All(Inputs.begin(), Inputs.end());
  for (const std::string *V : {&O.VocabPath, &O.MIRVocabPath})
    if (!V->empty())
      All.push_back(*V);
  if (!O.OpenKEDir.empty()) {
    for (const char *Name :
         {"train2id.txt", "entity2id.txt", "relation2id.txt"}) {
      SmallString<128> P(O.OpenKEDir);
      sys::path::append(P, Name);
      if (Error E = support::checkNotAnInput(P, All))
        return E;
    }
    return Error::success();
  }
  if (O.Format == FormatKind::Store &&
      O.Subcommand == SubcommandKind::Embeddings) {
    // Replacing the store replaces everything in its directory.
    for (const std::string &In : All) {
      StringRef Dir = sys::path::parent_path(In);
      if (!Dir.empty() && sys::fs::equivalent(Dir, O.Output))
        return createStringError(inconvertibleErrorCode(),
                                 "cannot write store '" + O.Output +
                                     "': it holds the input '" + In + "'");
    }
    return Error::success();
  }
  return support::checkNotAnInput(O.Output, All);
}

Error run(const Options &O) {
  std::unique_ptr<batch::ModeHandler> H = batch::createModeHandler(O.Mode);
  // A corpus whose description cannot be read counts as one failed input.
  unsigned Failed = 0;
  std::vector<std::string> Inputs =
      support::expandInputs(O.Inputs, [&](Error E) {
        WithColor::error(errs(), ToolName) << toString(std::move(E)) << '\n';
        ++Failed;
      });
  if (Error E = checkOutputs(O, Inputs))
    return E;
  if (Error E =
          H->prepare(O, Inputs, O.Subcommand == SubcommandKind::Embeddings))
    return E;
  if (O.Subcommand == SubcommandKind::Entities)
    return support::writeOutputFile(O.Output, [&](raw_ostream &OS) {
      H->writeEntities(OS);
      return Error::success();
    });
  Expected<std::unique_ptr<batch::Job>> J =
      batch::createJob(O, *H, Inputs.size() + Failed > 1);
  if (!J)
    return J.takeError();
  return runInputs(O, Inputs, Failed, **J);
}

} // namespace irtk::cli
