//===- JSON.cpp - Reading JSON files with one-line errors -----------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// llvm::json reports "[line:col, byte=N]: msg"; its column is not counted
/// the same way on every line (the first line counts from 1, later ones from
/// 0), so the position is recomputed from the byte offset.
///
/// The scan before parsing follows strings (and their escapes) and brackets
/// only. On text that is not JSON it may see keys that are not keys; that is
/// harmless, because a duplicate is reported only once llvm::json has parsed
/// the text, and a nesting deeper than the limit is refused whatever else is
/// wrong with the text.
///
//===----------------------------------------------------------------------===//

#include "irtk/support/JSON.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <charconv>
#include <cmath>
#include <string>
#include <vector>

using namespace llvm;

namespace irtk::support {

/// "Name:line:col" of byte \p At of \p Text.
static std::string position(StringRef Name, StringRef Text, size_t At,
                            unsigned FirstLine) {
  StringRef Before = Text.take_front(At);
  size_t Line = Before.count('\n') + FirstLine;
  size_t LineStart = Before.rfind('\n');
  size_t Column = LineStart == StringRef::npos ? At + 1 : At - LineStart;
  return (Name + ":" + Twine(Line) + ":" + Twine(Column)).str();
}

static Error syntaxError(StringRef Name, StringRef Text, unsigned FirstLine,
                         Error E) {
  std::string Msg = toString(std::move(E));
  static const Regex Pos("^\\[[0-9]+:[0-9]+, byte=([0-9]+)\\]: (.*)$");
  SmallVector<StringRef, 3> M;
  size_t Offset;
  if (!Pos.match(Msg, &M) || M[1].getAsInteger(10, Offset))
    return createStringError(inconvertibleErrorCode(),
                             Name + ": invalid JSON: " + Msg);
  // The parser reports the offset just past the character it choked on, or
  // the end of the text when it ran out of input.
  size_t At = Offset >= Text.size() ? Text.size() : (Offset ? Offset - 1 : 0);
  return createStringError(inconvertibleErrorCode(),
                           position(Name, Text, At, FirstLine) +
                               ": invalid JSON: " + M[2]);
}

namespace {
/// What the scan found: the first opening bracket past the depth limit, and
/// the first key that its object already had.
struct ScanResult {
  size_t TooDeepAt = StringRef::npos;
  size_t DuplicateAt = StringRef::npos;
  std::string DuplicateKey;
};

/// One open array or object.
struct OpenLevel {
  bool IsObject;
  /// In an object: the next string is a key.
  bool ExpectKey;
  StringSet<> Keys;
};
} // namespace

/// The key a quoted string \p Raw stands for, escapes decoded.
static std::string decodeKey(StringRef Raw, bool Escaped) {
  if (!Escaped)
    return Raw.drop_front().drop_back().str();
  Expected<json::Value> V = json::parse(Raw);
  if (!V) {
    consumeError(V.takeError());
    return Raw.str();
  }
  return V->getAsString().value_or(Raw).str();
}

static ScanResult scanJSON(StringRef Text) {
  ScanResult R;
  std::vector<OpenLevel> Open;
  const size_t N = Text.size();
  for (size_t I = 0; I < N; ++I) {
    switch (Text[I]) {
    case '"': {
      size_t Start = I++;
      bool Escaped = false;
      for (; I < N && Text[I] != '"'; ++I)
        if (Text[I] == '\\') {
          Escaped = true;
          ++I;
        }
      if (I >= N || Open.empty() || !Open.back().IsObject ||
          !Open.back().ExpectKey)
        break;
      Open.back().ExpectKey = false;
      std::string Key = decodeKey(Text.slice(Start, I + 1), Escaped);
      if (!Open.back().Keys.insert(Key).second &&
          R.DuplicateAt == StringRef::npos) {
        R.DuplicateAt = Start;
        R.DuplicateKey = std::move(Key);
      }
      break;
    }
    case '{':
    case '[':
      if (Open.size() == MaxJSONDepth) {
        R.TooDeepAt = I;
        return R;
      }
      Open.push_back({Text[I] == '{', Text[I] == '{', {}});
      break;
    case '}':
    case ']':
      if (!Open.empty())
        Open.pop_back();
      break;
    case ',':
      if (!Open.empty() && Open.back().IsObject)
        Open.back().ExpectKey = true;
      break;
    default:
      break;
    }
  }
  return R;
}

Expected<json::Value> parseJSON(StringRef Text, StringRef Name,
                                unsigned FirstLine) {
  ScanResult S = scanJSON(Text);
  if (S.TooDeepAt != StringRef::npos)
    return createStringError(inconvertibleErrorCode(),
                             position(Name, Text, S.TooDeepAt, FirstLine) +
                                 ": JSON nested deeper than " +
                                 Twine(MaxJSONDepth) + " levels");
  Expected<json::Value> V = json::parse(Text);
  if (!V)
    return syntaxError(Name, Text, FirstLine, V.takeError());
  if (S.DuplicateAt != StringRef::npos) {
    std::string Shown;
    raw_string_ostream(Shown).write_escaped(S.DuplicateKey);
    return createStringError(inconvertibleErrorCode(),
                             position(Name, Text, S.DuplicateAt, FirstLine) +
                                 ": duplicate key '" + Shown + "'");
  }
  return V;
}

namespace {
/// The scan behind checkJSON: llvm::json's grammar (its whitespace, escapes,
/// literals, control characters and UTF-8 check), without building values,
/// for numbers in JSON's own form and keys without escapes; everything else
/// is "not sure" and goes to parseJSON.
class QuickChecker {
public:
  explicit QuickChecker(StringRef Text)
      : Text(Text), P(Text.begin()), End(Text.end()) {}

