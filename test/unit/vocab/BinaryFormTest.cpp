//===- BinaryFormTest.cpp - A vocabulary's binary form --------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The binary form loads the same vocabulary as its JSON, bit for bit and
/// under any weights, and is refused when made from other JSON, for another
/// layout, by another format, cut short or damaged, and when the numbers
/// and fields its checksum vouches for are ones the JSON could not give.
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Entities.h"
#include "irtk/vocab/Vocabulary.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <atomic>
#include <cstring>
#include <limits>
#include <thread>

#include "../TestHelpers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace irtk::vocab;
using namespace llvm;
using irtk::ir2vec::irLayout;
using irtk::ir2vec::Weights;
using ::testing::HasSubstr;

namespace {

// Ret and IntegerTy present, the rest absent; an unknown key; -0.0 and a
// number that does not survive a round trip through float.
const char *Source = R"({
  "Opcodes": {"Ret": [1, -0.0], "Add": [0.1, 4], "NoSuchOpcode": [7, 8]},
  "Types": {"IntegerTy": [5, 1e-300]},
  "Arguments": {"Variable": [10, 20]}
})";

std::string binaryOf(StringRef Text, StringRef Tables = "") {
  Expected<Vocabulary> V =
      Vocabulary::loadFromBuffer(Text, "v.json", irLayout());
  if (!V) {
    ADD_FAILURE() << toString(V.takeError());
    return "";
  }
  std::string Out;
  raw_string_ostream OS(Out);
  V->writeBinary(Text, OS, Tables);
  return Out;
}

Expected<Vocabulary> fromBinary(StringRef Binary, StringRef Text,
                                const Weights &W = {}) {
  return Vocabulary::loadFromBinary(Binary, "v.json.bin", Text, "v.json",
                                    irLayout(), W.sections());
}

std::string binaryError(StringRef Binary, StringRef Text = Source) {
  Expected<Vocabulary> V = fromBinary(Binary, Text);
  if (V) {
    ADD_FAILURE() << "expected an error";
    return "";
  }
  return toString(V.takeError());
}

TEST(BinaryFormTest, SameVocabularyBitForBitUnderAnyWeights) {
  std::string Binary = binaryOf(Source);
  Weights Custom;
  Custom.Opcode = 0.3f;
  Custom.Type = -2.0f;
  Custom.Argument = 0.7f;
  for (const Weights &W : {Weights(), Custom}) {
    Expected<Vocabulary> J =
        Vocabulary::loadFromBuffer(Source, "v.json", irLayout(), W.sections());
    Expected<Vocabulary> B = fromBinary(Binary, Source, W);
    IRTK_ASSERT_OK(J);
    IRTK_ASSERT_OK(B);
    ASSERT_EQ(B->dimension(), J->dimension());
    ASSERT_EQ(B->size(), J->size());
    for (EntityId Id = 0; Id < J->size(); ++Id) {
      EXPECT_EQ(B->isPresent(Id), J->isPresent(Id)) << Id;
      for (unsigned I = 0; I < J->dimension(); ++I)
        EXPECT_EQ(bit_cast<uint64_t>(B->vector(Id)[I]),
                  bit_cast<uint64_t>(J->vector(Id)[I]))
            << "entity " << Id << " element " << I;
    }
    EXPECT_EQ(B->unknownKeys(), J->unknownKeys());
    EXPECT_EQ(B->weights(), J->weights());
  }
}

TEST(BinaryFormTest, StaleSourceIsRefused) {
  std::string Binary = binaryOf(Source);
  std::string Edited = Source;
  Edited[Edited.find("20")] = '3';
  EXPECT_THAT(binaryError(Binary, Edited),
              HasSubstr("v.json.bin: stale: v.json changed since it was made; "
                        "remake it with `irtk-vocab pack v.json`"));
}

TEST(BinaryFormTest, AnotherLayoutIsRefused) {
  std::string Binary = binaryOf(Source);
  auto Other = std::make_shared<Layout>("test");
  unsigned S = Other->addSection("Opcodes");
  Other->addGroup(S, "opcodes");
  Other->addEntity("Ret");
  Expected<Vocabulary> V =
      Vocabulary::loadFromBinary(Binary, "v.json.bin", Source, "v.json", Other);
  ASSERT_FALSE(V);
  EXPECT_THAT(toString(V.takeError()),
              HasSubstr("v.json.bin: made for another layout than test's 1 "
                        "entities"));
}

