/* Sixteen accumulators live across a loop: more than x86-64's or AArch64's
   free registers after the loop's own, so the greedy allocator evicts. */
int printf(const char *, ...);

__attribute__((noinline)) unsigned long mix(const long *a, int n) {
  unsigned long s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0;
  unsigned long s7 = 0, s8 = 0, s9 = 0, s10 = 0, s11 = 0, s12 = 0, s13 = 0, s14 = 0, s15 = 0;
  for (int i = 0; i < n; i++) {
    s0 += a[i] * 3;
    s1 ^= a[i + 1];
    s2 += a[i + 2] << (s0 & 7);
    s3 -= a[i + 3] * s1;
    s4 += s2 * s3;
    s5 ^= s4 + a[i];
    s6 += s5 * s1;
    s7 += s6 ^ s2;
    s8 -= s7 * s0;
    s9 += s8 | s3;
    s10 += s9 * s4;
    s11 ^= s10 + s5;
    s12 += s11 * s6;
    s13 += s12 ^ s7;
    s14 += s13 * s8;
    s15 ^= s14 + s9;
  }
  return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + s9 + s10 + s11 + s12 +
         s13 + s14 + s15;
}

__attribute__((noinline)) unsigned long hash(const unsigned char *p, int n) {
  unsigned long h0 = 1469598103934665603ul, h1 = 7, h2 = 11, h3 = 13, h4 = 17;
  unsigned long h5 = 19, h6 = 23, h7 = 29, h8 = 31, h9 = 37, h10 = 41;
  unsigned long h11 = 43, h12 = 47, h13 = 53;
  for (int i = 0; i < n; i++) {
    h0 = (h0 ^ p[i]) * 1099511628211ul;
    h1 += h0 >> (i & 15);
    h2 = h2 * 31 + (h1 ^ p[i]);
    h3 ^= h2 + h0;
    h4 += h3 * h1;
    h5 -= h4 ^ h2;
    h6 += h5 * h3;
    h7 ^= h6 + h4;
    h8 += h7 * h5;
    h9 -= h8 ^ h6;
    h10 += h9 * h7;
    h11 ^= h10 + h8;
    h12 += h11 * h9;
    h13 -= h12 ^ h10;
  }
  return h0 ^ h1 ^ h2 ^ h3 ^ h4 ^ h5 ^ h6 ^ h7 ^ h8 ^ h9 ^ h10 ^ h11 ^ h12 ^
         h13;
}

int main(void) {
  static long a[1003];
  static unsigned char b[4096];
  for (int i = 0; i < 1003; i++)
    a[i] = (i * 7919) % 1000 - 500;
  for (int i = 0; i < 4096; i++)
    b[i] = (unsigned char)(i * 131 + 7);
  printf("%lu %lu\n", mix(a, 1000), hash(b, 4096));
  return 0;
}
