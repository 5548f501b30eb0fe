//===- TestHelpers.h - Shared helpers of the unit tests ---------*- C++ -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Checks on llvm::Expected / llvm::Error that print the error on failure
/// (Debian ships LLVM's Testing/Support headers without their library), and
/// the hand-checkable vocabulary the tests compute expected values with.
///
//===----------------------------------------------------------------------===//

#ifndef IRTK_TEST_UNIT_TESTHELPERS_H
#define IRTK_TEST_UNIT_TESTHELPERS_H

#include "irtk/ir2vec/Entities.h"
#include "irtk/vocab/Vocabulary.h"

#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

/// Asserts that Expected \p X holds a value; prints the error otherwise.
#define IRTK_ASSERT_OK(X)                                                      \
  ASSERT_TRUE(static_cast<bool>(X)) << llvm::toString((X).takeError())

/// Expects llvm::Error \p E to be success; prints it otherwise.
#define IRTK_EXPECT_SUCCESS(E)                                                 \
  do {                                                                         \
    llvm::Error Err_ = (E);                                                    \
    EXPECT_FALSE(static_cast<bool>(Err_)) << llvm::toString(std::move(Err_));  \
    llvm::consumeError(std::move(Err_));                                       \
  } while (false)

namespace irtk::test {

/// Entity k is the vector [k, 1], all weights 1: an embedding is then
/// [sum of entity ids, number of entities] (test/Inputs/ids2d.json holds the
/// same vectors; tools load it with the default weights 1, 0.5 and 0.2).
inline llvm::Expected<vocab::Vocabulary> idsVocabulary() {
  std::vector<std::vector<double>> Vs;
  for (unsigned K = 0; K < ir2vec::NumEntities; ++K)
    Vs.push_back({double(K), 1.0});
  return vocab::Vocabulary::fromVectors(ir2vec::irLayout(), Vs,
                                        ir2vec::Weights{1, 1, 1}.sections());
}

} // namespace irtk::test

#endif // IRTK_TEST_UNIT_TESTHELPERS_H