TEST(BinaryFormTest, LayoutChecksumSeesKeysAndOrder) {
  auto Make = [](std::vector<const char *> Keys) {
    auto L = std::make_shared<Layout>("test");
    L->addGroup(L->addSection("Opcodes"), "opcodes");
    for (const char *K : Keys)
      L->addEntity(K);
    return L->checksum();
  };
  EXPECT_EQ(Make({"A", "B"}), Make({"A", "B"}));
  EXPECT_NE(Make({"A", "B"}), Make({"B", "A"}));
  EXPECT_NE(Make({"A", "B"}), Make({"A", "C"}));
  EXPECT_NE(Make({"AB"}), Make({"A", "B"}));
}

TEST(BinaryFormTest, NotABinaryFormIsRefused) {
  EXPECT_THAT(binaryError(Source),
              HasSubstr("v.json.bin: not the binary form of a vocabulary"));
  EXPECT_THAT(binaryError(""),
              HasSubstr("v.json.bin: not the binary form of a vocabulary"));
}

TEST(BinaryFormTest, OtherFormatIsRefused) {
  std::string Binary = binaryOf(Source);
  Binary[8] = 1; // the format version, little-endian after the magic
  EXPECT_THAT(binaryError(Binary),
              HasSubstr("v.json.bin: binary vocabulary format 1, this irtk "
                        "reads format 4"));
  EXPECT_EQ(Vocabulary::binaryLayoutTables(Binary), "");
}

/// Writes the trailer of \p Binary again, as a form with these bytes would
/// have it: to reach the checks behind the checksum.
void reseal(std::string &Binary) {
  StringRef Body = StringRef(Binary).drop_back(8);
  support::endian::write64le(Binary.data() + Binary.size() - 8,
                             xxh3_64bits(Body));
}

TEST(BinaryFormTest, TruncatedOrTrailingIsRefused) {
  std::string Binary = binaryOf(Source);
  for (size_t Cut : {size_t(76), Binary.size() / 2, Binary.size() - 1})
    EXPECT_THAT(binaryError(Binary.substr(0, Cut)),
                HasSubstr("damaged or truncated"))
        << Cut;
  EXPECT_THAT(binaryError(Binary + "x"), HasSubstr("damaged or truncated"));
  // With a trailer that matches, the layout of the content still counts.
  std::string Longer = Binary + "12345678";
  reseal(Longer);
  EXPECT_THAT(binaryError(Longer), HasSubstr("trailing bytes"));
}

TEST(BinaryFormTest, EveryFlippedBitIsRefused) {
  // Past the magic and the format, which have their own messages.
  std::string Binary = binaryOf(Source, "tables!");
  for (size_t Byte = 12; Byte < Binary.size(); ++Byte)
    for (unsigned Bit = 0; Bit < 8; ++Bit) {
      std::string Flipped = Binary;
      Flipped[Byte] ^= static_cast<char>(1u << Bit);
      EXPECT_THAT(binaryError(Flipped), HasSubstr("damaged or truncated"))
          << "byte " << Byte << " bit " << Bit;
    }
}

/// The offset of the first vector element in binaryOf(Source): the header
/// (72 bytes), no tables, and a presence byte per entity padded to 8.
size_t vectorsAt() {
  size_t Entities = irLayout()->size();
  return 72 + ((Entities + 7) & ~size_t(7));
}

TEST(BinaryFormTest, NumbersThatAreNotFiniteAreRefused) {
  for (double Bad : {std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity()}) {
    std::string Binary = binaryOf(Source);
    // The first present entity's first element (Ret's 1 or Add's 0.1).
    support::endian::write64le(Binary.data() + vectorsAt(),
                               bit_cast<uint64_t>(Bad));
    reseal(Binary);
    EXPECT_THAT(binaryError(Binary), HasSubstr("', element 0 is not finite"));
  }
}

