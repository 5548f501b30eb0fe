//===- AdvisorModelFuzzer.cpp - Fuzz advisor model files ------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// libFuzzer target: the input as an advisor's model file
/// (advisors::MLPDescription::parse), bound to the inline advisor's features
/// with 2-dimension embeddings and evaluated on all-zero features; and, as
/// a property, on the largest features of either sign, where every output
/// must be finite (a model that overflows is refused when loaded).
///
//===----------------------------------------------------------------------===//

#include "irtk/advisors/InlineAdvisor.h"
#include "irtk/advisors/MLP.h"
#include "irtk/advisors/Policy.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Analysis/InlineModelFeatureMaps.h"
#include "llvm/Support/Error.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

using namespace irtk::advisors;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<MLPDescription> D = MLPDescription::parse(Text, "model.json");
  if (!D) {
    llvm::consumeError(D.takeError());
    return 0;
  }
  static const PolicySpec Spec{
      "inline", inlineFeatures(2), llvm::InlineDecisionSpec,
      inlineFeatures(2).size() - 3,
      llvm::TensorSpec::createSpec<float>("delta_size", {1})};
  llvm::Expected<std::unique_ptr<MLPModel>> M =
      MLPModel::bind(std::move(*D), Spec, "model.json");
  if (!M) {
    llvm::consumeError(M.takeError());
    return 0;
  }
  static std::vector<std::vector<char>> Zero = [] {
    std::vector<std::vector<char>> Z;
    for (const llvm::TensorSpec &S : Spec.Inputs)
      Z.emplace_back(S.getTotalTensorBufferSize(), 0);
    return Z;
  }();
  std::vector<const void *> Buffers;
  for (const std::vector<char> &B : Zero)
    Buffers.push_back(B.data());
  (void)(*M)->evaluate(Buffers);
  // A model that loads never overflows (MLPDescription::checkNumbers): not
  // even for the largest features of either sign.
  static std::vector<std::vector<char>> Extreme = [] {
    std::vector<std::vector<char>> X;
    for (const llvm::TensorSpec &S : Spec.Inputs) {
      X.emplace_back(S.getTotalTensorBufferSize(), 0);
      for (size_t E = 0; E < S.getElementCount(); ++E) {
        bool Negative = E % 2;
        if (S.isElementType<float>())
          reinterpret_cast<float *>(X.back().data())[E] =
              Negative ? -std::numeric_limits<float>::max()
                       : std::numeric_limits<float>::max();
        else if (S.isElementType<int64_t>())
          reinterpret_cast<int64_t *>(X.back().data())[E] =
              Negative ? std::numeric_limits<int64_t>::min()
                       : std::numeric_limits<int64_t>::max();
      }
    }
    return X;
  }();
  Buffers.clear();
  for (const std::vector<char> &B : Extreme)
    Buffers.push_back(B.data());
  for (double Out : (*M)->outputs(Buffers))
    if (!std::isfinite(Out))
      __builtin_trap();
  return 0;
}
