/* An open-addressing string hash table with resizing (no system headers, so
 * the differential test compiles it the same way everywhere). */
typedef unsigned long size_t;
void *calloc(size_t n, size_t size);
void free(void *p);
int strcmp(const char *a, const char *b);
char *strdup(const char *s);

struct entry {
  char *key;
  long value;
  unsigned hash;
};

struct table {
  struct entry *slots;
  size_t cap;
  size_t len;
};

static unsigned fnv1a(const char *s) {
  unsigned h = 2166136261u;
  while (*s) {
    h ^= (unsigned char)*s++;
    h *= 16777619u;
  }
  return h;
}

int table_init(struct table *t, size_t cap) {
  t->slots = calloc(cap, sizeof(struct entry));
  t->cap = cap;
  t->len = 0;
  return t->slots != 0;
}

static struct entry *find_slot(struct entry *slots, size_t cap,
                               const char *key, unsigned h) {
  size_t i = h & (cap - 1);
  for (;;) {
    struct entry *e = &slots[i];
    if (!e->key || (e->hash == h && strcmp(e->key, key) == 0))
      return e;
    i = (i + 1) & (cap - 1);
  }
}

static int grow(struct table *t) {
  size_t ncap = t->cap * 2;
  struct entry *ns = calloc(ncap, sizeof(struct entry));
  if (!ns)
    return 0;
  for (size_t i = 0; i < t->cap; ++i) {
    struct entry *e = &t->slots[i];
    if (e->key)
      *find_slot(ns, ncap, e->key, e->hash) = *e;
  }
  free(t->slots);
  t->slots = ns;
  t->cap = ncap;
  return 1;
}

int table_put(struct table *t, const char *key, long value) {
  if ((t->len + 1) * 4 > t->cap * 3 && !grow(t))
    return 0;
  unsigned h = fnv1a(key);
  struct entry *e = find_slot(t->slots, t->cap, key, h);
  if (!e->key) {
    e->key = strdup(key);
    e->hash = h;
    t->len++;
  }
  e->value = value;
  return 1;
}

long table_get(const struct table *t, const char *key, long dflt) {
  unsigned h = fnv1a(key);
  struct entry *e = find_slot(t->slots, t->cap, key, h);
  return e->key ? e->value : dflt;
}

void table_free(struct table *t) {
  for (size_t i = 0; i < t->cap; ++i)
    free(t->slots[i].key);
  free(t->slots);
  t->slots = 0;
  t->cap = t->len = 0;
}

long count_words(const char **words, int n) {
  struct table t;
  long distinct = 0;
  if (!table_init(&t, 8))
    return -1;
  for (int i = 0; i < n; ++i) {
    long c = table_get(&t, words[i], 0);
    if (c == 0)
      distinct++;
    table_put(&t, words[i], c + 1);
  }
  table_free(&t);
  return distinct;
}
