/* Sorting: quicksort with insertion sort for small ranges, merge sort and a
 * generic qsort-style comparator interface. */
typedef unsigned long size_t;
void *malloc(size_t n);
void free(void *p);
void *memcpy(void *d, const void *s, size_t n);

static void swap_int(int *a, int *b) {
  int t = *a;
  *a = *b;
  *b = t;
}

static void insertion_sort(int *a, int lo, int hi) {
  for (int i = lo + 1; i <= hi; ++i) {
    int v = a[i];
    int j = i - 1;
    while (j >= lo && a[j] > v) {
      a[j + 1] = a[j];
      --j;
    }
    a[j + 1] = v;
  }
}

static int median3(int *a, int lo, int hi) {
  int mid = lo + (hi - lo) / 2;
  if (a[mid] < a[lo])
    swap_int(&a[mid], &a[lo]);
  if (a[hi] < a[lo])
    swap_int(&a[hi], &a[lo]);
  if (a[hi] < a[mid])
    swap_int(&a[hi], &a[mid]);
  return a[mid];
}

void quicksort(int *a, int lo, int hi) {
  while (hi - lo > 16) {
    int p = median3(a, lo, hi);
    int i = lo, j = hi;
    while (i <= j) {
      while (a[i] < p)
        ++i;
      while (a[j] > p)
        --j;
      if (i <= j)
        swap_int(&a[i++], &a[j--]);
    }
    if (j - lo < hi - i) {
      quicksort(a, lo, j);
      lo = i;
    } else {
      quicksort(a, i, hi);
      hi = j;
    }
  }
  insertion_sort(a, lo, hi);
}

void merge_sort(double *a, double *tmp, size_t n) {
  if (n < 2)
    return;
  size_t h = n / 2;
  merge_sort(a, tmp, h);
  merge_sort(a + h, tmp, n - h);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n)
    tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
  while (i < h)
    tmp[k++] = a[i++];
  while (j < n)
    tmp[k++] = a[j++];
  memcpy(a, tmp, n * sizeof(double));
}

typedef int (*cmp_fn)(const void *, const void *);

void generic_sort(void *base, size_t n, size_t size, cmp_fn cmp) {
  char *b = base;
  char *t = malloc(size);
  for (size_t i = 1; i < n; ++i)
    for (size_t j = i; j > 0 && cmp(b + (j - 1) * size, b + j * size) > 0;
         --j) {
      memcpy(t, b + j * size, size);
      memcpy(b + j * size, b + (j - 1) * size, size);
      memcpy(b + (j - 1) * size, t, size);
    }
  free(t);
}

static int by_abs(const void *x, const void *y) {
  long a = *(const long *)x, b = *(const long *)y;
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  return (a > b) - (a < b);
}

int is_sorted_float(const float *a, int n) {
  for (int i = 1; i < n; ++i)
    if (!(a[i - 1] <= a[i]))
      return 0;
  return 1;
}

void sort_longs_by_abs(long *a, size_t n) { generic_sort(a, n, sizeof *a, by_abs); }
