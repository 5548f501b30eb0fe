// A small C++ inline function both objects of a package call once: -Oz
// keeps a copy in each (the link keeps one); inlining it makes each object
// smaller alone but the linked package larger.
inline int shared(int *a, int n) {
  int s = a[0] * 7 + a[n] * 3;
  return s ^ (s >> 3) ^ n;
}
