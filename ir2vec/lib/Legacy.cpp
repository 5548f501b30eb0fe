//===- Legacy.cpp - Older vocabulary formats ------------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Legacy.h"
#include "irtk/support/JSON.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/IR/Instruction.h"
#include "llvm/Support/JSON.h"

#include <cctype>
#include <cmath>

using namespace llvm;

namespace irtk::ir2vec {

/// Legacy and current key names of every entity.
static const StringMap<EntityId> &legacyKeys() {
  static const StringMap<EntityId> Keys = [] {
    StringMap<EntityId> M;
    for (EntityId Id = 0; Id < NumEntities; ++Id) {
      StringRef Name = entityName(Id);
      M[Name] = Id;
      switch (entityGroup(Id)) {
      case EntityGroupKind::Opcode:
        M[Instruction::getOpcodeName(Id - OpcodeBase + 1)] = Id;
        break;
      case EntityGroupKind::CanonicalType:
      case EntityGroupKind::OperandKind: {
        std::string Lower = Name.str();
        Lower[0] = static_cast<char>(std::tolower(Lower[0]));
        M[Lower] = Id;
        break;
      }
      case EntityGroupKind::Predicate:
        break;
      }
    }
    return M;
  }();
  return Keys;
}

std::optional<EntityId> legacyKeyEntity(StringRef Key) {
  auto It = legacyKeys().find(Key);
  if (It == legacyKeys().end())
    return std::nullopt;
  return It->second;
}

namespace {
/// Collects entries, checking what both formats share.
class Collector {
public:
  explicit Collector(StringRef Name) : Name(Name) {
    Result.Vectors.resize(NumEntities);
  }

  /// \p Where is "line N: " or "" (JSON).
  Error add(StringRef Key, std::vector<double> Values, const Twine &Where) {
    if (!Seen.insert(Key).second)
      return fail(Where + "duplicate entry '" + Key + "'");
    if (Values.empty())
      return fail(Where + "entry '" + Key + "' has no values");
    for (double V : Values)
      if (!std::isfinite(V))
        return fail(Where + "entry '" + Key + "' has a non-finite value");
    if (Result.Dimension == 0) {
      Result.Dimension = Values.size();
      FirstKey = Key.str();
    } else if (Values.size() != Result.Dimension) {
      return fail(Where + "entry '" + Key + "' has " + Twine(Values.size()) +
                  " values; '" + FirstKey + "' has " + Twine(Result.Dimension));
    }
    std::optional<EntityId> Id = legacyKeyEntity(Key);
    if (!Id) {
      Result.UnmappedKeys.push_back(Key.str());
      return Error::success();
    }
    if (!Result.Vectors[*Id].empty())
      return fail(Where + "entry '" + Key + "' names entity '" +
                  entityName(*Id) + "' again");
    Result.Vectors[*Id] = std::move(Values);
    return Error::success();
  }

  Expected<LegacyVocabulary> finish() {
    if (Seen.empty())
      return fail("no vocabulary entries");
    return std::move(Result);
  }

  Error fail(const Twine &Msg) const {
    return createStringError(inconvertibleErrorCode(), Name + ": " + Msg);
  }

private:
  StringRef Name;
  StringSet<> Seen;
  std::string FirstKey;
  LegacyVocabulary Result;
};
} // namespace

static Expected<LegacyVocabulary> parseFlatJSON(StringRef Text,
                                                StringRef Name) {
  Expected<json::Value> Root = support::parseJSON(Text, Name);
  if (!Root)
    return Root.takeError();
  Collector C(Name);
  const json::Object *Obj = Root->getAsObject();
  if (!Obj)
    return C.fail("expected a JSON object of \"key\": [numbers]");
  // json::Object is unordered; sort the keys so errors are deterministic.
  std::vector<StringRef> Keys;
  for (const auto &KV : *Obj)
    Keys.push_back(KV.first);
  llvm::sort(Keys);
  // LLVM 22's own format keeps its entries in sections (objects); a flat
  // file has arrays only.
  for (StringRef Key : Keys)
    if (Obj->get(Key)->getAsObject() &&
        is_contained({"Opcodes", "Types", "Arguments", "CommonOperands",
                      "PhysicalRegisters", "VirtualRegisters"},
                     Key))
      return C.fail("already in LLVM 22's vocabulary format (section '" + Key +
                    "'); there is nothing to convert: use it as it is "
                    "(irtk-vocab validate checks it)");
  for (StringRef Key : Keys) {
    const json::Array *A = Obj->get(Key)->getAsArray();
    if (!A)
      return C.fail("entry '" + Key + "' is not an array of numbers");
    std::vector<double> Values;
    for (const json::Value &E : *A) {
      std::optional<double> D = E.getAsNumber();
      if (!D)
        return C.fail("entry '" + Key + "' has a non-numeric element");
      Values.push_back(*D);
    }
    if (Error E = C.add(Key, std::move(Values), ""))
      return E;
  }
  return C.finish();
}

static Expected<LegacyVocabulary> parseText(StringRef Text, StringRef Name) {
  Collector C(Name);
  unsigned LineNo = 0;
  while (!Text.empty()) {
    StringRef Line;
    std::tie(Line, Text) = Text.split('\n');
    ++LineNo;
    Line = Line.trim();
    if (Line.empty())
      continue;
    std::string Where = "line " + std::to_string(LineNo) + ": ";
    // key:[v, v, ...] with an optional trailing comma.
    auto [Key, Rest] = Line.split(':');
    Key = Key.trim();
    Rest = Rest.trim();
    if (Rest.consume_back(","))
      Rest = Rest.rtrim();
    if (Key.empty() || !Rest.consume_front("[") || !Rest.consume_back("]"))
      return C.fail(Where + "expected 'key:[v1, v2, ...]'");
    std::vector<double> Values;
    SmallVector<StringRef, 128> Fields;
    if (!Rest.trim().empty())
      Rest.split(Fields, ',');
    for (StringRef F : Fields) {
      F = F.trim();
      double D;
      if (F.getAsDouble(D))
        return C.fail(Where + "entry '" + Key + "': '" + F +
                      "' is not a number");
      Values.push_back(D);
    }
    if (Error E = C.add(Key, std::move(Values), Where))
      return E;
  }
  return C.finish();
}

Expected<LegacyVocabulary> parseLegacyVocabulary(StringRef Text,
                                                 StringRef Name) {
  Text.consume_front("\xEF\xBB\xBF"); // a UTF-8 byte order mark
  if (Text.ltrim().starts_with("{"))
    return parseFlatJSON(Text, Name);
  return parseText(Text, Name);
}

} // namespace irtk::ir2vec
