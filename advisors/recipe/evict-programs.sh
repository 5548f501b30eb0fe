#!/usr/bin/env bash
#===- evict-programs.sh - Executed instructions of programs, per policy ---===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Usage: advisors/recipe/evict-programs.sh --out DIR --name NAME
#            [--src DIR] [--jobs N] [-- EXTRA-CFLAGS...]
#
# Builds lua 5.4, bzip2 and zstd from their Debian sources (as
# vocab/recipe/build-corpus.sh fetched them, in --src, default
# vocab/recipe/work/src) with
#
#   clang-22 -O2 EXTRA-CFLAGS... -c
#
# into <out>/<name>/, e.g. with irtk's eviction advisor:
#
#   evict-programs.sh --out /tmp/ep --name model -- -fpass-plugin=IRTKPlugin.so \
#       -mllvm -irtk-evict-policy=model -mllvm -irtk-evict-model=M.json
#
# then runs their workloads under `valgrind --tool=callgrind` (instruction
# counts are deterministic on a shared machine; times are not):
#
#   lua     advisors/recipe/evict-workload.lua (closures, tables, strings,
#           sorting, floating point)
#   bzip2   compress, then decompress, a 2 MB input made of the sources
#   zstd    the same at level 3 (zstd -3), single-threaded
#
# and writes <out>/<name>/counts.tsv: program, workload, instructions, and
# the SHA-256 of the workload's output, which must be the same for every
# build (the program still computes what it should). Rebuilds and reruns
# only what is missing (delete <out>/<name> to start over).
#
#===------------------------------------------------------------------------===#

set -euo pipefail
RECIPE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$RECIPE_DIR/../.." && pwd)
RECIPE_NAME=evict-programs
# shellcheck source=scripts/recipe-cli.sh
. "$ROOT/scripts/recipe-cli.sh"
CLANG=${CLANG:-clang-22}
SRC=$ROOT/vocab/recipe/work/src OUT= NAME= JOBS=$(nproc)
parse_options "--out=OUT --name=NAME --src=SRC --jobs=JOBS" "$@"
[[ -n $OUT && -n $NAME ]] || usage_error "--out and --name are required"
want_positive --jobs "$JOBS"
command -v valgrind >/dev/null || die "valgrind is needed"
LUA=$(ls -d "$SRC"/lua5.4-*/ | head -1)
BZ=$(ls -d "$SRC"/bzip2-*/ | head -1)
ZS=$(ls -d "$SRC"/libzstd-*/ | head -1)
[[ -d $LUA && -d $BZ && -d $ZS ]] || die "$SRC: no lua5.4, bzip2 or libzstd sources"
D=$OUT/$NAME
mkdir -p "$D/obj"

# One compile job a line: output object, then the compiler's arguments.
JOBLIST=$D/jobs.txt
: >"$JOBLIST"
add_jobs() { # program flags files...
  local P=$1 F=$2
  shift 2
  local S
  for S in "$@"; do
    printf '%s\t%s %s\n' "$D/obj/$P/$(basename "${S%.c}").o" "$F" "$S" >>"$JOBLIST"
  done
}
# Debian's lua patches include a header its rules file writes.
mkdir -p "$D/gen"
echo "#define DEB_HOST_MULTIARCH \"$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)\"" \
  >"$D/gen/lua5.4-deb-multiarch.h"
add_jobs lua "-DLUA_COMPAT_5_3 -DLUA_USE_LINUX -I$D/gen" $(ls "$LUA"src/*.c | grep -v '/luac\.c$')
add_jobs bzip2 "-D_FILE_OFFSET_BITS=64" "$BZ"{blocksort,huffman,crctable,randtable,compress,decompress,bzlib,bzip2}.c
add_jobs zstd "-DZSTD_DISABLE_ASM -DZSTD_LEGACY_SUPPORT=0 -DZSTD_NOBENCH -DZSTD_NOTRACE -I${ZS}lib -I${ZS}lib/common" \
  "$ZS"lib/common/*.c "$ZS"lib/compress/*.c "$ZS"lib/decompress/*.c "$ZS"lib/dictBuilder/*.c \
  $(ls "$ZS"programs/*.c | grep -v -e benchzstd -e datagen -e benchfn -e zstdcli_trace)

compile() { # object flags+source
  local O=$1
  [[ -s $O ]] && return 0
  mkdir -p "$(dirname "$O")"
  # shellcheck disable=SC2086
  if ! "$CLANG" -O2 -w $2 "${EXTRA[@]}" -c -o "$O.tmp.o" 2>"$O.err"; then
    echo "evict-programs.sh: compiling ${2##* } failed:" >&2
    head -5 "$O.err" >&2
    return 1
  fi
  mv "$O.tmp.o" "$O"
  rm -f "$O.err"
}
export -f compile
export CLANG
# xargs cannot pass an array: EXTRA goes through the environment.
export EXTRA_FLAGS="${EXTRA[*]:-}"
tr '\t' '\n' <"$JOBLIST" | tr '\n' '\0' |
  xargs -0 -n 2 -P "$JOBS" bash -c 'EXTRA=($EXTRA_FLAGS); compile "$0" "$1"'
for P in lua bzip2 zstd; do
  [[ -x $D/$P ]] || "$CLANG" -o "$D/$P" "$D"/obj/$P/*.o -lm -ldl
done

# The workloads' input: the three packages' sources, 2 MB.
INPUT=$D/input.bin
if [[ ! -s $INPUT ]]; then
  # (cat ends on SIGPIPE when head has enough.)
  cat "$LUA"src/*.c "$BZ"*.c "$ZS"lib/*/*.c | head -c 2000000 >"$INPUT" || true
  (($(stat -c %s "$INPUT") == 2000000)) || die "the sources make less than 2 MB"
fi

count() { # program workload command... (reads $INPUT on stdin)
  local P=$1 W=$2
  shift 2
  grep -q "^$P	$W	" "$D/counts.tsv" 2>/dev/null && return 0
  local T
  T=$(mktemp -d)
  valgrind --tool=callgrind --callgrind-out-file="$T/cg" "$@" <"$INPUT" >"$T/out" 2>"$T/err" ||
    die "$P $W failed: $(tail -3 "$T/err")"
  local N H
  N=$(grep -o 'Collected : [0-9]*' "$T/err" | awk '{print $3}')
  H=$(sha256sum <"$T/out" | cut -c1-16)
  printf '%s\t%s\t%s\t%s\n' "$P" "$W" "$N" "$H" >>"$D/counts.tsv"
  rm -rf "$T"
}
count lua script "$D/lua" "$RECIPE_DIR/evict-workload.lua"
count bzip2 compress "$D/bzip2" -c -9
"$D/bzip2" -c -9 <"$INPUT" >"$D/input.bz2"
INPUT=$D/input.bz2 count bzip2 decompress "$D/bzip2" -d -c
count zstd compress "$D/zstd" -3 -c -T1
"$D/zstd" -3 -c -T1 <"$D/input.bin" >"$D/input.zst"
INPUT=$D/input.zst count zstd decompress "$D/zstd" -d -c -T1
cat "$D/counts.tsv"
