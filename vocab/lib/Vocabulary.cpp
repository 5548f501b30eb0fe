//===- Vocabulary.cpp - Seed-embedding vocabularies -----------------------===//
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
/// does (a fast reader takes the common shape first and leaves anything else
/// to it); the checks on top are stricter than upstream's and all of them
/// name the file, section and entry at fault.
///
//===----------------------------------------------------------------------===//

#include "irtk/vocab/Vocabulary.h"
#include "irtk/support/Format.h"
#include "irtk/support/JSON.h"
#include "irtk/support/ReadFile.h"

#include "Weights.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cassert>
#include <cmath>

using namespace llvm;

namespace irtk::vocab {

static Error vocabError(StringRef Name, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Name + ": " + Msg);
}

namespace {
/// One parsed section: sorted keys and their raw vectors.
struct ParsedSection {
  unsigned Index;
  std::vector<std::pair<std::string, std::vector<double>>> Entries;
  unsigned Dim = 0;
};
} // namespace

/// A section's entries as the file lists them.
using RawEntries = std::vector<std::pair<std::string, std::vector<double>>>;

/// The checks every section gets, however it was read: not empty, entries
/// sorted by key, one dimension (upstream takes it from the
/// lexicographically first entry), not zero.
static Expected<ParsedSection> checkSection(RawEntries Entries, StringRef Key,
                                            unsigned Index, StringRef Name) {
  if (Entries.empty())
    return vocabError(Name, "section '" + Key + "' is empty");
  ParsedSection S;
  S.Index = Index;
  S.Entries = std::move(Entries);
  llvm::sort(S.Entries,
             [](const auto &A, const auto &B) { return A.first < B.first; });
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

static Expected<ParsedSection> parseSection(const json::Object &Root,
                                            const Layout &L, unsigned Index,
                                            StringRef Name) {
  StringRef Key = L.sectionName(Index);
  const json::Value *V = Root.get(Key);
  if (!V)
    return vocabError(Name, "missing '" + Key + "' section");
  const json::Object *O = V->getAsObject();
  if (!O)
    return vocabError(Name, "section '" + Key + "' is not an object");
  if (O->empty())
    return vocabError(Name, "section '" + Key + "' is empty");

  RawEntries Entries;
  for (const auto &KV : *O)
    Entries.emplace_back(KV.first.str(), std::vector<double>());
  llvm::sort(Entries,
             [](const auto &A, const auto &B) { return A.first < B.first; });

  for (auto &Entry : Entries) {
    const std::string &EntryKey = Entry.first;
    std::vector<double> &Vec = Entry.second;
    const json::Array *A = O->get(EntryKey)->getAsArray();
    // A lambda may not capture a structured binding before C++20.
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
  return checkSection(std::move(Entries), Key, Index, Name);
}

namespace {
/// Reads the shape nearly every vocabulary has, {"Section": {"key": [numbers],
/// ...}, ...}, without building JSON values: several times faster than
/// llvm::json::parse, which matters where a vocabulary is loaded per
/// compilation (the plugin in clang). It gives up (std::nullopt) on anything
/// it is not sure to read exactly as parseJSON + parseSection would:
/// escapes, duplicate keys, other value types, numbers out of range or
/// written as -0, invalid UTF-8; the slow path then reads the file and
/// reports any problem.
class FastReader {
public:
  explicit FastReader(StringRef Text)
      : P(Text.begin()), End(Text.end()), Text(Text) {}

  std::optional<StringMap<RawEntries>> read() {
    if (!json::isUTF8(Text))
      return std::nullopt;
    StringMap<RawEntries> Sections;
    if (!consume('{'))
      return std::nullopt;
    if (consume('}'))
      return finish(std::move(Sections));
    do {
      std::optional<StringRef> Key = key();
      if (!Key || !consume(':') || Sections.count(*Key))
        return std::nullopt;
      RawEntries &Entries = Sections[*Key];
      if (!section(Entries))
        return std::nullopt;
    } while (consume(','));
    if (!consume('}'))
      return std::nullopt;
    return finish(std::move(Sections));
  }

private:
  std::optional<StringMap<RawEntries>> finish(StringMap<RawEntries> S) {
    skipSpace();
    if (P != End)
      return std::nullopt;
    return S;
  }

  void skipSpace() {
    while (P != End && (*P == ' ' || *P == '\n' || *P == '\t' || *P == '\r'))
      ++P;
  }

  bool consume(char C) {
    skipSpace();
    if (P == End || *P != C)
      return false;
    ++P;
    return true;
  }

  /// A string without escapes or control characters.
  std::optional<StringRef> key() {
    if (!consume('"'))
      return std::nullopt;
    const char *Start = P;
    while (P != End && *P != '"') {
      if (*P == '\\' || static_cast<unsigned char>(*P) < 0x20)
        return std::nullopt;
      ++P;
    }
    if (P == End)
      return std::nullopt;
    StringRef K(Start, P - Start);
    ++P;
    return K;
  }

  bool section(RawEntries &Entries) {
    if (!consume('{'))
      return false;
    if (consume('}'))
      return true;
    StringSet<> Seen;
    do {
      std::optional<StringRef> Key = key();
      if (!Key || !consume(':') || !Seen.insert(*Key).second)
        return false;
      Entries.emplace_back(Key->str(), std::vector<double>());
      if (!numbers(Entries.back().second))
        return false;
    } while (consume(','));
    return consume('}');
  }

  bool numbers(std::vector<double> &Out) {
    if (!consume('['))
      return false;
    if (consume(']'))
      return true;
    do {
      skipSpace();
      double D;
      if (!number(D))
        return false;
      Out.push_back(D);
    } while (consume(','));
    return consume(']');
  }

  /// A number in JSON's grammar, read with correct rounding.
  bool number(double &D) { return support::readJSONNumber(P, End, D); }

  const char *P, *End;
  StringRef Text;
};
} // namespace

Expected<Vocabulary> Vocabulary::loadFromBuffer(StringRef Text, StringRef Name,
                                                std::shared_ptr<const Layout> L,
                                                const SectionWeights &W) {
  std::vector<ParsedSection> Sections;
  if (std::optional<StringMap<RawEntries>> Raw = FastReader(Text).read()) {
    for (unsigned I = 0; I < L->numSections(); ++I) {
      StringRef Key = L->sectionName(I);
      auto It = Raw->find(Key);
      if (It == Raw->end())
        return vocabError(Name, "missing '" + Key + "' section");
      Expected<ParsedSection> S =
          checkSection(std::move(It->second), Key, I, Name);
      if (!S)
        return S.takeError();
      Sections.push_back(std::move(*S));
    }
  } else {
    Expected<json::Value> Root = support::parseJSON(Text, Name);
    if (!Root)
      return Root.takeError();
    const json::Object *RootObj = Root->getAsObject();
    if (!RootObj)
      return vocabError(Name, "JSON root is not an object");
    for (unsigned I = 0; I < L->numSections(); ++I) {
      Expected<ParsedSection> S = parseSection(*RootObj, *L, I, Name);
      if (!S)
        return S.takeError();
      Sections.push_back(std::move(*S));
    }
  }
  for (const ParsedSection &S : Sections)
    if (S.Dim != Sections.front().Dim)
      return vocabError(Name, "section '" + L->sectionName(S.Index) +
                                  "' has dimension " + Twine(S.Dim) +
                                  " but section '" + L->sectionName(0) +
                                  "' has " + Twine(Sections.front().Dim));

  Vocabulary V;
  V.W = completeWeights(*L, W);
  V.Dim = Sections.front().Dim;
  std::vector<bool> Present(L->size(), false);
  std::vector<std::pair<EntityId, const std::vector<double> *>> Given;
  for (const ParsedSection &S : Sections)
    for (const auto &[Key, Vec] : S.Entries) {
      std::optional<EntityId> Id = L->lookup(S.Index, Key);
      if (!Id) {
        V.UnknownKeys.push_back((L->sectionName(S.Index) + "." + Key).str());
        continue;
      }
      Present[*Id] = true;
      Given.emplace_back(*Id, &Vec);
    }
  V.allocateRows(Present);
  for (const auto &[Id, Vec] : Given) {
    const double Weight = static_cast<double>(V.W[L->entitySection(Id)]);
    double *Out = V.row(Id);
    for (unsigned I = 0; I < V.Dim; ++I)
      Out[I] = (*Vec)[I] * Weight;
  }
  V.L = std::move(L);
  return V;
}

void Vocabulary::allocateRows(const std::vector<bool> &Present) {
  Row.assign(Present.size(), 0);
  uint32_t Rows = 1;
  for (size_t Id = 0; Id < Present.size(); ++Id)
    if (Present[Id])
      Row[Id] = Rows++;
  Data.assign(size_t(Rows) * Dim, 0.0);
}

Expected<Vocabulary> Vocabulary::loadFromFile(StringRef Path,
                                              std::shared_ptr<const Layout> L,
                                              const SectionWeights &W) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      support::readFile(Path, "vocabulary");
  if (!Buf)
    return Buf.takeError();
  StringRef Name = Path == "-" ? StringRef("<stdin>") : Path;
  return loadFromBuffer((*Buf)->getBuffer(), Name, std::move(L), W);
}

Expected<Vocabulary>
Vocabulary::fromVectors(std::shared_ptr<const Layout> L,
                        const std::vector<std::vector<double>> &Vectors,
                        const SectionWeights &W) {
  if (Vectors.size() != L->size())
    return createStringError(inconvertibleErrorCode(),
                             "expected " + Twine(L->size()) +
                                 " entity vectors, got " +
                                 Twine(Vectors.size()));
  Vocabulary V;
  V.Dim = Vectors.front().size();
  if (V.Dim == 0)
    return createStringError(inconvertibleErrorCode(), "zero dimension");
  V.W = completeWeights(*L, W);
  V.allocateRows(std::vector<bool>(L->size(), true));
  for (EntityId Id = 0; Id < L->size(); ++Id) {
    if (Vectors[Id].size() != V.Dim)
      return createStringError(
          inconvertibleErrorCode(),
          "entity '" + L->entityName(Id) + "' has dimension " +
              Twine(Vectors[Id].size()) + ", expected " + Twine(V.Dim));
    double Weight = static_cast<double>(V.W[L->entitySection(Id)]);
    for (unsigned I = 0; I < V.Dim; ++I)
      V.row(Id)[I] = Vectors[Id][I] * Weight;
  }
  V.L = std::move(L);
  return V;
}

std::vector<EntityId> Vocabulary::missingEntities() const {
  std::vector<EntityId> Missing;
  for (EntityId Id = 0; Id < size(); ++Id)
    if (!isPresent(Id))
      Missing.push_back(Id);
  return Missing;
}

void writeVocabularyJSON(const Layout &L,
                         const std::vector<std::vector<double>> &Entities,
                         raw_ostream &OS) {
  OS << "{\n";
  for (unsigned S = 0; S < L.numSections(); ++S) {
    OS << (S == 0 ? "" : ",\n") << "  \"" << L.sectionName(S) << "\": {";
    bool First = true;
    for (EntityId Id = 0; Id < L.size(); ++Id) {
      if (L.entitySection(Id) != S || Entities[Id].empty())
        continue;
      OS << (First ? "\n" : ",\n") << "    ";
      support::printJSONString(OS, L.entityName(Id));
      OS << ": [";
      First = false;
      char Buf[support::MaxNumberChars];
      for (size_t I = 0; I < Entities[Id].size(); ++I)
        OS << (I ? ", " : "")
           << StringRef(Buf, support::formatShortest(Entities[Id][I], Buf));
      OS << "]";
    }
    OS << "\n  }";
  }
  OS << "\n}\n";
}

} // namespace irtk::vocab
