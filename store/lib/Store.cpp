//===- Store.cpp - Embedding stores on disk -------------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Writing goes to "<dir>.tmp-XXXXXX" beside the destination. On commit an
/// existing store is first renamed to "<dir>.old-XXXXXX", the new one renamed
/// into place, and the old one removed; if the second rename fails the old
/// store is put back.
///
//===----------------------------------------------------------------------===//

#include "irtk/store/Store.h"
#include "ReadInput.h"

#include "irtk/support/JSON.h"
#include "irtk/support/Level.h"
#include "irtk/support/OutputFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

using namespace llvm;

namespace irtk::store {

static Error storeError(StringRef Name, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Name + ": " + Msg);
}

static std::string joinPath(StringRef Dir, StringRef File) {
  SmallString<256> P(Dir);
  sys::path::append(P, File);
  return std::string(P);
}

void writeStoreInfo(const StoreInfo &Info, raw_ostream &OS) {
  json::OStream J(OS, /*IndentSize=*/2);
  J.object([&] {
    J.attribute("format", StoreFormatName);
    J.attribute("version", Info.Shards.empty() ? StoreFormatVersion
                                               : ShardedStoreFormatVersion);
    J.attribute("dimension", Info.Dimension);
    J.attribute("count", static_cast<int64_t>(Info.Count));
    J.attribute("dtype", "float32");
    J.attribute("level", Info.Level);
    J.attribute("kind", Info.Kind);
    J.attribute("vocabulary", Info.Vocabulary);
    if (!Info.VocabularyHash.empty())
      J.attribute("vocabulary_hash", Info.VocabularyHash);
    J.attributeObject("weights", [&] {
      for (const auto &[Name, W] : Info.Weights)
        J.attribute(Name, W);
    });
    J.attribute("tool", Info.Tool);
    if (!Info.Source.empty())
      J.attributeObject("source", [&] {
        for (const auto &[Name, Value] : Info.Source)
          J.attribute(Name, Value);
      });
    if (!Info.Shards.empty())
      J.attributeArray("shards", [&] {
        for (const ShardRef &S : Info.Shards)
          J.object([&] {
            J.attribute("path", S.Path);
            J.attribute("count", static_cast<int64_t>(S.Count));
          });
      });
  });
  OS << '\n';
}

StringRef StoreInfo::source(StringRef Name) const {
  for (const auto &[N, V] : Source)
    if (N == Name)
      return V;
  return "";
}