// Nine numbers (three entities of three): the loader checks four a step,
// then one by one, so each position is checked by one of the two.
const char *Nine = R"({
  "Opcodes": {"Ret": [1, 2, 3]},
  "Types": {"IntegerTy": [4, 5, 6]},
  "Arguments": {"Variable": [7, 8, 9]}
})";

TEST(BinaryFormTest, ANotFiniteNumberIsFoundAtEveryPosition) {
  const char *Names[] = {"Ret", "IntegerTy", "Variable"};
  size_t At = 72 + ((irLayout()->size() + 7) & ~size_t(7));
  for (size_t I = 0; I < 9; ++I)
    for (double Bad : {std::numeric_limits<double>::quiet_NaN(),
                       -std::numeric_limits<double>::quiet_NaN(),
                       std::numeric_limits<double>::infinity(),
                       -std::numeric_limits<double>::infinity()}) {
      std::string Binary = binaryOf(Nine);
      support::endian::write64le(Binary.data() + At + 8 * I,
                                 bit_cast<uint64_t>(Bad));
      reseal(Binary);
      EXPECT_THAT(binaryError(Binary, Nine),
                  HasSubstr(("'" + Twine(Names[I / 3]) + "', element " +
                             Twine(I % 3) + " is not finite")
                                .str()))
          << "position " << I;
    }
}

TEST(BinaryFormTest, TheExtremeFiniteNumbersAreKept) {
  std::string Binary = binaryOf(Nine);
  size_t At = 72 + ((irLayout()->size() + 7) & ~size_t(7));
  const double Extremes[] = {std::numeric_limits<double>::max(),
                             -std::numeric_limits<double>::max(),
                             std::numeric_limits<double>::denorm_min(),
                             -std::numeric_limits<double>::denorm_min(),
                             -0.0,
                             std::numeric_limits<double>::min(),
                             -1.0,
                             0x1.fffffffffffffp+1022,
                             std::numeric_limits<double>::max()};
  for (size_t I = 0; I < 9; ++I)
    support::endian::write64le(Binary.data() + At + 8 * I,
                               bit_cast<uint64_t>(Extremes[I]));
  reseal(Binary);
  Weights Ones; // IR2Vec's defaults would scale the types and arguments
  Ones.Opcode = Ones.Type = Ones.Argument = 1.0f;
  Expected<Vocabulary> V = fromBinary(Binary, Nine, Ones);
  IRTK_ASSERT_OK(V);
  std::vector<EntityId> Present; // in id order, as the form stores them
  for (EntityId Id = 0; Id < V->size(); ++Id)
    if (V->isPresent(Id))
      Present.push_back(Id);
  ASSERT_EQ(Present.size(), 3u);
  for (size_t I = 0; I < 9; ++I) {
    EXPECT_EQ(bit_cast<uint64_t>(V->vector(Present[I / 3])[I % 3]),
              bit_cast<uint64_t>(Extremes[I]))
        << "position " << I;
  }
}

TEST(BinaryFormTest, ADimensionTooLargeForItsSourceIsRefused) {
  std::string Binary = binaryOf(Source);
  // The dimension, after the magic and the format: one no JSON of this
  // size could hold, which must not reach an allocation.
  support::endian::write32le(Binary.data() + 12, 0x7fffffff);
  reseal(Binary);
  EXPECT_THAT(binaryError(Binary),
              HasSubstr("dimension 2147483647 is larger than v.json could "
                        "hold"));
}

TEST(BinaryFormTest, APresenceFlagOtherThanZeroOrOneIsRefused) {
  std::string Binary = binaryOf(Source);
  Binary[72] = 7; // entity 0's flag
  reseal(Binary);
  EXPECT_THAT(binaryError(Binary),
              HasSubstr("entity 0 is marked 7, neither present nor absent"));
}

