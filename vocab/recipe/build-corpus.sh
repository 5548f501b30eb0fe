#!/usr/bin/env bash
#===- build-corpus.sh - Bitcode corpora of real C and C++ code -------------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: vocab/recipe/build-corpus.sh [--work DIR] [--src DIR] [--jobs N]
#            [--levels-per-file K] [--splits LIST] [--packages FILE]
#            [--rebuild]
#
# Fetches the Debian source packages listed in packages.txt (next to this
# script) with `apt-get source`, runs configure steps where a package needs
# generated headers, and compiles their C and C++ files with
# `clang-22 / clang++-22 -O<level> -c -emit-llvm`, one module per translation
# unit and level (the inline-* splits: pre-optimisation bitcode, see below).
# Each split is an MLGO corpus (mlgo-utils' layout):
#
#   <work>/<split>/corpus_description.json
#       {"has_thinlto": false, "modules": ["O2/zlib/deflate", ...]}
#   <work>/<split>/<level>/<package>/<file>.bc    the module
#   <work>/<split>/<level>/<package>/<file>.cmd   its compile flags
#
# Splits (a package's splits are in packages.txt):
#   train    every file at K of the six levels O0 O1 O2 O3 Os Oz (K is
#            --levels-per-file, default 3). The levels are the first K of a
#            permutation of the six picked by the CRC-32 (`cksum`) of
#            "<package>/<path in the package>": deterministic, about
#            uniform over files, and raising K only adds levels.
#   heldout  every file at O0, O2 and Oz, in packages training never sees,
#            so a function's -O0 and -Oz modules can be matched by name.
#   bench    every file at O2; bench/build-corpus.sh builds it for
#            bench/run.sh.
#   inline-train, inline-valid, inline-heldout
#            pre-optimisation bitcode, as MLGO collects it for inlining:
#            every file once, at the level directory Oz-preopt, compiled with
#            `-Oz -Xclang -disable-llvm-passes`: the functions carry -Oz's
#            attributes (minsize, optsize; not -O0's noinline and optnone)
#            and no LLVM pass has run. For the advisors (advisors/recipe/):
#            `clang-22 -Oz -c X.bc` finishes a module as `clang-22 -Oz -c`
#            of its source would. inline-train holds the packages whose
#            splits include train or inline-train, except those of
#            inline-valid; inline-valid (validation: it chooses checkpoints
#            and margins) the packages that name it; inline-heldout those
#            of heldout or inline-heldout (held-out code chooses nothing).
#            Packages named only in inline-* splits are not in the
#            vocabulary's corpora, so adding them leaves the vocabulary
#            recipe's input unchanged.
# <file> is the file's path in its package with `/` replaced by `_` and the
# extension dropped (lib/at-func.c -> lib_at-func). The level comes first so
# that <work>/<split>/<level>/ is a one-level slice of the corpus and each
# .bc's directory names its package.
#
# Each <file>.cmd holds the clang-22/clang++-22 arguments that made the
# module, without the action (-c -emit-llvm), the input, the output and -w,
# each followed by a NUL byte: the format of the .llvmcmd section that
# mlgo-utils' extract_ir copies into .cmd (which holds cc1 arguments, also
# without input, output and warning flags). corpus_description.json has no
# "global_command_override": the modules differ in level, include paths and
# macros, so one command line cannot replace their .cmd files (extract_ir
# omits the key too, except for local ThinLTO).
#
# <work>/corpus-manifest.json records, for each split in <work>, the packages
# with their Debian versions and languages, the levels, the module counts
# (per package and per level) and the modules that failed to compile.
#
# A rerun reuses every module whose .cmd matches what it would compile now
# and prunes files the corpus no longer lists. Files that fail to compile are
# skipped; their logs stay in <work>/logs/cc-<split>-*.log. A package whose
# `apt-get source` fails is skipped with a warning. The script fails when the
# train split ends up with modules from fewer than 10 packages.
#
# Options:
#   --work DIR             output directory (default: vocab/recipe/work)
#   --src DIR              where sources are fetched and configured (default:
#                          <work>/src); may be shared with another work dir
#   --jobs N               parallel compiles (default: the number of cores)
#   --levels-per-file K    train levels per file, 1 to 6 (default: 3)
#   --splits LIST          comma-separated splits to build: train, heldout,
#                          bench, inline-train, inline-valid, inline-heldout
#                          (default: train,heldout)
#   --packages FILE        the package list (default: packages.txt next to
#                          this script); each package must have its recipe
#                          (jobs_<package>) here
#   --rebuild              delete the splits' modules, the logs and (without
#                          --src) the sources, then build from scratch
# Environment: CLANG, CLANGXX (default clang-22, clang++-22).
#
# Needs: Debian (bookworm or later) with apt-get and dpkg-dev, clang-22,
# make, /usr/bin/python3; tclsh for SQLite's amalgamation (installed with
# apt-get when missing). Adds a deb-src entry for the running release when
# none is configured, which needs root.
#
#===------------------------------------------------------------------------===#

set -euo pipefail

RECIPE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PACKAGE_LIST=$RECIPE_DIR/packages.txt
WORK=$RECIPE_DIR/work
SRC=
JOBS=$(nproc)
LEVELS_PER_FILE=3
SPLITS=train,heldout
REBUILD=0
CLANG=${CLANG:-clang-22}
CLANGXX=${CLANGXX:-clang++-22}
PYTHON=/usr/bin/python3
ALL_LEVELS=(O0 O1 O2 O3 Os Oz)
HELDOUT_LEVELS=(O0 O2 Oz)
BENCH_LEVELS=(O2)
PREOPT_LEVELS=(Oz-preopt)
MIN_TRAIN_PACKAGES=10

RECIPE_NAME=build-corpus
# shellcheck source=scripts/recipe-cli.sh
. "$RECIPE_DIR/../../scripts/recipe-cli.sh"

# --- 0. Options ------------------------------------------------------------------
while (($#)); do
  next_opt "--work --src --jobs --levels-per-file --splits --packages" "$@"
  shift "$NSHIFT"
  case $OPT in
    --work) WORK=$VAL ;;
    --src) SRC=$VAL ;;
    --jobs) JOBS=$VAL ;;
    --levels-per-file) LEVELS_PER_FILE=$VAL ;;
    --splits) SPLITS=$VAL ;;
    --packages) PACKAGE_LIST=$VAL ;;
    --rebuild) REBUILD=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown option '$OPT'" ;;
  esac
done
want_positive --jobs "$JOBS"
[[ $LEVELS_PER_FILE =~ ^[1-6]$ ]] ||
  usage_error "--levels-per-file wants a number from 1 to 6, not '$LEVELS_PER_FILE'"
[[ -f $PACKAGE_LIST ]] || die "$PACKAGE_LIST: no such package list"
IFS=, read -r -a SPLIT_LIST <<<"$SPLITS"
((${#SPLIT_LIST[@]})) || usage_error "--splits is empty"
for S in "${SPLIT_LIST[@]}"; do
  [[ $S =~ ^(train|heldout|bench|inline-train|inline-valid|inline-heldout)$ ]] ||
    usage_error "unknown split '$S' (train, heldout, bench, inline-train, inline-valid or inline-heldout)"
done

# --- Helpers -------------------------------------------------------------------
in_list() { # word list...
  local W=$1; shift
  local X
  for X; do [[ $X == "$W" ]] && return 0; done
  return 1
}
fn_name() { printf '%s' "${1//[^A-Za-z0-9]/_}"; }

srcdir() { { compgen -G "$SRC/$1-[0-9]*/" || true; } | head -n1 | sed 's:/$::'; }

as_root() {
  if [[ $(id -u) == 0 ]]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else die "need root for: $*"; fi
}

# A deb-src entry for the running release, from the archive the machine's
# binary packages come from.
ensure_deb_src() { # a package to probe with
  command -v apt-get >/dev/null || die "apt-get not found; this script fetches Debian source packages"
  command -v dpkg-source >/dev/null || die "dpkg-source not found (Debian package dpkg-dev)"
  if ! grep -rqsE '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)' \
      /etc/apt/sources.list /etc/apt/sources.list.d/; then
    local CODENAME URI
    # shellcheck disable=SC1091 # a system file
    CODENAME=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [[ -n $CODENAME ]] || die "cannot tell the Debian release from /etc/os-release"
    URI=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources | head -n 1 |
      awk '{print $2}')
    [[ -n $URI ]] || URI=$(awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
    [[ -n $URI ]] || die "cannot find the Debian archive in /etc/apt"
    log "adding deb-src for $CODENAME (/etc/apt/sources.list.d/irtk-deb-src.sources)"
    printf '%s\n' 'Types: deb-src' "URIs: $URI" \
      "Suites: $CODENAME" 'Components: main' \
      'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' |
      as_root tee /etc/apt/sources.list.d/irtk-deb-src.sources >/dev/null
    as_root apt-get update -qq
  elif [[ -z $(apt-cache showsrc "$1" 2>/dev/null) ]]; then
    log "apt-get update (no source records yet)"
    as_root apt-get update -qq
  fi
}

fetch() { # package
  if (cd "$SRC" && apt-get source -qq "$1" >"$LOGS/source-$1.log" 2>&1); then
    log "fetched $(basename "$(srcdir "$1")")"
  else
    log "warning: apt-get source $1 failed, skipping it (see $LOGS/source-$1.log)"
  fi
}

# The levels of one file in one split.
FACT=(1 1 2 6 24 120)
levels_of() { # split key
  case $1 in
    heldout) echo "${HELDOUT_LEVELS[*]}" ;;
    bench) echo "${BENCH_LEVELS[*]}" ;;
    inline-*) echo "${PREOPT_LEVELS[*]}" ;;
    train)
      # Permutation number CRC mod 6! of the six levels, in the factorial
      # number system; its first K levels.
      local H N I IDX POOL=("${ALL_LEVELS[@]}") PICK=()
      H=$(printf '%s' "$2" | cksum)
      N=$((${H%% *} % 720))
      for ((I = 5; I >= 0; I--)); do
        IDX=$((N / FACT[I])); N=$((N % FACT[I]))
        PICK+=("${POOL[IDX]}")
        POOL=("${POOL[@]:0:IDX}" "${POOL[@]:IDX+1}")
      done
      echo "${PICK[*]:0:LEVELS_PER_FILE}" ;;
  esac
}

