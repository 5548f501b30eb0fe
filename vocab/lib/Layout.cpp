//===- Layout.cpp - What a vocabulary assigns vectors to ------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/vocab/Layout.h"

#include "llvm/ADT/STLExtras.h"
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

std::shared_ptr<const Layout>
Layout::deferred(std::string Description, std::vector<EntityId> SectionEnds,
                 uint64_t Checksum, std::function<void(Layout &)> Fill) {
  assert(llvm::is_sorted(SectionEnds) && "sections are contiguous");
  auto L = std::make_shared<Layout>(std::move(Description));
  L->Later = std::make_unique<Deferral>();
  L->Later->Size = SectionEnds.empty() ? 0 : SectionEnds.back();
  L->Later->SectionEnds = std::move(SectionEnds);
  L->Later->Checksum = Checksum;
  L->Later->Fill = std::move(Fill);
  return L;
}

bool Layout::isPending() const {
  return Later && !Later->Filled.load(std::memory_order_acquire);
}

unsigned Layout::Deferral::sectionOf(EntityId Id) const {
  return static_cast<unsigned>(llvm::upper_bound(SectionEnds, Id) -
                               SectionEnds.begin());
}

void Layout::fill() const {
  std::call_once(Later->Once, [this] {
    Layout Full(Description);
    Later->Fill(Full);
    Later->Fill = nullptr;
    assert(Full.size() == Later->Size && Full.checksum() == Later->Checksum &&
           "filled as another layout");
    // The layout is const to its users, but filling it is not a change
    // they can see: what they asked before, they are told again.
    auto &Self = const_cast<Layout &>(*this);
    Self.Sections = std::move(Full.Sections);
    Self.Groups = std::move(Full.Groups);
    Self.Entities = std::move(Full.Entities);
    Later->Filled.store(true, std::memory_order_release);
  });
}

std::optional<unsigned> Layout::findSection(StringRef Key) const {
  filled();
  for (unsigned S = 0; S < numSections(); ++S)
    if (Sections[S].Key == Key)
      return S;
  return std::nullopt;
}

std::optional<EntityId> Layout::lookup(unsigned Section, StringRef Key) const {
  const StringMap<EntityId> &M = filled().Sections[Section].Index;
  auto It = M.find(Key);
  if (It == M.end())
    return std::nullopt;
  return It->second;
}

uint64_t Layout::checksum() const {
  if (Later)
    return Later->Checksum;
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
