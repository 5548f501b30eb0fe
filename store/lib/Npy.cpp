//===- Npy.cpp - float32 matrices in NumPy's .npy format ------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The header is a Python dict literal, e.g.
/// "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }". The parser
/// here reads the subset NumPy and other writers produce: string keys,
/// string, boolean and integer-tuple values. See
/// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
///
//===----------------------------------------------------------------------===//

#include "irtk/store/Npy.h"
#include "ReadInput.h"
#include "irtk/support/OutputFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SwapByteOrder.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <map>
#include <optional>
#include <vector>

using namespace llvm;

/// \p S with control characters escaped, for echoing file contents in a
/// one-line error.
static std::string printable(StringRef S) {
  std::string Out;
  raw_string_ostream OS(Out);
  OS.write_escaped(S);
  return Out;
}

namespace irtk::store {

static constexpr StringLiteral Magic("\x93NUMPY");

static Error npyError(StringRef Name, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Name + ": " + Msg);
}

std::string makeNpyHeader(uint64_t Rows, uint64_t Cols) {
  std::string Dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
                     std::to_string(Rows) + ", " + std::to_string(Cols) +
                     "), }";
  // Magic (6), version (2), length (2), dictionary, spaces, newline.
  const size_t Len = NpyHeaderSize - 10;
  assert(Dict.size() < Len && "the header has room for any 64-bit shape");
  Dict.resize(Len - 1, ' ');
  Dict += '\n';
  std::string H(Magic);
  H += '\x01';
  H += '\x00';
  H += static_cast<char>(Len & 0xff);
  H += static_cast<char>(Len >> 8);
  return H + Dict;
}

namespace {
/// A value of the header dictionary.
struct HeaderValue {
  enum { String, Bool, Tuple } Type;
  std::string Str;
  bool Flag = false;
  std::vector<uint64_t> Dims;
};

/// Reads the Python literal subset of NPY headers.
class HeaderParser {
public:
  explicit HeaderParser(StringRef Text) : Rest(Text) {}

  /// Parses the dictionary into \p Out; returns a description of the first
  /// problem, or an empty string.
  std::string parseDict(std::map<std::string, HeaderValue> &Out) {
    if (!consume('{'))
      return "header is not a dictionary";
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::optional<std::string> Key = parseString();
      if (!Key)
        return "header key is not a string";
      if (!consume(':'))
        return "expected ':' after '" + *Key + "' in the header";
      std::optional<HeaderValue> V = parseValue();
      if (!V)
        return "unreadable value of '" + *Key + "' in the header";
      if (!Out.emplace(*Key, std::move(*V)).second)
        return "'" + *Key + "' given twice in the header";
      if (consume(','))
        continue;
      if (consume('}'))
        break;
      return "expected ',' or '}' in the header";
    }
    skipSpace();
    if (!Rest.empty())
      return "unexpected text after the header dictionary";
    return "";
  }

private:
  void skipSpace() { Rest = Rest.ltrim(" \t\r\n"); }
  bool consume(char C) {
    skipSpace();
    return Rest.consume_front(StringRef(&C, 1));
  }
  std::optional<std::string> parseString() {
    skipSpace();
    if (Rest.empty() || (Rest[0] != '\'' && Rest[0] != '"'))
      return std::nullopt;
    char Quote = Rest[0];
    size_t End = Rest.find(Quote, 1);
    if (End == StringRef::npos)
      return std::nullopt;
    std::string S = Rest.slice(1, End).str();
    Rest = Rest.drop_front(End + 1);
    return S;
  }
  std::optional<HeaderValue> parseValue() {
    skipSpace();
    HeaderValue V;
    if (Rest.consume_front("True")) {
      V.Type = HeaderValue::Bool;
      V.Flag = true;
      return V;
    }
    if (Rest.consume_front("False")) {
      V.Type = HeaderValue::Bool;
      return V;
    }
    if (!Rest.empty() && Rest[0] == '(') {
      Rest = Rest.drop_front();
      V.Type = HeaderValue::Tuple;
      while (true) {
        skipSpace();
        if (consume(')'))
          return V;
        uint64_t N;
        size_t Digits = Rest.find_first_not_of("0123456789");
        if (Digits == 0 || Rest.substr(0, Digits).getAsInteger(10, N))
          return std::nullopt;
        Rest = Rest.drop_front(std::min(Digits, Rest.size()));
        Rest.consume_front("L"); // Python 2's long literals.
        V.Dims.push_back(N);
        if (consume(','))
          continue;
        if (consume(')'))
          return V;
        return std::nullopt;
      }
    }
    std::optional<std::string> S = parseString();
    if (!S)
      return std::nullopt;
    V.Type = HeaderValue::String;
    V.Str = std::move(*S);
    return V;
  }

