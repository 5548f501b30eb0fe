//===- MLPBinary.cpp - Models without parsing JSON ------------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The binary form of a model file, made by `irtk-train pack` beside the
/// JSON it comes from, so that a compiler loading the model copies numbers
/// rather than parsing them (a 27 kB model took 3.2 M instructions to
/// parse in every clang process). The JSON stays the source of truth: the
/// binary form records the size and hash of the JSON it was made from, and
/// a load refuses it when the JSON has changed. Little-endian:
///
///   "IRTKMLPB"  u32 format  u32 model version (MLPDescription::Version)
///   u64 source size  u64 source hash (xxh3)
///   u64 payload size  u64 payload hash (xxh3)
///   payload:
///     string advisor, decision, mask, training (u32 length, bytes)
///     u32 output kind (0 logit, 1 argmax)  u32 positions
///     u8 has default margin  f64 default margin
///     u32 inputs; each: string name, u32 n, f64 mean[n], f64 scale[n]
///     u32 layers; each: u32 activation (0 linear, 1 relu, 2 tanh),
///         u32 rows, u32 columns, f64 weights[rows][columns], f64 bias[rows]
///     u8 has support  u32 boxes; each: i64 default, u32 bounds;
///         each: u32 input, f64 low, f64 high
///
/// A load checks what the JSON reading checks of the content too (shapes,
/// numbers, output), so a binary form is never trusted further than its
/// source would be.
///
//===----------------------------------------------------------------------===//

#include "irtk/advisors/MLP.h"
#include "irtk/support/JSON.h"
#include "irtk/support/ReadFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/EndianStream.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cmath>
#include <cstring>

using namespace llvm;

namespace irtk::advisors {

static constexpr char Magic[8] = {'I', 'R', 'T', 'K', 'M', 'L', 'P', 'B'};
static constexpr uint32_t FormatVersion = 1;
static constexpr size_t HeaderSize = 48;

std::string MLPDescription::binaryPath(StringRef Path) {
  return (Path + ".bin").str();
}

namespace {
/// Appends little-endian values to a byte string.
class PayloadWriter {
public:
  void u8(uint8_t V) { Out.push_back(static_cast<char>(V)); }
  void u32(uint32_t V) { put(V); }
  void i64(int64_t V) { put(static_cast<uint64_t>(V)); }
  void f64(double V) { put(llvm::bit_cast<uint64_t>(V)); }
  void str(StringRef S) {
    u32(static_cast<uint32_t>(S.size()));
    Out += S;
  }
  void f64s(ArrayRef<double> V) {
    for (double D : V)
      f64(D);
  }
  std::string Out;

private:
  template <typename T> void put(T V) {
    char Buf[sizeof(T)];
    llvm::support::endian::write<T>(Buf, V, llvm::endianness::little);
    Out.append(Buf, sizeof(T));
  }
};

/// Reads little-endian values, failing (once, sticky) at the end.
class PayloadReader {
public:
  explicit PayloadReader(StringRef Bytes)
      : P(Bytes.data()), End(Bytes.data() + Bytes.size()) {}

  bool ok() const { return Ok; }
  bool atEnd() const { return P == End; }

  uint8_t u8() {
    if (!need(1))
      return 0;
    return static_cast<uint8_t>(*P++);
  }
  uint32_t u32() { return get<uint32_t>(); }
  int64_t i64() { return static_cast<int64_t>(get<uint64_t>()); }
  double f64() { return llvm::bit_cast<double>(get<uint64_t>()); }
  std::string str() {
    uint32_t N = u32();
    if (!need(N))
      return {};
    std::string S(P, N);
    P += N;
    return S;
  }
  /// \p N doubles; none (and not ok) if fewer are left.
  std::vector<double> f64s(uint64_t N) {
    if (N > static_cast<uint64_t>(End - P) / 8) {
      Ok = false;
      return {};
    }
    std::vector<double> V(N);
    for (double &D : V)
      D = f64();
    return V;
  }

private:
  bool need(uint64_t N) {
    if (Ok && N <= static_cast<uint64_t>(End - P))
      return true;
    Ok = false;
    return false;
  }
  template <typename T> T get() {
    if (!need(sizeof(T)))
      return 0;
    T V = llvm::support::endian::read<T, llvm::endianness::little>(P);
    P += sizeof(T);
    return V;
  }

