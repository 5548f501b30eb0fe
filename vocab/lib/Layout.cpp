//===- Layout.cpp - What a vocabulary assigns vectors to ------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/vocab/Layout.h"

#include "llvm/Support/xxhash.h"

#include <cassert>
#include <cmath>
#include <cstdlib>
#include <string>

using namespace llvm;

namespace irtk::vocab {

unsigned Layout::addSection(StringRef Key) {
  assert(!findSection(Key) && "duplicate section");
  Sections.push_back({Key.str(), {}});
  return numSections() - 1;
}

unsigned Layout::addGroup(unsigned Section, StringRef Name) {
  assert(Section < numSections() && "no such section");
  Groups.push_back({Name.str(), Section, size(), size()});
  return numGroups() - 1;
}

EntityId Layout::addEntity(StringRef Key, StringRef Label) {
  assert(!Groups.empty() && "add a group first");
  GroupInfo &G = Groups.back();
  EntityId Id = size();
  auto [It, New] = Sections[G.Section].Index.try_emplace(Key, Id);
  assert(New && "duplicate key in a section");
  (void)New;
  Entities.push_back({It->getKey(), Label.str(), numGroups() - 1});
  G.End = Id + 1;
  return Id;
}

std::optional<unsigned> Layout::findSection(StringRef Key) const {
  for (unsigned S = 0; S < numSections(); ++S)
    if (Sections[S].Key == Key)
      return S;
  return std::nullopt;
}

std::optional<EntityId> Layout::lookup(unsigned Section, StringRef Key) const {
  const StringMap<EntityId> &M = Sections[Section].Index;
  auto It = M.find(Key);
  if (It == M.end())
    return std::nullopt;
  return It->second;
}

uint64_t Layout::checksum() const {
  std::string Key = Description;
  Key += '\0';
  for (const SectionInfo &S : Sections)
    (Key += S.Key) += '\0';
  for (EntityId Id = 0; Id < size(); ++Id) {
    Key += static_cast<char>('0' + entitySection(Id));
    Key.append(Entities[Id].Key.data(), Entities[Id].Key.size()) += '\0';
  }
  return xxh3_64bits(StringRef(Key));
}

std::optional<float> parseWeight(StringRef Text) {
  std::string S = Text.str();
  const char *Begin = S.c_str();
  char *End = nullptr;
  double D = std::strtod(Begin, &End);
  if (S.empty() || *End != '\0' || !std::isfinite(D))
    return std::nullopt;
  float F = static_cast<float>(D);
  if (!std::isfinite(F))
    return std::nullopt;
  return F;
}

} // namespace irtk::vocab