Expected<StoreInfo> parseStoreInfo(StringRef Text, StringRef Name) {
  Expected<json::Value> V = support::parseJSON(Text, Name);
  if (!V)
    return V.takeError();
  const json::Object *O = V->getAsObject();
  if (!O)
    return storeError(Name, "not a JSON object");
  std::optional<StringRef> Format = O->getString("format");
  if (!Format || *Format != StoreFormatName)
    return storeError(Name, "not a store description (\"format\" is not \"" +
                                Twine(StoreFormatName) + "\")");
  std::optional<int64_t> Version = O->getInteger("version");
  if (!Version || *Version < 1)
    return storeError(Name, "no valid \"version\"");
  if (*Version > ShardedStoreFormatVersion)
    return storeError(Name, "store format version " + Twine(*Version) +
                                " is newer than this tool's (" +
                                Twine(ShardedStoreFormatVersion) + ")");
  StoreInfo Info;
  std::optional<int64_t> Dim = O->getInteger("dimension");
  if (!Dim || *Dim < 1 || *Dim > UINT32_MAX)
    return storeError(Name, "\"dimension\" is not a positive integer");
  Info.Dimension = static_cast<unsigned>(*Dim);
  std::optional<int64_t> Count = O->getInteger("count");
  if (!Count || *Count < 0)
    return storeError(Name, "\"count\" is not a non-negative integer");
  Info.Count = static_cast<uint64_t>(*Count);
  std::optional<StringRef> DType = O->getString("dtype");
  if (DType && *DType != "float32") {
    std::string Shown;
    raw_string_ostream(Shown).write_escaped(*DType);
    return storeError(Name, "unsupported \"dtype\" '" + Shown +
                                "'; expected float32");
  }
  std::optional<StringRef> Level = O->getString("level");
  if (!Level || !support::parseLevel(*Level))
    return storeError(Name, "\"level\" is not " + support::levelNames());
  Info.Level = Level->str();
  std::optional<StringRef> Kind = O->getString("kind");
  if (!Kind || Kind->empty())
    return storeError(Name, "no \"kind\" string");
  Info.Kind = Kind->str();
  std::optional<StringRef> Vocab = O->getString("vocabulary");
  if (!Vocab)
    return storeError(Name, "no \"vocabulary\" string");
  Info.Vocabulary = Vocab->str();
  if (const json::Value *Hash = O->get("vocabulary_hash")) {
    std::optional<StringRef> H = Hash->getAsString();
    if (!H || !H->starts_with("xxh3:"))
      return storeError(Name, "\"vocabulary_hash\" is not a string "
                              "\"xxh3:...\"");
    Info.VocabularyHash = H->str();
  }
  const json::Object *W = O->getObject("weights");
  if (!W)
    return storeError(Name, "no \"weights\" object");
  for (const auto &[Key, Value] : *W) {
    std::optional<double> D = Value.getAsNumber();
    if (!D || !std::isfinite(*D))
      return storeError(Name,
                        "weight \"" + Key.str() + "\" is not a finite number");
    Info.Weights.emplace_back(Key.str(), *D);
  }
  llvm::sort(Info.Weights);
  if (std::optional<StringRef> Tool = O->getString("tool"))
    Info.Tool = Tool->str();
  if (const json::Value *Source = O->get("source")) {
    const json::Object *S = Source->getAsObject();
    if (!S)
      return storeError(Name, "\"source\" is not an object");
    for (const auto &[Key, Value] : *S) {
      std::optional<StringRef> Str = Value.getAsString();
      if (!Str)
        return storeError(Name, "source \"" + Key.str() + "\" is not a string");
      Info.Source.emplace_back(Key.str(), Str->str());
    }
    llvm::sort(Info.Source);
  }
  const json::Array *Shards = O->getArray("shards");
  if (*Version < ShardedStoreFormatVersion) {
    if (Shards)
      return storeError(Name, "\"shards\" in a version 1 store");
    return Info;
  }
  if (!Shards || Shards->empty())
    return storeError(Name, "a sharded store (version 2) without a "
                            "\"shards\" list");
  uint64_t Total = 0;
  // Each shard once: a path listed twice (by any spelling) would be read as
  // two shards, and every row of it would be its own duplicate.
  StringMap<size_t> Seen;
  for (const json::Value &SV : *Shards) {
    const json::Object *S = SV.getAsObject();
    std::optional<StringRef> Path = S ? S->getString("path") : std::nullopt;
    std::optional<int64_t> N = S ? S->getInteger("count") : std::nullopt;
    if (!Path || !N || *N < 0)
      return storeError(Name, "shard " + Twine(Info.Shards.size()) +
                                  " is not {\"path\": string, \"count\": "
                                  "non-negative integer}");
    if (Path->empty() || sys::path::is_absolute(*Path) ||
        llvm::is_contained(
            make_range(sys::path::begin(*Path), sys::path::end(*Path)), ".."))
      return storeError(Name, "shard path '" + *Path +
                                  "' is not a relative path inside the store");
    SmallString<128> Key;
    for (StringRef Part :
         make_range(sys::path::begin(*Path), sys::path::end(*Path)))
      if (Part != "." && Part != "/")
        sys::path::append(Key, sys::path::Style::posix, Part);
    auto [It, New] = Seen.try_emplace(Key, Info.Shards.size());
    if (!New)
      return storeError(Name, "shard " + Twine(Info.Shards.size()) + " ('" +
                                  *Path + "') is shard " + Twine(It->second) +
                                  " ('" + Info.Shards[It->second].Path +
                                  "') again");
    Info.Shards.push_back({Path->str(), static_cast<uint64_t>(*N)});
    Total += *N;
  }
  if (Total != Info.Count)
    return storeError(Name, "the shards hold " + Twine(Total) +
                                " rows, but \"count\" says " +
                                Twine(Info.Count));
  return Info;
}

void RowBatch::append(ArrayRef<double> V, IndexRecord Site) {
  for (double D : V)
    Values.push_back(static_cast<float>(D));
  Site.Row = Records.size();
  Records.push_back(std::move(Site));
}

