//===- Index.cpp - The JSON-lines index of a store ------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Records are written with the same JSON string escaping as llvm-ir2vec's
/// JSON lines and read with llvm::json.
///
//===----------------------------------------------------------------------===//

#include "irtk/store/Index.h"
#include "ReadInput.h"

#include "irtk/support/Format.h"
#include "irtk/support/JSON.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>

using namespace llvm;

namespace irtk::store {

bool IndexRecord::operator==(const IndexRecord &O) const {
  return std::tie(Row, Module, Function, Demangled, Level, Block, BlockIndex,
                  InstIndex, Inst, Instructions, Blocks) ==
         std::tie(O.Row, O.Module, O.Function, O.Demangled, O.Level, O.Block,
                  O.BlockIndex, O.InstIndex, O.Inst, O.Instructions, O.Blocks);
}

IndexRecord makeIndexRecord(support::LevelKind L, StringRef Module,
                            StringRef Function, StringRef Demangled,
                            StringRef Block, uint64_t BlockIndex,
                            uint64_t InstIndex, StringRef Inst) {
  IndexRecord R;
  R.Module = Module.str();
  R.Function = Function.str();
  R.Demangled = Demangled.str();
  R.Level = support::levelName(L).str();
  if (L == support::LevelKind::BasicBlock ||
      L == support::LevelKind::Instruction) {
    R.Block = Block.str();
    R.BlockIndex = BlockIndex;
  }
  if (L == support::LevelKind::Instruction) {
    R.InstIndex = InstIndex;
    R.Inst = Inst.str();
  }
  return R;
}

void writeIndexFields(const IndexRecord &R, support::JSONObjectWriter &W,
                      StringRef Kind) {
  W.string("module", R.Module)
      .string("function", R.Function)
      .string("demangled", R.Demangled)
      .string("level", R.Level);
  if (!Kind.empty())
    W.string("kind", Kind);
  if (R.Block)
    W.string("block", *R.Block);
  if (R.BlockIndex)
    W.number("block_index", *R.BlockIndex);
  if (R.InstIndex)
    W.number("inst_index", *R.InstIndex);
  if (R.Inst)
    W.string("inst", *R.Inst);
}

void writeEmbeddingLine(const IndexRecord &Site, StringRef Kind,
                        ArrayRef<double> Embedding, raw_ostream &OS) {
  support::JSONObjectWriter W(OS);
  writeIndexFields(Site, W, Kind);
  W.vector("embedding", Embedding);
}

void writeIndexRecord(const IndexRecord &R, raw_ostream &OS) {
  support::JSONObjectWriter W(OS);
  W.number("row", R.Row);
  writeIndexFields(R, W);
  if (R.Instructions)
    W.number("instructions", *R.Instructions);
  if (R.Blocks)
    W.number("blocks", *R.Blocks);
}

Expected<IndexRecord> parseIndexRecord(StringRef Line, StringRef Name,
                                       uint64_t LineNo) {
  auto Fail = [&](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(),
                             Name + ":" + Twine(LineNo) + ": " + Msg);
  };
  Expected<json::Value> V = support::parseJSON(Line, Name, LineNo);
  if (!V)
    return V.takeError();
  const json::Object *O = V->getAsObject();
  if (!O)
    return Fail("not a JSON object");
  IndexRecord R;
  std::optional<int64_t> Row = O->getInteger("row");
  if (!Row || *Row < 0)
    return Fail("no \"row\" number");
  R.Row = static_cast<uint64_t>(*Row);
  for (auto [Key, Slot] :
       {std::pair<const char *, std::string *>{"module", &R.Module},
        {"function", &R.Function},
        {"demangled", &R.Demangled},
        {"level", &R.Level}}) {
    std::optional<StringRef> S = O->getString(Key);
    if (!S)
      return Fail("no \"" + Twine(Key) + "\" string");
    *Slot = S->str();
  }
  if (std::optional<StringRef> S = O->getString("block"))
    R.Block = S->str();
  if (std::optional<StringRef> S = O->getString("inst"))
    R.Inst = S->str();
  for (auto [Key, Slot] : {std::pair<const char *, std::optional<uint64_t> *>{
                               "block_index", &R.BlockIndex},
                           {"inst_index", &R.InstIndex},
                           {"instructions", &R.Instructions},
                           {"blocks", &R.Blocks}})
    if (const json::Value *N = O->get(Key)) {
      std::optional<int64_t> I = N->getAsInteger();
      if (!I || *I < 0)
        return Fail("\"" + Twine(Key) + "\" is not a non-negative integer");
      *Slot = static_cast<uint64_t>(*I);
    }
  return R;
}