  const char *P, *End;
  bool Ok = true;
};
} // namespace

void MLPDescription::writeBinary(StringRef Source, raw_ostream &OS) const {
  PayloadWriter W;
  W.str(Advisor);
  W.str(Decision);
  W.str(Mask);
  W.str(TrainingJSON);
  W.u32(Output == OutputKind::Logit ? 0 : 1);
  W.u32(Positions);
  W.u8(DefaultMargin.has_value());
  W.f64(DefaultMargin.value_or(0.0));
  W.u32(static_cast<uint32_t>(Inputs.size()));
  for (const Input &In : Inputs) {
    W.str(In.Name);
    W.u32(static_cast<uint32_t>(In.Mean.size()));
    W.f64s(In.Mean);
    W.f64s(In.Scale);
  }
  W.u32(static_cast<uint32_t>(Layers.size()));
  for (const Layer &L : Layers) {
    W.u32(static_cast<uint32_t>(L.Activation));
    W.u32(static_cast<uint32_t>(L.Weights.size()));
    W.u32(static_cast<uint32_t>(L.Weights.empty() ? 0 : L.Weights[0].size()));
    for (const std::vector<double> &Row : L.Weights)
      W.f64s(Row);
    W.f64s(L.Bias);
  }
  W.u8(Support.has_value());
  W.u32(Support ? static_cast<uint32_t>(Support->size()) : 0);
  for (const SupportBox &B : Support.value_or(std::vector<SupportBox>())) {
    W.i64(B.Default);
    W.u32(static_cast<uint32_t>(B.Bounds.size()));
    for (const Bound &X : B.Bounds) {
      W.u32(static_cast<uint32_t>(X.Input));
      W.f64(X.Low);
      W.f64(X.High);
    }
  }

  using llvm::support::endian::write;
  constexpr auto LE = llvm::endianness::little;
  OS.write(Magic, sizeof(Magic));
  write<uint32_t>(OS, FormatVersion, LE);
  write<uint32_t>(OS, Version, LE);
  write<uint64_t>(OS, Source.size(), LE);
  write<uint64_t>(OS, xxh3_64bits(Source), LE);
  write<uint64_t>(OS, W.Out.size(), LE);
  write<uint64_t>(OS, xxh3_64bits(W.Out), LE);
  OS << W.Out;
}

Expected<MLPDescription> MLPDescription::loadFromBinary(StringRef Binary,
                                                        StringRef Name,
                                                        StringRef Source,
                                                        StringRef SourceName) {
  auto Fail = [&](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(),
                             Name + ": " + Msg +
                                 "; remake it with `irtk-train pack " +
                                 SourceName + "`");
  };
  if (Binary.size() < HeaderSize ||
      std::memcmp(Binary.data(), Magic, sizeof(Magic)) != 0)
    return Fail("not the binary form of a model");
  const char *H = Binary.data() + sizeof(Magic);
  uint32_t Format = llvm::support::endian::read32le(H);
  if (Format != FormatVersion)
    return Fail("binary model format " + Twine(Format) +
                ", this irtk reads format " + Twine(FormatVersion));
  uint32_t ModelVersion = llvm::support::endian::read32le(H + 4);
  if (ModelVersion != Version)
    return Fail("made from a model of version " + Twine(ModelVersion) +
                ", this irtk reads version " + Twine(Version));
  uint64_t SourceSize = llvm::support::endian::read64le(H + 8),
           SourceHash = llvm::support::endian::read64le(H + 16),
           PayloadSize = llvm::support::endian::read64le(H + 24),
           PayloadHash = llvm::support::endian::read64le(H + 32);
  if (SourceSize != Source.size() || SourceHash != xxh3_64bits(Source))
    return Fail("stale: " + SourceName + " changed since it was made");
  StringRef Payload = Binary.drop_front(HeaderSize);
  if (PayloadSize != Payload.size() || PayloadHash != xxh3_64bits(Payload))
    return Fail("damaged (its content does not match its checksum)");

