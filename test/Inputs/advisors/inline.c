// Calls the inliner decides on in different ways at -Oz: a tiny static
// helper (inlined by the stock heuristic), a larger one called from several
// places (kept as a call), a noinline one (never inlined, whatever the
// policy), an always_inline one (always inlined, whatever the policy) and a
// self-recursive one.
static int small(int x) { return x + 1; }

static int medium(int *a, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i)
    s += a[i] * a[i] - i;
  if (s > 100)
    s /= 3;
  return s;
}

__attribute__((noinline)) static int never(int x) { return x * 3; }

__attribute__((always_inline)) static inline int must(int x) { return x - 7; }

int rec(int n) { return n <= 1 ? 1 : n * rec(n - 1); }

int api(int *a, int n) {
  return small(n) + medium(a, n) + medium(a, n / 2) + never(n) + must(n) +
         rec(n);
}

int api2(int *a) { return medium(a, 4) + medium(a, 8) + never(a[0]); }