  StringRef Rest;
};
} // namespace

Expected<NpyShape> parseNpyHeader(StringRef File, StringRef Name) {
  if (!File.starts_with(Magic))
    return npyError(Name, "not a .npy file (bad magic)");
  if (File.size() < 10)
    return npyError(Name, "truncated .npy header");
  unsigned Major = static_cast<unsigned char>(File[6]);
  size_t LenBytes = Major == 1 ? 2 : 4;
  if (Major < 1 || Major > 3)
    return npyError(Name, "unsupported .npy version " + Twine(Major) + "." +
                              Twine(static_cast<unsigned char>(File[7])));
  if (File.size() < 8 + LenBytes)
    return npyError(Name, "truncated .npy header");
  uint64_t Len = LenBytes == 2
                     ? llvm::support::endian::read16le(File.data() + 8)
                     : llvm::support::endian::read32le(File.data() + 8);
  NpyShape Shape;
  Shape.DataOffset = 8 + LenBytes + Len;
  if (File.size() < Shape.DataOffset)
    return npyError(Name, "truncated .npy header");
  StringRef Text = File.slice(8 + LenBytes, Shape.DataOffset);

  std::map<std::string, HeaderValue> Dict;
  std::string Problem = HeaderParser(Text).parseDict(Dict);
  if (!Problem.empty())
    return npyError(Name, Problem);
  for (const char *Key : {"descr", "fortran_order", "shape"})
    if (!Dict.count(Key))
      return npyError(Name, "header lacks '" + Twine(Key) + "'");
  if (Dict.size() != 3)
    for (const auto &[Key, V] : Dict)
      if (Key != "descr" && Key != "fortran_order" && Key != "shape")
        return npyError(Name, "unexpected header key '" + Key + "'");
  const HeaderValue &Descr = Dict["descr"], &Order = Dict["fortran_order"],
                    &Dims = Dict["shape"];
  if (Descr.Type != HeaderValue::String)
    return npyError(Name, "'descr' is not a dtype string");
  if (Descr.Str != "<f4")
    return npyError(Name, "unsupported dtype '" + printable(Descr.Str) +
                              "'; expected '<f4' (little-endian float32)");
  if (Order.Type != HeaderValue::Bool)
    return npyError(Name, "'fortran_order' is not True or False");
  if (Order.Flag)
    return npyError(Name, "Fortran-order data is not supported; expected "
                          "C order");
  if (Dims.Type != HeaderValue::Tuple)
    return npyError(Name, "'shape' is not a tuple");
  if (Dims.Dims.size() != 2) {
    std::string S = "(";
    for (size_t I = 0; I < Dims.Dims.size(); ++I)
      S += (I ? ", " : "") + std::to_string(Dims.Dims[I]);
    S += Dims.Dims.size() == 1 ? ",)" : ")";
    return npyError(Name,
                    "shape " + S + " is not 2-D; expected (rows, dimension)");
  }
  Shape.Rows = Dims.Dims[0];
  Shape.Cols = Dims.Dims[1];
  if (Shape.Cols == 0 || Shape.Cols > UINT32_MAX)
    return npyError(Name, "unsupported dimension " + Twine(Shape.Cols));
  uint64_t Have = File.size() - Shape.DataOffset;
  // The product is only computed where it cannot wrap around.
  bool Huge = Shape.Rows > UINT64_MAX / 4 / Shape.Cols;
  uint64_t Need = Huge ? 0 : Shape.Rows * Shape.Cols * 4;
  if (Huge || Need != Have)
    return npyError(Name, "data is " + Twine(Have) + " bytes; shape (" +
                              Twine(Shape.Rows) + ", " + Twine(Shape.Cols) +
                              ") float32 needs " +
                              (Huge ? Twine("more than 2^64") : Twine(Need)) +
                              (Huge || Have < Need ? " (truncated?)" : ""));
  return Shape;
}

NpyWriter::NpyWriter(std::string Path, unsigned Cols,
                     std::unique_ptr<raw_fd_ostream> OS)
    : Path(std::move(Path)), Cols(Cols), OS(std::move(OS)) {}

NpyWriter::~NpyWriter() {
  // finish() not called or failed: a stream destroyed with a pending write
  // error would abort the process.
  if (OS) {
    OS->close();
    OS->clear_error();
  }
}