  /// True when Text certainly parses with parseJSON.
  bool check() {
    if (!json::isUTF8(Text))
      return false;
    if (!value())
      return false;
    for (;;) {
      skipSpace();
      if (Open.empty())
        return P == End;
      Level &L = Open.back();
      if (P == End)
        return false;
      char C = *P++;
      if (C == (L.IsObject ? '}' : ']')) {
        Keys.truncate(L.FirstKey);
        Open.pop_back();
        continue;
      }
      if (C != ',')
        return false;
      if (L.IsObject && !key())
        return false;
      if (!value())
        return false;
    }
  }

private:
  struct Level {
    bool IsObject;
    unsigned FirstKey;
  };

  void skipSpace() {
    while (P != End && (*P == ' ' || *P == '\t' || *P == '\n' || *P == '\r'))
      ++P;
  }

  /// One value; an array or object is opened and its first element read,
  /// the rest is left to check().
  bool value() {
    skipSpace();
    if (P == End)
      return false;
    switch (*P) {
    case '{':
    case '[': {
      if (Open.size() == MaxJSONDepth)
        return false;
      bool IsObject = *P++ == '{';
      Open.push_back({IsObject, static_cast<unsigned>(Keys.size())});
      skipSpace();
      if (P != End && *P == (IsObject ? '}' : ']')) {
        ++P;
        Open.pop_back();
        return true;
      }
      return IsObject ? key() && value() : value();
    }
    case '"': {
      StringRef Raw;
      return string(Raw) != StringKind::Bad;
    }
    case 'n':
      return word("null");
    case 't':
      return word("true");
    case 'f':
      return word("false");
    default:
      return number();
    }
  }

  /// A key, its ':' and the space after it; fails on an escape in the key
  /// (left to parseJSON), a duplicate, or more keys than a linear search
  /// should handle.
  bool key() {
    skipSpace();
    if (P == End || *P != '"')
      return false;
    StringRef Raw;
    if (string(Raw) != StringKind::Plain)
      return false;
    unsigned First = Open.back().FirstKey;
    if (Keys.size() - First >= 64)
      return false;
    for (unsigned I = First; I < Keys.size(); ++I)
      if (Keys[I] == Raw)
        return false;
    Keys.push_back(Raw);
    skipSpace();
    if (P == End || *P != ':')
      return false;
    ++P;
    return true;
  }

