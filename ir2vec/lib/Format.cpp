//===- Format.cpp - Printing embeddings -----------------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Fast, exact "%.2f" and shortest round-trip number formatting.
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Format.h"

#include "llvm/Support/raw_ostream.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

using namespace llvm;

namespace irtk::ir2vec {

/// Above this magnitude the fast path's integer and exactness arguments no
/// longer hold; snprintf handles it (such values do not occur in practice).
static constexpr double FastPathLimit = 1e13;

size_t formatFixed2(double X, char *Buf) {
  if (!(std::fabs(X) < FastPathLimit)) // Also catches NaN.
    return std::snprintf(Buf, MaxNumberChars, "%.2f", X);

  bool Negative = std::signbit(X);
  double A = std::fabs(X);
  // The exact value of A * 100 is P + Err: P is the rounded product and the
  // fma recovers the rounding error exactly.
  double P = A * 100.0;
  double Err = std::fma(A, 100.0, -P);
  double F = std::floor(P);
  // P - F and (P - F) - 0.5 are exact because P < 2^51, so ulp(P) <= 0.5.
  double D = (P - F) - 0.5;
  uint64_t N = static_cast<uint64_t>(F);
  // Compare D + Err with 0 exactly: the exact product is above, below or on
  // the half-way point between F and F + 1.
  if (D > -Err || (D == -Err && (N & 1)))
    ++N;

  char Tmp[32];
  char *End = Tmp + sizeof(Tmp);
  char *Cur = End;
  unsigned Frac = N % 100;
  uint64_t Int = N / 100;
  *--Cur = char('0' + Frac % 10);
  *--Cur = char('0' + Frac / 10);
  *--Cur = '.';
  do {
    *--Cur = char('0' + Int % 10);
    Int /= 10;
  } while (Int);
  if (Negative)
    *--Cur = '-';
  size_t Len = End - Cur;
  std::memcpy(Buf, Cur, Len);
  return Len;
}

size_t formatShortest(double X, char *Buf) {
  if (!std::isfinite(X)) {
    std::memcpy(Buf, "null", 4);
    return 4;
  }
  std::to_chars_result R = std::to_chars(Buf, Buf + MaxNumberChars, X);
  return R.ptr - Buf;
}

void printVector(raw_ostream &OS, ArrayRef<double> V) {
  char Buf[MaxNumberChars + 2];
  OS << " [";
  for (double X : V) {
    Buf[0] = ' ';
    size_t Len = formatFixed2(X, Buf + 1);
    Buf[Len + 1] = ' ';
    OS.write(Buf, Len + 2);
  }
  OS << "]\n";
}

void printJSONVector(raw_ostream &OS, ArrayRef<double> V) {
  char Buf[MaxNumberChars];
  OS << '[';
  for (size_t I = 0; I < V.size(); ++I) {
    if (I)
      OS << ',';
    OS.write(Buf, formatShortest(V[I], Buf));
  }
  OS << ']';
}

void printJSONString(raw_ostream &OS, StringRef S) {
  static const char Hex[] = "0123456789abcdef";
  OS << '"';
  for (unsigned char C : S) {
    switch (C) {
    case '"':
      OS << "\\\"";
      break;
    case '\\':
      OS << "\\\\";
      break;
    case '\n':
      OS << "\\n";
      break;
    case '\t':
      OS << "\\t";
      break;
    case '\r':
      OS << "\\r";
      break;
    default:
      if (C < 0x20)
        OS << "\\u00" << Hex[C >> 4] << Hex[C & 15];
      else
        OS << C;
    }
  }
  OS << '"';
}

} // namespace irtk::ir2vec