Expected<std::unique_ptr<NpyWriter>> NpyWriter::create(StringRef Path,
                                                       unsigned Cols) {
  if (!sys::IsLittleEndianHost)
    return npyError(Path, "writing .npy files needs a little-endian host");
  std::error_code EC;
  auto OS = std::make_unique<raw_fd_ostream>(Path, EC, sys::fs::OF_None);
  if (EC)
    return npyError(Path, "cannot create: " + EC.message());
  *OS << makeNpyHeader(0, Cols);
  return std::unique_ptr<NpyWriter>(
      new NpyWriter(Path.str(), Cols, std::move(OS)));
}

void NpyWriter::append(ArrayRef<float> Values) {
  assert(Values.size() % Cols == 0 && "whole rows only");
  OS->write(reinterpret_cast<const char *>(Values.data()),
            Values.size() * sizeof(float));
  Rows += Values.size() / Cols;
}

Error NpyWriter::finish() {
  OS->seek(0);
  *OS << makeNpyHeader(Rows, Cols);
  Error E = support::takeWriteError(*OS, Path);
  OS.reset();
  return E;
}

Error writeNpyFile(StringRef Path, ArrayRef<float> Values, unsigned Cols) {
  assert(Cols && Values.size() % Cols == 0 && "whole rows only");
  if (!sys::IsLittleEndianHost)
    return npyError(Path, "writing .npy files needs a little-endian host");
  return support::writeOutputFile(Path, [&](raw_ostream &OS) {
    OS << makeNpyHeader(Values.size() / Cols, Cols);
    OS.write(reinterpret_cast<const char *>(Values.data()),
             Values.size() * sizeof(float));
    return Error::success();
  });
}

/// Asks the kernel to map every page of \p Data now: a search reads all of
/// them, and one call is several times cheaper than a page fault per 4 KB
/// (0.1 s for a 300 MB matrix). Only a hint; ignored where unsupported.
static void prefault(StringRef Data) {
#if defined(__linux__) && defined(MADV_POPULATE_READ)
  const uintptr_t Page = sys::Process::getPageSizeEstimate();
  uintptr_t Begin = reinterpret_cast<uintptr_t>(Data.data()) & ~(Page - 1);
  uintptr_t End = reinterpret_cast<uintptr_t>(Data.data()) + Data.size();
  (void)::madvise(reinterpret_cast<void *>(Begin), End - Begin,
                  MADV_POPULATE_READ);
#endif
}

NpyMatrix::NpyMatrix(NpyMatrix &&) = default;
NpyMatrix &NpyMatrix::operator=(NpyMatrix &&) = default;
NpyMatrix::~NpyMatrix() = default;

Expected<NpyMatrix> NpyMatrix::open(StringRef Path) {
  if (!sys::IsLittleEndianHost)
    return npyError(Path, "reading .npy files needs a little-endian host");
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readInput(Path);
  if (!Buf)
    return Buf.takeError();
  Expected<NpyShape> Shape = parseNpyHeader((*Buf)->getBuffer(), Path);
  if (!Shape)
    return Shape.takeError();
  NpyMatrix M;
  M.Rows = Shape->Rows;
  M.Cols = static_cast<unsigned>(Shape->Cols);
  const char *Start = (*Buf)->getBufferStart() + Shape->DataOffset;
  if (reinterpret_cast<uintptr_t>(Start) % alignof(float) == 0) {
    M.Data = reinterpret_cast<const float *>(Start);
  } else {
    size_t N = M.Rows * M.Cols;
    M.Copy = std::make_unique<float[]>(N ? N : 1);
    std::memcpy(M.Copy.get(), Start, N * sizeof(float));
    M.Data = M.Copy.get();
  }
  M.Buffer = std::move(*Buf);
  prefault(M.Buffer->getBuffer());
  return M;
}

NpyMatrix NpyMatrix::concatenate(std::vector<NpyMatrix> Parts, unsigned Cols) {
  if (Parts.size() == 1)
    return std::move(Parts.front());
  NpyMatrix M;
  M.Cols = Cols;
  for (const NpyMatrix &P : Parts) {
    assert(P.cols() == Cols && "parts of different widths");
    M.Rows += P.rows();
  }
  uint64_t N = M.Rows * Cols;
  M.Copy = std::make_unique<float[]>(N ? N : 1);
  float *Out = M.Copy.get();
  for (const NpyMatrix &P : Parts) {
    std::memcpy(Out, P.data(), P.rows() * Cols * sizeof(float));
    Out += P.rows() * Cols;
  }
  M.Data = M.Copy.get();
  return M;
}

} // namespace irtk::store
