//===- AdvisorModelBinaryFuzzer.cpp - Fuzz binary model files -------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// libFuzzer target: the input as the content of a model's binary form
/// (advisors::MLPDescription::loadFromBinary), behind a header whose
/// checksums are right, so that the fuzzer reaches the content rather than
/// the checksum. The property: what the binary form gives, a model file
/// can say; its JSON reads back (MLPDescription::parse) to the same text.
///
//===----------------------------------------------------------------------===//

#include "irtk/advisors/MLP.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/EndianStream.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace irtk::advisors;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Payload(reinterpret_cast<const char *>(Data), Size);
  std::string Binary;
  llvm::raw_string_ostream OS(Binary);
  using llvm::support::endian::write;
  constexpr auto LE = llvm::endianness::little;
  OS << "IRTKMLPB";
  write<uint32_t>(OS, 1, LE);
  write<uint32_t>(OS, MLPDescription::Version, LE);
  write<uint64_t>(OS, 0, LE);
  write<uint64_t>(OS, llvm::xxh3_64bits(llvm::StringRef()), LE);
  write<uint64_t>(OS, Payload.size(), LE);
  write<uint64_t>(OS, llvm::xxh3_64bits(Payload), LE);
  OS << Payload;
  llvm::Expected<MLPDescription> D =
      MLPDescription::loadFromBinary(Binary, "m.json.bin", "", "m.json");
  if (!D) {
    llvm::consumeError(D.takeError());
    return 0;
  }
  std::string Text;
  llvm::raw_string_ostream TS(Text);
  D->write(TS);
  llvm::Expected<MLPDescription> Again = MLPDescription::parse(Text, "m.json");
  if (!Again)
    __builtin_trap();
  std::string TextAgain;
  llvm::raw_string_ostream AS(TextAgain);
  Again->write(AS);
  if (TextAgain != Text)
    __builtin_trap();
  return 0;
}
