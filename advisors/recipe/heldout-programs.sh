#!/usr/bin/env bash
#===- heldout-programs.sh - Build and test held-out programs ---------------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: advisors/recipe/heldout-programs.sh --out DIR [--src DIR]
#            [--packages LIST] [--jobs N] [-- EXTRA-CFLAGS...]
#
# Builds the libraries, tools and tests of held-out packages (C, and two
# C++) from their Debian sources (as vocab/recipe/build-corpus.sh fetched them) with
#
#   clang-22 -Oz <the corpus's flags of the file> EXTRA-CFLAGS... -c
#
# and runs their own tests, so that a size-optimising inliner can be checked
# to keep real programs working, e.g.
#
#   heldout-programs.sh --out /tmp/hp-model -- -fpass-plugin=build/lib/X.so \
#       -mllvm -irtk-inline-policy=model -mllvm -irtk-inline-model=M.json
#
# The include paths and macros are those of the packages' recipes in
# vocab/recipe/corpus-recipes.txt, so the objects are the inline-heldout
# corpus modules finished by -Oz (plus EXTRA-CFLAGS). EXTRA-CFLAGS go to
# every compile, never to a link (the libraries are static archives; links
# are `clang-22 -o prog objects archives -lm`).
#
# Packages:
#   cjson    libcjson (cJSON.c, cJSON_Utils.c), Unity, the 18 Unity tests and
#            3 cJSON_Utils tests of tests/CMakeLists.txt, run in a directory
#            holding copies of tests/inputs and tests/json-patch-tests; and
#            test.c (cJSON_test), run as a smoke test.
#   giflib   libgif and libutil (the Makefile's SOURCES, USOURCES), the 14
#            utilities, and the 10 groups of tests/makefile's `test` target
#            (they compare the utilities' output on pic/*.gif with checked-in
#            results), run one make target at a time.
#   tinyxml2 (C++) libtinyxml2 (tinyxml2.cpp, -std=c++17 as the corpus) and
#            xmltest, run in a directory holding a copy of resources/; its
#            own checks are the tests (passed and run: its "Pass N, Fail M").
#   double-conversion (C++) the library (double-conversion/*.cc) and cctest
#            (test/cctest/*.cc, with the gay-*.cc tables the corpus leaves
#            out), run once per group of test/cctest/CMakeLists.txt (9).
#
# Writes, per package, <out>/<package>/{obj,lib,bin}/, build.log, test.log and a
# line in <out>/summary.tsv: package, build (ok/failed), tests (passed/failed/
# -), tests passed of run, the summed .text bytes of the package's objects
# (llvm-size -A, sections .text*). Exits non-zero when a build or a test
# fails. Every run starts from an empty <out>/<package>.
#
# Options:
#   --out DIR          where to build (created)
#   --src DIR          the Debian sources (default: vocab/recipe/work/src,
#                      where build-corpus.sh fetches them)
#   --packages LIST    comma-separated (default: cjson,giflib)
#   --jobs N           parallel compiles (default: the number of cores)
# Environment: CLANG (default clang-22), LLVM_BIN (default
# /usr/lib/llvm-22/bin).
#
#===------------------------------------------------------------------------===#

set -euo pipefail

RECIPE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=
SRC=
PACKAGES=cjson,giflib
JOBS=$(nproc)
EXTRA=()
CLANG=${CLANG:-clang-22}
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}

RECIPE_NAME=heldout-programs
# shellcheck source=scripts/recipe-cli.sh
. "$RECIPE_DIR/../../scripts/recipe-cli.sh"

parse_options "--out=OUT --src=SRC --packages=PACKAGES --jobs=JOBS" "$@"
[[ -n $OUT ]] || usage_error "--out is required"
want_positive --jobs "$JOBS"
SRC=${SRC:-$RECIPE_DIR/../../vocab/recipe/work/src}
[[ -n $SRC && -d $SRC ]] || die "no Debian sources (--src; vocab/recipe/build-corpus.sh fetches them)"
command -v "$CLANG" >/dev/null || die "$CLANG not found (Debian package clang-22)"
for T in llvm-size llvm-ar; do
  [[ -x $LLVM_BIN/$T ]] || die "$LLVM_BIN/$T not found (Debian package llvm-22)"
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SRC=$(cd "$SRC" && pwd)