  // From here on the bytes are what pack wrote; the content is checked
  // all the same, as the JSON reading checks it.
  PayloadReader R(Payload);
  auto Bad = [&](const Twine &What) { return Fail("bad " + What); };
  MLPDescription D;
  D.Advisor = R.str();
  D.Decision = R.str();
  D.Mask = R.str();
  D.TrainingJSON = R.str();
  uint32_t Kind = R.u32();
  if (Kind > 1)
    return Bad("output kind " + Twine(Kind));
  D.Output = Kind == 0 ? OutputKind::Logit : OutputKind::ArgMax;
  D.Positions = R.u32();
  bool HasMargin = R.u8() != 0;
  double Margin = R.f64();
  if (HasMargin) {
    if (!std::isfinite(Margin) || Margin < 0)
      return Bad("default margin");
    D.DefaultMargin = Margin;
  }
  uint32_t NumInputs = R.u32();
  if (R.ok() && NumInputs == 0)
    return Bad("model: no inputs");
  StringSet<> Names;
  for (uint32_t I = 0; I < NumInputs && R.ok(); ++I) {
    Input In;
    In.Name = R.str();
    uint32_t N = R.u32();
    In.Mean = R.f64s(N);
    In.Scale = R.f64s(N);
    if (R.ok() &&
        (N == 0 || !Names.insert(In.Name).second || In.Name == D.Decision))
      return Bad("input " + Twine(I));
    D.Inputs.push_back(std::move(In));
  }
  uint32_t NumLayers = R.u32();
  size_t Width = D.inputSize();
  for (uint32_t I = 0; I < NumLayers && R.ok(); ++I) {
    Layer L;
    uint32_t Act = R.u32(), Rows = R.u32(), Cols = R.u32();
    if (!R.ok())
      break;
    if (Act > 2 || Rows == 0 || Cols != Width)
      return Bad("layer " + Twine(I));
    L.Activation = static_cast<ActivationKind>(Act);
    for (uint32_t J = 0; J < Rows && R.ok(); ++J)
      L.Weights.push_back(R.f64s(Cols));
    L.Bias = R.f64s(Rows);
    Width = Rows;
    D.Layers.push_back(std::move(L));
  }
  bool HasSupport = R.u8() != 0;
  uint32_t NumBoxes = R.u32();
  std::vector<SupportBox> Boxes;
  for (uint32_t K = 0; K < NumBoxes && R.ok(); ++K) {
    SupportBox B;
    B.Default = R.i64();
    uint32_t NumBounds = R.u32();
    for (uint32_t J = 0; J < NumBounds && R.ok(); ++J) {
      Bound X;
      X.Input = R.u32();
      X.Low = R.f64();
      X.High = R.f64();
      if (R.ok() &&
          (X.Input >= D.Inputs.size() || D.Inputs[X.Input].Mean.size() != 1 ||
           !std::isfinite(X.Low) || !std::isfinite(X.High) || X.Low > X.High ||
           (!B.Bounds.empty() && B.Bounds.back().Input >= X.Input)))
        return Bad("support box " + Twine(K));
      B.Bounds.push_back(X);
    }
    if (R.ok() && llvm::any_of(Boxes, [&](const SupportBox &Y) {
          return Y.Default == B.Default;
        }))
      return Bad("support box " + Twine(K));
    Boxes.push_back(std::move(B));
  }
  if (!R.ok())
    return Fail("truncated");
  if (!R.atEnd())
    return Fail("trailing bytes after the model");
  if (HasSupport)
    D.Support = std::move(Boxes);
  else if (NumBoxes)
    return Bad("support");

  if (D.Layers.empty())
    return Bad("model: no layers");
  // What a model file can say: text in UTF-8, a training record in JSON.
  auto IsText = [](StringRef S) { return json::isUTF8(S); };
  if (!IsText(D.Advisor) || !IsText(D.Decision) || !IsText(D.Mask) ||
      llvm::any_of(D.Inputs, [&](const Input &In) { return !IsText(In.Name); }))
    return Bad("text (not UTF-8)");
  if (!D.TrainingJSON.empty()) {
    // Read as inside a model file: nested one level deeper, as deep as
    // parseJSON allows, and every number finite.
    Expected<json::Value> T =
        support::parseJSON("[" + D.TrainingJSON + "]", Name);
    if (!T) {
      consumeError(T.takeError());
      return Bad("training record");
    }
    const json::Array &Wrapped = *T->getAsArray();
    if (Wrapped.size() != 1 || support::hasNonFiniteNumber(Wrapped[0]))
      return Bad("training record");
    const json::Value &Record = Wrapped[0];
    // As the JSON reading keeps it.
    std::string S;
    raw_string_ostream(S) << Record;
    D.TrainingJSON = std::move(S);
  }
  if (D.Output == OutputKind::Logit &&
      (Width != 1 || !D.Mask.empty() || D.Positions))
    return Bad("output");
  if (D.Output == OutputKind::ArgMax && D.Positions &&
      (D.Positions < 2 || D.Positions > 65536 || Width != 1))
    return Bad("output");
  if (D.Support && (!D.DefaultMargin || D.Positions))
    return Bad("support");
  if (const AdvisorInfo *A = findAdvisor(D.Advisor);
      A && !D.Mask.empty() && D.Mask != A->Mask)
    return Bad("mask");
  if (Error E = D.checkNumbers(Name))
    return E;
  return D;
}

Expected<MLPDescription> MLPDescription::load(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      support::readFile(Path, "model");
  if (!Buf)
    return Buf.takeError();
  std::string BinPath = binaryPath(Path);
  if (Path == "-" || !sys::fs::exists(BinPath))
    return parse((*Buf)->getBuffer(), Path);
  Expected<std::unique_ptr<MemoryBuffer>> Binary =
      support::readFile(BinPath, "the binary form of a model",
                        /*IsText=*/false);
  if (!Binary)
    return Binary.takeError();
  return loadFromBinary((*Binary)->getBuffer(), BinPath, (*Buf)->getBuffer(),
                        Path);
}

} // namespace irtk::advisors