TEST(BinaryFormTest, LayoutTablesRideAlongUnread) {
  std::string Plain = binaryOf(Source);
  std::string WithTables = binaryOf(Source, "tables!"); // 7 bytes, padded
  EXPECT_EQ(WithTables.size(), Plain.size() + 8);
  EXPECT_EQ(Vocabulary::binaryLayoutTables(WithTables), "tables!");
  EXPECT_EQ(Vocabulary::binaryLayoutTables(Plain), "");
  EXPECT_EQ(Vocabulary::binaryLayoutTables(Source), "");
  Expected<Vocabulary> A = fromBinary(Plain, Source);
  Expected<Vocabulary> B = fromBinary(WithTables, Source);
  IRTK_ASSERT_OK(A);
  IRTK_ASSERT_OK(B);
  for (EntityId Id = 0; Id < A->size(); ++Id)
    EXPECT_EQ(A->vector(Id), B->vector(Id)) << Id;
  // Tables longer than the file: refused by both readers.
  std::string Cut = WithTables.substr(0, 76);
  EXPECT_THAT(binaryError(Cut), HasSubstr("damaged or truncated"));
  EXPECT_EQ(Vocabulary::binaryLayoutTables(Cut), "");
}

/// A layout of two sections, "A" (keys a0, a1, a2) and "B" (b0, b1), the
/// second in two groups.
void fillTwoSections(Layout &L) {
  unsigned A = L.addSection("A"), B = L.addSection("B");
  L.addGroup(A, "as");
  for (const char *K : {"a0", "a1", "a2"})
    L.addEntity(K);
  L.addGroup(B, "bs");
  L.addEntity("b0", "Label_b0");
  L.addGroup(B, "more bs");
  L.addEntity("b1");
}

TEST(DeferredLayoutTest, KnowsItsShapeWithoutFilling) {
  Layout Built("two");
  fillTwoSections(Built);
  unsigned Fills = 0;
  std::shared_ptr<const Layout> L =
      Layout::deferred("two", {3, 5}, Built.checksum(), [&](Layout &Into) {
        ++Fills;
        fillTwoSections(Into);
      });
  EXPECT_TRUE(L->isPending());
  EXPECT_EQ(L->size(), 5u);
  EXPECT_EQ(L->numSections(), 2u);
  EXPECT_EQ(L->checksum(), Built.checksum());
  EXPECT_EQ(L->description(), "two");
  for (EntityId Id = 0; Id < 5; ++Id)
    EXPECT_EQ(L->entitySection(Id), Built.entitySection(Id)) << Id;
  EXPECT_EQ(Fills, 0u);
  EXPECT_TRUE(L->isPending());
}

TEST(DeferredLayoutTest, FillsOnceWhenAskedForNames) {
  Layout Built("two");
  fillTwoSections(Built);
  std::atomic<unsigned> Fills{0};
  std::shared_ptr<const Layout> L =
      Layout::deferred("two", {3, 5}, Built.checksum(), [&](Layout &Into) {
        ++Fills;
        fillTwoSections(Into);
      });
  // From several threads at once: one fill, every answer the built one's.
  std::vector<std::thread> Threads;
  std::atomic<unsigned> Wrong{0};
  for (int T = 0; T < 4; ++T)
    Threads.emplace_back([&] {
      for (EntityId Id = 0; Id < 5; ++Id)
        Wrong += L->entityLabel(Id) != Built.entityLabel(Id) ||
                 L->entityName(Id) != Built.entityName(Id) ||
                 L->entityGroup(Id) != Built.entityGroup(Id);
    });
  for (std::thread &T : Threads)
    T.join();
  EXPECT_EQ(Wrong, 0u);
  EXPECT_EQ(Fills, 1u);
  EXPECT_FALSE(L->isPending());
  EXPECT_EQ(L->numGroups(), 3u);
  EXPECT_EQ(L->groupName(2), "more bs");
  EXPECT_EQ(L->groupRange(1), std::make_pair(3u, 4u));
  EXPECT_EQ(L->sectionName(1), "B");
  EXPECT_EQ(L->findSection("B"), 1u);
  EXPECT_EQ(L->lookup(1, "b1"), 4u);
  EXPECT_EQ(L->lookup(0, "b1"), std::nullopt);
  EXPECT_EQ(L->checksum(), Built.checksum());
}

TEST(DeferredLayoutTest, ALookupFillsIt) {
  Layout Built("two");
  fillTwoSections(Built);
  std::shared_ptr<const Layout> L =
      Layout::deferred("two", {3, 5}, Built.checksum(),
                       [](Layout &Into) { fillTwoSections(Into); });
  EXPECT_EQ(L->lookup(0, "a2"), 2u);
  EXPECT_FALSE(L->isPending());
}

} // namespace
