// Call sites of many sizes for the PyTorch model test: small helpers the
// -Oz inliner takes, larger ones it leaves, some called once, some often,
// so that a policy's decisions go both ways.
#include <stdio.h>
#include <string.h>

static int add1(int x) { return x + 1; }
static int twice(int x) { return 2 * x; }
static int clamp(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

static int mix(int a, int b) {
  int h = a * 31 + b;
  h ^= h >> 7;
  h *= 0x45d9f3b;
  h ^= h >> 13;
  return h;
}

static unsigned checksum(const char *s) {
  unsigned h = 5381;
  for (size_t i = 0; i < strlen(s); ++i)
    h = h * 33 + (unsigned char)s[i];
  return h;
}

static int classify(int x) {
  switch (x % 7) {
  case 0: return add1(x);
  case 1: return twice(x);
  case 2: return mix(x, 3);
  case 3: return clamp(x, 0, 100);
  case 4: return mix(x, x);
  case 5: return (int)checksum("five");
  default: return x;
  }
}

static long big(long n) {
  long acc = 0;
  for (long i = 0; i < n; ++i) {
    if (i % 3 == 0)
      acc += mix((int)i, (int)acc);
    else if (i % 5 == 0)
      acc -= classify((int)i);
    else
      acc ^= twice((int)(acc & 0xff));
    if (acc > 1000000)
      acc /= 7;
  }
  return acc;
}

int api_a(int x) { return classify(x) + add1(x) + clamp(x, -5, 5); }
int api_b(int x) { return mix(api_a(x), twice(x)) + (int)big(x); }
long api_c(long n) { return big(n) + big(n / 2) + classify((int)n); }

int main(int argc, char **argv) {
  int s = 0;
  for (int i = 0; i < argc * 10; ++i)
    s += api_a(i) + api_b(i) + (int)api_c(i);
  printf("%d %u\n", s, checksum(argv[0]));
  return 0;
}
