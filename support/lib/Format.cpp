//===- Format.cpp - Printing numbers, vectors and JSON --------------------===//
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

#include "irtk/support/Format.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

using namespace llvm;

namespace irtk::support {

/// Above this magnitude the fast path's integer arithmetic no longer holds;
/// snprintf handles it (such values do not occur in practice).
static constexpr double FastPathLimit = 1e13;

/// "00".."99", for writing two digits at a time.
static constexpr char DigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536"
    "37383940414243444546474849505152535455565758596061626364656667686970717273"
    "7475767778798081828384858687888990919293949596979899";

/// round(|X| * 100) with ties to even, computed exactly in integers: |X| is
/// Mant * 2^E with a 53-bit Mant, so |X| * 100 is (Mant * 100) * 2^E with
/// Mant * 100 < 2^60, and rounding it is a shift with a sticky remainder.
static uint64_t roundHundredths(double X) {
  uint64_t Bits;
  std::memcpy(&Bits, &X, sizeof(Bits));
  unsigned BiasedExp = (Bits >> 52) & 0x7ff;
  if (BiasedExp == 0) // Zero or subnormal: far below 0.005.
    return 0;
  uint64_t Mant = (Bits & ((uint64_t(1) << 52) - 1)) | (uint64_t(1) << 52);
  int Shift = 1075 - static_cast<int>(BiasedExp); // |X| = Mant * 2^-Shift
  uint64_t Scaled = Mant * 100;
  // |X| < 1e13 < 2^52, so Shift > 0. Past 63 bits the value is < 1/16.
  if (Shift > 63)
    return 0;
  uint64_t Q = Scaled >> Shift;
  uint64_t R = Scaled & ((uint64_t(1) << Shift) - 1);
  uint64_t Half = uint64_t(1) << (Shift - 1);
  if (R > Half || (R == Half && (Q & 1)))
    ++Q;
  return Q;
}

/// Number of decimal digits of \p V (at least 1).
static unsigned countDigits(uint64_t V) {
  unsigned N = 1;
  while (V >= 10000) {
    V /= 10000;
    N += 4;
  }
  if (V >= 1000)
    return N + 3;
  if (V >= 100)
    return N + 2;
  if (V >= 10)
    return N + 1;
  return N;
}

/// Writes \p X as "%.2f" at \p Out and returns the end. Needs
/// MaxNumberChars bytes of room.
static char *writeFixed2(double X, char *Out) {
  if (!(std::fabs(X) < FastPathLimit)) // Also catches NaN.
    return Out + std::snprintf(Out, MaxNumberChars, "%.2f", X);
  uint64_t N = roundHundredths(X);
  if (std::signbit(X))
    *Out++ = '-';
  uint64_t Int = N / 100;
  unsigned Frac = static_cast<unsigned>(N - Int * 100);
  char *End = Out + countDigits(Int);
  char *Cur = End;
  while (Int >= 100) {
    uint64_t Q = Int / 100;
    Cur -= 2;
    std::memcpy(Cur, DigitPairs + 2 * (Int - Q * 100), 2);
    Int = Q;
  }
  if (Int >= 10)
    std::memcpy(Cur - 2, DigitPairs + 2 * Int, 2);
  else
    Cur[-1] = char('0' + Int);
  End[0] = '.';
  std::memcpy(End + 1, DigitPairs + 2 * Frac, 2);
  return End + 3;
}

size_t formatFixed2(double X, char *Buf) { return writeFixed2(X, Buf) - Buf; }

size_t formatShortest(double X, char *Buf) {
  if (!std::isfinite(X)) {
    std::memcpy(Buf, "null", 4);
    return 4;
  }
  std::to_chars_result R = std::to_chars(Buf, Buf + MaxNumberChars, X);
  return R.ptr - Buf;
}

void writeJSONNumber(raw_ostream &OS, double X) {
  if (X == 0 && std::signbit(X)) {
    OS << "-0.0";
    return;
  }
  char Buf[MaxNumberChars];
  OS.write(Buf, formatShortest(X, Buf));
}

void printVector(raw_ostream &OS, ArrayRef<double> V) {
  // Formatted in a local buffer and handed to the stream in large writes.
  char Buf[8192];
  char *Cur = Buf;
  *Cur++ = ' ';
  *Cur++ = '[';
  for (double X : V) {
    if (Cur + MaxNumberChars + 4 > Buf + sizeof(Buf)) {
      OS.write(Buf, Cur - Buf);
      Cur = Buf;
    }
    *Cur++ = ' ';
    Cur = writeFixed2(X, Cur);
    *Cur++ = ' ';
  }
  *Cur++ = ']';
  *Cur++ = '\n';
  OS.write(Buf, Cur - Buf);
}

void CachedVectorPrinter::print(raw_ostream &OS, ArrayRef<double> V) {
  ArrayRef<uint8_t> Bytes(reinterpret_cast<const uint8_t *>(V.data()),
                          V.size() * sizeof(double));
  uint64_t Hash = xxh3_64bits(Bytes);
  auto It = Index.find(Hash);
  if (It != Index.end()) {
    const Entry &E = Entries[It->second];
    // Bitwise comparison: -0.0 and 0.0 print differently.
    if (E.Key.size() == V.size() &&
        std::memcmp(E.Key.data(), V.data(), Bytes.size()) == 0) {
      OS << E.Text;
      return;
    }
    printVector(OS, V); // A hash collision: print without remembering.
    return;
  }
  if (Entries.size() >= MaxEntries) {
    printVector(OS, V);
    return;
  }
  Scratch.clear();
  raw_string_ostream SS(Scratch);
  printVector(SS, V);
  Index[Hash] = Entries.size();
  Entries.push_back({V.vec(), Scratch});
  OS << Scratch;
}

void printJSONVector(raw_ostream &OS, ArrayRef<double> V) {
  // Formatted in a local buffer and handed to the stream in large writes:
  // a recorder in the compiler writes tens of thousands of numbers.
  char Buf[4096];
  char *Cur = Buf;
  *Cur++ = '[';
  for (size_t I = 0; I < V.size(); ++I) {
    if (Cur + MaxNumberChars + 2 > Buf + sizeof(Buf)) {
      OS.write(Buf, Cur - Buf);
      Cur = Buf;
    }
    if (I)
      *Cur++ = ',';
    Cur += formatShortest(V[I], Cur);
  }
  *Cur++ = ']';
  OS.write(Buf, Cur - Buf);
}

void printJSONString(raw_ostream &OS, StringRef S) {
  // Most names and every key: printable ASCII without a quote or a
  // backslash, valid UTF-8 that needs no escape, checked in one pass.
  if (llvm::all_of(S, [](char C) {
        auto U = static_cast<unsigned char>(C);
        return U >= 0x20 && U < 0x80 && U != '"' && U != '\\';
      })) {
    OS << '"' << S << '"';
    return;
  }
  static const char Hex[] = "0123456789abcdef";
  // JSON is UTF-8; LLVM names are bytes. An invalid sequence becomes U+FFFD
  // so that every line still parses.
  std::string Fixed;
  if (!json::isUTF8(S)) {
    Fixed = json::fixUTF8(S);
    S = Fixed;
  }
  OS << '"';
  // Runs of characters that need no escape go out in one write.
  size_t Run = 0;
  for (size_t I = 0; I < S.size(); ++I) {
    unsigned char C = S[I];
    if (C >= 0x20 && C != '"' && C != '\\')
      continue;
    OS.write(S.data() + Run, I - Run);
    Run = I + 1;
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
      OS << "\\u00" << Hex[C >> 4] << Hex[C & 15];
    }
  }
  OS.write(S.data() + Run, S.size() - Run);
  OS << '"';
}

