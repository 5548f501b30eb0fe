//===- Vocabulary.cpp - IR2Vec seed-embedding vocabulary ------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Loading and validation of vocabulary JSON. The JSON is parsed with
/// llvm::json, the parser upstream uses, so that what one accepts the other
/// does; the checks on top are stricter than upstream's and all of them name
/// the file, section and entry at fault.
///
//===----------------------------------------------------------------------===//

#include "irtk/vocab/Vocabulary.h"
#include "irtk/vocab/JSONDiagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <charconv>
#include <cmath>

using namespace llvm;

namespace irtk::vocab {

static Error vocabError(StringRef Name, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Name + ": " + Msg);
}

namespace {
/// One parsed section: sorted keys and their raw vectors.
struct ParsedSection {
  JSONSectionKind Kind;
  std::vector<std::pair<std::string, std::vector<double>>> Entries;
  unsigned Dim = 0;
};
} // namespace

static Expected<ParsedSection>
parseSection(const json::Object &Root, JSONSectionKind Kind, StringRef Name) {
  StringRef Key = jsonSectionName(Kind);
  const json::Value *V = Root.get(Key);
  if (!V)
    return vocabError(Name, "missing '" + Key + "' section");
  const json::Object *O = V->getAsObject();
  if (!O)
    return vocabError(Name, "section '" + Key + "' is not an object");
  if (O->empty())
    return vocabError(Name, "section '" + Key + "' is empty");

  ParsedSection S;
  S.Kind = Kind;
  for (const auto &KV : *O)
    S.Entries.emplace_back(KV.first.str(), std::vector<double>());
  llvm::sort(S.Entries,
             [](const auto &A, const auto &B) { return A.first < B.first; });

  for (auto &[EntryKey, Vec] : S.Entries) {
    const json::Array *A = O->get(EntryKey)->getAsArray();
    auto Where = [&]() {
      return ("section '" + Key + "', entry '" + EntryKey + "'").str();
    };
    if (!A)
      return vocabError(Name, Where() + ": not an array of numbers");
    Vec.reserve(A->size());
    for (size_t I = 0; I < A->size(); ++I) {
      std::optional<double> D = (*A)[I].getAsNumber();
      if (!D)
        return vocabError(Name, Where() + ": element " + Twine(I) +
                                    " is not a number");
      if (!std::isfinite(*D))
        return vocabError(Name,
                          Where() + ": element " + Twine(I) + " is not finite");
      Vec.push_back(*D);
    }
  }

  // Upstream takes the dimension from the lexicographically first entry.
  const auto &[FirstKey, FirstVec] = S.Entries.front();
  if (FirstVec.empty())
    return vocabError(Name, "section '" + Key + "', entry '" + FirstKey +
                                "': zero dimension");
  S.Dim = FirstVec.size();
  for (const auto &[EntryKey, Vec] : S.Entries)
    if (Vec.size() != S.Dim)
      return vocabError(Name, "section '" + Key + "', entry '" + EntryKey +
                                  "': dimension " + Twine(Vec.size()) +
                                  " differs from " + Twine(S.Dim) +
                                  " of entry '" + FirstKey + "'");
  return S;
}

static double weightFor(EntityId Id, const Weights &W) {
  switch (jsonSectionOf(Id)) {
  case JSONSectionKind::Opcodes:
    return static_cast<double>(W.Opcode);
  case JSONSectionKind::Types:
    return static_cast<double>(W.Type);
  case JSONSectionKind::Arguments:
    return static_cast<double>(W.Argument);
  }
  llvm_unreachable("unknown JSON section");
}

