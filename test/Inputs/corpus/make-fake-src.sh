#!/bin/sh
# Usage: make-fake-src.sh DIR
# A source directory as build-corpus.sh fetches it (<package>-<version>/
# with a Debian changelog), of three tiny packages whose recipes exist:
# giflib and cjson (C), tinyxml2 (C++).
set -eu
D=$1
for P in giflib:5.2.1 cjson:1.7.15 tinyxml2:9.0.0; do
  N=${P%%:*} V=${P#*:}
  mkdir -p "$D/$N-$V/debian"
  printf '%s (%s-1) unstable; urgency=medium\n\n  * Test.\n\n -- T <t@example.org>  Mon, 01 Jan 2024 00:00:00 +0000\n' \
    "$N" "$V" >"$D/$N-$V/debian/changelog"
done
printf 'int gif_one(int x) { return x + 1; }\n' >"$D/giflib-5.2.1/one.c"
printf 'int gif_two(int x) { return x * 2; }\n' >"$D/giflib-5.2.1/two.c"
printf 'int cjson_parse(const char *s) { return s[0]; }\n' >"$D/cjson-1.7.15/cJSON.c"
printf 'struct Doc { int n = 0; int size() const { return n; } };\nint xml(Doc &d) { return d.size(); }\n' \
  >"$D/tinyxml2-9.0.0/tinyxml2.cpp"