srcdir() { { compgen -G "$SRC/$1-[0-9]*/" || true; } | head -n1 | sed 's:/$::'; }

# compile OBJDIR FLAGS... -- FILES...: one object per file (named after it),
# $JOBS at a time; output to $BUILD_LOG. Fails when any compile fails.
compile() {
  local OBJ=$1; shift
  local -a FLAGS=()
  while [[ $1 != -- ]]; do FLAGS+=("$1"); shift; done
  shift
  mkdir -p "$OBJ"
  local F RC=0
  for F; do
    while (($(jobs -pr | wc -l) >= JOBS)); do wait -n || RC=1; done
    local N
    N=$(basename "$F")
    N=${N%.c}
    "$CLANG" -Oz "${FLAGS[@]}" "${EXTRA[@]}" -c "$F" \
      -o "$OBJ/${N%.cpp}.o" >>"$BUILD_LOG" 2>&1 &
  done
  while (($(jobs -pr | wc -l))); do wait -n || RC=1; done
  return "$RC"
}
link() { # output objects...
  local O=$1; shift
  "$CLANG" -o "$O" "$@" -lm >>"$BUILD_LOG" 2>&1
}
link_cxx() { # output objects...: with the C++ runtime
  local O=$1; shift
  "$CLANG" -o "$O" "$@" -lstdc++ -lm >>"$BUILD_LOG" 2>&1
}
archive() { # archive objects...
  mkdir -p "${1%/*}"
  rm -f "$1"
  "$LLVM_BIN/llvm-ar" rcs "$@" >>"$BUILD_LOG" 2>&1
}
text_bytes() { # objects...
  "$LLVM_BIN/llvm-size" -A "$@" | awk '$1 ~ /^\.text/ { s += $2 } END { print s + 0 }'
}

# --- cjson -----------------------------------------------------------------------
CJSON_TESTS=(parse_examples parse_number parse_hex4 parse_string parse_array
  parse_object parse_value print_string print_number print_array print_object
  print_value misc_tests parse_with_opts compare_tests cjson_add readme_examples
  minify_tests)
CJSON_UTILS_TESTS=(json_patch_tests old_utils_tests misc_utils_tests)
build_cjson() { # srcdir dir
  local S=$1 B=$2 T
  local -a I=(-I"$S" -I"$S/tests" -I"$S/tests/unity/src") SRCS=()
  for T in "${CJSON_TESTS[@]}" "${CJSON_UTILS_TESTS[@]}"; do SRCS+=("$S/tests/$T.c"); done
  compile "$B/obj" "${I[@]}" -- "$S/cJSON.c" "$S/cJSON_Utils.c" \
    "$S/tests/unity/src/unity.c" "$S/test.c" "${SRCS[@]}" || return 1
  # The tests include cJSON.c (tests/common.h) and link the libraries as
  # CMake does: archives, so that cJSON.o is only taken where needed.
  local O=$B/obj L=$B/lib
  archive "$L/libcjson.a" "$O/cJSON.o" || return 1
  archive "$L/libcjson_utils.a" "$O/cJSON_Utils.o" || return 1
  archive "$L/libunity.a" "$O/unity.o" || return 1
  for T in "${CJSON_TESTS[@]}"; do
    link "$B/bin/$T" "$O/$T.o" "$L/libcjson.a" "$L/libunity.a" || return 1
  done
  for T in "${CJSON_UTILS_TESTS[@]}"; do
    link "$B/bin/$T" "$O/$T.o" "$L/libcjson_utils.a" "$L/libcjson.a" "$L/libunity.a" ||
      return 1
  done
  link "$B/bin/cJSON_test" "$O/test.o" "$L/libcjson.a"
}
test_cjson() { # srcdir dir; prints "passed run"
  local S=$1 B=$2 T PASS=0 RUN=0
  mkdir -p "$B/run"
  cp -r "$S/tests/inputs" "$S/tests/json-patch-tests" "$B/run/"
  for T in "${CJSON_TESTS[@]}" "${CJSON_UTILS_TESTS[@]}" cJSON_test; do
    RUN=$((RUN + 1))
    echo "=== $T" >>"$TEST_LOG"
    if (cd "$B/run" && timeout 120 "$B/bin/$T") >>"$TEST_LOG" 2>&1; then
      PASS=$((PASS + 1))
    else
      echo "*** $T failed" >>"$TEST_LOG"
    fi
  done
  echo "$PASS $RUN"
}

