//===- VocabBinaryFuzzer.cpp - Fuzz the binary form of vocabularies -------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// libFuzzer target: the binary form of a vocabulary (vocab::Vocabulary::
/// loadFromBinary), for LLVM IR's layout or, with the first byte odd,
/// x86-64's machine IR layout with the layout tables the form carries
/// (mir2vec::TargetLayout::fromTables), as a compiler loads it. The input
/// is the form without its magic, format and trailing checksum, whose
/// layout checksum and source size and hash are set right, so that the
/// fuzzer reaches the fields behind them rather than the checksums.
/// The property: a form that loads holds finite numbers only, and written
/// again it loads to the same vectors, bit for bit.
///
//===----------------------------------------------------------------------===//

#include "irtk/ir2vec/Entities.h"
#include "irtk/mir2vec/Layout.h"
#include "irtk/mir2vec/Loader.h"
#include "irtk/vocab/Vocabulary.h"

#include "llvm/ADT/bit.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Target/TargetMachine.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

using namespace llvm;
using namespace irtk;

namespace {
/// What the machine IR half needs, made once: x86-64's instruction and
/// register info and its layout built from them.
struct X86 {
  std::unique_ptr<TargetMachine> TM;
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  Function *F = nullptr;
  const TargetInstrInfo *TII = nullptr;
  const TargetRegisterInfo *TRI = nullptr;
  std::shared_ptr<const mir2vec::TargetLayout> Built;

  X86() {
    mir2vec::initializeTargets();
    TM = cantFail(mir2vec::createTargetMachine("x86_64-unknown-linux-gnu"));
    M = std::make_unique<Module>("m", Ctx);
    F = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false),
                         GlobalValue::ExternalLinkage, "f", *M);
    const TargetSubtargetInfo *STI = TM->getSubtargetImpl(*F);
    TII = STI->getInstrInfo();
    TRI = STI->getRegisterInfo();
    Built = mir2vec::layoutOf(*TM);
  }
};
} // namespace

static constexpr char Source[] = "{}";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size == 0)
    return 0;
  bool MIR = Data[0] & 1;
  std::string Form("IRTKVOCB\x04\0\0\0", 12);
  Form.append(reinterpret_cast<const char *>(Data + 1), Size - 1);
  // The fields up to the table size: dimension, entities, unknown keys,
  // layout checksum, source size, source hash, source time and id, table
  // bytes.
  if (Form.size() < 72)
    Form.resize(72, '\0');

  static X86 *Target = nullptr;
  if (MIR && !Target)
    Target = new X86();
  std::shared_ptr<const vocab::Layout> L;
  if (MIR) {
    std::shared_ptr<const mir2vec::TargetLayout> T;
    if (StringRef Tables = vocab::Vocabulary::binaryLayoutTables(Form);
        !Tables.empty())
      T = mir2vec::TargetLayout::fromTables(Tables, *Target->TII, *Target->TRI,
                                            "x86-64 MIR");
    L = T ? T->layout() : Target->Built->layout();
  } else {
    L = ir2vec::irLayout();
  }
  support::endian::write32le(&Form[16], L->size());
  support::endian::write64le(&Form[24], L->checksum());
  support::endian::write64le(&Form[32], sizeof(Source) - 1);
  support::endian::write64le(&Form[40], xxh3_64bits(StringRef(Source)));
  std::string Trailer(8, '\0');
  support::endian::write64le(&Trailer[0], xxh3_64bits(StringRef(Form)));
  Form += Trailer;

  Expected<vocab::Vocabulary> V = vocab::Vocabulary::loadFromBinary(
      Form, "v.json.bin", Source, "v.json", L);
  if (!V) {
    consumeError(V.takeError());
    return 0;
  }
  for (vocab::EntityId Id = 0; Id < V->size(); ++Id)
    for (double D : V->vector(Id))
      if (!std::isfinite(D))
        __builtin_trap();
  std::string Again;
  raw_string_ostream OS(Again);
  V->writeBinary(Source, OS, vocab::Vocabulary::binaryLayoutTables(Form));
  Expected<vocab::Vocabulary> W = vocab::Vocabulary::loadFromBinary(
      Again, "v.json.bin", Source, "v.json", L);
  if (!W || W->dimension() != V->dimension() ||
      W->unknownKeys() != V->unknownKeys())
    __builtin_trap();
  for (vocab::EntityId Id = 0; Id < V->size(); ++Id) {
    if (W->isPresent(Id) != V->isPresent(Id))
      __builtin_trap();
    for (unsigned I = 0; I < V->dimension(); ++I)
      if (bit_cast<uint64_t>(W->vector(Id)[I]) !=
          bit_cast<uint64_t>(V->vector(Id)[I]))
        __builtin_trap();
  }
  return 0;
}
