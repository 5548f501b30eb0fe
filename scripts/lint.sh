#!/usr/bin/env bash
# Lints irtk's sources in a few seconds; scripts/test.sh runs it before the
# build, and docs/Contributing.md says how to fix what it reports.
#
#   scripts/lint.sh [FILE...]
#
# With no FILE it lints every tracked file (git ls-files) of the repository
# that holds this script, outside build*/; with FILEs, those files only.
#   C++ (*.cpp, *.h, *.def)  clang-format-22 --dry-run --Werror, in the style
#                            of the repository's .clang-format
#   shell (*.sh, and files   shellcheck -S error (errors only)
#   with a sh/bash shebang)
#   Python (*.py)            pyflakes3; not lit.cfg.py, whose `config` lit
#                            defines
# Prints one line per finding, FILE:LINE:COL: TOOL: MESSAGE, then a summary
# line. Exits 0 when there is no finding, 1 when there is one or more, and 2
# on a usage error, a missing tool (scripts/setup.sh installs them) or a file
# that does not exist.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CLANG_FORMAT=clang-format-22

fatal() {
  echo "lint: error: $*" >&2
  exit 2
}

case "${1-}" in
-h | --help)
  sed -n '2,/^set -euo/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
  exit 0
  ;;
-*)
  echo "usage: $0 [FILE...]" >&2
  exit 2
  ;;
esac

FILES=()
if [ $# -eq 0 ]; then
  cd "$ROOT"
  git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
    fatal "$ROOT is not a git checkout: name the files to lint"
  mapfile -d '' FILES < <(git ls-files -z)
else
  for f in "$@"; do
    [ -f "$f" ] || fatal "no such file: $f"
  done
  FILES=("$@")
fi

# Whether FILE, which has no extension, starts with a sh, bash or dash shebang.
isShellScript() {
  LC_ALL=C awk 'NR == 1 { found = /^#!.*[\/ ](ba|da)?sh([ \t]|$)/; exit }
                END { exit !found }' "$1"
}

CXX=()
SH=()
PY=()
for f in "${FILES[@]}"; do
  [ -f "$f" ] || continue # tracked, but deleted in the work tree
  case "$f" in
  build*/*) ;;
  *.cpp | *.h | *.def) CXX+=("$f") ;;
  *.sh) SH+=("$f") ;;
  lit.cfg.py | */lit.cfg.py) ;;
  *.py) PY+=("$f") ;;
  *)
    base=${f##*/}
    if [[ $base != *.* ]] && isShellScript "$f"; then
      SH+=("$f")
    fi
    ;;
  esac
done

need() {
  command -v "$1" >/dev/null 2>&1 ||
    fatal "$1 not found: scripts/setup.sh installs it (Debian package $2)"
}
[ ${#CXX[@]} -eq 0 ] || need "$CLANG_FORMAT" "$CLANG_FORMAT"
[ ${#SH[@]} -eq 0 ] || need shellcheck shellcheck
[ ${#PY[@]} -eq 0 ] || need pyflakes3 pyflakes3

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# run NAME COMMAND... < FILES: runs COMMAND over FILES (NUL-separated; one
# invocation, or a few if the list is long) and keeps its output and exit
# status under $TMP for report.
run() {
  local name=$1 status=0
  shift
  xargs -0 "$@" >"$TMP/$name.out" 2>&1 || status=$?
  echo "$status" >"$TMP/$name.status"
}

# report NAME TOOL: prints each line of NAME's output that names a position
# in an existing file as FILE:LINE:COL: TOOL: MESSAGE. A run that failed
# without such a line is a finding too: a broken tool never passes for a
# clean tree.
TOTAL=0
SUMMARY=()
report() {
  local name=$1 tool=$2 line n=0 msg status
  status=$(cat "$TMP/$name.status")
  while IFS= read -r line; do
    [[ $line =~ ^([^:]+):([0-9]+):([0-9]+):[[:space:]](.*)$ ]] || continue
    [ -f "${BASH_REMATCH[1]}" ] || continue
    msg=${BASH_REMATCH[4]}
    msg=${msg#error: }
    msg=${msg#warning: }
    echo "${BASH_REMATCH[1]}:${BASH_REMATCH[2]}:${BASH_REMATCH[3]}: $tool: $msg"
    n=$((n + 1))
  done <"$TMP/$name.out"
  if [ "$status" -ne 0 ] && [ "$n" -eq 0 ]; then
    echo "lint: $tool failed (exit $status): $(head -n 1 "$TMP/$name.out")"
    n=1
  fi
  TOTAL=$((TOTAL + n))
  SUMMARY+=("$tool $n")
}

# The three run at once; their findings are printed in this order.
if [ ${#CXX[@]} -gt 0 ]; then
  run cxx "$CLANG_FORMAT" --dry-run --Werror \
    "--style=file:$ROOT/.clang-format" -- < <(printf '%s\0' "${CXX[@]}") &
fi
if [ ${#SH[@]} -gt 0 ]; then
  run sh shellcheck -S error -f gcc -- < <(printf '%s\0' "${SH[@]}") &
fi
if [ ${#PY[@]} -gt 0 ]; then
  run py pyflakes3 -- < <(printf '%s\0' "${PY[@]}") &
fi
wait
[ ${#CXX[@]} -eq 0 ] || report cxx "$CLANG_FORMAT"
[ ${#SH[@]} -eq 0 ] || report sh shellcheck
[ ${#PY[@]} -eq 0 ] || report py pyflakes3

COUNTS="${#CXX[@]} C++, ${#SH[@]} shell, ${#PY[@]} Python files"
if [ "$TOTAL" -eq 0 ]; then
  echo "lint: OK, no finding in $COUNTS"
  exit 0
fi
printf -v DETAIL '%s, ' "${SUMMARY[@]}"
echo "lint: FAILED, $TOTAL finding(s) (${DETAIL%, }) in $COUNTS"
exit 1