# --- giflib ----------------------------------------------------------------------
GIF_LIB=(dgif_lib egif_lib gifalloc gif_err gif_font gif_hash openbsd-reallocarray quantize)
GIF_UTIL=(qprintf getarg)
GIF_TOOLS=(gif2rgb gifbuild giffix giftext giftool gifclrmp gifbg gifcolor gifecho
  giffilter gifhisto gifinto gifsponge gifwedge)
# The prerequisites of tests/makefile's `test` target.
GIF_TESTS=(render-regress gifbuild-regress gifclrmp-regress gifecho-regress
  giffilter-regress giffix-regress gifsponge-regress giftext-regress
  giftool-regress gifwedge-regress)
build_giflib() {
  local S=$1 B=$2 T
  local -a ALL=("${GIF_LIB[@]}" "${GIF_UTIL[@]}" "${GIF_TOOLS[@]}")
  compile "$B/obj" -I"$S" -- "${ALL[@]/%/.c}" || return 1
  local -a LIB=("${GIF_LIB[@]/#/$B/obj/}") UTIL=("${GIF_UTIL[@]/#/$B/obj/}")
  archive "$B/lib/libgif.a" "${LIB[@]/%/.o}" || return 1
  archive "$B/lib/libutil.a" "${UTIL[@]/%/.o}" || return 1
  for T in "${GIF_TOOLS[@]}"; do
    # The utilities live in <dir>/, next to tests/ and pic/ (tests/makefile's
    # UTILS = .. and PICS = ../pic).
    link "$B/$T" "$B/obj/$T.o" "$B/lib/libutil.a" "$B/lib/libgif.a" || return 1
  done
}
test_giflib() {
  local S=$1 B=$2
  cp -r "$S/tests" "$S/pic" "$B/"
  # One make target per test group, so that one failure does not hide the rest.
  local G PASS=0 RUN=0
  for G in "${GIF_TESTS[@]}"; do
    RUN=$((RUN + 1))
    echo "=== $G" >>"$TEST_LOG"
    if timeout 300 make -s -C "$B/tests" "$G" >>"$TEST_LOG" 2>&1; then
      PASS=$((PASS + 1))
    else
      echo "*** $G failed" >>"$TEST_LOG"
    fi
  done
  echo "$PASS $RUN"
}

# --- tinyxml2 (C++) -------------------------------------------------------------
build_tinyxml2() {
  local S=$1 B=$2
  compile "$B/obj" -std=c++17 -I"$S" -- "$S/tinyxml2.cpp" "$S/xmltest.cpp" || return 1
  archive "$B/lib/libtinyxml2.a" "$B/obj/tinyxml2.o" || return 1
  link_cxx "$B/bin/xmltest" "$B/obj/xmltest.o" "$B/lib/libtinyxml2.a"
}
test_tinyxml2() {
  local S=$1 B=$2 OUTPUT PASS FAIL
  mkdir -p "$B/run"
  cp -r "$S/resources" "$B/run/"
  mkdir -p "$B/run/resources/out"
  echo "=== xmltest" >>"$TEST_LOG"
  OUTPUT=$(cd "$B/run" && timeout 300 "$B/bin/xmltest" 2>&1) || echo "*** xmltest failed" >>"$TEST_LOG"
  printf '%s\n' "$OUTPUT" >>"$TEST_LOG"
  read -r PASS FAIL < <(printf '%s\n' "$OUTPUT" |
    sed -n 's/^Pass \([0-9]*\), Fail \([0-9]*\)$/\1 \2/p' | tail -n1)
  echo "${PASS:-0} $((${PASS:-0} + ${FAIL:-1}))"
}

