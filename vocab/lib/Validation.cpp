//===- Validation.cpp - Vocabulary checks and statistics ------------------===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "irtk/vocab/Validation.h"

#include <Eigen/Core>

#include <limits>

using namespace llvm;

namespace irtk::vocab {

Error checkComplete(const Vocabulary &V, StringRef Name) {
  std::vector<EntityId> Missing = V.missingEntities();
  if (Missing.empty())
    return Error::success();
  std::string List;
  for (size_t I = 0; I < Missing.size() && I < 5; ++I)
    List += (I ? ", " : "") + V.layout().entityName(Missing[I]).str();
  if (Missing.size() > 5)
    List += ", ...";
  return createStringError(inconvertibleErrorCode(),
                           Name + ": " + Twine(Missing.size()) + " of " +
                               Twine(V.size()) + " entities missing: " + List);
}

VocabStats computeStats(const Vocabulary &V) {
  VocabStats S;
  S.Dimension = V.dimension();
  double Sum = 0;
  S.MinNorm = std::numeric_limits<double>::infinity();
  S.GroupPresent.assign(V.layout().numGroups(), 0);
  S.GroupTotal.assign(V.layout().numGroups(), 0);
  for (EntityId Id = 0; Id < V.size(); ++Id) {
    unsigned G = V.layout().entityGroup(Id);
    ++S.GroupTotal[G];
    if (!V.isPresent(Id))
      continue;
    ++S.GroupPresent[G];
    ++S.Present;
    double Norm =
        Eigen::Map<const Eigen::VectorXd>(V.data(Id), V.dimension()).norm();
    Sum += Norm;
    if (Norm < S.MinNorm) {
      S.MinNorm = Norm;
      S.MinNormEntity = Id;
    }
    if (Norm > S.MaxNorm || S.Present == 1) {
      S.MaxNorm = Norm;
      S.MaxNormEntity = Id;
    }
  }
  if (S.Present)
    S.MeanNorm = Sum / S.Present;
  else
    S.MinNorm = 0;
  return S;
}

Expected<std::vector<EntityDiff>> compareVocabularies(const Vocabulary &A,
                                                      const Vocabulary &B,
                                                      StringRef NameA,
                                                      StringRef NameB) {
  if (A.layoutPtr() != B.layoutPtr() &&
      A.layout().description() != B.layout().description())
    return createStringError(inconvertibleErrorCode(),
                             "cannot compare " + NameA + " (" +
                                 A.layout().description() + ") with " + NameB +
                                 " (" + B.layout().description() + ")");
  if (A.dimension() != B.dimension())
    return createStringError(inconvertibleErrorCode(),
                             "cannot compare " + NameA + " (dimension " +
                                 Twine(A.dimension()) + ") with " + NameB +
                                 " (dimension " + Twine(B.dimension()) + ")");
  std::vector<EntityDiff> Diffs;
  const unsigned Dim = A.dimension();
  for (EntityId Id = 0; Id < A.size(); ++Id) {
    Eigen::Map<const Eigen::VectorXd> VA(A.data(Id), Dim), VB(B.data(Id), Dim);
    EntityDiff D{Id, A.isPresent(Id), B.isPresent(Id),
                 std::numeric_limits<double>::quiet_NaN(), (VA - VB).norm()};
    double Norms = VA.norm() * VB.norm();
    if (D.InA && D.InB && Norms > 0)
      D.Cosine = VA.dot(VB) / Norms;
    Diffs.push_back(D);
  }
  return Diffs;
}

} // namespace irtk::vocab
