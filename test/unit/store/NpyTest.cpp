//===- NpyTest.cpp - .npy writing and reading -----------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The header text is compared with what numpy.save writes for the same
/// array (numpy 1.24: "{'descr': '<f4', 'fortran_order': False, 'shape': (3,
/// 2), }" padded to a multiple of 64 bytes); every rejected file is a test.
///
//===----------------------------------------------------------------------===//

#include "irtk/store/Npy.h"

#include "../TestHelpers.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace irtk::store;
using namespace llvm;

namespace {

class NpyTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("irtk-npy-test", Dir));
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }

  std::string path(StringRef Name) {
    SmallString<128> P(Dir);
    sys::path::append(P, Name);
    return std::string(P);
  }
  /// Writes \p Header followed by \p Floats raw floats to a file.
  std::string writeRaw(StringRef Header, size_t Floats) {
    std::string P = path("raw.npy");
    std::error_code EC;
    raw_fd_ostream OS(P, EC);
    OS << Header;
    for (size_t I = 0; I < Floats; ++I) {
      float F = static_cast<float>(I);
      OS.write(reinterpret_cast<const char *>(&F), sizeof F);
    }
    return P;
  }
  /// A version 1.0 header around \p Dict.
  static std::string v1Header(StringRef Dict) {
    std::string D = Dict.str() + "\n";
    std::string H = "\x93NUMPY\x01";
    H += '\0';
    H += static_cast<char>(D.size() & 0xff);
    H += static_cast<char>(D.size() >> 8);
    return H + D;
  }
  std::string errorOf(StringRef File) {
    Expected<NpyMatrix> M = NpyMatrix::open(File);
    if (M)
      return "";
    return toString(M.takeError());
  }

  SmallString<128> Dir;
};

