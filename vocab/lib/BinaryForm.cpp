//===- BinaryForm.cpp - Vocabularies without parsing JSON -----------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The binary form of a vocabulary file, made at build time (`irtk-vocab
/// pack`) beside the JSON it comes from, so that a compiler loading the
/// bundled vocabulary reads vectors rather than parsing tens of thousands
/// of numbers. The JSON stays the source of truth: the binary form records
/// the size and hash of the JSON it was made from and the checksum of its
/// layout, and a load checks both. To check the JSON without reading it,
/// the form also records the JSON's modification time and file id when they
/// can be trusted (Vocabulary::packStamp): a load that finds the same size,
/// time and id takes it as unchanged, and hashes it otherwise. A hash of
/// the whole form (its trailer) catches damage to its own bytes, and every
/// number it holds must be finite, as in the JSON. Little-endian, 8-byte
/// aligned:
///
///   "IRTKVOCB"  u32 format  u32 dimension  u32 entities  u32 unknown keys
///   u64 layout checksum  u64 source size  u64 source hash (xxh3)
///   u64 source modification time (ns since the epoch; 0: not recorded)
///   u64 source file id (0: not recorded)
///   u64 table bytes
///   u8 tables[table bytes], zero-padded to a multiple of 8: what the
///      layout's maker needs to make it again without building it (a
///      target's MIR layout: mir2vec::TargetLayout::tables), or nothing
///   u8 present[entities], zero-padded to a multiple of 8
///   f64 vectors[present entities * dimension], unweighted, in id order
///   unknown keys: u32 length, bytes; each
///   u64 xxh3 of every byte before it
///
//===----------------------------------------------------------------------===//

#include "irtk/support/ReadFile.h"
#include "irtk/vocab/Vocabulary.h"

#include "Weights.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/EndianStream.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SwapByteOrder.h"
#include "llvm/Support/xxhash.h"

#include <cmath>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

using namespace llvm;

namespace irtk::vocab {

static constexpr char Magic[8] = {'I', 'R', 'T', 'K', 'V', 'O', 'C', 'B'};
static constexpr uint32_t FormatVersion = 4;
static constexpr size_t HeaderSize = 72;
static constexpr size_t TableBytesAt = 64;

static size_t paddedTo8(size_t N) { return (N + 7) & ~size_t(7); }

std::string Vocabulary::binaryPath(StringRef Path) {
  return (Path + ".bin").str();
}

std::optional<unsigned> Vocabulary::binaryDimension(StringRef Path) {
  // Through the one reader: a FIFO in the binary form's place is refused
  // here (the full load then reports it), never waited on.
  Expected<std::string> Prefix =
      support::readFilePrefix(binaryPath(Path), "", 16);
  if (!Prefix) {
    consumeError(Prefix.takeError());
    return std::nullopt;
  }
  const char *Header = Prefix->data();
  if (Prefix->size() != 16 || std::memcmp(Header, Magic, sizeof(Magic)) != 0 ||
      llvm::support::endian::read32le(Header + 8) != FormatVersion)
    return std::nullopt;
  uint32_t Dim = llvm::support::endian::read32le(Header + 12);
  if (Dim == 0)
    return std::nullopt;
  return Dim;
}

StringRef Vocabulary::binaryLayoutTables(StringRef Binary) {
  if (Binary.size() < HeaderSize ||
      std::memcmp(Binary.data(), Magic, sizeof(Magic)) != 0 ||
      llvm::support::endian::read32le(Binary.data() + 8) != FormatVersion)
    return {};
  uint64_t Size = llvm::support::endian::read64le(Binary.data() + TableBytesAt);
  if (Size > Binary.size() - HeaderSize)
    return {};
  return Binary.substr(HeaderSize, Size);
}

static uint64_t nanoseconds(sys::TimePoint<> T) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(T.time_since_epoch())
          .count());
}

SourceStamp Vocabulary::packStamp(StringRef Path) {
  sys::fs::file_status St;
  if (sys::fs::status(Path, St) || !sys::fs::is_regular_file(St))
    return {};
  sys::TimePoint<> Modified = St.getLastModificationTime();
  if (std::chrono::system_clock::now() - Modified < std::chrono::seconds(2))
    return {};
  return {nanoseconds(Modified), St.getUniqueID().getFile()};
}

