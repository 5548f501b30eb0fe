// Three call sites of one static function, where -Oz inlines only at f3's
// constant argument, and the smallest object inlines at none: a module with
// headroom above stock for the inlining searches.
static int mix(int a, int b) {
  int h = a * 31 + b;
  h ^= (a >> 3) ^ (b << 5);
  h *= 0x5bd1e995;
  h ^= h >> 15;
  return h;
}
int f1(int x, int y) { return mix(x, y) + 1; }
int f2(int x, int y) { return mix(y, x) - 1; }
int f3(int x) { return mix(x, 7); }
