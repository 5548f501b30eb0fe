//===- FormatTest.cpp - Number formatting tests ---------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// formatFixed2 must print exactly what printf("%.2f") prints, which is what
/// upstream's output uses; snprintf is the oracle.
///
//===----------------------------------------------------------------------===//

#include "irtk/support/Format.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

using namespace irtk::support;

namespace {

std::string fixed2(double X) {
  char Buf[MaxNumberChars];
  return std::string(Buf, formatFixed2(X, Buf));
}

std::string printfFixed2(double X) {
  char Buf[MaxNumberChars];
  int N = std::snprintf(Buf, sizeof(Buf), "%.2f", X);
  return std::string(Buf, N);
}

TEST(FormatTest, SpecialValues) {
  const double Cases[] = {0.0,
                          -0.0,
                          -0.001,
                          0.005,
                          0.015,
                          0.125, // exact tie: to even
                          0.375, // exact tie: to even
                          2.675, // below the tie in binary
                          1.005,
                          99.995,
                          -7.125,
                          413.20000000298023,
                          9999999999999.995,
                          1e13,
                          -1e300,
                          std::numeric_limits<double>::denorm_min(),
                          std::numeric_limits<double>::infinity(),
                          -std::numeric_limits<double>::infinity(),
                          std::numeric_limits<double>::quiet_NaN()};
  for (double X : Cases)
    EXPECT_EQ(fixed2(X), printfFixed2(X)) << "value " << X;
}

TEST(FormatTest, AllTiesOfEighths) {
  for (int K = -4000; K <= 4000; ++K) {
    double X = K / 8.0;
    ASSERT_EQ(fixed2(X), printfFixed2(X)) << "value " << X;
  }
}

TEST(FormatTest, RandomValuesAgreeWithPrintf) {
  std::mt19937_64 Gen(42);
  std::uniform_real_distribution<double> Mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> Exponent(-8, 14);
  for (int I = 0; I < 200000; ++I) {
    double X = Mantissa(Gen) * std::pow(10.0, Exponent(Gen));
    ASSERT_EQ(fixed2(X), printfFixed2(X)) << "value " << X;
    // Values near a rounding boundary: k/100 +- a few ulps.
    double B = std::round(X * 100) / 100 + 0.005;
    for (double Y : {B, std::nextafter(B, 0.0), std::nextafter(B, 1e300)})
      ASSERT_EQ(fixed2(Y), printfFixed2(Y)) << "value " << Y;
  }
}

TEST(FormatTest, UpstreamVectorShape) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printVector(OS, {1.0, 2.0});
  EXPECT_EQ(S, " [ 1.00  2.00 ]\n");
}

TEST(FormatTest, JSONVectorRoundTrips) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printJSONVector(OS, {0.1, 413.20000000298023, -2.0,
                       std::numeric_limits<double>::infinity()});
  EXPECT_EQ(S, "[0.1,413.20000000298023,-2,null]");
}

TEST(FormatTest, JSONStringEscapes) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printJSONString(OS, "a\"b\\c\n\x01");
  EXPECT_EQ(S, "\"a\\\"b\\\\c\\n\\u0001\"");
}

TEST(FormatTest, JSONStringEscapesAtEveryPlace) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printJSONString(OS, "\tab\"\r\x1f");
  printJSONString(OS, "");
  printJSONString(OS, "plain");
  EXPECT_EQ(S, "\"\\tab\\\"\\r\\u001f\"\"\"\"plain\"");
}

TEST(FormatTest, JSONVectorLongerThanItsBuffer) {
  // Numbers of 20-odd characters, 1000 of them: several buffers' worth.
  std::vector<double> V;
  std::string Expected = "[";
  for (int I = 0; I < 1000; ++I) {
    V.push_back(-1.0 / (I + 3));
    char Buf[MaxNumberChars];
    if (I)
      Expected += ',';
    Expected.append(Buf, formatShortest(V.back(), Buf));
  }
  Expected += ']';
  std::string S;
  llvm::raw_string_ostream OS(S);
  printJSONVector(OS, V);
  EXPECT_GT(S.size(), 3 * 4096u);
  EXPECT_EQ(S, Expected);
}

TEST(FormatTest, JSONObjectWriterKeepsMemberOrder) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  {
    JSONObjectWriter W(OS);
    W.string("name", "f\"")
        .number("index", 3)
        .vector("v", {1.5, -2})
        .raw("extra", "true");
  }
  EXPECT_EQ(S, "{\"name\":\"f\\\"\",\"index\":3,\"v\":[1.5,-2],"
               "\"extra\":true}\n");
}

TEST(FormatTest, JSONObjectWriterEmptyWithoutNewline) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  // A temporary: opened and closed in one statement.
  (void)JSONObjectWriter(OS, /*NewLine=*/false);
  EXPECT_EQ(S, "{}");
}

} // namespace

namespace {

std::string cached(CachedVectorPrinter &P, llvm::ArrayRef<double> V) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  P.print(OS, V);
  return S;
}

TEST(FormatTest, CachedPrinterMatchesPrintVector) {
  CachedVectorPrinter P;
  std::mt19937_64 Gen(7);
  std::uniform_int_distribution<int> Pick(0, 9);
  std::vector<std::vector<double>> Pool;
  for (int I = 0; I < 10; ++I)
    Pool.push_back({I * 1.125, -I / 3.0, 1e14 * I});
  // Repeats hit the cache; every answer must equal the uncached one.
  for (int I = 0; I < 1000; ++I) {
    const std::vector<double> &V = Pool[Pick(Gen)];
    std::string Expected;
    llvm::raw_string_ostream OS(Expected);
    printVector(OS, V);
    ASSERT_EQ(cached(P, V), Expected);
  }
}

TEST(FormatTest, CachedPrinterTellsZeroSigns) {
  CachedVectorPrinter P;
  EXPECT_EQ(cached(P, {0.0, 1.0}), " [ 0.00  1.00 ]\n");
  EXPECT_EQ(cached(P, {-0.0, 1.0}), " [ -0.00  1.00 ]\n");
  EXPECT_EQ(cached(P, {0.0, 1.0}), " [ 0.00  1.00 ]\n");
}

} // namespace
