//===- EvolutionCheckpointFuzzer.cpp - Fuzz evolution checkpoints ---------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// libFuzzer target: the input as an evolution-strategies checkpoint
/// (advisors::EvolutionStrategies::load). As a property, whatever load
/// accepts saves to a checkpoint that loads back to the same state: its own
/// save is byte for byte the same, and so are its candidates. A checkpoint
/// that loads can also take a step: update does not fail on finite rewards.
///
//===----------------------------------------------------------------------===//

#include "irtk/training/Evolution.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

using namespace irtk::advisors;
using namespace irtk::training;

static std::string saved(const EvolutionStrategies &ES) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  ES.save(OS);
  return Text;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<EvolutionStrategies> ES =
      EvolutionStrategies::load(Text, "checkpoint.json");
  if (!ES) {
    llvm::consumeError(ES.takeError());
    return 0;
  }
  // Candidates cost parameters * perturbations: keep the fuzzer fast.
  bool Small = ES->parameters().size() * ES->options().Perturbations <= 4096;
  std::string First = saved(*ES);
  llvm::Expected<EvolutionStrategies> Again =
      EvolutionStrategies::load(First, "saved.json");
  if (!Again)
    __builtin_trap();
  if (saved(*Again) != First || Again->step() != ES->step() ||
      Again->fingerprint() != ES->fingerprint())
    __builtin_trap();
  if (!Small)
    return 0;
  std::vector<std::vector<double>> C = ES->candidates(),
                                   D = Again->candidates();
  if (C.size() != ES->options().Perturbations || C.size() != D.size())
    __builtin_trap();
  for (size_t K = 0; K < C.size(); ++K)
    for (size_t P = 0; P < C[K].size(); ++P)
      if (!(C[K][P] == D[K][P] || (std::isnan(C[K][P]) && std::isnan(D[K][P]))))
        __builtin_trap();
  std::vector<double> Rewards;
  for (size_t K = 0; K < C.size(); ++K)
    Rewards.push_back(static_cast<double>(K % 3));
  if (llvm::Error E = ES->update(Rewards))
    __builtin_trap();
  return 0;
}
