//===- stats.h - The library of the inline demo -----------------*- C -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Small integer functions over arrays, for the inline demo: each is built
/// from static helpers in stats.c that an inliner may or may not inline.
///
//===----------------------------------------------------------------------===//

#ifndef INLINE_DEMO_STATS_H
#define INLINE_DEMO_STATS_H

int sumSquares(const int *V, int N);
int gcdOf(int A, int B);
int fib(int N);
int countEven(const int *V, int N);
int sumClamped(const int *V, int N, int Lo, int Hi);
int spread(const int *V, int N);

#endif // INLINE_DEMO_STATS_H
