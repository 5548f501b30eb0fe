//===- main.c - The program of the inline demo ------------------*- C -*-===//
//
// Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Prints "385 12 55 5 52 9": for 1..10, the sum of squares, gcd(84, 36),
/// fib(10), then for 1..10 the even count, the sum clamped to [3, 7] and
/// max - min (CMakeLists.txt works them out). The inputs depend on argc,
/// so nothing folds away.
///
//===----------------------------------------------------------------------===//

#include "stats.h"
#include <stdio.h>

static void fill(int *V, int N, int Step) {
  for (int I = 0; I < N; ++I)
    V[I] = (I + 1) * Step;
}

static int report(const char *Sep, int X) { return printf("%s%d", Sep, X); }

int main(int Argc, char **Argv) {
  (void)Argv;
  int V[10];
  fill(V, 10, Argc);
  report("", sumSquares(V, 10));
  report(" ", gcdOf(84 * Argc, 36));
  report(" ", fib(9 + Argc));
  report(" ", countEven(V, 10));
  report(" ", sumClamped(V, 10, 3, 7));
  report(" ", spread(V, 10));
  printf("\n");
  return 0;
}
