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
/// only. A nesting deeper than the limit is refused whatever else is wrong
/// with the text: llvm::json::parse would recurse that deep before finding
/// any other error.
///
//===----------------------------------------------------------------------===//

#include "irtk/support/JSON.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Regex.h"

#include <string>

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

/// The offset of the first opening bracket, outside strings, that nests
/// deeper than MaxJSONDepth, or npos.
static size_t tooDeepAt(StringRef Text) {
  unsigned Depth = 0;
  const size_t N = Text.size();
  for (size_t I = 0; I < N; ++I) {
    switch (Text[I]) {
    case '"':
      for (++I; I < N && Text[I] != '"'; ++I)
        if (Text[I] == '\\')
          ++I;
      break;
    case '{':
    case '[':
      if (++Depth > MaxJSONDepth)
        return I;
      break;
    case '}':
    case ']':
      if (Depth)
        --Depth;
      break;
    default:
      break;
    }
  }
  return StringRef::npos;
}

Expected<json::Value> parseJSON(StringRef Text, StringRef Name,
                                unsigned FirstLine) {
  if (size_t At = tooDeepAt(Text); At != StringRef::npos)
    return createStringError(inconvertibleErrorCode(),
                             position(Name, Text, At, FirstLine) +
                                 ": JSON nested deeper than " +
                                 Twine(MaxJSONDepth) + " levels");
  Expected<json::Value> V = json::parse(Text);
  if (!V)
    return syntaxError(Name, Text, FirstLine, V.takeError());
  return V;
}

} // namespace irtk::support