# The clang arguments of a level directory, shell-quoted: -<level>, or for
# <level>-preopt the level's front end without LLVM's passes.
level_flags() { # level
  case $1 in
    *-preopt) printf '%s' "-${1%-preopt} -Xclang -disable-llvm-passes" ;;
    *) printf '%s' "-$1" ;;
  esac
}

# --- Package recipes ------------------------------------------------------------------
# prep_<package> <srcdir> (optional) runs configure steps; jobs_<package>
# <srcdir> prints one line per file to compile: "<package>\t<file>\t<flags>",
# the flags shell-quoted. <package> is the name in packages.txt with every
# character other than a letter or digit replaced by '_'.

configure_pkg() { # dir configure-args...
  local D=$1; shift
  [[ -f $D/.irtk-configured ]] && return 0
  log "configuring $(basename "$D") (takes a minute)"
  if (cd "$D" && CC=$CLANG ./configure --disable-dependency-tracking "$@" \
        >"$LOGS/configure-$(basename "$D").log" 2>&1); then
    touch "$D/.irtk-configured"
  else
    log "warning: configure failed in $D; compiling without config.h"
  fi
}

prep_gzip() {
  # gzip's gnulib headers and version.h are generated by make.
  configure_pkg "$1" --disable-nls
  [[ -f $1/.irtk-built ]] && return 0
  if make -C "$1" -j"$JOBS" ACLOCAL=true AUTOCONF=true AUTOMAKE=true \
      AUTOHEADER=true MAKEINFO=true >"$LOGS/make-gzip.log" 2>&1; then
    touch "$1/.irtk-built"
  else
    log "warning: make failed in $1 (see $LOGS/make-gzip.log)"
  fi
}
prep_xz_utils() { configure_pkg "$1" --disable-nls --disable-shared; }
prep_sqlite3() {
  [[ -f $1/bld/sqlite3.c ]] && return 0
  if ! command -v tclsh >/dev/null; then
    log "installing tcl (SQLite's amalgamation is generated by Tcl scripts)"
    as_root apt-get install -y -qq tcl >/dev/null
  fi
  log "generating the SQLite amalgamation"
  if ! (mkdir -p "$1/bld" && cd "$1/bld" &&
        CC=$CLANG ../configure >"$LOGS/configure-sqlite3.log" 2>&1 &&
        make sqlite3.c shell.c >"$LOGS/make-sqlite3.log" 2>&1); then
    log "warning: SQLite amalgamation failed (see $LOGS/*sqlite3.log)"
  fi
}

