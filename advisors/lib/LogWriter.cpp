//===- LogWriter.cpp - A training log in LLVM's format --------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "LogWriter.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <charconv>

using namespace llvm;

namespace irtk::advisors {

namespace {
/// TensorSpec's type names, as TensorSpec::toJSON writes them.
StringRef typeName(TensorType T) {
  switch (T) {
#define IRTK_TENSOR_TYPE_NAME(CType, Name)                                     \
  case TensorType::Name:                                                       \
    return #CType;
    SUPPORTED_TENSOR_TYPES(IRTK_TENSOR_TYPE_NAME)
#undef IRTK_TENSOR_TYPE_NAME
  default:
    return "invalid";
  }
}

/// A JSON string as llvm::json writes one (the names are ours: ASCII).
void quote(std::string &Out, StringRef S) {
  static const char Hex[] = "0123456789abcdef";
  Out += '"';
  for (unsigned char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    if (C >= 0x20) {
      Out += static_cast<char>(C);
      continue;
    }
    Out += '\\';
    if (C == '\t')
      Out += 't';
    else if (C == '\n')
      Out += 'n';
    else if (C == '\r')
      Out += 'r';
    else
      Out.append({'u', '0', '0', Hex[C >> 4], Hex[C & 15]});
  }
  Out += '"';
}

void number(std::string &Out, int64_t V) {
  char Buf[24];
  Out.append(Buf, std::to_chars(Buf, Buf + sizeof(Buf), V).ptr);
}

/// {"name":...,"type":...,"port":...,"shape":[...]}, TensorSpec::toJSON's
/// order.
void spec(std::string &Out, const TensorSpec &T) {
  Out += "{\"name\":";
  quote(Out, T.name());
  Out += ",\"type\":\"";
  Out += typeName(T.type());
  Out += "\",\"port\":";
  number(Out, T.port());
  Out += ",\"shape\":[";
  for (size_t I = 0; I < T.shape().size(); ++I) {
    if (I)
      Out += ',';
    number(Out, T.shape()[I]);
  }
  Out += "]}";
}
} // namespace

std::string LogWriter::header(ArrayRef<TensorSpec> Features,
                              const TensorSpec &Reward) {
  std::string Out;
  Out.reserve(96 * (Features.size() + 1));
  Out += "{\"features\":[";
  for (size_t I = 0; I < Features.size(); ++I) {
    if (I)
      Out += ',';
    spec(Out, Features[I]);
  }
  Out += "],\"score\":";
  spec(Out, Reward);
  Out += "}\n";
  return Out;
}

LogWriter::LogWriter(raw_ostream &OS, std::vector<TensorSpec> Features,
                     TensorSpec Reward)
    : OS(OS), Features(std::move(Features)), Reward(std::move(Reward)) {
  this->OS << header(this->Features, this->Reward);
}

void LogWriter::switchContext(StringRef Name) {
  CurrentContext = Name.str();
  json::OStream JOS(OS);
  JOS.object([&] { JOS.attribute("context", Name); });
  OS << "\n";
}

void LogWriter::startObservation() {
  auto I = ObservationIDs.insert({CurrentContext, 0});
  size_t ID = I.second ? 0 : ++I.first->second;
  json::OStream JOS(OS);
  JOS.object([&] { JOS.attribute("observation", static_cast<int64_t>(ID)); });
  OS << "\n";
}

void LogWriter::logTensorValue(size_t Feature, const char *Data) {
  OS.write(Data, Features[Feature].getTotalTensorBufferSize());
}

void LogWriter::endObservation() { OS << "\n"; }

void LogWriter::logReward(float Value) {
  json::OStream JOS(OS);
  JOS.object([&] {
    JOS.attribute("outcome", static_cast<int64_t>(
                                 ObservationIDs.find(CurrentContext)->second));
  });
  OS << "\n";
  OS.write(reinterpret_cast<const char *>(&Value), sizeof(Value));
  OS << "\n";
}

} // namespace irtk::advisors