void Vocabulary::writeBinaryBody(StringRef Source, raw_ostream &OS,
                                 StringRef Tables,
                                 const SourceStamp &Stamp) const {
  assert(llvm::all_of(W, [](float X) { return X == 1.0f; }) &&
         "the binary form holds unweighted vectors");
  using llvm::support::endian::write;
  constexpr auto LE = llvm::endianness::little;
  OS.write(Magic, sizeof(Magic));
  write<uint32_t>(OS, FormatVersion, LE);
  write<uint32_t>(OS, Dim, LE);
  write<uint32_t>(OS, size(), LE);
  write<uint32_t>(OS, static_cast<uint32_t>(UnknownKeys.size()), LE);
  write<uint64_t>(OS, L->checksum(), LE);
  write<uint64_t>(OS, Source.size(), LE);
  write<uint64_t>(OS, xxh3_64bits(Source), LE);
  write<uint64_t>(OS, Stamp.ModTimeNs, LE);
  write<uint64_t>(OS, Stamp.FileId, LE);
  write<uint64_t>(OS, Tables.size(), LE);
  OS << Tables;
  OS.write_zeros(paddedTo8(Tables.size()) - Tables.size());
  for (EntityId Id = 0; Id < size(); ++Id)
    OS << static_cast<char>(isPresent(Id) ? 1 : 0);
  OS.write_zeros(paddedTo8(size()) - size());
  for (EntityId Id = 0; Id < size(); ++Id)
    if (isPresent(Id))
      for (double D : vector(Id))
        write<uint64_t>(OS, llvm::bit_cast<uint64_t>(D), LE);
  for (const std::string &K : UnknownKeys) {
    write<uint32_t>(OS, static_cast<uint32_t>(K.size()), LE);
    OS << K;
  }
}

void Vocabulary::writeBinary(StringRef Source, raw_ostream &OS,
                             StringRef Tables, const SourceStamp &Stamp) const {
  // Made in memory: the trailer hashes every byte before it.
  std::string Bytes;
  raw_string_ostream BS(Bytes);
  writeBinaryBody(Source, BS, Tables, Stamp);
  OS << Bytes;
  llvm::support::endian::write<uint64_t>(OS, xxh3_64bits(StringRef(Bytes)),
                                         llvm::endianness::little);
}

/// Copies N little-endian doubles from From to To; false if any is not
/// finite. An infinity or a NaN has every exponent bit set: the one exponent
/// to which adding 1 carries into the sign bit, so AND, ADD and OR find it
/// (a 64-bit compare would need SSE4.1). On x86-64 SSE2 copies and checks
/// four numbers a step: fewer instructions than glibc's memcpy (`rep
/// movsb`, a byte an instruction under callgrind) and a check done apart.
static bool copyFinite(const char *From, double *To, size_t N) {
  constexpr uint64_t Exponent = 0x7ff0000000000000ULL;
  constexpr uint64_t ExponentOne = uint64_t(1) << 52;
  uint64_t Carries = 0;
  size_t I = 0;
#if defined(__SSE2__)
  const __m128i E = _mm_set1_epi64x(Exponent);
  const __m128i One = _mm_set1_epi64x(ExponentOne);
  __m128i C0 = _mm_setzero_si128(), C1 = _mm_setzero_si128();
  for (; I + 4 <= N; I += 4) {
    __m128i X0 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(From));
    __m128i X1 = _mm_loadu_si128(reinterpret_cast<const __m128i *>(From + 16));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(To + I), X0);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(To + I + 2), X1);
    C0 = _mm_or_si128(C0, _mm_add_epi64(_mm_and_si128(X0, E), One));
    C1 = _mm_or_si128(C1, _mm_add_epi64(_mm_and_si128(X1, E), One));
    From += 32;
  }
  alignas(16) uint64_t Lanes[2];
  _mm_store_si128(reinterpret_cast<__m128i *>(Lanes), _mm_or_si128(C0, C1));
  Carries = Lanes[0] | Lanes[1];
#endif
  for (; I < N; ++I, From += 8) {
    uint64_t Bits = llvm::support::endian::read64le(From);
    Carries |= (Bits & Exponent) + ExponentOne;
    std::memcpy(To + I, &Bits, 8);
  }
  return !(Carries >> 63);
}