# --- double-conversion (C++) ---------------------------------------------------
# The cctest groups of test/cctest/CMakeLists.txt, one run of cctest each.
DC_TESTS=(test-bignum test-bignum-dtoa test-conversions test-diy-fp test-dtoa
  test-fast-dtoa test-fixed-dtoa test-ieee test-strtod)
build_double-conversion() {
  local S=$1 B=$2
  local -a LIB=("$S"/double-conversion/*.cc) TEST=("$S"/test/cctest/*.cc)
  # One object directory (the .text total reads it), named after the files.
  compile "$B/obj" -std=c++17 -I"$S" -I"$S/test/cctest" -- "${LIB[@]}" \
    "${TEST[@]}" || return 1
  local -a LIBO=() TESTO=() F
  for F in "${LIB[@]}"; do LIBO+=("$B/obj/${F##*/}.o"); done
  for F in "${TEST[@]}"; do TESTO+=("$B/obj/${F##*/}.o"); done
  archive "$B/lib/libdouble-conversion.a" "${LIBO[@]}" || return 1
  link_cxx "$B/bin/cctest" "${TESTO[@]}" "$B/lib/libdouble-conversion.a"
}
test_double-conversion() {
  local B=$2 T PASS=0 RUN=0 OUTPUT
  for T in "${DC_TESTS[@]}"; do
    RUN=$((RUN + 1))
    echo "=== $T" >>"$TEST_LOG"
    # A failed CHECK aborts; a group that ran nothing is a failure too.
    if OUTPUT=$(timeout 300 "$B/bin/cctest" "$T" 2>&1) &&
      ! grep -q '^Ran 0 tests' <<<"$OUTPUT"; then
      PASS=$((PASS + 1))
    else
      echo "*** $T failed" >>"$TEST_LOG"
    fi
    printf '%s\n' "$OUTPUT" >>"$TEST_LOG"
  done
  echo "$PASS $RUN"
}

# --- Main ----------------------------------------------------------------------
IFS=, read -r -a PKGS <<<"$PACKAGES"
"$CLANG" --version | head -n1 >"$OUT/compiler"
printf '%s\n' "${EXTRA[@]}" >"$OUT/extra-cflags"
printf 'package\tbuild\ttests\tpassed\trun\ttext_bytes\n' >"$OUT/summary.tsv"
STATUS=0
for P in "${PKGS[@]}"; do
  case $P in
    cjson | giflib | tinyxml2 | double-conversion) ;;
    *) usage_error "unknown package '$P' (cjson, giflib, tinyxml2, double-conversion)" ;;
  esac
  S=$(srcdir "$P")
  [[ -n $S ]] || die "no source of $P in $SRC"
  B=$OUT/$P
  rm -rf "$B"
  mkdir -p "$B/bin"
  BUILD_LOG=$B/build.log TEST_LOG=$B/test.log
  : >"$BUILD_LOG"
  : >"$TEST_LOG"
  log "$P: building from $S (-Oz ${EXTRA[*]})"
  BUILD=ok TESTS=- PASS=0 RUN=0 TEXT=0
  if (cd "$S" && "build_$P" "$S" "$B"); then
    TEXT=$(text_bytes "$B"/obj/*.o)
    read -r PASS RUN < <("test_$P" "$S" "$B")
    if ((PASS == RUN && RUN > 0)); then TESTS=passed; else TESTS=failed; STATUS=1; fi
    log "$P: built (.text of the objects: $TEXT bytes); tests: $PASS of $RUN passed" \
      "(log: $TEST_LOG)"
  else
    BUILD=failed STATUS=1
    log "$P: build failed (log: $BUILD_LOG)"
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$P" "$BUILD" "$TESTS" "$PASS" "$RUN" "$TEXT" \
    >>"$OUT/summary.tsv"
done
column -t -s $'\t' "$OUT/summary.tsv" >&2 || cat "$OUT/summary.tsv" >&2
exit $STATUS
