/* String processing: tokenizing, case folding, a tiny printf-like number
 * formatter, palindromes and run-length encoding. */
typedef unsigned long size_t;

size_t my_strlen(const char *s) {
  const char *p = s;
  while (*p)
    ++p;
  return (size_t)(p - s);
}

static int is_space(char c) {
  switch (c) {
  case ' ':
  case '\t':
  case '\n':
  case '\r':
  case '\v':
  case '\f':
    return 1;
  default:
    return 0;
  }
}

int count_tokens(const char *s) {
  int n = 0, in = 0;
  for (; *s; ++s) {
    if (is_space(*s))
      in = 0;
    else if (!in) {
      in = 1;
      ++n;
    }
  }
  return n;
}

void to_upper(char *s) {
  for (; *s; ++s)
    if (*s >= 'a' && *s <= 'z')
      *s = (char)(*s - 'a' + 'A');
}

int is_palindrome(const char *s) {
  size_t n = my_strlen(s);
  if (n == 0)
    return 1;
  for (size_t i = 0, j = n - 1; i < j; ++i, --j)
    if (s[i] != s[j])
      return 0;
  return 1;
}

char *format_int(long v, char *buf, int base) {
  static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  char tmp[66];
  int i = 0, neg = v < 0;
  unsigned long u = neg ? 0ul - (unsigned long)v : (unsigned long)v;
  do {
    tmp[i++] = digits[u % (unsigned)base];
    u /= (unsigned)base;
  } while (u);
  char *o = buf;
  if (neg)
    *o++ = '-';
  while (i)
    *o++ = tmp[--i];
  *o = 0;
  return buf;
}

size_t rle_encode(const unsigned char *in, size_t n, unsigned char *out) {
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    unsigned char c = in[i];
    size_t run = 1;
    while (i + run < n && in[i + run] == c && run < 255)
      ++run;
    out[o++] = (unsigned char)run;
    out[o++] = c;
    i += run;
  }
  return o;
}

long parse_long(const char *s, int *ok) {
  long v = 0;
  int sign = 1;
  while (is_space(*s))
    ++s;
  if (*s == '-' || *s == '+')
    sign = *s++ == '-' ? -1 : 1;
  if (*s < '0' || *s > '9') {
    *ok = 0;
    return 0;
  }
  while (*s >= '0' && *s <= '9')
    v = v * 10 + (*s++ - '0');
  *ok = 1;
  return sign * v;
}
