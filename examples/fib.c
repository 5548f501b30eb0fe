/* A small example program for the README's first command. */
#include <stdio.h>
#include <stdlib.h>

static unsigned long fib(unsigned n) {
  unsigned long a = 0, b = 1;
  for (unsigned i = 0; i < n; ++i) {
    unsigned long t = a + b;
    a = b;
    b = t;
  }
  return a;
}

int main(int argc, char **argv) {
  unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 10;
  printf("fib(%u) = %lu\n", n, fib(n));
  return 0;
}
