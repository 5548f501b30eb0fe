//===- Mode.cpp - Reading and embedding inputs of either IR kind ----------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/batch/Mode.h"
#include "Handlers.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

using namespace llvm;

namespace irtk::batch {

ModeHandler::~ModeHandler() = default;

std::unique_ptr<ModeHandler> createModeHandler(ModeKind Mode) {
  return Mode == ModeKind::MIR ? createMIRModeHandler() : createIRModeHandler();
}

ircommon::OutputOptions inputOutputOptions(const std::string &Path,
                                           const Options &O) {
  ircommon::OutputOptions EO;
  EO.Level = O.Level;
  EO.Format = O.Format == FormatKind::JSONL ? ircommon::OutputFormatKind::JSONL
                                            : ircommon::OutputFormatKind::Text;
  EO.FunctionName = O.FunctionName;
  EO.ModuleName = displayName(Path);
  return EO;
}

std::string recordedVocabularyPath(StringRef Path) {
  SmallString<256> P(Path);
  if (Path != "-")
    sys::fs::make_absolute(P);
  return std::string(P);
}

} // namespace irtk::batch
