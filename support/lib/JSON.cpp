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
//===----------------------------------------------------------------------===//

#include "irtk/support/JSON.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Regex.h"

using namespace llvm;

namespace irtk::support {

Expected<json::Value> parseJSON(StringRef Text, StringRef Name) {
  Expected<json::Value> V = json::parse(Text);
  if (!V)
    return jsonSyntaxError(Name, Text, V.takeError());
  return V;
}

Error jsonSyntaxError(StringRef Name, StringRef Text, Error E) {
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
  StringRef Before = Text.take_front(At);
  size_t Line = Before.count('\n') + 1;
  size_t LineStart = Before.rfind('\n');
  size_t Column = LineStart == StringRef::npos ? At + 1 : At - LineStart;
  return createStringError(inconvertibleErrorCode(),
                           Name + ":" + Twine(Line) + ":" + Twine(Column) +
                               ": invalid JSON: " + M[2]);
}

} // namespace irtk::support
