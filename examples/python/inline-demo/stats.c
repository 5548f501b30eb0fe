//===- stats.c - The library of the inline demo -----------------*- C -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Small helpers (some tiny, some not), called from several places, so that
/// an inliner has decisions to take both ways.
///
//===----------------------------------------------------------------------===//

#include "stats.h"

static int square(int X) { return X * X; }
static int isEven(int X) { return X % 2 == 0; }
static int clamp(int X, int Lo, int Hi) {
  return X < Lo ? Lo : X > Hi ? Hi : X;
}
static int modulo(int A, int B) { return B ? A % B : 0; }
static int maxOf(int A, int B) { return A > B ? A : B; }
static int minOf(int A, int B) { return A < B ? A : B; }

static int fold(const int *V, int N, int (*F)(int)) {
  int S = 0;
  for (int I = 0; I < N; ++I)
    S += F(V[I]);
  return S;
}

int sumSquares(const int *V, int N) { return fold(V, N, square); }

int countEven(const int *V, int N) { return fold(V, N, isEven); }

int gcdOf(int A, int B) {
  while (B) {
    int T = modulo(A, B);
    A = B;
    B = T;
  }
  return A;
}

int fib(int N) {
  int A = 0, B = 1;
  for (int I = 0; I < N; ++I) {
    int T = A + B;
    A = B;
    B = T;
  }
  return A;
}

int sumClamped(const int *V, int N, int Lo, int Hi) {
  int S = 0;
  for (int I = 0; I < N; ++I)
    S += clamp(V[I], Lo, Hi);
  return S;
}

int spread(const int *V, int N) {
  int Max = V[0], Min = V[0];
  for (int I = 1; I < N; ++I) {
    Max = maxOf(Max, V[I]);
    Min = minOf(Min, V[I]);
  }
  return Max - Min;
}
