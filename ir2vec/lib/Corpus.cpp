//===- Corpus.cpp - MLGO corpus descriptions ------------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Corpus.h"
#include "irtk/vocab/JSONDiagnostics.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace irtk::ir2vec {

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
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getFile(Description, /*IsText=*/true);
  if (!Buf)
    return corpusError(Description, "cannot read corpus description: " +
                                        Buf.getError().message());
  Expected<json::Value> Root = json::parse((*Buf)->getBuffer());
  if (!Root)
    return vocab::jsonSyntaxError(Description, (*Buf)->getBuffer(),
                                  Root.takeError());
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
    SmallString<256> P(Dir);
    sys::path::append(P, *M + ".bc");
    Paths.push_back(std::string(P));
  }
  return Paths;
}

} // namespace irtk::ir2vec
