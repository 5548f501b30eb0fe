//===- Layout.h - What a vocabulary assigns vectors to ----------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A vocabulary layout: the JSON sections of a vocabulary file, the groups
/// of entities each section holds, and the entities themselves, with dense
/// ids in the order they were added (section by section, group by group).
/// An id indexes a vocabulary's storage and is the entity id of triplets and
/// of `llvm-ir2vec entities`.
///
/// Layouts are built at run time. The LLVM IR layout (ir2vec/IRLayout.h) has
/// 110 entities in sections "Opcodes", "Types" and "Arguments"; a machine-IR
/// layout takes its opcodes and register classes from a target.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_VOCAB_LAYOUT_H
#define IRTK_VOCAB_LAYOUT_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace irtk::vocab {

/// A dense entity id in [0, Layout::size()).
using EntityId = unsigned;

class Layout {
public:
  /// \p Description names the layout in messages ("LLVM 22", "x86_64 MIR").
  explicit Layout(std::string Description)
      : Description(std::move(Description)) {}
  // Entities name their keys in the sections' indexes: a copy would name
  // the original's.
  Layout(const Layout &) = delete;
  Layout &operator=(const Layout &) = delete;
  Layout(Layout &&) = default;
  Layout &operator=(Layout &&) = default;

  /// Adds a JSON section named \p Key and returns its index.
  unsigned addSection(llvm::StringRef Key);
  /// Adds a group of entities, shown as \p Name (e.g. "opcodes"), to
  /// section \p Section; returns its index. Groups are added in id order.
  unsigned addGroup(unsigned Section, llvm::StringRef Name);
  /// Adds an entity to the last group added and returns its id. Keys are
  /// unique within a section. \p Label names the entity in entity lists
  /// (`llvm-ir2vec entities`, entity2id.txt) when it differs from its key:
  /// MIR register classes are keyed "GR32" in both register sections and
  /// listed as "PhyReg_GR32" and "VirtReg_GR32".
  EntityId addEntity(llvm::StringRef Key, llvm::StringRef Label = "");

  /// A layout that is made, by \p Fill, only when something first asks for
  /// its sections' names, its groups or its entities' keys: until then it
  /// knows its description, its size, its checksum and each entity's
  /// section, which is all that loading a vocabulary's binary form and
  /// looking vectors up by id need. \p Fill adds the sections, groups and
  /// entities to the layout it is given, as the layout this one stands for
  /// has them; the sections must be contiguous in id order, section S
  /// ending before id \p SectionEnds[S], and \p Checksum must be the
  /// filled layout's checksum() (the caller knows both from a layout made
  /// before, e.g. at build time). Filling is thread-safe. A compiler that
  /// embeds machine IR by id this way never builds its target's 7,158 keys.
  static std::shared_ptr<const Layout>
  deferred(std::string Description, std::vector<EntityId> SectionEnds,
           uint64_t Checksum, std::function<void(Layout &)> Fill);
  /// Whether this layout is deferred() and not filled yet.
  bool isPending() const;

  llvm::StringRef description() const { return Description; }
  /// Number of entities.
  unsigned size() const {
    return Later ? Later->Size : static_cast<unsigned>(Entities.size());
  }

  unsigned numSections() const {
    return Later ? static_cast<unsigned>(Later->SectionEnds.size())
                 : static_cast<unsigned>(Sections.size());
  }
  llvm::StringRef sectionName(unsigned S) const {
    return filled().Sections[S].Key;
  }
  std::optional<unsigned> findSection(llvm::StringRef Key) const;

  unsigned numGroups() const {
    return static_cast<unsigned>(filled().Groups.size());
  }
  llvm::StringRef groupName(unsigned G) const {
    return filled().Groups[G].Name;
  }
  unsigned groupSection(unsigned G) const { return filled().Groups[G].Section; }
  /// The ids of group \p G: [first, second).
  std::pair<EntityId, EntityId> groupRange(unsigned G) const {
    const GroupInfo &I = filled().Groups[G];
    return {I.First, I.End};
  }

  /// The vocabulary key of entity \p Id (e.g. "Add", "IntegerTy").
  llvm::StringRef entityName(EntityId Id) const {
    return filled().Entities[Id].Key;
  }
  /// The name of entity \p Id in entity lists: its label, else its key.
  llvm::StringRef entityLabel(EntityId Id) const {
    const EntityInfo &E = filled().Entities[Id];
    return E.Label.empty() ? E.Key : llvm::StringRef(E.Label);
  }
  unsigned entityGroup(EntityId Id) const {
    return filled().Entities[Id].Group;
  }
  unsigned entitySection(EntityId Id) const {
    if (Later)
      return Later->sectionOf(Id);
    return Groups[Entities[Id].Group].Section;
  }

  /// The entity with key \p Key in section \p Section.
  std::optional<EntityId> lookup(unsigned Section, llvm::StringRef Key) const;

  /// A hash of what identifies the layout: its description, its sections
  /// and each entity's section and key, in id order. A vocabulary's binary
  /// form records it, so that it is never read with another layout (another
  /// target's, or another LLVM's opcodes).
  uint64_t checksum() const;

private:
  struct SectionInfo {
    std::string Key;
    llvm::StringMap<EntityId> Index;
  };
  struct GroupInfo {
    std::string Name;
    unsigned Section;
    EntityId First, End;
  };
  struct EntityInfo {
    /// The key as its section's index holds it (StringMap entries do not
    /// move): one copy of each key.
    llvm::StringRef Key;
    std::string Label;
    unsigned Group;
  };
  /// What a deferred() layout knows before it is filled, and how to fill
  /// it.
  struct Deferral {
    unsigned Size;
    std::vector<EntityId> SectionEnds;
    uint64_t Checksum;
    std::function<void(Layout &)> Fill;
    std::once_flag Once;
    std::atomic<bool> Filled{false};
    unsigned sectionOf(EntityId Id) const;
  };
  /// This layout, filled first if it is deferred().
  const Layout &filled() const {
    if (Later)
      fill();
    return *this;
  }
  void fill() const;

  std::unique_ptr<Deferral> Later;
  std::string Description;
  std::vector<SectionInfo> Sections;
  std::vector<GroupInfo> Groups;
  std::vector<EntityInfo> Entities;
};

/// Per-section weights, indexed by section. They are floats, as upstream's
/// `-ir2vec-*-weight` and `-mir2vec-*-weight` options are, and are promoted
/// to double when applied: 0.2f scales by 0.20000000298023224, exactly as
/// LLVM 22 does.
using SectionWeights = std::vector<float>;

/// Parses the text of a weight option as upstream's cl::opt<float> does
/// (read as a double, stored as a float) and refuses what is not a finite
/// float: "nan", "inf" and values beyond a float's range, which would make
/// every embedding NaN or infinite. Every front end's weight options go
/// through it.
std::optional<float> parseWeight(llvm::StringRef Text);

} // namespace irtk::vocab

#endif // IRTK_VOCAB_LAYOUT_H