Expected<Vocabulary> Vocabulary::loadFromBuffer(StringRef Text, StringRef Name,
                                                const Weights &W) {
  Expected<json::Value> Root = json::parse(Text);
  if (!Root)
    return jsonSyntaxError(Name, Text, Root.takeError());
  const json::Object *RootObj = Root->getAsObject();
  if (!RootObj)
    return vocabError(Name, "JSON root is not an object");

  std::vector<ParsedSection> Sections;
  for (JSONSectionKind K : {JSONSectionKind::Opcodes, JSONSectionKind::Types,
                            JSONSectionKind::Arguments}) {
    Expected<ParsedSection> S = parseSection(*RootObj, K, Name);
    if (!S)
      return S.takeError();
    Sections.push_back(std::move(*S));
  }
  for (const ParsedSection &S : Sections)
    if (S.Dim != Sections.front().Dim)
      return vocabError(Name, "section '" + jsonSectionName(S.Kind) +
                                  "' has dimension " + Twine(S.Dim) +
                                  " but section 'Opcodes' has " +
                                  Twine(Sections.front().Dim));

  Vocabulary V;
  V.Dim = Sections.front().Dim;
  V.W = W;
  V.Data.assign(size_t(NumEntities) * V.Dim, 0.0);
  V.Present.assign(NumEntities, false);
  for (const ParsedSection &S : Sections) {
    for (const auto &[Key, Vec] : S.Entries) {
      std::optional<EntityId> Id = lookupEntity(S.Kind, Key);
      if (!Id) {
        V.UnknownKeys.push_back((jsonSectionName(S.Kind) + "." + Key).str());
        continue;
      }
      double Weight = weightFor(*Id, W);
      double *Out = V.Data.data() + size_t(*Id) * V.Dim;
      for (unsigned I = 0; I < V.Dim; ++I)
        Out[I] = Vec[I] * Weight;
      V.Present[*Id] = true;
    }
  }
  return V;
}

Expected<Vocabulary> Vocabulary::loadFromFile(StringRef Path,
                                              const Weights &W) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/true);
  StringRef Name = Path == "-" ? StringRef("<stdin>") : Path;
  if (!Buf)
    return vocabError(Name,
                      "cannot read vocabulary: " + Buf.getError().message());
  return loadFromBuffer((*Buf)->getBuffer(), Name, W);
}

Expected<Vocabulary>
Vocabulary::fromVectors(const std::vector<std::vector<double>> &Vectors,
                        const Weights &W) {
  if (Vectors.size() != NumEntities)
    return createStringError(inconvertibleErrorCode(),
                             "expected " + Twine(NumEntities) +
                                 " entity vectors, got " +
                                 Twine(Vectors.size()));
  Vocabulary V;
  V.Dim = Vectors.front().size();
  if (V.Dim == 0)
    return createStringError(inconvertibleErrorCode(), "zero dimension");
  V.W = W;
  V.Data.assign(size_t(NumEntities) * V.Dim, 0.0);
  V.Present.assign(NumEntities, true);
  for (EntityId Id = 0; Id < NumEntities; ++Id) {
    if (Vectors[Id].size() != V.Dim)
      return createStringError(
          inconvertibleErrorCode(),
          "entity '" + entityName(Id) + "' has dimension " +
              Twine(Vectors[Id].size()) + ", expected " + Twine(V.Dim));
    double Weight = weightFor(Id, W);
    for (unsigned I = 0; I < V.Dim; ++I)
      V.Data[size_t(Id) * V.Dim + I] = Vectors[Id][I] * Weight;
  }
  return V;
}

std::vector<EntityId> Vocabulary::missingEntities() const {
  std::vector<EntityId> Missing;
  for (EntityId Id = 0; Id < NumEntities; ++Id)
    if (!Present[Id])
      Missing.push_back(Id);
  return Missing;
}

void writeVocabularyJSON(const std::vector<std::vector<double>> &Entities,
                         raw_ostream &OS) {
  OS << "{\n";
  for (JSONSectionKind S : {JSONSectionKind::Opcodes, JSONSectionKind::Types,
                            JSONSectionKind::Arguments}) {
    OS << (S == JSONSectionKind::Opcodes ? "" : ",\n") << "  \""
       << jsonSectionName(S) << "\": {";
    bool First = true;
    for (EntityId Id = 0; Id < NumEntities; ++Id) {
      if (jsonSectionOf(Id) != S || Entities[Id].empty())
        continue;
      OS << (First ? "\n" : ",\n") << "    \"" << entityName(Id) << "\": [";
      First = false;
      char Buf[64];
      for (size_t I = 0; I < Entities[Id].size(); ++I) {
        std::to_chars_result R =
            std::to_chars(Buf, Buf + sizeof(Buf), Entities[Id][I]);
        OS << (I ? ", " : "") << StringRef(Buf, R.ptr - Buf);
      }
      OS << "]";
    }
    OS << "\n  }";
  }
  OS << "\n}\n";
}

std::string defaultVocabularyPath(StringRef BinaryPath) {
  SmallString<256> P(
      sys::path::parent_path(sys::path::parent_path(BinaryPath)));
  sys::path::append(P, IRTK_DEFAULT_VOCAB_RELPATH);
  return std::string(P);
}

} // namespace irtk::vocab