std::optional<double> StoreInfo::weight(StringRef Name) const {
  for (const auto &[N, W] : Weights)
    if (N == Name)
      return W;
  return std::nullopt;
}

std::string vocabularyHash(StringRef Path) {
  if (Path == "-")
    return "";
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readInput(Path);
  if (!Buf) {
    consumeError(Buf.takeError());
    return "";
  }
  uint64_t H = xxh3_64bits(arrayRefFromStringRef((*Buf)->getBuffer()));
  return "xxh3:" + utohexstr(H, /*LowerCase=*/true, /*Width=*/16);
}

/// "dir/" and "dir" name the same destination; the temporary directory goes
/// beside it, not inside.
static std::string withoutTrailingSeparators(StringRef Dir) {
  while (Dir.size() > 1 && sys::path::is_separator(Dir.back()))
    Dir = Dir.drop_back();
  return Dir.str();
}

/// Creates a new directory "<Prefix>-XXXXXX" beside \p Prefix (unlike
/// sys::fs::createUniqueDirectory, which puts relative names in the system's
/// temporary directory), with the permissions a plain mkdir gives.
static std::error_code makeUniqueDirectory(const Twine &Prefix,
                                           SmallVectorImpl<char> &Out) {
  std::error_code EC;
  for (unsigned Try = 0; Try < 128; ++Try) {
    sys::fs::createUniquePath(Prefix + "-%%%%%%", Out, /*MakeAbsolute=*/false);
    EC = sys::fs::create_directory(Out, /*IgnoreExisting=*/false,
                                   sys::fs::all_all);
    if (EC != std::errc::file_exists)
      return EC;
  }
  return EC;
}

/// Whether an existing \p Dir may be replaced: an empty directory or a store.
static Error checkReplaceable(StringRef Dir) {
  sys::fs::file_status Status;
  if (sys::fs::status(Dir, Status) || !sys::fs::exists(Status))
    return Error::success();
  if (!sys::fs::is_directory(Status))
    return storeError(Dir, "exists and is not a directory; not replacing it");
  if (sys::fs::exists(joinPath(Dir, InfoFileName)))
    return Error::success();
  std::error_code EC;
  sys::fs::directory_iterator It(Dir, EC);
  if (EC)
    return storeError(Dir, "cannot read directory: " + EC.message());
  if (It != sys::fs::directory_iterator())
    return storeError(Dir, "exists and is not a store (no " +
                               Twine(InfoFileName) + "); not replacing it");
  return Error::success();
}

Expected<std::unique_ptr<StoreWriter>> StoreWriter::create(StringRef DirArg,
                                                           StoreInfo Info) {
  std::string Dir = withoutTrailingSeparators(DirArg);
  if (Error E = checkReplaceable(Dir))
    return E;
  std::unique_ptr<StoreWriter> W(new StoreWriter());
  W->Dir = Dir;
  W->Info = std::move(Info);
  SmallString<256> Temp;
  if (std::error_code EC = makeUniqueDirectory(Dir + ".tmp", Temp))
    return storeError(Dir, "cannot create a temporary directory beside it: " +
                               EC.message());
  W->TempDir = std::string(Temp);
  Expected<std::unique_ptr<NpyWriter>> M = NpyWriter::create(
      joinPath(W->TempDir, MatrixFileName), W->Info.Dimension);
  if (!M)
    return M.takeError(); // ~StoreWriter removes the directory.
  W->Matrix = std::move(*M);
  std::error_code EC;
  std::string IndexPath = joinPath(W->TempDir, IndexFileName);
  W->Index = std::make_unique<raw_fd_ostream>(IndexPath, EC);
  if (EC)
    return storeError(IndexPath, "cannot create: " + EC.message());
  return W;
}

StoreWriter::~StoreWriter() {
  if (!Done)
    discard();
}

void StoreWriter::append(const RowBatch &B) {
  assert(B.Values.size() == B.size() * Info.Dimension && "ragged batch");
  Matrix->append(B.Values);
  for (const IndexRecord &R : B.Records) {
    IndexRecord Renumbered = R;
    Renumbered.Row = Rows++;
    writeIndexRecord(Renumbered, *Index);
  }
}

