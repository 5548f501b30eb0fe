//===- InputList.cpp - Input files and MLGO corpora -----------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/support/InputList.h"
#include "irtk/support/JSON.h"
#include "irtk/support/ReadFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace irtk::support {

static std::string descriptionPath(StringRef Path) {
  if (!sys::fs::is_directory(Path))
    return Path.str();
  SmallString<256> P(Path);
  sys::path::append(P, CorpusDescriptionName);
  return std::string(P);
}

bool isCorpus(StringRef Path) {
  if (sys::fs::is_directory(Path))
    return sys::fs::exists(descriptionPath(Path));
  return sys::path::filename(Path) == CorpusDescriptionName;
}

static Error corpusError(StringRef Description, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Description + ": " + Msg);
}

Expected<std::vector<std::string>> readCorpusModules(StringRef Path) {
  std::string Description = descriptionPath(Path);
  ReadOptions NoStdin;
  NoStdin.AllowStdin = false;
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      readFile(Description, "corpus description", NoStdin);
  if (!Buf)
    return Buf.takeError();
  Expected<json::Value> Root = parseJSON((*Buf)->getBuffer(), Description);
  if (!Root)
    return Root.takeError();
  const json::Object *Obj = Root->getAsObject();
  const json::Array *Modules = Obj ? Obj->getArray("modules") : nullptr;
  if (!Modules)
    return corpusError(Description, "no \"modules\" list");
  StringRef Dir = sys::path::parent_path(Description);
  std::vector<std::string> Paths;
  for (size_t I = 0; I < Modules->size(); ++I) {
    std::optional<StringRef> M = (*Modules)[I].getAsString();
    if (!M)
      return corpusError(Description, "\"modules\" element " + Twine(I) +
                                          " is not a string");
    // A module lies under the corpus root: no absolute path, no "..".
    bool Outside =
        sys::path::is_absolute(*M) || sys::path::has_root_name(*M) ||
        llvm::any_of(make_range(sys::path::begin(*M), sys::path::end(*M)),
                     [](StringRef C) { return C == ".."; });
    if (Outside) {
      std::string Shown;
      raw_string_ostream(Shown).write_escaped(*M);
      return corpusError(Description,
                         "module '" + Shown + "' is outside the corpus root");
    }
    SmallString<256> P(Dir);
    sys::path::append(P, *M + ".bc");
    Paths.push_back(std::string(P));
  }
  return Paths;
}

std::vector<std::string> expandInputs(ArrayRef<std::string> Args,
                                      function_ref<void(Error)> OnError) {
  std::vector<std::string> Inputs;
  for (const std::string &In : Args) {
    if (In == "-" || !isCorpus(In)) {
      Inputs.push_back(In);
      continue;
    }
    Expected<std::vector<std::string>> Modules = readCorpusModules(In);
    if (!Modules) {
      OnError(Modules.takeError());
      continue;
    }
    Inputs.insert(Inputs.end(), Modules->begin(), Modules->end());
  }
  return Inputs;
}

} // namespace irtk::support
