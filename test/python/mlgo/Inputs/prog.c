// A small program for the engine's and the pipeline's tests: two functions
// mergefunc can merge, a loop to unroll, a switch, and output to check.
#include <stdio.h>

int table(int x);

static int sum_a(const int *v, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i)
    s += v[i] * 3 + 1;
  return s;
}

static int sum_b(const int *v, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i)
    s += v[i] * 3 + 1;
  return s;
}

int (*volatile pick[2])(const int *, int) = {sum_a, sum_b};

int main(int argc, char **argv) {
  int v[8];
  for (int i = 0; i < 8; ++i)
    v[i] = i * argc + table(i);
  int a = pick[0](v, 8), b = pick[1](v, 8);
  printf("%d %d %d\n", a, b, table(argc + 2));
  return a == b ? 0 : 1;
}
