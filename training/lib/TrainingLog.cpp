//===- TrainingLog.cpp - Reading LLVM's training logs ---------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/training/TrainingLog.h"
#include "irtk/advisors/Features.h"
#include "irtk/support/JSON.h"
#include "irtk/support/ReadFile.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace irtk::advisors;

namespace irtk::training {

Expected<TensorSpec> parseTensorSpec(const json::Value &V, const Twine &Where) {
  auto Fail = [&](const Twine &Msg) -> Error {
    return createStringError(inconvertibleErrorCode(), Where + ": " + Msg);
  };
  const json::Object *O = V.getAsObject();
  if (!O)
    return Fail("expected a tensor spec object");
  std::optional<StringRef> Name = O->getString("name");
  std::optional<StringRef> Type = O->getString("type");
  std::optional<int64_t> Port = O->getInteger("port");
  const json::Array *Shape = O->getArray("shape");
  if (!Name || !Type || !Shape)
    return Fail("a tensor spec needs a string name, a string type and a "
                "shape array");
  // LLVM's logger writes a scalar's shape as [1], never [].
  if (Shape->empty())
    return Fail("tensor '" + *Name +
                "' has the empty shape []; a scalar's is [1]");
  std::vector<int64_t> Dims;
  int64_t Elements = 1;
  for (const json::Value &D : *Shape) {
    std::optional<int64_t> N = D.getAsInteger();
    if (!N || *N < 1 || *N > (1 << 20))
      return Fail("tensor '" + *Name + "' has a bad shape");
    Elements *= *N;
    if (Elements > (1 << 20))
      return Fail("tensor '" + *Name + "' is too large");
    Dims.push_back(*N);
  }
#define IRTK_SPEC(T, _)                                                        \
  if (*Type == #T)                                                             \
    return TensorSpec::createSpec<T>(Name->str(), Dims, Port.value_or(0));
  SUPPORTED_TENSOR_TYPES(IRTK_SPEC)
#undef IRTK_SPEC
  return Fail("tensor '" + *Name + "' has an unknown type '" + *Type + "'");
}

namespace {
/// Walks the log's bytes, keeping the offset for errors.
class Cursor {
public:
  Cursor(StringRef Data, StringRef Name) : Data(Data), Name(Name) {}
  bool atEnd() const { return Pos >= Data.size(); }
  size_t pos() const { return Pos; }

  Error error(const Twine &Msg) const {
    return createStringError(inconvertibleErrorCode(),
                             Name + ": at byte " + Twine(Pos) + ": " + Msg);
  }

  /// The next line, as a JSON object.
  Expected<json::Object> jsonLine() {
    size_t End = Data.find('\n', Pos);
    if (End == StringRef::npos)
      return error("expected a JSON line ending in a newline");
    StringRef Line = Data.slice(Pos, End);
    std::string Where = (Name + " (byte " + Twine(Pos) + ")").str();
    Expected<json::Value> V = support::parseJSON(Line, Where);
    if (!V)
      return V.takeError();
    json::Object *O = V->getAsObject();
    if (!O)
      return error("expected a JSON object");
    Pos = End + 1;
    return std::move(*O);
  }

  /// Skips \p N raw bytes and the newline after them.
  Expected<size_t> raw(size_t N, StringRef What) {
    if (Data.size() - Pos < N + 1)
      return error("the log ends inside " + What);
    size_t Start = Pos;
    Pos += N;
    if (Data[Pos] != '\n')
      return error("expected a newline after " + What);
    ++Pos;
    return Start;
  }

private:
  StringRef Data;
  StringRef Name;
  size_t Pos = 0;
};
} // namespace

Expected<TrainingLog> TrainingLog::parse(StringRef Data, StringRef Name) {
  TrainingLog L;
  L.Data = Data.str();
  Cursor C(L.Data, Name);
  Expected<json::Object> Header = C.jsonLine();
  if (!Header)
    return Header.takeError();
  const json::Array *Features = Header->getArray("features");
  if (!Features || Features->empty())
    return C.error("the header has no features");
  for (size_t I = 0; I < Features->size(); ++I) {
    Expected<TensorSpec> S = parseTensorSpec(
        (*Features)[I], Name + ": header: features[" + Twine(I) + "]");
    if (!S)
      return S.takeError();
    L.FeatureOffsets.push_back(L.ObservationSize);
    L.ObservationSize += S->getTotalTensorBufferSize();
    L.Features.push_back(std::move(*S));
  }
  if (const json::Value *Score = Header->get("score")) {
    Expected<TensorSpec> S = parseTensorSpec(*Score, Name + ": header: score");
    if (!S)
      return S.takeError();
    L.Score = std::move(*S);
  }

  while (!C.atEnd()) {
    Expected<json::Object> Event = C.jsonLine();
    if (!Event)
      return Event.takeError();
    if (std::optional<StringRef> Ctx = Event->getString("context")) {
      L.Contexts.push_back(Ctx->str());
      continue;
    }
    std::optional<int64_t> Id = Event->getInteger("observation");
    if (!Id)
      return C.error("expected a context or an observation");
    if (L.Contexts.empty())
      return C.error("an observation before any context");
    Expected<size_t> At = C.raw(L.ObservationSize, "an observation");
    if (!At)
      return At.takeError();
    Observation O{L.Contexts.size() - 1, *At, std::nullopt};
    if (L.Score) {
      Expected<json::Object> Outcome = C.jsonLine();
      if (!Outcome)
        return Outcome.takeError();
      if (Outcome->getInteger("outcome") != Id)
        return C.error("expected the outcome of observation " + Twine(*Id));
      Expected<size_t> S =
          C.raw(L.Score->getTotalTensorBufferSize(), "a score");
      if (!S)
        return S.takeError();
      O.Score = readScalar(*L.Score, L.Data.data() + *S, 0);
    }
    L.Observations.push_back(O);
  }
  return L;
}

Expected<TrainingLog> TrainingLog::load(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      support::readFile(Path, "log", /*IsText=*/false);
  if (!Buf)
    return Buf.takeError();
  return parse((*Buf)->getBuffer(), Path);
}

std::optional<size_t> TrainingLog::featureIndex(StringRef Name) const {
  return findFeature(Features, Name);
}

double TrainingLog::value(const Observation &O, size_t Feature,
                          size_t Element) const {
  return readScalar(Features[Feature],
                    Data.data() + O.Offset + FeatureOffsets[Feature], Element);
}

} // namespace irtk::training