  enum class StringKind { Bad, Plain, Escaped };

  /// A string from its opening quote; \p Raw is its text between quotes.
  StringKind string(StringRef &Raw) {
    const char *Start = ++P;
    StringKind Kind = StringKind::Plain;
    for (; P != End && *P != '"'; ++P) {
      unsigned char C = *P;
      if (C < 0x20)
        return StringKind::Bad;
      if (C != '\\')
        continue;
      Kind = StringKind::Escaped;
      if (++P == End)
        return StringKind::Bad;
      switch (*P) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        break;
      case 'u':
        for (int I = 0; I < 4; ++I)
          if (++P == End || !isHexDigit(*P))
            return StringKind::Bad;
        break;
      default:
        return StringKind::Bad;
      }
    }
    if (P == End)
      return StringKind::Bad;
    Raw = StringRef(Start, P - Start);
    ++P;
    return Kind;
  }

  bool word(StringRef W) {
    if (StringRef(P, End - P).starts_with(W)) {
      P += W.size();
      return true;
    }
    return false;
  }

  /// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, not followed by another
  /// character llvm::json would take as part of a number.
  bool number() {
    auto Digits = [&] {
      const char *S = P;
      while (P != End && isDigit(*P))
        ++P;
      return P != S;
    };
    if (P != End && *P == '-')
      ++P;
    if (P != End && *P == '0')
      ++P;
    else if (!Digits())
      return false;
    if (P != End && *P == '.') {
      ++P;
      if (!Digits())
        return false;
    }
    if (P != End && (*P == 'e' || *P == 'E')) {
      ++P;
      if (P != End && (*P == '+' || *P == '-'))
        ++P;
      if (!Digits())
        return false;
    }
    return P == End || !(isDigit(*P) || *P == '+' || *P == '-' || *P == '.' ||
                         *P == 'e' || *P == 'E');
  }

  StringRef Text;
  const char *P, *End;
  SmallVector<Level, 16> Open;
  /// The keys of the open objects, each object's after its parent's.
  SmallVector<StringRef, 32> Keys;
};
} // namespace

Error checkJSON(StringRef Text, StringRef Name, unsigned FirstLine) {
  if (QuickChecker(Text).check())
    return Error::success();
  Expected<json::Value> V = parseJSON(Text, Name, FirstLine);
  return V ? Error::success() : V.takeError();
}

bool readJSONNumber(const char *&P, const char *End, double &D) {
  auto IsDigit = [](char C) { return C >= '0' && C <= '9'; };
  const char *Start = P;
  if (P != End && *P == '-')
    ++P;
  if (P == End || !IsDigit(*P))
    return false;
  bool Integer = true;
  if (*P == '0')
    ++P;
  else
    while (P != End && IsDigit(*P))
      ++P;
  if (P != End && *P == '.') {
    Integer = false;
    ++P;
    if (P == End || !IsDigit(*P))
      return false;
    while (P != End && IsDigit(*P))
      ++P;
  }
  if (P != End && (*P == 'e' || *P == 'E')) {
    Integer = false;
    ++P;
    if (P != End && (*P == '+' || *P == '-'))
      ++P;
    if (P == End || !IsDigit(*P))
      return false;
    while (P != End && IsDigit(*P))
      ++P;
  }
  if (Integer && StringRef(Start, P - Start) == "-0")
    return false;
  auto [Ptr, Err] = std::from_chars(Start, P, D);
  return Err == std::errc() && Ptr == P && std::isfinite(D);
}

bool hasNonFiniteNumber(const json::Value &V) {
  if (const json::Array *A = V.getAsArray())
    return llvm::any_of(
        *A, [](const json::Value &E) { return hasNonFiniteNumber(E); });
  if (const json::Object *O = V.getAsObject())
    return llvm::any_of(
        *O, [](const auto &KV) { return hasNonFiniteNumber(KV.second); });
  if (V.kind() == json::Value::Number)
    if (std::optional<double> D = V.getAsNumber())
      return !std::isfinite(*D);
  return false;
}

} // namespace irtk::support