IndexFile::IndexFile(IndexFile &&) = default;
IndexFile &IndexFile::operator=(IndexFile &&) = default;
IndexFile::~IndexFile() = default;

Expected<IndexFile> IndexFile::open(StringRef Path, LoadProgress Progress) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readInput(Path);
  if (!Buf)
    return Buf.takeError();
  Part P;
  P.Path = Path.str();
  StringRef Text = (*Buf)->getBuffer();
  P.Starts.push_back(0);
  for (size_t Pos = Text.find('\n'); Pos != StringRef::npos;
       Pos = Text.find('\n', Pos + 1))
    P.Starts.push_back(Pos + 1);
  // A last line without a newline is a line too.
  if (P.Starts.back() != Text.size())
    P.Starts.push_back(Text.size() + 1);
  P.Buffer = std::move(*Buf);
  // Every line must be JSON, checked now and not when its row is first
  // read: a store whose index is damaged is refused as a whole. The check
  // builds nothing, so opening stays cheap; the fields are checked when a
  // record is read.
  for (uint64_t Row = 0; Row < P.size(); ++Row) {
    if (Error E = support::checkJSON(P.line(Row), P.Path, Row + 1))
      return E;
    if (Progress && Row % 4096 == 4095)
      Progress(Row + 1, P.size());
  }
  if (Progress)
    Progress(P.size(), P.size());
  IndexFile F;
  F.Path = P.Path;
  F.Size = P.size();
  F.Parts.push_back(std::move(P));
  return F;
}

IndexFile IndexFile::concatenate(std::vector<IndexFile> Files, StringRef Path) {
  IndexFile F;
  F.Path = Path.str();
  for (IndexFile &File : Files)
    for (Part &P : File.Parts) {
      P.FirstRow = F.Size;
      F.Size += P.size();
      F.Parts.push_back(std::move(P));
    }
  return F;
}

StringRef IndexFile::Part::line(uint64_t Row) const {
  StringRef Text = Buffer->getBuffer();
  uint64_t End = std::min<uint64_t>(Starts[Row + 1], Text.size());
  return Text.slice(Starts[Row], End).rtrim("\r\n");
}

const IndexFile::Part &IndexFile::partOf(uint64_t Row) const {
  // The last part whose first row is at most Row; empty parts are skipped
  // because the next part starts at the same row.
  auto It = std::upper_bound(
      Parts.begin(), Parts.end(), Row,
      [](uint64_t R, const Part &P) { return R < P.FirstRow; });
  assert(It != Parts.begin() && "row out of range");
  return *std::prev(It);
}

Expected<IndexRecord> IndexFile::record(uint64_t Row) const {
  assert(Row < size() && "row out of range");
  const Part &P = partOf(Row);
  uint64_t Local = Row - P.FirstRow;
  Expected<IndexRecord> R = parseIndexRecord(P.line(Local), P.Path, Local + 1);
  if (R && R->Row != Local)
    return createStringError(inconvertibleErrorCode(),
                             P.Path + ":" + Twine(Local + 1) + ": says row " +
                                 Twine(R->Row) + "; expected " + Twine(Local));
  if (R)
    R->Row = Row;
  return R;
}

std::string qualifiedFunctionName(StringRef Symbol) {
  // The demangler's tree points into the string: it must outlive D's use.
  std::string Mangled = Symbol.str();
  ItaniumPartialDemangler D;
  if (D.partialDemangle(Mangled.c_str()) || !D.isFunction())
    return "";
  size_t N = 0;
  char *Name = D.getFunctionName(nullptr, &N);
  if (!Name)
    return "";
  std::string Result(Name);
  std::free(Name);
  return Result;
}

void IndexFile::forEachLineWith(
    StringRef Needle, function_ref<void(const Part &, uint64_t)> Fn) const {
  for (const Part &P : Parts) {
    StringRef Text = P.Buffer->getBuffer();
    for (size_t Pos = Text.find(Needle); Pos != StringRef::npos;) {
      // The line holding the match.
      uint64_t Local = std::upper_bound(P.Starts.begin(), P.Starts.end(), Pos) -
                       P.Starts.begin() - 1;
      Fn(P, Local);
      if (P.Starts[Local + 1] >= Text.size())
        break;
      Pos = Text.find(Needle, P.Starts[Local + 1]);
    }
  }
}

/// At most this many candidates are listed when a name is ambiguous.
static constexpr size_t MaxCandidatesShown = 10;

