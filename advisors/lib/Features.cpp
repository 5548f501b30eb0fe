//===- Features.cpp - What advisors decide from, and the advisor registry -===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/advisors/Features.h"

#include "llvm/ADT/STLExtras.h"

#include <cstring>

using namespace llvm;

namespace irtk::advisors {

// The embedding features, from each advisor's feature table.
static constexpr StringLiteral InlineEmbeddings[] = {
#define IRTK_INLINE_FEATURE(Id, Name, Type, Shape, Doc)                        \
  IRTK_EMBEDDING_IF_##Shape(Name)
#define IRTK_EMBEDDING_IF_Scalar(Name)
#define IRTK_EMBEDDING_IF_Embedding(Name) Name,
#include "irtk/advisors/InlineFeatures.def"
};
static constexpr StringLiteral EvictEmbeddings[] = {
#define IRTK_EVICT_FEATURE(Id, Name, Type, Shape, Normalised, Doc)             \
  IRTK_EMBEDDING_IF_##Shape(Name)
#define IRTK_EMBEDDING_IF_PerPosition(Name)
#define IRTK_EMBEDDING_IF_PerPositionEmbedding(Name) Name,
#include "irtk/advisors/EvictionFeatures.def"
};
#undef IRTK_EMBEDDING_IF_Scalar
#undef IRTK_EMBEDDING_IF_Embedding
#undef IRTK_EMBEDDING_IF_PerPosition
#undef IRTK_EMBEDDING_IF_PerPositionEmbedding

// The feature tables as rows.
#define IRTK_SHAPE_Scalar "[1]"
#define IRTK_SHAPE_Embedding "[dim]"
#define IRTK_SHAPE_PerPosition "[1,33]"
#define IRTK_SHAPE_PerPositionEmbedding "[33,dim]"
static constexpr FeatureRow InlineRows[] = {
#define IRTK_INLINE_FEATURE(Id, Name, Type, Shape, Doc)                        \
  {Name, #Type, IRTK_SHAPE_##Shape, false, Doc},
#include "irtk/advisors/InlineFeatures.def"
};
static constexpr FeatureRow EvictRows[] = {
#define IRTK_EVICT_FEATURE(Id, Name, Type, Shape, Normalised, Doc)             \
  {Name, #Type, IRTK_SHAPE_##Shape, Normalised, Doc},
#include "irtk/advisors/EvictionFeatures.def"
};
#undef IRTK_SHAPE_Scalar
#undef IRTK_SHAPE_Embedding
#undef IRTK_SHAPE_PerPosition
#undef IRTK_SHAPE_PerPositionEmbedding

// The registry. A new advisor adds its entry here.
static const AdvisorInfo Registry[] = {
    {"inline", "inlining_decision", "inlining_default", OutputKind::Logit, "",
     InlineEmbeddings, InlineRows},
    {"evict", "index_to_evict", "evict_default", OutputKind::ArgMax,
     "evictable", EvictEmbeddings, EvictRows},
};

bool AdvisorInfo::isEmbedding(StringRef Feature) const {
  return is_contained(Embeddings, Feature);
}

ArrayRef<AdvisorInfo> advisors() { return Registry; }

const AdvisorInfo *findAdvisor(StringRef Name) {
  for (const AdvisorInfo &A : Registry)
    if (A.Name == Name)
      return &A;
  return nullptr;
}

std::optional<size_t> findFeature(ArrayRef<TensorSpec> Specs, StringRef Name) {
  for (size_t I = 0; I < Specs.size(); ++I)
    if (Specs[I].name() == Name)
      return I;
  return std::nullopt;
}

double readScalar(const TensorSpec &Spec, const void *Buffer, size_t Element) {
  switch (Spec.type()) {
#define IRTK_READ(T, Name)                                                     \
  case TensorType::Name: {                                                     \
    T X;                                                                       \
    std::memcpy(&X, static_cast<const char *>(Buffer) + Element * sizeof(T),   \
                sizeof(T));                                                    \
    return static_cast<double>(X);                                             \
  }
    SUPPORTED_TENSOR_TYPES(IRTK_READ)
#undef IRTK_READ
  case TensorType::Invalid:
  case TensorType::Total:
    break;
  }
  return 0;
}

} // namespace irtk::advisors