Expected<Vocabulary> Vocabulary::loadFromBinary(
    StringRef Binary, StringRef Name, StringRef Source, StringRef SourceName,
    std::shared_ptr<const Layout> L, const SectionWeights &W) {
  return loadFromBinaryIf(
      Binary, Name,
      [&](uint64_t Size, uint64_t Hash, const SourceStamp &) -> Expected<bool> {
        return Size == Source.size() && Hash == xxh3_64bits(Source);
      },
      SourceName, std::move(L), W);
}

Expected<Vocabulary> Vocabulary::loadFromBinaryIf(
    StringRef Binary, StringRef Name,
    function_ref<Expected<bool>(uint64_t Size, uint64_t Hash,
                                const SourceStamp &Stamp)>
        IsSource,
    StringRef SourceName, std::shared_ptr<const Layout> L,
    const SectionWeights &W, bool ChecksumVerified) {
  std::string Remake =
      (Twine("; remake it with `irtk-vocab pack") +
       (L->description().ends_with(" MIR") ? " --mode=mir" : "") + " " +
       SourceName + "`")
          .str();
  auto Fail = [&](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(),
                             Name + ": " + Msg + Remake);
  };
  if (Binary.size() < HeaderSize ||
      std::memcmp(Binary.data(), Magic, sizeof(Magic)) != 0)
    return Fail("not the binary form of a vocabulary");
  if (uint32_t Version = llvm::support::endian::read32le(Binary.data() + 8);
      Version != FormatVersion)
    return Fail("binary vocabulary format " + Twine(Version) +
                ", this irtk reads format " + Twine(FormatVersion));
  // Before any field is trusted: a flipped bit anywhere is refused here.
  if (Binary.size() < HeaderSize + 8 ||
      (!ChecksumVerified && !hasValidChecksum(Binary)))
    return Fail("damaged or truncated (its checksum does not match its "
                "content)");
  Binary = Binary.drop_back(8);
  const char *P = Binary.data() + sizeof(Magic);
  auto Next32 = [&] {
    uint32_t V = llvm::support::endian::read32le(P);
    P += 4;
    return V;
  };
  auto Next64 = [&] {
    uint64_t V = llvm::support::endian::read64le(P);
    P += 8;
    return V;
  };
  (void)Next32(); // The format, checked above.
  uint32_t Dim = Next32(), Entities = Next32(), Unknown = Next32();
  uint64_t LayoutSum = Next64(), SourceSize = Next64(), SourceHash = Next64();
  SourceStamp Stamp;
  Stamp.ModTimeNs = Next64();
  Stamp.FileId = Next64();
  uint64_t TableBytes = Next64();
  if (LayoutSum != L->checksum() || Entities != L->size())
    return Fail("made for another layout than " + L->description() + "'s " +
                Twine(L->size()) + " entities");
  Expected<bool> Same = IsSource(SourceSize, SourceHash, Stamp);
  if (!Same)
    return Same.takeError();
  if (!*Same)
    return Fail("stale: " + SourceName + " changed since it was made");
  if (Dim == 0)
    return Fail("zero dimension");
  // A JSON vocabulary of dimension D has at least D characters.
  if (Dim > SourceSize)
    return Fail("dimension " + Twine(Dim) + " is larger than " + SourceName +
                " could hold");

  if (TableBytes > Binary.size() - HeaderSize)
    return Fail("truncated");
  size_t PresentAt = HeaderSize + paddedTo8(TableBytes);
  size_t VectorsAt = PresentAt + paddedTo8(Entities);
  if (Binary.size() < VectorsAt)
    return Fail("truncated");
  Vocabulary V;
  V.W = completeWeights(*L, W);
  V.Dim = Dim;
  // The present entities' rows follow the shared zero row, in id order, as
  // the form stores them: one copy.
  V.Row.assign(Entities, 0);
  uint32_t Given = 0;
  for (EntityId Id = 0; Id < Entities; ++Id) {
    uint8_t Flag = Binary[PresentAt + Id];
    if (Flag > 1)
      return Fail("entity " + Twine(Id) + " is marked " +
                  Twine(unsigned(Flag)) + ", neither present nor absent");
    if (Flag)
      V.Row[Id] = ++Given;
  }
  if (Given && (Binary.size() - VectorsAt) / 8 / Given < Dim)
    return Fail("truncated");
  size_t Values = size_t(Given) * Dim;
  // One pass that copies the numbers (the vector is not zero-filled first)
  // and notes whether any is not finite; as the JSON loader, such a number
  // is refused, its entity named.
  V.Data.resize(Dim + Values);
  std::fill_n(V.Data.begin(), Dim, 0.0);
  bool NotFinite =
      !copyFinite(Binary.data() + VectorsAt, V.Data.data() + Dim, Values);
  double *Vectors = V.Data.data() + Dim;
  for (size_t I = 0; NotFinite && I < Values; ++I)
    if (!std::isfinite(Vectors[I])) {
      uint32_t BadRow = static_cast<uint32_t>(I / Dim) + 1;
      EntityId Id = static_cast<EntityId>(find(V.Row, BadRow) - V.Row.begin());
      return Fail("entity '" + L->entityName(Id) + "', element " +
                  Twine(I % Dim) + " is not finite");
    }
  const char *AfterVectors = Binary.data() + VectorsAt + Values * 8;
  // The section weights, applied as loadFromBuffer applies them: to the
  // vectors the file gave (an absent entity's zeros stay +0).
  bool Weighted = llvm::any_of(V.W, [](float X) { return X != 1.0f; });
  for (EntityId Id = 0; Weighted && Id < Entities; ++Id) {
    if (!V.isPresent(Id))
      continue;
    double Weight = static_cast<double>(V.W[L->entitySection(Id)]);
    if (Weight == 1.0)
      continue;
    for (double *D = V.row(Id), *E = D + Dim; D != E; ++D)
      *D *= Weight;
  }

  P = AfterVectors;
  const char *End = Binary.data() + Binary.size();
  for (uint32_t I = 0; I < Unknown; ++I) {
    if (End - P < 4)
      return Fail("truncated");
    uint32_t Len = Next32();
    if (static_cast<size_t>(End - P) < Len)
      return Fail("truncated");
    V.UnknownKeys.emplace_back(P, Len);
    P += Len;
  }
  if (P != End)
    return Fail("trailing bytes after the vocabulary");
  V.L = std::move(L);
  return V;
}