/// "<What> '<Name>' matches N <What>s in <Where>: 'a', 'b' and K more;
/// <Hint>", \p Candidates being what the name matches, as shown.
static Error ambiguousName(StringRef What, StringRef Name,
                           ArrayRef<std::string> Candidates, StringRef Where,
                           StringRef Hint) {
  std::string Msg;
  raw_string_ostream M(Msg);
  M << What << " '" << Name << "' matches " << Candidates.size() << ' ' << What
    << "s in " << Where << ": ";
  for (size_t I = 0; I < Candidates.size() && I < MaxCandidatesShown; ++I)
    M << (I ? ", '" : "'") << Candidates[I] << '\'';
  if (Candidates.size() > MaxCandidatesShown)
    M << " and " << Candidates.size() - MaxCandidatesShown << " more";
  M << "; " << Hint;
  return createStringError(inconvertibleErrorCode(), Msg);
}

/// \p S as a JSON string, quotes included: how it stands in an index line.
static std::string quotedJSON(StringRef S) {
  std::string Quoted;
  raw_string_ostream OS(Quoted);
  support::printJSONString(OS, S);
  return Quoted;
}

Error IndexFile::forEachRecordWith(
    StringRef Needle, function_ref<void(const IndexRecord &)> Fn) const {
  Error Err = Error::success();
  forEachLineWith(Needle, [&](const Part &P, uint64_t Local) {
    if (Err)
      return;
    Expected<IndexRecord> R = record(P.FirstRow + Local);
    if (!R) {
      Err = R.takeError();
      return;
    }
    Fn(*R);
  });
  return Err;
}

Expected<std::vector<uint64_t>> IndexFile::findFunction(StringRef Name,
                                                        StringRef Where) const {
  std::vector<uint64_t> Exact, Qualified;
  // The symbols whose qualified name is Name, with a demangled name each.
  std::vector<std::pair<std::string, std::string>> Symbols;
  std::string Needle = quotedJSON(Name);
  if (Error E = forEachRecordWith(Needle, [&](const IndexRecord &R) {
        if (R.Function == Name || R.Demangled == Name)
          Exact.push_back(R.Row);
      }))
    return std::move(E);
  if (!Exact.empty())
    return Exact;
  // A demangled name holds the qualified name followed by its parameters.
  Needle.pop_back();
  Needle.erase(0, 1);
  Needle += '(';
  if (Error E = forEachRecordWith(Needle, [&](const IndexRecord &R) {
        if (qualifiedFunctionName(R.Function) != Name)
          return;
        Qualified.push_back(R.Row);
        if (llvm::none_of(Symbols,
                          [&](const auto &S) { return S.first == R.Function; }))
          Symbols.emplace_back(R.Function, R.Demangled);
      }))
    return std::move(E);
  if (Symbols.size() <= 1)
    return Qualified;
  std::vector<std::string> Shown;
  for (const auto &S : Symbols)
    Shown.push_back(S.second);
  return ambiguousName("function", Name, Shown,
                       Where.empty() ? StringRef(Path) : Where,
                       "name one by its full signature or symbol");
}

Expected<std::vector<uint64_t>> IndexFile::findModule(StringRef Name,
                                                      StringRef Where) const {
  std::vector<uint64_t> Exact, BySuffix;
  // The modules whose path ends in "/<Name>", in row order.
  std::vector<std::string> Modules;
  std::string Needle = quotedJSON(Name);
  if (Error E = forEachRecordWith(Needle, [&](const IndexRecord &R) {
        if (R.Module == Name)
          Exact.push_back(R.Row);
      }))
    return std::move(E);
  if (!Exact.empty())
    return Exact;
  // A path that ends in the name: '/', the name, the closing quote.
  Needle[0] = '/';
  std::string Suffix = ("/" + Name).str();
  if (Error E = forEachRecordWith(Needle, [&](const IndexRecord &R) {
        if (!StringRef(R.Module).ends_with(Suffix))
          return;
        BySuffix.push_back(R.Row);
        // A module's rows follow each other: the last one is usually it.
        if (Modules.empty() || (Modules.back() != R.Module &&
                                !llvm::is_contained(Modules, R.Module)))
          Modules.push_back(R.Module);
      }))
    return std::move(E);
  if (Modules.size() <= 1)
    return BySuffix;
  return ambiguousName("module", Name, Modules,
                       Where.empty() ? StringRef(Path) : Where,
                       "name one by a longer path");
}

} // namespace irtk::store