# Sources in each existing DIR (recursively with -r), sorted, without quilt's
# .pc/ and debian/. -x GLOB drops file names, -xp GLOB paths.
srcs() { # [-r] [-x GLOB]... [-xp GLOB]... DIR...
  local DEPTH=(-maxdepth 1) EX=() DIRS=()
  while (($#)); do
    case $1 in
      -r) DEPTH=() ;;
      -x) EX+=(! -name "$2"); shift ;;
      -xp) EX+=(! -path "$2"); shift ;;
      *) if [[ -d $1 ]]; then DIRS+=("$1"); fi ;;
    esac
    shift
  done
  ((${#DIRS[@]})) || return 0
  find "${DIRS[@]}" "${DEPTH[@]}" \( -name .pc -o -name debian \) -prune -o \
    -type f \( -name '*.c' -o -name '*.cc' -o -name '*.cpp' -o -name '*.cxx' \) \
    "${EX[@]}" -print | sort
}
# Reads file names, prints one job line each with the shell-quoted flags.
add_jobs() { # flags... < files
  local F Q
  Q=$(printf '%q ' "$@")
  while IFS= read -r F; do printf '%s\t%s\t%s\n' "$CUR_PKG" "$F" "$Q"; done
}

# -- C ---------------------------------------------------------------------------------
jobs_zlib() {
  srcs "$1" | add_jobs -I"$1" -DHAVE_UNISTD_H -DHAVE_STDARG_H -D_LARGEFILE64_SOURCE=1
  srcs "$1/contrib/minizip" |
    add_jobs -I"$1" -I"$1/contrib/minizip" -D_LARGEFILE64_SOURCE=1
}
jobs_bzip2() { srcs -x dlltest.c "$1" | add_jobs -I"$1" -D_FILE_OFFSET_BITS=64; }
jobs_lua5_4() {
  # Debian's patches include a header that its rules file writes.
  local MA
  MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
  mkdir -p "$GEN/lua5.4"
  echo "#define DEB_HOST_MULTIARCH \"$MA\"" >"$GEN/lua5.4/lua5.4-deb-multiarch.h"
  srcs "$1/src" | add_jobs -I"$1/src" -I"$GEN/lua5.4" -DLUA_USE_LINUX -DLUA_COMPAT_5_3
}
jobs_sqlite3() {
  local F
  for F in sqlite3.c shell.c; do
    if [[ -f $1/bld/$F ]]; then echo "$1/bld/$F"; fi
  done |
    add_jobs -I"$1/bld" -DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_FTS5 \
      -DSQLITE_ENABLE_RTREE -DSQLITE_ENABLE_JSON1
  srcs "$1/ext/misc" | add_jobs -I"$1/bld" -I"$1/src" -I"$1/ext/misc"
}
jobs_gzip() { srcs "$1" "$1/lib" | add_jobs -I"$1" -I"$1/lib" -DHAVE_CONFIG_H; }
jobs_jq() {
  srcs "$1/src" | add_jobs -I"$1/src" -DHAVE_MKSTEMP -DHAVE_ISATTY -DIEEE_8087 \
    -DHAVE_ALLOCA_H -DHAVE_ALLOCA -D_GNU_SOURCE -DPACKAGE_STRING='"jq 1.6"' \
    -DJQ_VERSION='"1.6"'
}
jobs_libyaml() {
  srcs "$1/src" | add_jobs -I"$1/include" -I"$1/src" -DYAML_VERSION_MAJOR=0 \
    -DYAML_VERSION_MINOR=2 -DYAML_VERSION_PATCH=5 -DYAML_VERSION_STRING='"0.2.5"'
}
jobs_xz_utils() {
  local S INC=(-I"$1" -DHAVE_CONFIG_H -I"$1/src/common")
  for S in api common check lz rangecoder lzma delta simple; do
    INC+=(-I"$1/src/liblzma/$S")
  done
  srcs -r -xp '*/tests/*' "$1/src/liblzma" "$1/src/xz" "$1/src/common" |
    add_jobs "${INC[@]}"
}
jobs_libzstd() {
  srcs -r -xp '*/legacy/*' "$1/lib" "$1/programs" | add_jobs -I"$1/lib" \
    -I"$1/lib/common" -DXXH_NAMESPACE=ZSTD_ -DZSTD_MULTITHREAD -DZSTD_LEGACY_SUPPORT=0
}
jobs_lz4() {
  srcs "$1/lib" "$1/programs" "$1/tests" "$1/examples" |
    add_jobs -I"$1/lib" -I"$1/programs"
}
jobs_brotli() { srcs -r "$1/c" | add_jobs -I"$1/c/include"; }
jobs_lzo2() {
  srcs "$1/src" "$1/examples" "$1/lzotest" "$1/tests" |
    add_jobs -I"$1/include" -I"$1" -I"$1/src"
  srcs "$1/minilzo" | add_jobs -I"$1/minilzo" -I"$1/include/lzo"
}
jobs_libpng1_6() {
  # The configured pnglibconf.h is the prebuilt one; zlib.h from zlib's
  # source when we have it, else from the system.
  local Z ZINC=()
  mkdir -p "$GEN/libpng1.6"
  cp "$1/scripts/pnglibconf.h.prebuilt" "$GEN/libpng1.6/pnglibconf.h"
  Z=$(srcdir zlib)
  if [[ -n $Z ]]; then ZINC=(-I"$Z"); fi
  # makepng.c and tarith.c need a libpng configuration other than the default.
  srcs -x makepng.c -x tarith.c "$1" "$1/intel" "$1/contrib/libtests" \
    "$1/contrib/tools" "$1/contrib/examples" |
    add_jobs -I"$GEN/libpng1.6" -I"$1" "${ZINC[@]}" -DPNG_INTEL_SSE
}
jobs_giflib() { srcs "$1" | add_jobs -I"$1"; }
jobs_cjson() {
  srcs "$1" "$1/tests" "$1/tests/unity/src" |
    add_jobs -I"$1" -I"$1/tests" -I"$1/tests/unity/src"
}
# Linux build as in CMakeLists.txt: other OSes' unix/ files and the Windows test runner are excluded.
jobs_libuv1() {
  local F=(-D_GNU_SOURCE -D_POSIX_C_SOURCE=200112 -I"$1/include" -I"$1/src")
  srcs "$1/src" | add_jobs "${F[@]}"
  srcs -x 'aix*' -x 'bsd-*' -x cygwin.c -x 'darwin*' -x freebsd.c -x fsevents.c -x haiku.c -x hurd.c \
    -x ibmi.c -x kqueue.c -x netbsd.c -x 'no-*' -x openbsd.c -x 'os390*' -x 'posix-*' \
    -x pthread-fixes.c -x qnx.c -x random-getentropy.c -x sunos.c -x 'sysinfo-*' "$1/src/unix" |
    add_jobs "${F[@]}"
  srcs -x runner-win.c "$1/test" | add_jobs "${F[@]}" -I"$1/test"
}
# mtest/ is the standalone libmpi "opponent" used by demo/mtest_opponent.c.
jobs_libtommath() {
  srcs "$1" "$1/demo" "$1/etc" | add_jobs -I"$1"
  srcs "$1/mtest" | add_jobs -I"$1/mtest"
}
# config.h/pcre2.h are the .generic copies plus the Debian-style feature set (8-bit, Unicode, JIT).
# pcre2_jit_{match,misc}.c, pcre2_printint.c and pcre2_ucptables.c are #included by other files;
# pcre2_fuzzsupport.c is the fuzzer. pcre2_chartables.c.dist is the default chartables (-x c).
jobs_pcre2() {
  local S=$1/src G=$GEN/pcre2
  mkdir -p "$G"
  cp "$S/pcre2.h.generic" "$G/pcre2.h"
  { cat "$S/config.h.generic"
    printf '#define %s 1\n' SUPPORT_PCRE2_8 SUPPORT_UNICODE SUPPORT_JIT SUPPORT_PCRE2GREP_JIT \
      SUPPORT_PCRE2GREP_CALLOUT SUPPORT_PCRE2GREP_CALLOUT_FORK HAVE_STDINT_H HAVE_INTTYPES_H \
      HAVE_UNISTD_H HAVE_DIRENT_H HAVE_SYS_STAT_H HAVE_SYS_TYPES_H HAVE_SYS_WAIT_H HAVE_LIMITS_H \
      HAVE_STRING_H HAVE_STRINGS_H HAVE_STDLIB_H HAVE_MEMMOVE HAVE_STRERROR HAVE_REALPATH \
      HAVE_MKOSTEMP HAVE_SECURE_GETENV HAVE_MEMFD_CREATE HAVE_PTHREAD HAVE_VISIBILITY STDC_HEADERS
  } >"$G/config.h"
  local F=(-DHAVE_CONFIG_H -DPCRE2_CODE_UNIT_WIDTH=8 -I"$G" -I"$S")
  srcs -x pcre2_jit_match.c -x pcre2_jit_misc.c -x pcre2_printint.c -x pcre2_ucptables.c \
    -x pcre2_fuzzsupport.c "$S" | add_jobs "${F[@]}"
  echo "$S/pcre2_chartables.c.dist" | add_jobs -x c "${F[@]}"
}
# src/duktape.c is the amalgamation (src-noline/ and src-separate/ hold the same code again).
# The Windows debug transport is excluded (duk_cmdline.c uses linenoise only with DUK_CMDLINE_FANCY).
jobs_duktape() {
  local D I=(-I"$1/src")
  for D in "$1"/extras/*/ "$1"/examples/*/; do I+=(-I"${D%/}"); done
  srcs "$1/src" | add_jobs "${I[@]}"
  srcs -x '*windows*' -x '*.cpp' "$1"/extras/* "$1"/examples/* | add_jobs "${I[@]}"
  srcs -x '*.c' "$1/examples/cpp-exceptions" | add_jobs -std=c++17 "${I[@]}"
}
# configure would write jansson_config.h and jansson_private_config.h. test/ossfuzz is skipped.
jobs_jansson() {
  local G=$GEN/jansson
  mkdir -p "$G"
  sed -e 's/@json_inline@/inline/; s/@json_have_long_long@/1/; s/@json_have_localeconv@/1/' \
    -e 's/@json_have_atomic_builtins@/1/; s/@json_have_sync_builtins@/1/' \
    "$1/src/jansson_config.h.in" >"$G/jansson_config.h"
  printf '#define %s 1\n' HAVE_ENDIAN_H HAVE_FCNTL_H HAVE_LOCALE_H HAVE_SCHED_H HAVE_UNISTD_H \
    HAVE_SYS_PARAM_H HAVE_SYS_STAT_H HAVE_SYS_TIME_H HAVE_SYS_TYPES_H HAVE_STDINT_H HAVE_CLOSE \
    HAVE_GETPID HAVE_GETTIMEOFDAY HAVE_LOCALECONV HAVE_OPEN HAVE_READ HAVE_SCHED_YIELD HAVE_STRTOLL \
    HAVE_SYNC_BUILTINS HAVE_ATOMIC_BUILTINS USE_URANDOM >"$G/jansson_private_config.h"
  echo '#define INITIAL_HASHTABLE_ORDER 3' >>"$G/jansson_private_config.h"
  srcs "$1/src" "$1/test/bin" "$1/test/suites/api" "$1/examples" | add_jobs -DHAVE_CONFIG_H -I"$G" -I"$1/src"
}
# CMake would write config.h, cmark_version.h and cmark_export.h (generate_export_header).
jobs_cmark() {
  local G=$GEN/cmark
  mkdir -p "$G"
  sed -e 's/#cmakedefine \(.*\)/#define \1/' "$1/src/config.h.in" >"$G/config.h"
  sed -e 's/@PROJECT_VERSION_MAJOR@/0/g; s/@PROJECT_VERSION_MINOR@/30/g; s/@PROJECT_VERSION_PATCH@/2/g' \
    "$1/src/cmark_version.h.in" >"$G/cmark_version.h"
  printf '%s\n' '#ifndef CMARK_EXPORT_H' '#define CMARK_EXPORT_H' \
    '#define CMARK_EXPORT __attribute__((visibility("default")))' \
    '#define CMARK_NO_EXPORT __attribute__((visibility("hidden")))' \
    '#define CMARK_DEPRECATED __attribute__((__deprecated__))' \
    '#define CMARK_DEPRECATED_EXPORT CMARK_EXPORT CMARK_DEPRECATED' \
    '#define CMARK_DEPRECATED_NO_EXPORT CMARK_NO_EXPORT CMARK_DEPRECATED' '#endif' >"$G/cmark_export.h"
  srcs "$1/src" "$1/api_test" -x '*.cpp' | add_jobs -I"$G" -I"$1/src" -I"$1/api_test"
  srcs "$1/api_test" -x '*.c' | add_jobs -std=c++17 -I"$G" -I"$1/src" -I"$1/api_test"
}
jobs_http_parser() { srcs "$1" "$1/contrib" | add_jobs -I"$1"; }
# configure writes version.h (from version.h.in) and passes its results as -D flags: here they are
# in $GEN/libsodium/config.h, force-included. Files needing -mssse3/-msse4.1/-mavx2/-mavx512f/-maes
# (the Makefile's libssse3/libsse41/libavx2/libavx512f/libaesni parts) are excluded; HAVE_RDRAND
# is left undefined, as it needs -mrdrnd.
jobs_libsodium() {
  local G=$GEN/libsodium S=$1/src/libsodium
  mkdir -p "$G/sodium"
  sed -e 's/@VERSION@/1.0.18/; s/@SODIUM_LIBRARY_VERSION_MAJOR@/10/; s/@SODIUM_LIBRARY_VERSION_MINOR@/3/' \
    -e 's/@SODIUM_LIBRARY_MINIMAL_DEF@//' "$S/include/sodium/version.h.in" >"$G/sodium/version.h"
  printf '#define %s 1\n' NATIVE_LITTLE_ENDIAN HAVE_MMINTRIN_H HAVE_EMMINTRIN_H HAVE_PMMINTRIN_H \
    HAVE_TMMINTRIN_H HAVE_SMMINTRIN_H HAVE_AVXINTRIN_H HAVE_AVX2INTRIN_H HAVE_AVX512FINTRIN_H \
    HAVE_WMMINTRIN_H HAVE_AMD64_ASM HAVE_AVX_ASM HAVE_TI_MODE HAVE_CPUID \
    HAVE_WEAK_SYMBOLS HAVE_ATOMIC_OPS HAVE_ALLOCA_H HAVE_ALLOCA HAVE_SYS_MMAN_H HAVE_SYS_RANDOM_H \
    HAVE_MMAP HAVE_MLOCK HAVE_MADVISE HAVE_MPROTECT HAVE_POSIX_MEMALIGN HAVE_GETPID HAVE_NANOSLEEP \
    HAVE_GETRANDOM HAVE_GETENTROPY HAVE_EXPLICIT_BZERO HAVE_LINUX_COMPATIBLE_GETRANDOM \
    HAVE_C_VARARRAYS HAVE_CATCHABLE_SEGV HAVE_CATCHABLE_ABRT HAVE_PTHREAD HAVE_INLINE_ASM \
    >"$G/config.h"
  local F=(-include "$G/config.h" -I"$G/sodium" -I"$G" -I"$S/include/sodium" -I"$S/include")
  srcs -r -x '*-ssse3.c' -x '*-sse41.c' -x '*-avx2.c' -x '*-avx512f.c' -x '*_aesni.c' "$S" | add_jobs "${F[@]}"
  srcs "$1/test/default" | add_jobs "${F[@]}" -I"$1/test/quirks" -DTEST_SRCDIR='"."'
}
jobs_xxhash() {
  local C=$1/tests/collisions
  srcs "$1" "$1/cli" "$1/tests" "$1/tests/bench" | add_jobs -I"$1" -I"$1/cli"
  srcs -x '*.cc' "$C" "$C/allcodecs" | add_jobs -std=c99 -I"$C" -I"$1" -I"$C/allcodecs" -pthread
  srcs -x '*.c' "$C" | add_jobs -std=c++11 -I"$C" -I"$1" -I"$C/allcodecs"
}
# mtest6.c is not built by the Makefile and calls mdb.c's internal mdb_dkey (implicit decl).
jobs_lmdb() { srcs -x mtest6.c "$1/libraries/liblmdb" | add_jobs -I"$1/libraries/liblmdb" -pthread; }
# Non-fat build: reference files plus SSE2-baseline blake2b.c/blake2s.c, empty SUFFIX as in
# libb2_la_CPPFLAGS. config.h replaces what configure would write (little-endian x86_64).
jobs_libb2() {
  mkdir -p "$GEN/libb2"
  printf '#define %s\n' 'NATIVE_LITTLE_ENDIAN 1' 'HAVE_EXPLICIT_BZERO 1' 'HAVE_MEMSET 1' \
    'HAVE_STDDEF_H 1' 'HAVE_STDINT_H 1' 'HAVE_STDLIB_H 1' 'HAVE_STRING_H 1' >"$GEN/libb2/config.h"
  srcs "$1/src" | add_jobs -I"$GEN/libb2" -I"$1/src" -DSUFFIX=
}
jobs_clzip() { srcs "$1" | add_jobs -I"$1" -DPROGVERSION='"1.13"'; }
# CMake would write config.h, json_config.h, json.h (json.h.cmakein) and apps_config.h. fuzz/ is skipped.
jobs_json_c() {
  local G=$GEN/json-c
  mkdir -p "$G"
  { printf '#define %s 1\n' HAVE_DLFCN_H HAVE_ENDIAN_H HAVE_FCNTL_H HAVE_INTTYPES_H HAVE_LIMITS_H \
      HAVE_LOCALE_H HAVE_MEMORY_H HAVE_STDARG_H HAVE_STDINT_H HAVE_STDLIB_H HAVE_STRINGS_H \
      HAVE_STRING_H HAVE_SYSLOG_H HAVE_SYS_CDEFS_H HAVE_SYS_PARAM_H HAVE_SYS_RANDOM_H \
      HAVE_SYS_RESOURCE_H HAVE_SYS_STAT_H HAVE_SYS_TYPES_H HAVE_UNISTD_H HAVE_ATOMIC_BUILTINS \
      HAVE_DECL_INFINITY HAVE_DECL_ISINF HAVE_DECL_ISNAN HAVE_DECL_NAN HAVE_OPEN HAVE_REALLOC \
      HAVE_SETLOCALE HAVE_SNPRINTF HAVE_STRCASECMP HAVE_STRDUP HAVE_STRERROR HAVE_STRNCASECMP \
      HAVE_USELOCALE HAVE_VASPRINTF HAVE_VPRINTF HAVE_VSNPRINTF HAVE_VSYSLOG HAVE_GETRANDOM \
      HAVE_GETRUSAGE HAVE_STRTOLL HAVE_STRTOULL HAVE___THREAD JSON_C_HAVE_INTTYPES_H STDC_HEADERS \
      HAVE_JSON_TOKENER_GET_PARSE_END
    printf '#define %s\n' 'ENABLE_THREADING 1' 'HAS_GNU_WARNING_LONG 1' 'SPEC___THREAD __thread' \
      'SIZEOF_INT 4' 'SIZEOF_INT64_T 8' 'SIZEOF_LONG 8' 'SIZEOF_LONG_LONG 8' 'SIZEOF_SIZE_T 8' \
      'SIZEOF_SSIZE_T 8' 'PACKAGE "json-c"' 'PACKAGE_VERSION "0.16"' 'VERSION "0.16"' \
      'PACKAGE_STRING "json-c 0.16"' 'PACKAGE_TARNAME "json-c"' 'PACKAGE_BUGREPORT ""' 'PACKAGE_URL ""'
  } >"$G/config.h"
  cp "$G/config.h" "$G/apps_config.h"
  echo '#define JSON_C_HAVE_INTTYPES_H 1' >"$G/json_config.h"
  sed 's/@JSON_H_JSON_POINTER@/#include "json_pointer.h"/' "$1/json.h.cmakein" >"$G/json.h"
  srcs "$1" "$1/tests" "$1/apps" | add_jobs -D_GNU_SOURCE -I"$G" -I"$1"
}
# CMake copies src/api/*.h to include/yajl/ and writes yajl_version.h from yajl_version.h.cmake.
jobs_yajl() {
  local G=$GEN/yajl
  mkdir -p "$G/yajl"
  cp "$1"/src/api/*.h "$G/yajl/"
  sed 's/${YAJL_MAJOR}/2/; s/${YAJL_MINOR}/1/; s/${YAJL_MICRO}/0/' "$1/src/api/yajl_version.h.cmake" \
    >"$G/yajl/yajl_version.h"
  srcs "$1/src" "$1/reformatter" "$1/verify" "$1/example" "$1/perf" "$1/test/api" "$1/test/parsing" |
    add_jobs -I"$G" -I"$1/src"
}
# zopflipng (C++) is included with its bundled lodepng.
jobs_zopfli() {
  srcs "$1/src/zopfli" | add_jobs -I"$1/src"
  srcs -r "$1/src/zopflipng" | add_jobs -std=c++17 -I"$1/src" -I"$1/src/zopflipng"
}
# one.c just #includes the js*.c/utf*.c/regexp.c files, which are compiled individually instead.
jobs_mujs() { srcs -x one.c "$1" | add_jobs -std=c99 -I"$1"; }
# libqhull, libqhull_r, libqhullcpp and the programs/examples. qhulltest and libqhullcpp/qt-qhull.cpp
# need Qt; libqhullcpp/usermem_r-cpp.cpp is not part of any Qhull build (and lacks <stdarg.h>).
jobs_qhull() {
  srcs -r -xp '*/qhulltest/*' -x 'qt-qhull.cpp' -x 'usermem_r-cpp.cpp' "$1/src" | add_jobs -I"$1/src"
}

# -- C++ -------------------------------------------------------------------------------
jobs_libjsoncpp() {
  srcs -r "$1/src" "$1/example" |
    add_jobs -std=c++17 -I"$1/include" -I"$1/src/lib_json"
}
jobs_pugixml() {
  srcs "$1/src" "$1/tests" "$1/docs/samples" | add_jobs -std=c++17 -I"$1/src"
}
jobs_fmtlib() {
  # The library only: the tests take 15-30 s each, most of it in GoogleTest;
  # fmt.cc is the C++20 module interface.
  srcs -x fmt.cc "$1/src" | add_jobs -std=c++17 -I"$1/include"
}
jobs_snappy() {
  # CMake would write config.h and snappy-stubs-public.h.
  local V MAJ MIN PAT
  V=$(grep -oE 'VERSION [0-9]+\.[0-9]+\.[0-9]+' "$1/CMakeLists.txt" | head -n1)
  IFS=. read -r MAJ MIN PAT <<<"${V#VERSION }"
  mkdir -p "$GEN/snappy"
  # shellcheck disable=SC2016 # literal ${...} in the sed patterns
  sed -e 's/\${HAVE_SYS_UIO_H_01}/1/' -e "s/\${PROJECT_VERSION_MAJOR}/$MAJ/" \
    -e "s/\${PROJECT_VERSION_MINOR}/$MIN/" -e "s/\${PROJECT_VERSION_PATCH}/$PAT/" \
    "$1/snappy-stubs-public.h.in" >"$GEN/snappy/snappy-stubs-public.h"
  printf '#define %s 1\n' HAVE_ATTRIBUTE_ALWAYS_INLINE HAVE_BUILTIN_CTZ \
    HAVE_BUILTIN_EXPECT HAVE_FUNC_MMAP HAVE_FUNC_SYSCONF HAVE_SYS_MMAN_H \
    HAVE_SYS_RESOURCE_H HAVE_SYS_TIME_H HAVE_SYS_UIO_H HAVE_UNISTD_H \
    >"$GEN/snappy/config.h"
  printf '#define %s 0\n' SNAPPY_HAVE_SSSE3 SNAPPY_HAVE_BMI2 >>"$GEN/snappy/config.h"
  # The tests, benchmarks and fuzzers need GoogleTest or Google Benchmark.
  srcs -x '*test*' -x '*benchmark*' -x '*fuzzer*' "$1" |
    add_jobs -std=c++17 -I"$GEN/snappy" -I"$1" -DHAVE_CONFIG_H
}
jobs_re2() {
  # re2/testing uses re2's own small test framework (util/test.h).
  srcs "$1/re2" "$1/re2/testing" "$1/util" | add_jobs -std=c++17 -I"$1"
}
jobs_yaml_cpp() {
  # util/api.cpp is a sketch that does not compile.
  srcs -x api.cpp "$1/src" "$1/src/contrib" "$1/util" |
    add_jobs -std=c++17 -I"$1/include" -I"$1/src"
}
jobs_leveldb() {
  # CMake would write port/port_config.h. The tests need GoogleTest.
  mkdir -p "$GEN/leveldb/port"
  printf '#define %s\n' 'HAVE_FDATASYNC 1' 'HAVE_FULLFSYNC 0' 'HAVE_O_CLOEXEC 1' \
    'HAVE_CRC32C 0' 'HAVE_SNAPPY 0' >"$GEN/leveldb/port/port_config.h"
  srcs -x '*_test.cc' -x '*_bench.cc' -x '*windows*' -x '*.c' "$1/db" \
    "$1/table" "$1/util" "$1/helpers/memenv" |
    add_jobs -std=c++17 -I"$GEN/leveldb" -I"$1" -I"$1/include" \
      -DLEVELDB_PLATFORM_POSIX=1
  # The test of the C API is C, and needs no test framework.
  srcs -x '*.cc' "$1/db" | add_jobs -I"$1/include"
}
jobs_tinyxml2() { srcs "$1" | add_jobs -std=c++17 -I"$1"; }
jobs_double_conversion() {
  # gay-*.cc are tables of test vectors: 8-10 MB modules of constant data.
  srcs -x 'gay-*.cc' "$1/double-conversion" "$1/test/cctest" |
    add_jobs -std=c++17 -I"$1" -I"$1/test/cctest"
}
# CMake's generate_export_header would write ebml_export.h (included by ebml/EbmlConfig.h).
# src/platform/win32 is the Windows I/O callback.
jobs_libebml() {
  mkdir -p "$GEN/libebml/ebml"
  printf '%s\n' '#ifndef EBML_EXPORT_H' '#define EBML_EXPORT_H' \
    '#define EBML_DLL_API __attribute__((visibility("default")))' \
    '#define EBML_NO_EXPORT __attribute__((visibility("hidden")))' \
    '#define EBML_DEPRECATED __attribute__((__deprecated__))' '#endif' \
    >"$GEN/libebml/ebml/ebml_export.h"
  srcs "$1/src" | add_jobs -std=c++14 -I"$1" -I"$GEN/libebml/ebml"
}
# Small config.h instead of ./configure (only tools/hunspell.cxx reads it): iconv, locale and
# langinfo from glibc; no NLS, curses or readline.
jobs_hunspell() {
  mkdir -p "$GEN/hunspell"
  printf '#define %s\n' 'HAVE_ICONV 1' 'ICONV_CONST' 'HAVE_LOCALE_H 1' 'HAVE_LANGINFO_H 1' \
    'HAVE_UNISTD_H 1' 'PACKAGE "hunspell"' 'VERSION "1.7.1"' 'PACKAGE_VERSION "1.7.1"' \
    >"$GEN/hunspell/config.h"
  local S=$1/src
  srcs "$S/hunspell" | add_jobs -std=c++11 -I"$S/hunspell" -DBUILDING_LIBHUNSPELL
  srcs "$S/parsers" "$S/tools" | add_jobs -std=c++11 -I"$GEN/hunspell" -I"$S/hunspell" -I"$S/parsers" -DHAVE_CONFIG_H
}
# Skips the fuzzer and the SDL/OpenGL programs (benchmark, example_sdl*, example_opengl).
# The examples' C versions (example_decode.c next to example_decode.cpp)
# would map to the same modules as the C++ ones: only the C++ ones.
jobs_lodepng() {
  srcs -x '*fuzzer*' -x '*benchmark*' "$1" | add_jobs -I"$1"
  srcs -x '*_sdl*' -x '*_opengl*' -x '*.c' "$1/examples" | add_jobs -I"$1"
}
# python/tiny_obj_loader.cc is the double-precision + bundled mapbox earcut build of the library;
# python/bindings.cc needs pybind11 and is skipped.
jobs_tinyobjloader() {
  srcs "$1" "$1/tests" "$1/examples/callback_api" "$1/examples/obj_sticher" \
    "$1/examples/skin_weight" "$1/examples/voxelize" | add_jobs -std=c++11 -I"$1"
  srcs -x bindings.cc "$1/python" | add_jobs -std=c++11 -I"$1"
}
# main_common.cc is #included by main.cc and unzcrash.cc, not compiled alone.
# The Makefile passes PROGVERSION to main.cc and unzcrash.cc.
jobs_lziprecover() {
  srcs -x main_common.cc "$1" | add_jobs -std=c++17 -I"$1" -DPROGVERSION='"1.23"'
}
# Debian's doctest.patch makes the unit tests include <doctest/doctest.h>: a forwarding header in
# $GEN points it at the bundled unit-test/doctest.h, whose signal handler needs a constant SIGSTKSZ
# (not so in glibc >= 2.34), hence DOCTEST_CONFIG_NO_POSIX_SIGNALS. The testbed uses only headers
# bundled in extern/ (glad, GLFW, imgui, sajson); the extern/ libraries' own sources are skipped.
jobs_box2d() {
  mkdir -p "$GEN/box2d/doctest"
  printf '#include "%s/unit-test/doctest.h"\n' "$1" >"$GEN/box2d/doctest/doctest.h"
  srcs -r "$1/src" | add_jobs -std=c++11 -I"$1/include" -I"$1/src"
  srcs "$1/unit-test" | add_jobs -std=c++11 -I"$1/include" -I"$GEN/box2d" -DDOCTEST_CONFIG_NO_POSIX_SIGNALS
  local E=$1/extern
  srcs "$1/testbed" "$1/testbed/tests" | add_jobs -std=c++11 -I"$1/include" -I"$1/testbed" \
    -I"$E" -I"$E/glad/include" -I"$E/glfw/include" -DIMGUI_IMPL_OPENGL_LOADER_GLAD
}
# Plain C++ program; the Makefile passes PROGVERSION (only main.cc uses it).
jobs_lzip() { srcs "$1" | add_jobs -std=c++17 -I"$1" -DPROGVERSION='"1.23"'; }
# As CMake builds the shared lib: C API on (MUPARSER_DLL), without OpenMP (MUP_USE_OPENMP needs
# -fopenmp). example2.c is the C sample over muParserDLL.h.
jobs_muparser() {
  local D=-DMUPARSERLIB_EXPORTS
  srcs "$1/src" | add_jobs -std=c++11 -I"$1/include" $D -DMUPARSER_DLL
  srcs "$1/test" "$1/samples/example1" "$1/samples/example3" | add_jobs -std=c++11 -I"$1/include" $D
  srcs "$1/samples/example2" | add_jobs -I"$1/include" $D
}
# Debian's header forces TIXML_USE_STL, which makes tinystr.cpp empty: skip it.
# xmltest.cpp is the upstream test program.
jobs_tinyxml() { srcs -x tinystr.cpp "$1" | add_jobs -I"$1" -DTIXML_USE_STL; }
# Individual sources rather than the gtest-all.cc/gmock-all.cc amalgamations; the *_all_test.cc
# files just #include the other tests. The gmock action/matcher/function-mocker tests are skipped:
# each gives 4-11 MB of bitcode. death-test_ex_test needs the macro CMake passes (=1 variant).
jobs_googletest() {
  local T=$1/googletest M=$1/googlemock
  local F=(-std=c++17 -I"$T/include" -I"$T" -I"$M/include" -I"$M" -pthread)
  srcs -x '*-all.cc' -x '*_all_test.cc' -x 'gmock-actions_test.cc' -x 'gmock-more-actions_test.cc' \
    -x 'gmock-function-mocker_test.cc' -x 'gmock-matchers-*_test.cc' -x '*death-test_ex_test.cc' \
    "$T/src" "$M/src" "$T/samples" "$T/test" "$M/test" | add_jobs "${F[@]}"
  echo "$T/test/googletest-death-test_ex_test.cc" | add_jobs "${F[@]}" -DGTEST_ENABLE_CATCH_EXCEPTIONS_=1
}
# -DHAVE_* stand in for CMake's feature checks. *_gtest.cc need GoogleTest; cxx03_test must be C++03.
jobs_benchmark() {
  local F=(-I"$1/include" -I"$1/src" -DBENCHMARK_STATIC_DEFINE -DHAVE_STD_REGEX -DHAVE_STEADY_CLOCK
    -DHAVE_PTHREAD_AFFINITY -D_GNU_SOURCE=1 -pthread)
  srcs -x '*_gtest.cc' -x 'cxx03_test.cc' "$1/src" "$1/test" | add_jobs -std=c++17 "${F[@]}"
  echo "$1/test/cxx03_test.cc" | add_jobs -std=c++03 "${F[@]}"
}
# Debian's +ds source drops the bundled fmt, so use fmtlib's headers (SPDLOG_FMT_EXTERNAL); src/fmt.cpp
# only builds the bundled fmt. Generated shims: fmt/locale.h (gone in fmt 9, used by bench.cpp) and
# catch2/catch.hpp (Debian patches the tests to the system Catch2; point it at tests/catch.hpp).
# Skipped: test_systemd (needs libsystemd headers), test_eventlog (Windows),
# bench/formatter-bench and bench/latency (need Google Benchmark).
jobs_spdlog() {
  local FMT G=$GEN/spdlog; FMT=$(srcdir fmtlib)/
  mkdir -p "$G/fmt" "$G/catch2"
  echo '#include <fmt/format.h>' >"$G/fmt/locale.h"
  echo "#include \"$1/tests/catch.hpp\"" >"$G/catch2/catch.hpp"
  srcs -x fmt.cpp -x test_systemd.cpp -x test_eventlog.cpp -x formatter-bench.cpp -x latency.cpp \
    "$1/src" "$1/example" "$1/tests" "$1/bench" |
    add_jobs -std=c++17 -I"$1/include" -I"${FMT}include" -I"$G" -DSPDLOG_COMPILED_LIB \
      -DSPDLOG_FMT_EXTERNAL -pthread
}
# src/inline.sh turns browse.py into build/browse_py.h (as CMake does). -iquote keeps src/getopt.h
# (Windows replacement) from shadowing <getopt.h>. Skipped: *-win32.cc, getopt.c and
# includes_normalize_test.cc (Windows only), *.in.cc (re2c inputs of lexer.cc/depfile_parser.cc).
jobs_ninja_build() {
  mkdir -p "$GEN/ninja-build/build"
  sh "$1/src/inline.sh" kBrowsePy <"$1/src/browse.py" >"$GEN/ninja-build/build/browse_py.h"
  srcs -x '*-win32.cc' -x '*.in.cc' -x getopt.c -x includes_normalize_test.cc "$1/src" |
    add_jobs -std=c++17 -iquote "$1/src" -I"$GEN/ninja-build" -DNINJA_HAVE_BROWSE \
      -DNINJA_PYTHON='"python"' -DUSE_PPOLL -D__STDC_FORMAT_MACROS
}
# Brotli headers come from the brotli source tree. Skipped: the two *_fuzzer*.cc files.
jobs_woff2() {
  local BR; BR=$(srcdir brotli)/
  srcs -x '*_fuzzer*' "$1/src" | add_jobs -std=c++11 -I"$1/include" -I"${BR}c/include"
}
# Header-only. The +ds source drops Catch2, so the tests use catch.hpp from the catch2 source tree.
# Skipped: examples/json.cpp (nlohmann/json), BoostOptionTypeTest (Boost), WindowsTest (Windows),
# OptionTypeTest (4.3 MB of bitcode), tests/mesonTest (meson packaging check).
jobs_cli11() {
  local C2; C2=$(srcdir catch2)/
  srcs -x json.cpp "$1/examples" "$1/examples/subcom_in_files" | add_jobs -std=c++17 -I"$1/include"
  srcs -x BoostOptionTypeTest.cpp -x WindowsTest.cpp -x OptionTypeTest.cpp "$1/tests" |
    add_jobs -std=c++17 -I"$1/include" -I"$1/tests" -I"${C2}single_include"
}
# Header-only: only the examples. test/unittest and test/perftest need GoogleTest (thirdparty/gtest
# is an empty submodule). Clang >= 19 rejects Debian's GenericStringRef::operator= (assigns a const
# member), so the headers are copied to $GEN with that operator reduced to a declaration.
jobs_rapidjson() {
  local G=$GEN/rapidjson
  rm -rf "$G"; mkdir -p "$G"; cp -r "$1/include" "$G/"
  sed -i 's/\(GenericStringRef& operator=(const GenericStringRef& rhs)\) {.*}$/\1;/' \
    "$G/include/rapidjson/document.h"
  srcs -r "$1/example" | add_jobs -std=c++17 -I"$G/include"
}
# The library as the separate include/**.cpp units (SelfTest build), the self-tests, the examples
# (single header) and ExtraTests, each with the define its CMake target sets. Skipped:
# CompileTimePerfTests (re-#include the UsageTests 10-100 times), X90 (Windows header test),
# X20 (4.2 MB of bitcode; every CATCH_CONFIG_MAIN file holds the whole single-header implementation).
jobs_catch2() {
  local S=-I"$1/single_include" X=$1/projects/ExtraTests
  srcs -r -xp '*/CompileTimePerfTests/*' "$1/include" "$1/projects/SelfTest" |
    add_jobs -std=c++17 -I"$1/include"
  srcs "$1/src" "$1/examples" | add_jobs -std=c++17 "$S" -I"$1/include"
  echo "$X/X01-PrefixedMacros.cpp" | add_jobs -std=c++17 "$S" -DCATCH_CONFIG_PREFIX_ALL
  echo "$X/X02-DisabledMacros.cpp" | add_jobs -std=c++17 "$S" -DCATCH_CONFIG_DISABLE
  printf "%s\n" "$X"/X0[34]-*.cpp | add_jobs -std=c++17 "$S" -fno-exceptions
  echo "$X/X10-FallbackStringifier.cpp" |
    add_jobs -std=c++17 "$S" -DCATCH_CONFIG_FALLBACK_STRINGIFIER=fallbackStringifier
  echo "$X/X11-DisableStringification.cpp" |
    add_jobs -std=c++17 "$S" -DCATCH_CONFIG_DISABLE_STRINGIFICATION
  echo "$X/X12-CustomDebugBreakMacro.cpp" | add_jobs -std=c++17 "$S"
}
# Header-only: glm/detail/glm.cpp (explicit instantiations) plus the tests. Skipped: four stale tests
# not in any CMakeLists.txt whose headers no longer exist (gtc/user_defined_type, gtx/random, gtx/simd_*).
jobs_glm() {
  srcs "$1/glm/detail" | add_jobs -std=c++17 -I"$1"
  srcs -r -x gtc_user_defined_types.cpp -x gtx_random.cpp -x 'gtx_simd_*.cpp' "$1/test" |
    add_jobs -std=c++17 -I"$1"
}
# The gflags/*.h headers come from src/*.h.in as Bazel's genrules make them (namespace gflags, plus the
# gflags_google.h alias header CMake adds); GFLAGS_BAZEL_BUILD and the -DHAVE_* replace defines.h.
# Skipped: windows_port.cc, test/nc (negative-compilation test).
jobs_gflags() {
  local G=$GEN/gflags/gflags S=$1/src
  mkdir -p "$G"
  sed -e 's/@GFLAGS_NAMESPACE@/gflags/g' -e 's/@GFLAGS_INTTYPES_FORMAT_C99@/1/' \
    -e 's/@HAVE_\(STDINT\|SYS_TYPES\|INTTYPES\)_H@/1/' -e 's/@[A-Z0-9_]*@/0/g' \
    "$S/gflags_declare.h.in" >"$G/gflags_declare.h"
  sed -e 's/@ns@/google/g' -e 's/@NS@/GOOGLE/g' "$S/gflags_ns.h.in" >"$G/gflags_google.h"
  sed -e 's/@GFLAGS_ATTRIBUTE_UNUSED@//' -e 's|@INCLUDE_GFLAGS_NS_H@|#include "gflags/gflags_google.h"|' \
    "$S/gflags.h.in" >"$G/gflags.h"
  sed -e 's/@GFLAGS_NAMESPACE@/gflags/g' "$S/gflags_completions.h.in" >"$G/gflags_completions.h"
  srcs -x windows_port.cc "$S" "$1/test" "$1/test/config" |
    add_jobs -std=c++17 -I"$GEN/gflags" -I"$S" -DGFLAGS_BAZEL_BUILD -DGFLAGS_IS_A_DLL=0 \
      -DGFLAGS_INTTYPES_FORMAT_C99 -DHAVE_STDINT_H -DHAVE_SYS_TYPES_H -DHAVE_INTTYPES_H \
      -DHAVE_SYS_STAT_H -DHAVE_STRTOLL -DHAVE_STRTOQ -DHAVE_RWLOCK -DHAVE_UNISTD_H \
      -DHAVE_FNMATCH_H -DHAVE_PTHREAD -pthread
}
# sqlite3.h from the bundled sqlite3/ dir; the sqlite3.c amalgamation itself is skipped (another
# project, and far over 4 MB of bitcode). tests/ need GoogleTest (googletest/ is an empty submodule).
jobs_sqlitecpp() {
  srcs "$1/src" "$1/examples/example1" "$1/examples/example2/src" |
    add_jobs -std=c++17 -I"$1/include" -I"$1/sqlite3" -DSQLITE_ENABLE_COLUMN_METADATA
}
# Library sources only: tests, benchmarks, mocks and test helpers need GoogleTest/benchmark.
# randen_hwaes.cc is the AES-NI variant built with -maes -msse4.1.
jobs_abseil() {
  srcs -r -x '*test*' -x '*bench*' -x '*mock*' -x 'randen_hwaes.cc' "$1/absl" |
    add_jobs -std=c++17 -I"$1"
}
# lib, cli and the bundled externals; test/ uses cppcheck's own fixture framework (no GoogleTest).
# cppcheckexecutorseh.cpp is the Windows SEH handler.
jobs_cppcheck() {
  local I=(-std=c++11 -I"$1/lib" -I"$1/cli" -I"$1/externals" -I"$1/externals/simplecpp"
    -I"$1/externals/tinyxml2" -I"$1/externals/picojson")
  srcs -x 'cppcheckexecutorseh.cpp' "$1/lib" "$1/cli" "$1/externals/simplecpp" \
    "$1/externals/tinyxml2" "$1/test" | add_jobs "${I[@]}"
}
# libprotobuf(-lite), libprotoc and protoc's main.cc; tests, test utilities, mocks and
# testing/ need GoogleTest. No zlib (gzip_stream.cc builds its stub).
jobs_protobuf() {
  srcs -r -x '*_unittest.cc' -x '*_test.cc' -x '*test_util*' -x '*test_helper*' -x 'mock_*' \
    -x 'test_plugin.cc' -x 'unittest.cc' -x 'reflection_tester.cc' -xp '*/testing/*' \
    "$1/src/google/protobuf" | add_jobs -std=c++17 -I"$1/src" -DHAVE_PTHREAD=1
}
# The docs example programs (all 207) against the amalgamated header; *.c++20.cpp need C++20.
# The unit tests under tests/src are left out to stay within the cap.
jobs_nlohmann_json3() {
  srcs -x '*.c++20.cpp' "$1/docs/examples" | add_jobs -std=c++17 -I"$1/single_include"
  srcs "$1/docs/examples" | grep '\.c++20\.cpp$' | add_jobs -std=c++20 -I"$1/single_include"
}
# Library + flatc (src/, grpc/src/compiler generators), the C++ tests and samples, and raw_bench.
# Excluded: *.grpc.fb.cc and grpc/tests (need gRPC), include_build_test.cc (needs a flatc-generated
# header), fb_bench.cpp (its checked-in bench_generated.h is from an older flatc and static_asserts),
# tests/fuzzer (libFuzzer), benchmark_main.cpp (google benchmark).
jobs_flatbuffers() {
  srcs -x 'include_build_test.cc' -x '*.grpc.fb.cc' "$1/src" "$1/grpc/src/compiler" \
    "$1/tests" "$1/tests/cpp17" "$1/samples" "$1/benchmarks/cpp/raw" |
    add_jobs -std=c++17 -I"$1/include" -I"$1/grpc" -I"$1" -I"$1/tests" -I"$1/samples"
}
# libfst, libfstscript, the fst* programs, the extensions (compact, far, pdt, mpdt, linear, ...)
# and weight_test; config.h ships in src/include/fst. Two header bugs clang rejects even in
# uninstantiated templates get fixed copies in $GEN: FstImpl::operator= (fst.h) assigns a raw pointer
# to a unique_ptr, and VectorHashBiTable's copy ctor (bi-table.h) reads a nonexistent table.s_.
# Excluded for > 4 MB of bitcode (mass template instantiation over all arc types): lib/fst-types.cc,
# script/{compose,determinize,disambiguate,epsnormalize,intersect,minimize,push,randequivalent}.cc,
# farscript.cc, pdtscript.cc, algo_test.cc (17 MB), fst_test.cc.
# extensions/python is Cython output needing Python.h.
prep_openfst() {
  mkdir -p "$GEN/openfst/fst"
  sed -E 's/^( *)([io]symbols_) = (impl\.[io]symbols_ \? .*->Copy\(\) : nullptr);/\1\2.reset(\3);/' \
    "$1/src/include/fst/fst.h" >"$GEN/openfst/fst/fst.h"
  sed 's/selector_(table\.s_)/selector_(table.selector_)/' \
    "$1/src/include/fst/bi-table.h" >"$GEN/openfst/fst/bi-table.h"
}
jobs_openfst() {
  local f x; x=(-x fst-types.cc -x farscript.cc -x pdtscript.cc -x algo_test.cc -x fst_test.cc)
  for f in compose determinize disambiguate epsnormalize intersect minimize push randequivalent; do
    x+=(-xp "*/src/script/$f.cc")
  done
  srcs -r "${x[@]}" -xp '*/extensions/python/*' "$1/src" |
    add_jobs -std=c++17 -I"$GEN/openfst" -I"$1/src/include" -I"$1/src/script"
}
# libtag, the C binding and the examples; tests need CppUnit. $GEN/taglib holds config.h
# (CMake's, without zlib) and taglib_config.h, plus utf8/checked.h forwarding to the bundled
# 3rdparty/utf8-cpp (the Debian patch switched the include to the system libutf8cpp).
prep_taglib() {
  mkdir -p "$GEN/taglib/utf8"
  printf '#define %s 1\n' HAVE_GCC_BYTESWAP HAVE_GCC_ATOMIC HAVE_VSNPRINTF >"$GEN/taglib/config.h"
  printf '#define %s 1\n' TAGLIB_WITH_ASF TAGLIB_WITH_MP4 >"$GEN/taglib/taglib_config.h"
  printf '#include "%s/3rdparty/utf8-cpp/checked.h"\n' "$1" >"$GEN/taglib/utf8/checked.h"
}
jobs_taglib() {
  local d I=(-std=c++17 -DHAVE_CONFIG_H -I"$GEN/taglib")
  for d in $(find "$1/taglib" -type d | sort); do I+=(-I"$d"); done
  srcs -r -x '*.c' "$1/taglib" "$1/bindings/c" "$1/examples" | add_jobs "${I[@]}"
  srcs "$1/examples" | grep '\.c$' | add_jobs -I"$1/bindings/c"
}

# --- 1. Work directory and package list ---------------------------------------------
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
OWN_SRC=0
if [[ -z $SRC ]]; then SRC=$WORK/src; OWN_SRC=1; fi
mkdir -p "$SRC"
SRC=$(cd "$SRC" && pwd)
LOGS=$WORK/logs
GEN=$WORK/gen     # headers that a package's build system would generate
STATE=$WORK/state # job lists and tables of the last run

command -v "$CLANG" >/dev/null || die "$CLANG not found (Debian package clang-22)"
command -v "$CLANGXX" >/dev/null || die "$CLANGXX not found (Debian package clang-22)"
[[ -x $PYTHON ]] || die "$PYTHON not found (Debian package python3)"
command -v dpkg-parsechangelog >/dev/null || die "dpkg-parsechangelog not found (Debian package dpkg-dev)"

if ((REBUILD)); then
  WHAT="${SPLIT_LIST[*]}, logs"
  if ((OWN_SRC)); then WHAT+=", sources"; fi
  log "--rebuild: deleting $WHAT"
  for S in "${SPLIT_LIST[@]}"; do rm -rf "${WORK:?}/$S"; done
  rm -rf "$LOGS" "$GEN" "$STATE"
  if ((OWN_SRC)); then rm -rf "$SRC"; mkdir -p "$SRC"; fi
fi
mkdir -p "$LOGS" "$GEN" "$STATE"
for S in "${SPLIT_LIST[@]}"; do rm -f "$LOGS/cc-$S-"*.log; done

declare -A PKG_LANG PKG_SPLITS
PKGS=() # the packages of the requested splits, in list order
while read -r NAME LANGUAGE REST; do
  [[ -z $NAME || $NAME == \#* ]] && continue
  read -r -a PS <<<"$REST"
  ((${#PS[@]})) || die "$PACKAGE_LIST: $NAME has no split"
  TRAIN_SIDE=0 HELDOUT_SIDE=0
  for S in "${PS[@]}"; do
    case $S in
      train | inline-train | inline-valid) TRAIN_SIDE=1 ;;
      heldout | inline-heldout) HELDOUT_SIDE=1 ;;
      bench) ;;
      *) die "$PACKAGE_LIST: $NAME: unknown split '$S'" ;;
    esac
  done
  if ((TRAIN_SIDE && HELDOUT_SIDE)); then
    die "$PACKAGE_LIST: $NAME is on both the training and the held-out side"
  fi
  if in_list inline-valid "${PS[@]}" && in_list inline-train "${PS[@]}"; then
    die "$PACKAGE_LIST: $NAME is in both inline-train and inline-valid"
  fi
  [[ $LANGUAGE == C || $LANGUAGE == C++ ]] ||
    die "$PACKAGE_LIST: $NAME: language '$LANGUAGE' is neither C nor C++"
  declare -F "jobs_$(fn_name "$NAME")" >/dev/null ||
    die "$PACKAGE_LIST lists $NAME, but this script has no jobs_$(fn_name "$NAME")"
  PKG_LANG[$NAME]=$LANGUAGE
  # The pre-optimisation splits follow train and heldout, but a validation
  # package is never in inline-train.
  IMPLIED=("${PS[@]}")
  if in_list train "${PS[@]}" && ! in_list inline-valid "${PS[@]}"; then IMPLIED+=(inline-train); fi
  if in_list heldout "${PS[@]}"; then IMPLIED+=(inline-heldout); fi
  WANTED=()
  for S in "${SPLIT_LIST[@]}"; do
    if in_list "$S" "${IMPLIED[@]}"; then WANTED+=("$S"); fi
  done
  if ((${#WANTED[@]})); then
    PKG_SPLITS[$NAME]=${WANTED[*]}
    PKGS+=("$NAME")
  fi
done <"$PACKAGE_LIST"
((${#PKGS[@]})) || die "$PACKAGE_LIST lists no package for ${SPLIT_LIST[*]}"

# --- 2. Sources ------------------------------------------------------------------------
MISSING=()
for P in "${PKGS[@]}"; do [[ -n $(srcdir "$P") ]] || MISSING+=("$P"); done
if ((${#MISSING[@]})); then
  ensure_deb_src "${MISSING[0]}"
  log "apt-get source ${MISSING[*]} (into $SRC)"
  for P in "${MISSING[@]}"; do
    # Four downloads at a time.
    while (($(jobs -pr | wc -l) >= 4)); do wait -n || true; done
    fetch "$P" &
  done
  wait
fi

# --- 3. Configure steps (in parallel: they are the slow part) ---------------------------
for P in "${PKGS[@]}"; do
  F=prep_$(fn_name "$P")
  D=$(srcdir "$P")
  if [[ -n $D ]] && declare -F "$F" >/dev/null; then "$F" "$D" & fi
done
wait

# --- 4. The module table: what to compile at which levels -------------------------
PACKAGE_TABLE=$STATE/packages.tsv # package, language, version, splits, source dir
MODULE_TABLE=$STATE/modules.tsv   # split, module, package, level, file, flags
: >"$PACKAGE_TABLE"
: >"$MODULE_TABLE"
for P in "${PKGS[@]}"; do
  D=$(srcdir "$P")
  [[ -n $D ]] || continue
  V=$(dpkg-parsechangelog -l "$D/debian/changelog" -S Version 2>/dev/null || echo unknown)
  printf '%s\t%s\t%s\t%s\t%s\n' "$P" "${PKG_LANG[$P]}" "$V" "${PKG_SPLITS[$P]}" \
    "$D" >>"$PACKAGE_TABLE"
  CUR_PKG=$P
  "jobs_$(fn_name "$P")" "$D" >"$STATE/files-$P.tsv"
  N=0
  while IFS=$'\t' read -r _ FILE FLAGS; do
    REL=${FILE#"$D"/}
    FLAT=${REL//\//_}
    FLAT=${FLAT%.*}
    for S in ${PKG_SPLITS[$P]}; do
      for L in $(levels_of "$S" "$P/$REL"); do
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$S" "$L/$P/$FLAT" "$P" "$L" "$FILE" \
          "$FLAGS" >>"$MODULE_TABLE"
      done
    done
    N=$((N + 1))
  done <"$STATE/files-$P.tsv"
  ((N)) || log "warning: $P: no source files found in $D"
done
DUP=$(cut -f1,2 "$MODULE_TABLE" | sort | uniq -d | head -n1)
[[ -z $DUP ]] || die "two files of a package map to the same module: ${DUP/$'\t'/ }"

# --- 5. Prune what the corpora no longer list, then compile ---------------------------
for S in "${SPLIT_LIST[@]}"; do
  mkdir -p "$WORK/$S"
  awk -F'\t' -v S="$S" -v R="$WORK/$S" \
    '$1 == S { print R "/" $2 ".bc"; print R "/" $2 ".cmd" }' "$MODULE_TABLE" |
    sort >"$STATE/expected-$S.txt"
  find "$WORK/$S" -type f ! -name corpus_description.json | sort |
    comm -23 - "$STATE/expected-$S.txt" >"$STATE/stale-$S.txt"
  if [[ -s $STATE/stale-$S.txt ]]; then
    log "$S: removing $(wc -l <"$STATE/stale-$S.txt") files the corpus no longer lists"
    xargs -d '\n' rm -f <"$STATE/stale-$S.txt"
    find "$WORK/$S" -mindepth 1 -type d -empty -delete
  fi
done

# A module is current when its .bc exists and its .cmd holds the arguments it
# would be compiled with now.
is_current() { # dest args...
  local DEST=$1; shift
  [[ -s $DEST.bc && -f $DEST.cmd ]] || return 1
  local -a HAVE
  mapfile -d '' -t HAVE <"$DEST.cmd"
  ((${#HAVE[@]} == $#)) || return 1
  local I=0 A
  for A; do
    [[ ${HAVE[I]} == "$A" ]] || return 1
    I=$((I + 1))
  done
}

compile_one() { # "<split>\t<module>\t<package>\t<level>\t<file>\t<quoted flags>"
  local S MOD P L FILE FLAGS
  IFS=$'\t' read -r S MOD P L FILE FLAGS <<<"$1"
  local DEST=$WORK/$S/$MOD LOG=$LOGS/cc-$S-${MOD//\//-}.log CC=$CLANGXX
  if [[ $FILE == *.c ]]; then CC=$CLANG; fi
  eval "set -- $(level_flags "$L") $FLAGS" # add_jobs quoted each flag with printf %q
  rm -f "$DEST.bc" "$DEST.cmd"
  mkdir -p "${DEST%/*}"
  if timeout 600 "$CC" -c -emit-llvm -w "$@" "$FILE" -o "$DEST.bc.tmp" >"$LOG" 2>&1; then
    # The .cmd first: a .cmd without its .bc is compiled again.
    printf '%s\0' "$@" >"$DEST.cmd"
    mv "$DEST.bc.tmp" "$DEST.bc"
    rm -f "$LOG"
  else
    rm -f "$DEST.bc.tmp"
    echo "$S $MOD" >>"$STATE/failed"
  fi
  echo >>"$STATE/progress"
}
export -f compile_one level_flags
export WORK LOGS STATE CLANG CLANGXX

TOTAL=$(wc -l <"$MODULE_TABLE")
((TOTAL)) || die "nothing to compile for ${SPLIT_LIST[*]}"
# The modules to compile, the biggest files first so that no big file
# finishes last alone.
declare -A SIZE
while read -r SZ F; do SIZE[$F]=$SZ; done < <(cut -f5 "$MODULE_TABLE" | sort -u |
  xargs -d '\n' stat -c '%s %n')
while IFS= read -r LINE; do
  IFS=$'\t' read -r S MOD _ L F FLAGS <<<"$LINE"
  eval "set -- $(level_flags "$L") $FLAGS"
  if ! is_current "$WORK/$S/$MOD" "$@"; then
    printf '%s\t%s\n' "${SIZE[$F]:-0}" "$LINE"
  fi
done <"$MODULE_TABLE" | sort -t$'\t' -k1,1nr -s | cut -f2- >"$STATE/todo.tsv"
TODO=$(wc -l <"$STATE/todo.tsv")
: >"$STATE/progress"
: >"$STATE/failed"
log "$TOTAL modules in ${SPLIT_LIST[*]}: $((TOTAL - TODO)) current, compiling $TODO ($JOBS jobs)"
if ((TODO)); then run_jobs "$JOBS" compile_one "$STATE/todo.tsv" "$STATE/progress"; fi

# --- 6. Corpus descriptions, manifest, summary -----------------------------------------
"$CLANG" --version | head -n1 >"$STATE/clang-version"
TRAIN_PACKAGES=$("$PYTHON" - "$WORK" "$STATE" "$LEVELS_PER_FILE" "${SPLIT_LIST[@]}" <<'PY'
import json, os, sys

work, state, k, splits = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
policy = {
    "train": {"levels": ["O0", "O1", "O2", "O3", "Os", "Oz"], "levels_per_file": k,
              "sampling": "the first levels_per_file of the permutation number "
                          "cksum('<package>/<file>') mod 720 of the levels"},
    "heldout": {"levels": ["O0", "O2", "Oz"], "levels_per_file": 3},
    "bench": {"levels": ["O2"], "levels_per_file": 1},
}
for s, of in (("inline-train", "train or inline-train, except inline-valid"),
              ("inline-valid", "inline-valid"),
              ("inline-heldout", "heldout or inline-heldout")):
    policy[s] = {"levels": ["Oz-preopt"], "levels_per_file": 1,
                 "flags": {"Oz-preopt": "-Oz -Xclang -disable-llvm-passes"},
                 "packages": f"those whose splits include {of}"}
packages = {}
with open(os.path.join(state, "packages.tsv")) as f:
    for line in f:
        name, lang, version, psplits, _ = line.rstrip("\n").split("\t")
        packages[name] = {"name": name, "language": lang, "version": version}
table = {s: [] for s in splits}
with open(os.path.join(state, "modules.tsv")) as f:
    for line in f:
        s, mod, pkg, level, path = line.split("\t")[:5]
        table[s].append((mod, pkg, level, path))
with open(os.path.join(state, "clang-version")) as f:
    compiler = f.read().strip()

manifest_path = os.path.join(work, "corpus-manifest.json")
previous = {}
if os.path.isfile(manifest_path):
    with open(manifest_path) as f:
        previous = json.load(f).get("splits", {})
manifest = {"generator": "vocab/recipe/build-corpus.sh", "compiler": compiler,
            "splits": {}}
train_packages = 0
for s in splits:
    root = os.path.join(work, s)
    built = sorted(m for m, *_ in table[s] if os.path.isfile(
        os.path.join(root, m + ".bc")))
    desc = {"has_thinlto": False, "modules": built}
    tmp = os.path.join(root, "corpus_description.json.tmp")
    with open(tmp, "w") as f:
        json.dump(desc, f, indent=2)
        f.write("\n")
    os.replace(tmp, os.path.join(root, "corpus_description.json"))
    ok = set(built)
    per_pkg, per_level, failed = {}, {}, []
    for mod, pkg, level, path in table[s]:
        p = per_pkg.setdefault(pkg, {"files": set(), "modules": 0})
        p["files"].add(path)
        if mod in ok:
            p["modules"] += 1
            per_level[level] = per_level.get(level, 0) + 1
        else:
            failed.append(mod)
    pkgs = []
    for name in sorted(per_pkg):
        info = dict(packages[name])
        info["files"] = len(per_pkg[name]["files"])
        info["modules"] = per_pkg[name]["modules"]
        pkgs.append(info)
    order = ["O0", "O1", "O2", "O3", "Os", "Oz", "Oz-preopt"]
    entry = dict(policy[s])
    entry.update({
        "corpus": s + "/corpus_description.json",
        "packages": pkgs,
        "files": sum(p["files"] for p in pkgs),
        "modules": len(built),
        "modules_per_level": {l: per_level[l] for l in order if l in per_level},
        "failed_modules": sorted(failed),
    })
    manifest["splits"][s] = entry
    with_modules = sum(1 for p in pkgs if p["modules"])
    if s == "train":
        train_packages = with_modules
    langs = {}
    for p in pkgs:
        if p["modules"]:
            langs[p["language"]] = langs.get(p["language"], 0) + 1
    print(f"[build-corpus] {s}: {len(built)} modules from {entry['files']} files "
          f"of {with_modules} packages "
          f"({', '.join(f'{n} {l}' for l, n in sorted(langs.items()))}); "
          f"{len(failed)} failed; per level "
          f"{' '.join(f'{l}={n}' for l, n in entry['modules_per_level'].items())}",
          file=sys.stderr)
    for p in pkgs:
        print(f"[build-corpus]   {p['name']:<18} {p['version']:<26} {p['language']:<4}"
              f"{p['files']:>5} files {p['modules']:>6} modules", file=sys.stderr)

# Splits built by earlier runs keep their entries while their corpus exists.
for s, entry in previous.items():
    if s not in splits and os.path.isfile(os.path.join(work, s, "corpus_description.json")):
        manifest["splits"][s] = entry
order = ["train", "heldout", "bench", "inline-train", "inline-valid", "inline-heldout"]
manifest["splits"] = {s: manifest["splits"][s] for s in order if s in manifest["splits"]}
tmp = manifest_path + ".tmp"
with open(tmp, "w") as f:
    json.dump(manifest, f, indent=2)
    f.write("\n")
os.replace(tmp, manifest_path)
print(train_packages)
PY
)

FAILED=$(wc -l <"$STATE/failed")
if ((FAILED)); then
  log "$FAILED modules failed to compile this run; logs in $LOGS/cc-*.log"
fi
log "wrote $WORK/corpus-manifest.json; took $((SECONDS / 60)) min $((SECONDS % 60)) s"
if in_list train "${SPLIT_LIST[@]}" && ((TRAIN_PACKAGES < MIN_TRAIN_PACKAGES)); then
  die "only $TRAIN_PACKAGES training packages produced modules (want at least $MIN_TRAIN_PACKAGES)"
fi
