//===- Verify.cpp - Machine IR verified without aborting ------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Verify.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <optional>

using namespace llvm;

namespace irtk::mir2vec {

unsigned DeferredVerification::originalLine(unsigned Line) const {
  auto Before = std::lower_bound(AddedLines.begin(), AddedLines.end(), Line);
  return Line - static_cast<unsigned>(Before - AddedLines.begin());
}

std::string DeferredVerification::originalLocation(std::string Message,
                                                   StringRef Prefix) const {
  StringRef Rest(Message);
  if (AddedLines.empty() || !Rest.consume_front(Prefix) ||
      !Rest.consume_front(":"))
    return Message;
  size_t Digits = Rest.find_first_not_of("0123456789");
  unsigned Line;
  if (Digits == 0 || Digits == StringRef::npos ||
      Rest.take_front(Digits).getAsInteger(10, Line))
    return Message;
  return (Prefix + ":" + Twine(originalLine(Line)) + Rest.drop_front(Digits))
      .str();
}

/// The value of a top-level `key: value` line, quotes and comment removed;
/// std::nullopt when it is quoted in a way this does not follow (a
/// double-quoted escape other than \" and \\).
static std::optional<std::string> scalarValue(StringRef Value) {
  Value = Value.trim();
  std::string S;
  if (Value.consume_front("'")) {
    for (size_t I = 0; I < Value.size(); ++I) {
      if (Value[I] != '\'') {
        S += Value[I];
        continue;
      }
      if (I + 1 < Value.size() && Value[I + 1] == '\'') {
        S += '\'';
        ++I;
        continue;
      }
      return S;
    }
    return std::nullopt;
  }
  if (Value.consume_front("\"")) {
    for (size_t I = 0; I < Value.size(); ++I) {
      if (Value[I] == '"')
        return S;
      if (Value[I] != '\\') {
        S += Value[I];
        continue;
      }
      if (I + 1 == Value.size() ||
          (Value[I + 1] != '"' && Value[I + 1] != '\\'))
        return std::nullopt;
      S += Value[++I];
    }
    return std::nullopt;
  }
  size_t Comment = Value.find(" #");
  return Value.take_front(Comment).rtrim().str();
}

/// True for a line that holds no YAML content.
static bool isBlankOrComment(StringRef Line) {
  StringRef T = Line.trim();
  return T.empty() || T.starts_with("#");
}

/// The document start marker `---`, alone or with a comment: a machine
/// function document. `--- |` starts the LLVM IR document.
static bool startsDocument(StringRef Line, bool &MachineFunction) {
  if (!Line.starts_with("---"))
    return false;
  StringRef Rest = Line.drop_front(3);
  if (!Rest.empty() && Rest.front() != ' ' && Rest.front() != '\t' &&
      Rest.front() != '\r')
    return false;
  MachineFunction = isBlankOrComment(Rest);
  return true;
}

static bool endsDocument(StringRef Line) { return Line.rtrim() == "..."; }

/// The first number in \p Line of a machine function document that names
/// a block, a virtual register, a stack object, a constant or a jump table
/// (`%bb.N`, `bb.N`, `%N`, `%stack.N`, ..., a YAML `id: N`) and is at least
/// 4294967294: LLVM's MIR parser keeps these slots in DenseMaps, whose
/// reserved keys are ~0U and ~0U - 1; looking one up finds an empty bucket
/// and returns whatever it holds (a reference to `%bb.4294967295` crashes
/// the parser, a `stack` entry with that id corrupts the map).
/// Returns the column (0-based) and the token, or std::nullopt.
static std::optional<std::pair<size_t, std::string>>
reservedNumber(StringRef Line) {
  for (size_t I = 0; I < Line.size(); ++I) {
    if (!isDigit(Line[I]) || (I > 0 && isDigit(Line[I - 1])))
      continue;
    StringRef Before = Line.take_front(I);
    size_t Start;
    if (Before.ends_with("%")) {
      Start = I - 1;
    } else if (Before.ends_with(".")) {
      // %bb.N, bb.N, %stack.N, %fixed-stack.N, %const.N, %jump-table.N,
      // %ir-block.N, %ir.N.
      size_t Word =
          Before.drop_back().find_last_not_of("abcdefghijklmnopqrstuvwxyz-");
      Word = Word == StringRef::npos ? 0 : Word + 1;
      StringRef Name = Before.slice(Word, I - 1);
      if (Word > 0 && Before[Word - 1] == '%')
        Start = Word - 1;
      else if (Name == "bb")
        Start = Word;
      else
        continue;
    } else if (Before.rtrim().ends_with("id:")) {
      Start = I;
    } else {
      continue;
    }
    size_t End = I;
    while (End < Line.size() && isDigit(Line[End]))
      ++End;
    uint64_t N;
    if (Line.slice(I, End).getAsInteger(10, N) || N < 4294967294ULL)
      continue;
    return std::make_pair(Start, Line.slice(Start, End).str());
  }
  return std::nullopt;
}

DeferredVerification deferVerification(StringRef MIR) {
  DeferredVerification R;
  bool FinalNewline = MIR.ends_with("\n");
  if (FinalNewline)
    MIR = MIR.drop_back();
  SmallVector<StringRef, 0> Lines;
  MIR.split(Lines, '\n');

  // What to do before (Insert) or in place of (Replace) an original line.
  std::vector<std::string> Replace(Lines.size() + 1), Insert(Lines.size() + 1);
  std::vector<bool> Replaced(Lines.size() + 1, false);
  size_t I = 0;
  while (I < Lines.size()) {
    bool IsMachineFunction = false;
    if (!startsDocument(Lines[I], IsMachineFunction)) {
      ++I;
      continue;
    }
    size_t Start = I + 1, End = Start;
    bool Dummy;
    while (End < Lines.size() && !endsDocument(Lines[End]) &&
           !startsDocument(Lines[End], Dummy))
      ++End;
    I = End;
    if (!IsMachineFunction)
      continue;
    for (size_t J = Start; J < End && R.Error.empty(); ++J)
      if (auto Found = reservedNumber(Lines[J]))
        R.Error = (Twine(J + 1) + ":" + Twine(Found->first + 1) + ": '" +
                   Found->second +
                   "' is out of range: LLVM's MIR parser takes numbers "
                   "below 4294967294 there")
                      .str();
    size_t First = Start;
    while (First < End && isBlankOrComment(Lines[First]))
      ++First;
    // An empty document, or a flow mapping: left as it is.
    if (First == End || Lines[First].ltrim().starts_with("{") ||
        Lines[First].ltrim().starts_with("["))
      continue;
    StringRef Indent =
        Lines[First].take_front(Lines[First].find_first_not_of(" \t"));
    std::string Key = (Indent + "failedISel: true").str();
    std::optional<std::string> Name;
    std::optional<size_t> FailedISelLine;
    for (size_t J = First; J < End; ++J) {
      StringRef Line = Lines[J];
      if (!Line.consume_front(Indent) || Line.empty() || Line[0] == ' ' ||
          Line[0] == '\t')
        continue;
      if (Line.consume_front("name:"))
        Name = scalarValue(Line);
      else if (Line.consume_front("failedISel:"))
        FailedISelLine = J;
    }
    if (FailedISelLine) {
      StringRef Value =
          Lines[*FailedISelLine].ltrim().drop_front(strlen("failedISel:"));
      if (scalarValue(Value) == std::optional<std::string>("true")) {
        if (Name)
          R.FailedISel.insert(*Name);
        continue;
      }
      Replace[*FailedISelLine] = Key;
      Replaced[*FailedISelLine] = true;
    } else if (End < Lines.size() && endsDocument(Lines[End])) {
      Replace[End] = Key;
      Replaced[End] = true;
    } else {
      Insert[End] = Key;
    }
  }

  unsigned Line = 0;
  for (size_t J = 0; J <= Lines.size(); ++J) {
    if (!Insert[J].empty()) {
      R.Text += Insert[J];
      R.Text += '\n';
      R.AddedLines.push_back(++Line);
    }
    if (J == Lines.size())
      break;
    R.Text += Replaced[J] ? StringRef(Replace[J]) : Lines[J];
    ++Line;
    if (J + 1 < Lines.size() || FinalNewline)
      R.Text += '\n';
  }
  // A line added after the last one, in a file without a final newline.
  if (!FinalNewline && !Insert[Lines.size()].empty())
    R.Text.pop_back();
  return R;
}

std::string verifyMachineFunction(MachineFunction &MF) {
  MF.getProperties().resetFailedISel();
  std::string Report;
  raw_string_ostream OS(Report);
  if (MF.verify(nullptr, nullptr, &OS, /*AbortOnError=*/false))
    return "";
  std::string Problem, Instruction;
  unsigned Errors = 0;
  SmallVector<StringRef, 0> Lines;
  StringRef(Report).split(Lines, '\n');
  for (StringRef Line : Lines) {
    if (Line.consume_front("*** Bad machine code: ")) {
      if (++Errors == 1) {
        Line = Line.rtrim();
        Line.consume_back(" ***");
        Line.consume_back(".");
        Problem = Line.str();
      }
      continue;
    }
    if (Errors == 1 && Instruction.empty() &&
        Line.consume_front("- instruction: "))
      Instruction = Line.trim().str();
  }
  std::string Msg = "machine function '" + MF.getName().str() + "' is invalid";
  if (Problem.empty())
    return Msg + " (LLVM's machine verifier rejects it)";
  Msg += ": " + Problem;
  if (!Instruction.empty())
    Msg += ", at '" + Instruction + "'";
  if (Errors > 1)
    Msg += " (and " + std::to_string(Errors - 1) + " more " +
           (Errors == 2 ? "error" : "errors") + ")";
  return Msg;
}

} // namespace irtk::mir2vec
