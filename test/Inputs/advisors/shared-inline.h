// An inline function that every C++ object using it carries (a COMDAT
// group, linkonce_odr), kept out of line so that each object has a copy.
__attribute__((noinline)) inline int shared(int *a, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i)
    s += a[i] * (i + 3);
  return s;
}
