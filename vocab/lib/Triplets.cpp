//===- Triplets.cpp - Training triplets and their files -------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/vocab/Triplets.h"
#include "irtk/support/ReadFile.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <optional>

using namespace llvm;

namespace irtk::vocab {

/// Relation ids beyond this are surely not from llvm-ir2vec.
static constexpr unsigned MaxRelationId = 1u << 16;

static Error tripletError(StringRef Path, size_t Line, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(),
                           Path + ":" + Twine(Line) + ": " + Msg);
}

Expected<TripletSet> readTriplets(StringRef Path, const Layout &L) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      support::readFile(Path, "triplets");
  if (!Buf)
    return Buf.takeError();
  StringRef Name = Path == "-" ? StringRef("<stdin>") : Path;
  TripletSet Set;
  unsigned MaxRelation = 1;
  std::optional<size_t> DeclaredCount;
  bool SeenData = false;
  size_t LineNo = 0;
  StringRef Rest = (*Buf)->getBuffer();
  while (!Rest.empty()) {
    StringRef Line;
    std::tie(Line, Rest) = Rest.split('\n');
    ++LineNo;
    Line = Line.trim();
    if (Line.empty())
      continue;
    if (!SeenData && Line.consume_front("MAX_RELATION=")) {
      unsigned Header;
      if (Line.getAsInteger(10, Header) || Header >= MaxRelationId)
        return tripletError(Name, LineNo, "bad MAX_RELATION header");
      MaxRelation = std::max(MaxRelation, Header);
      SeenData = true;
      continue;
    }
    SmallVector<StringRef, 4> Fields;
    Line.split(Fields, ' ', -1, /*KeepEmpty=*/false);
    if (Fields.size() == 1 && Line.contains('\t')) {
      Fields.clear();
      Line.split(Fields, '\t', -1, /*KeepEmpty=*/false);
    }
    if (Fields.size() != 3) {
      SmallVector<StringRef, 4> Mixed;
      for (StringRef F : Fields) {
        SmallVector<StringRef, 4> Parts;
        F.split(Parts, '\t', -1, /*KeepEmpty=*/false);
        Mixed.append(Parts.begin(), Parts.end());
      }
      Fields = Mixed;
    }
    if (!SeenData && Fields.size() == 1) {
      size_t Count;
      if (Fields[0].getAsInteger(10, Count))
        return tripletError(Name, LineNo,
                            "expected a triplet count or "
                            "'head tail relation'");
      DeclaredCount = Count; // OpenKE's train2id.txt
      SeenData = true;
      continue;
    }
    SeenData = true;
    unsigned H, T, R;
    if (Fields.size() != 3 || Fields[0].getAsInteger(10, H) ||
        Fields[1].getAsInteger(10, T) || Fields[2].getAsInteger(10, R))
      return tripletError(Name, LineNo,
                          "expected 'head tail relation', got '" + Line + "'");
    if (H >= L.size() || T >= L.size())
      return tripletError(Name, LineNo,
                          "entity id " + Twine(std::max(H, T)) +
                              " out of range (" + L.description() + " has " +
                              Twine(L.size()) + " entities)");
    if (R >= MaxRelationId)
      return tripletError(Name, LineNo,
                          "relation id " + Twine(R) + " out of range");
    MaxRelation = std::max(MaxRelation, R);
    Set.Triplets.push_back({H, T, R});
  }
  if (DeclaredCount && *DeclaredCount != Set.Triplets.size())
    return createStringError(inconvertibleErrorCode(),
                             Name + ": the count line says " +
                                 Twine(*DeclaredCount) + " triplets, but " +
                                 Twine(Set.Triplets.size()) + " follow");
  if (Set.Triplets.empty())
    return createStringError(inconvertibleErrorCode(), Name + ": no triplets");
  Set.NumRelations = MaxRelation + 1;
  Set.NumEntities = L.size();
  return Set;
}

void writeTripletLine(const Triplet &T, raw_ostream &OS) {
  OS << T.Head << '\t' << T.Tail << '\t' << T.Relation << '\n';
}

void writeTripletHeader(unsigned MaxRelation, raw_ostream &OS) {
  OS << "MAX_RELATION=" << MaxRelation << '\n';
}

void writeEntityList(const Layout &L, raw_ostream &OS) {
  OS << L.size() << '\n';
  for (EntityId Id = 0; Id < L.size(); ++Id)
    OS << L.entityLabel(Id) << '\t' << Id << '\n';
}

bool TripletDeduplicator::insert(const Triplet &T) {
  // One 64-bit key per triplet: 24 bits for each id (the largest layouts,
  // a target's machine opcodes, have some 20,000 entities), 16 for the
  // relation.
  uint64_t Key = (uint64_t(T.Head) << 40) | (uint64_t(T.Tail) << 16) |
                 uint64_t(T.Relation & 0xffff);
  return Seen.insert(Key).second;
}

} // namespace irtk::vocab