TEST_F(NpyTest, HeaderIsNumpysV1Layout) {
  std::string H = makeNpyHeader(3, 2);
  ASSERT_EQ(H.size(), NpyHeaderSize);
  EXPECT_EQ(H.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(uint8_t(H[8]) | uint8_t(H[9]) << 8, NpyHeaderSize - 10);
  EXPECT_EQ(StringRef(H).substr(10).rtrim(" \n"),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }");
  EXPECT_EQ(H.back(), '\n');
}

TEST_F(NpyTest, HeaderHasRoomForAnyShape) {
  EXPECT_EQ(makeNpyHeader(UINT64_MAX, UINT32_MAX).size(), NpyHeaderSize);
}

TEST_F(NpyTest, FileRoundTrip) {
  std::vector<float> V = {1.5f, -2.25f, 3.0f, 0.1f, 1e30f, -0.0f};
  IRTK_EXPECT_SUCCESS(writeNpyFile(path("m.npy"), V, 3));
  Expected<NpyMatrix> M = NpyMatrix::open(path("m.npy"));
  IRTK_ASSERT_OK(M);
  EXPECT_EQ(M->rows(), 2u);
  EXPECT_EQ(M->cols(), 3u);
  EXPECT_EQ(std::memcmp(M->data(), V.data(), V.size() * sizeof(float)), 0);
  EXPECT_EQ(M->row(1)[1], 1e30f);
}

TEST_F(NpyTest, WriterFixesTheShapeOnFinish) {
  Expected<std::unique_ptr<NpyWriter>> W = NpyWriter::create(path("w.npy"), 2);
  IRTK_ASSERT_OK(W);
  (*W)->append({1, 2, 3, 4});
  (*W)->append({});
  (*W)->append({5, 6});
  IRTK_EXPECT_SUCCESS((*W)->finish());
  Expected<NpyMatrix> M = NpyMatrix::open(path("w.npy"));
  IRTK_ASSERT_OK(M);
  EXPECT_EQ(M->rows(), 3u);
  EXPECT_EQ(M->row(2)[1], 6.0f);
}

TEST_F(NpyTest, EmptyMatrix) {
  IRTK_EXPECT_SUCCESS(writeNpyFile(path("e.npy"), {}, 75));
  Expected<NpyMatrix> M = NpyMatrix::open(path("e.npy"));
  IRTK_ASSERT_OK(M);
  EXPECT_EQ(M->rows(), 0u);
  EXPECT_EQ(M->cols(), 75u);
}

TEST_F(NpyTest, ReadsVersion2HeadersAndDoubleQuotes) {
  std::string D =
      "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2, 1)}\n";
  std::string H = "\x93NUMPY\x02";
  H += '\0';
  H += static_cast<char>(D.size());
  H += std::string(3, '\0');
  Expected<NpyMatrix> M = NpyMatrix::open(writeRaw(H + D, 2));
  IRTK_ASSERT_OK(M);
  EXPECT_EQ(M->rows(), 2u);
  EXPECT_EQ(M->row(1)[0], 1.0f);
}

TEST_F(NpyTest, UnalignedDataIsCopied) {
  // A compact dictionary puts the data at offset 62, not a multiple of 4.
  Expected<NpyMatrix> M = NpyMatrix::open(writeRaw(
      v1Header("{'descr':'<f4','fortran_order':False,'shape':(2,2)}"), 4));
  IRTK_ASSERT_OK(M);
  EXPECT_EQ(M->row(1)[1], 3.0f);
}

TEST_F(NpyTest, MissingFile) {
  EXPECT_EQ(errorOf(path("none.npy")),
            path("none.npy") + ": cannot read: No such file or directory");
}

TEST_F(NpyTest, BadMagic) {
  EXPECT_EQ(errorOf(writeRaw("not numpy at all", 0)),
            path("raw.npy") + ": not a .npy file (bad magic)");
}

TEST_F(NpyTest, TruncatedHeader) {
  EXPECT_EQ(errorOf(writeRaw(makeNpyHeader(1, 1).substr(0, 40), 0)),
            path("raw.npy") + ": truncated .npy header");
}

TEST_F(NpyTest, WrongDtype) {
  std::string E = errorOf(writeRaw(
      v1Header("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }"),
      4));
  EXPECT_EQ(E, path("raw.npy") +
                   ": unsupported dtype '<f8'; expected '<f4' (little-endian "
                   "float32)");
}

TEST_F(NpyTest, FortranOrder) {
  std::string E = errorOf(writeRaw(
      v1Header("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }"),
      4));
  EXPECT_EQ(E, path("raw.npy") +
                   ": Fortran-order data is not supported; expected C order");
}

TEST_F(NpyTest, OneDimensionalShape) {
  std::string E = errorOf(writeRaw(
      v1Header("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }"),
      4));
  EXPECT_EQ(E, path("raw.npy") +
                   ": shape (4,) is not 2-D; expected (rows, dimension)");
}

TEST_F(NpyTest, TruncatedData) {
  std::string E = errorOf(writeRaw(makeNpyHeader(3, 2), 5));
  EXPECT_EQ(E, path("raw.npy") +
                   ": data is 20 bytes; shape (3, 2) float32 needs 24 "
                   "(truncated?)");
}

TEST_F(NpyTest, TrailingData) {
  std::string E = errorOf(writeRaw(makeNpyHeader(1, 2), 3));
  EXPECT_EQ(E, path("raw.npy") +
                   ": data is 12 bytes; shape (1, 2) float32 needs 8");
}

TEST_F(NpyTest, MissingKey) {
  std::string E =
      errorOf(writeRaw(v1Header("{'descr': '<f4', 'shape': (1, 2), }"), 2));
  EXPECT_EQ(E, path("raw.npy") + ": header lacks 'fortran_order'");
}

TEST_F(NpyTest, NotADictionary) {
  EXPECT_EQ(errorOf(writeRaw(v1Header("[1, 2]"), 0)),
            path("raw.npy") + ": header is not a dictionary");
}

} // namespace
