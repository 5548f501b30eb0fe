static int sq(int x) { return x * x; }
int sum_sq(int n) {
  int s = 0;
  for (int i = 0; i < n; ++i)
    s += sq(i);
  return s;
}