Error StoreWriter::addFile(StringRef Name, StringRef Contents) {
  assert(!Done && "store already committed or discarded");
  return support::writeOutputFile(joinPath(TempDir, Name),
                                  [&](raw_ostream &OS) {
                                    OS << Contents;
                                    return Error::success();
                                  });
}

void StoreWriter::discard() {
  Done = true;
  Matrix.reset();
  if (Index) {
    // A stream destroyed with a pending write error aborts the process.
    Index->close();
    Index->clear_error();
  }
  Index.reset();
  if (!TempDir.empty())
    sys::fs::remove_directories(TempDir);
}

Error StoreWriter::commit() {
  auto Fail = [&](Error E) {
    discard();
    return E;
  };
  if (Error E = Matrix->finish())
    return Fail(std::move(E));
  if (Error E =
          support::takeWriteError(*Index, joinPath(TempDir, IndexFileName)))
    return Fail(std::move(E));
  Index.reset();
  Info.Count = Rows;
  if (Error E = support::writeOutputFile(joinPath(TempDir, InfoFileName),
                                         [&](raw_ostream &OS) {
                                           writeStoreInfo(Info, OS);
                                           return Error::success();
                                         }))
    return Fail(std::move(E));

  // Straight into place when nothing (or an empty directory) is there.
  if (!sys::fs::rename(TempDir, Dir)) {
    Done = true;
    return Error::success();
  }
  if (Error E = checkReplaceable(Dir))
    return Fail(std::move(E));
  SmallString<256> Old;
  if (std::error_code EC = makeUniqueDirectory(Dir + ".old", Old))
    return Fail(
        storeError(Dir, "cannot replace the existing store: " + EC.message()));
  if (std::error_code EC = sys::fs::rename(Dir, Old)) {
    sys::fs::remove(Old);
    return Fail(
        storeError(Dir, "cannot replace the existing store: " + EC.message()));
  }
  if (std::error_code EC = sys::fs::rename(TempDir, Dir)) {
    sys::fs::rename(Old, Dir);
    return Fail(storeError(Dir, "cannot move the new store into place: " +
                                    EC.message()));
  }
  Done = true;
  sys::fs::remove_directories(Old);
  return Error::success();
}

/// The first setting in which \p A and \p B differ, or "".
static StringRef differingSetting(const StoreInfo &A, const StoreInfo &B) {
  if (A.Dimension != B.Dimension)
    return "dimension";
  if (A.Level != B.Level)
    return "level";
  if (A.Kind != B.Kind)
    return "kind";
  if (A.Vocabulary != B.Vocabulary)
    return "vocabulary";
  if (A.Weights != B.Weights)
    return "weights";
  if (A.Source != B.Source)
    return "source";
  return "";
}

Expected<Store> Store::openSharded(std::string Dir, StoreInfo Info,
                                   LoadProgress Progress) {
  std::string InfoPath = joinPath(Dir, InfoFileName);
  std::vector<NpyMatrix> Matrices;
  std::vector<IndexFile> Indexes;
  // The same directory under two paths (a symbolic link) is refused as the
  // same path twice is (parseStoreInfo).
  std::vector<std::pair<sys::fs::UniqueID, size_t>> Seen;
  for (size_t K = 0; K < Info.Shards.size(); ++K) {
    const ShardRef &Ref = Info.Shards[K];
    std::string ShardDir = joinPath(Dir, Ref.Path);
    sys::fs::UniqueID ID;
    if (!sys::fs::getUniqueID(ShardDir, ID)) {
      for (const auto &[Other, Index] : Seen)
        if (Other == ID)
          return storeError(InfoPath, "shard " + Twine(K) + " ('" + Ref.Path +
                                          "') is the directory of shard " +
                                          Twine(Index) + " ('" +
                                          Info.Shards[Index].Path + "')");
      Seen.emplace_back(ID, K);
    }
    Expected<Store> S = openAt(ShardDir, /*IsShard=*/true, Progress);
    if (!S)
      return S.takeError();
    StringRef Differs = differingSetting(Info, S->info());
    if (!Differs.empty())
      return storeError(ShardDir,
                        "its " + Differs + " differs from " + InfoPath + "'s");
    if (S->size() != Ref.Count)
      return storeError(ShardDir, Twine(S->size()) + " rows, but " + InfoPath +
                                      " says " + Twine(Ref.Count));
    Matrices.push_back(std::move(S->Matrix));
    Indexes.push_back(std::move(S->Index));
  }
  NpyMatrix M = NpyMatrix::concatenate(std::move(Matrices), Info.Dimension);
  IndexFile I = IndexFile::concatenate(std::move(Indexes), InfoPath);
  return Store(std::move(Dir), std::move(Info), std::move(M), std::move(I));
}