JSONObjectWriter::JSONObjectWriter(raw_ostream &OS, bool NewLine)
    : OS(OS), NewLine(NewLine) {
  OS << '{';
}

JSONObjectWriter::~JSONObjectWriter() {
  OS << '}';
  if (NewLine)
    OS << '\n';
}

void JSONObjectWriter::key(StringRef Key) {
  if (!First)
    OS << ',';
  First = false;
  printJSONString(OS, Key);
  OS << ':';
}

JSONObjectWriter &JSONObjectWriter::string(StringRef Key, StringRef Value) {
  key(Key);
  printJSONString(OS, Value);
  return *this;
}

JSONObjectWriter &JSONObjectWriter::number(StringRef Key, uint64_t Value) {
  key(Key);
  OS << Value;
  return *this;
}

JSONObjectWriter &JSONObjectWriter::real(StringRef Key, double Value) {
  key(Key);
  char Buf[MaxNumberChars];
  OS.write(Buf, formatShortest(Value, Buf));
  return *this;
}

JSONObjectWriter &
JSONObjectWriter::object(StringRef Key,
                         function_ref<void(JSONObjectWriter &)> Members) {
  key(Key);
  JSONObjectWriter Inner(OS, /*NewLine=*/false);
  Members(Inner);
  return *this;
}

JSONObjectWriter &JSONObjectWriter::vector(StringRef Key, ArrayRef<double> V) {
  key(Key);
  printJSONVector(OS, V);
  return *this;
}

JSONObjectWriter &JSONObjectWriter::raw(StringRef Key, StringRef Raw) {
  key(Key);
  OS << Raw;
  return *this;
}

} // namespace irtk::support