Expected<Vocabulary> Vocabulary::load(StringRef Path,
                                      std::shared_ptr<const Layout> L,
                                      const SectionWeights &W) {
  auto Given = [&](StringRef) { return std::move(L); };
  return load(Path, Given, W);
}

Expected<Vocabulary> Vocabulary::load(
    StringRef Path,
    function_ref<std::shared_ptr<const Layout>(StringRef Tables)> MakeLayout,
    const SectionWeights &W) {
  std::string BinPath = binaryPath(Path);
  if (Path == "-" || !sys::fs::exists(BinPath))
    return loadFromFile(Path, MakeLayout(""), W);
  support::ReadOptions RO = support::ReadOptions::bytes();
  Expected<std::unique_ptr<MemoryBuffer>> Binary =
      support::readFile(BinPath, "the binary form", RO);
  if (!Binary)
    return Binary.takeError();
  // The JSON is read only when its size, time and id are not the ones the
  // form recorded.
  auto IsSource = [&](uint64_t Size, uint64_t Hash,
                      const SourceStamp &Stamp) -> Expected<bool> {
    sys::fs::file_status St;
    if (Stamp.ModTimeNs && !sys::fs::status(Path, St) &&
        sys::fs::is_regular_file(St) && St.getSize() == Size &&
        nanoseconds(St.getLastModificationTime()) == Stamp.ModTimeNs &&
        St.getUniqueID().getFile() == Stamp.FileId)
      return true;
    Expected<std::unique_ptr<MemoryBuffer>> Source =
        support::readFile(Path, "vocabulary", RO);
    if (!Source)
      return Source.takeError();
    StringRef Bytes = (*Source)->getBuffer();
    return Bytes.size() == Size && xxh3_64bits(Bytes) == Hash;
  };
  StringRef Bytes = (*Binary)->getBuffer();
  // The checksum first: the layout's tables are trusted only from a form
  // whose every byte it covers (the tables carry no hash of their own that
  // is checked). A damaged form is refused by loadFromBinaryIf.
  bool Checked = hasValidChecksum(Bytes);
  return loadFromBinaryIf(
      Bytes, BinPath, IsSource, Path,
      MakeLayout(Checked ? binaryLayoutTables(Bytes) : StringRef()), W,
      Checked);
}

bool Vocabulary::hasValidChecksum(StringRef Binary) {
  return Binary.size() >= 8 &&
         llvm::support::endian::read64le(Binary.end() - 8) ==
             xxh3_64bits(Binary.drop_back(8));
}

} // namespace irtk::vocab