Expected<Store> Store::open(StringRef Dir, LoadProgress Progress) {
  return openAt(Dir, /*IsShard=*/false, Progress);
}

Expected<Store> Store::openAt(StringRef DirArg, bool IsShard,
                              LoadProgress Progress) {
  std::string Dir = withoutTrailingSeparators(DirArg);
  sys::fs::file_status Status;
  if (std::error_code EC = sys::fs::status(Dir, Status))
    return storeError(Dir, "cannot open store: " + EC.message());
  if (!sys::fs::is_directory(Status))
    return storeError(Dir, "not a store directory");
  std::string InfoPath = joinPath(Dir, InfoFileName);
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readInput(InfoPath);
  if (!Buf)
    return Buf.takeError();
  Expected<StoreInfo> Info = parseStoreInfo((*Buf)->getBuffer(), InfoPath);
  if (!Info)
    return Info.takeError();
  if (!Info->Shards.empty()) {
    // Checked before opening any shard: a shard naming its own store (or
    // a link to it) would otherwise be opened again and again.
    if (IsShard)
      return storeError(Dir, "a shard that is itself sharded");
    return openSharded(Dir, std::move(*Info), Progress);
  }
  std::string MatrixPath = joinPath(Dir, MatrixFileName);
  Expected<NpyMatrix> M = NpyMatrix::open(MatrixPath);
  if (!M)
    return M.takeError();
  if (M->cols() != Info->Dimension)
    return storeError(MatrixPath, "dimension " + Twine(M->cols()) + ", but " +
                                      InfoFileName + " says " +
                                      Twine(Info->Dimension));
  if (M->rows() != Info->Count)
    return storeError(MatrixPath, Twine(M->rows()) + " rows, but " +
                                      InfoFileName + " says " +
                                      Twine(Info->Count));
  Expected<IndexFile> I =
      IndexFile::open(joinPath(Dir, IndexFileName), Progress);
  if (!I)
    return I.takeError();
  if (I->size() != M->rows())
    return storeError(I->path(), Twine(I->size()) + " lines, but " +
                                     MatrixFileName + " has " +
                                     Twine(M->rows()) + " rows");
  return Store(Dir, std::move(*Info), std::move(*M), std::move(*I));
}

Expected<std::vector<uint64_t>> selectRows(const Store &S,
                                           const SizeFilter &F) {
  std::vector<uint64_t> Rows;
  for (uint64_t Row = 0; Row < S.size(); ++Row) {
    Expected<IndexRecord> R = S.index().record(Row);
    if (!R)
      return R.takeError();
    if (!R->Instructions || !R->Blocks)
      return storeError(S.path(),
                        "row " + Twine(Row) +
                            " records no function size (the store was "
                            "written before irtk recorded sizes); write it "
                            "again to filter by size");
    if (*R->Instructions >= F.MinInstructions && *R->Blocks >= F.MinBlocks)
      Rows.push_back(Row);
  }
  return Rows;
}

Error writeStoreCopy(const Store &S, StringRef Dir) {
  StoreInfo Info = S.info();
  Info.Shards.clear();
  Expected<std::unique_ptr<StoreWriter>> W = StoreWriter::create(Dir, Info);
  if (!W)
    return W.takeError();
  // In batches, so that a large store is not held twice in memory.
  constexpr uint64_t BatchRows = 4096;
  for (uint64_t First = 0; First < S.size(); First += BatchRows) {
    RowBatch B;
    uint64_t End = std::min(S.size(), First + BatchRows);
    for (uint64_t Row = First; Row < End; ++Row) {
      Expected<IndexRecord> R = S.index().record(Row);
      if (!R)
        return R.takeError(); // ~StoreWriter removes the directory.
      ArrayRef<float> V = S.matrix().row(Row);
      B.Values.insert(B.Values.end(), V.begin(), V.end());
      B.Records.push_back(std::move(*R));
    }
    (*W)->append(B);
  }
  return (*W)->commit();
}

} // namespace irtk::store
