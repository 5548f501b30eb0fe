#!/bin/sh
# Usage: all-assignments.sh CLANG PLUGIN MODULE.bc DIR EDGE...
# Compiles MODULE.bc at -Oz once for every assignment of 0/1 to the EDGEs
# ("caller:callee"), forced with -irtk-inline-decisions, and prints the
# smallest .text of them all: the optimum an exhaustive search must find.
set -eu
CLANG=$1 PLUGIN=$2 BC=$3 DIR=$4
shift 4
N=$#
I=0
BEST=
while [ "$I" -lt $((1 << N)) ]; do
  : >"$DIR/a$I.txt"
  K=0
  for E in "$@"; do
    echo "$(((I >> K) & 1)) ${E%%:*} ${E#*:}" >>"$DIR/a$I.txt"
    K=$((K + 1))
  done
  "$CLANG" -Oz -c "$BC" -o "$DIR/a$I.o" -fpass-plugin="$PLUGIN" \
    -mllvm -irtk-inline-policy=default -mllvm -irtk-inline-embedding=none \
    -mllvm -irtk-inline-decisions="$DIR/a$I.txt"
  T=$(llvm-size -A "$DIR/a$I.o" | awk '$1 ~ /^\.text/ { s += $2 } END { print s }')
  if [ -z "$BEST" ] || [ "$T" -lt "$BEST" ]; then BEST=$T; fi
  I=$((I + 1))
done
echo "$BEST"
