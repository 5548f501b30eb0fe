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
# script) with `apt-get source`, prepares them and compiles their C and C++
# files with `clang-22 / clang++-22 -O<level> -c -emit-llvm`, one module per
# translation unit and level (the inline-* splits: pre-optimisation bitcode,
# see below). How each package is compiled (its configure steps, files, flags
# and generated headers) is its recipe in corpus-recipes.txt, a table that
# build-corpus.py interprets: adding a package is adding its recipe there
# and its line in packages.txt.
#
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
# `apt-get source` fails is skipped with a warning; one whose configure step
# fails is compiled without it (see <work>/logs/prep-<package>.log). The
# script fails when the train split ends up with modules from fewer than 10
# packages.
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
#                          in corpus-recipes.txt
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
parse_options "--work=WORK --src=SRC --jobs=JOBS --levels-per-file=LEVELS_PER_FILE
  --splits=SPLITS --packages=PACKAGE_LIST --rebuild=REBUILD!" "$@"
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
# corpus-recipes.txt says how each package is compiled; build-corpus.py lists
# its prep steps and prints its job lines, "<package>\t<file>\t<flags>" with
# the flags shell-quoted (and writes the corpus descriptions and manifest).
corpus_py() { "$PYTHON" "$RECIPE_DIR/build-corpus.py" "$@"; }

# Runs a package's prep steps (configure, make) in its source directory, each
# until it succeeds once: its stamp file then exists.
prep() { # package dir
  local STAMP CMD
  while IFS=$'\t' read -r STAMP CMD; do
    [[ -e $2/$STAMP ]] && continue
    log "preparing $1: $CMD"
    if ! (cd "$2" && eval "$CMD") >>"$LOGS/prep-$1.log" 2>&1; then
      log "warning: $1: prep failed, compiling without it (see $LOGS/prep-$1.log)"
      return
    fi
    touch "$2/$STAMP"
  done < <(corpus_py prep "$1")
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
HAVE_RECIPE=$(corpus_py list)
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
  grep -qxF -- "$NAME" <<<"$HAVE_RECIPE" ||
    die "$PACKAGE_LIST lists $NAME, but corpus-recipes.txt has no recipe for it"
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

# --- 3. Prep steps (in parallel: they are the slow part) --------------------------------
for P in "${PKGS[@]}"; do
  D=$(srcdir "$P")
  if [[ -n $D ]]; then prep "$P" "$D" & fi
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
  corpus_py jobs "$P" "$D" "$GEN/$P" "$SRC" >"$STATE/files-$P.tsv"
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
TRAIN_PACKAGES=$(corpus_py manifest "$WORK" "$STATE" "$LEVELS_PER_FILE" "${SPLIT_LIST[@]}")

FAILED=$(wc -l <"$STATE/failed")
if ((FAILED)); then
  log "$FAILED modules failed to compile this run; logs in $LOGS/cc-*.log"
fi
log "wrote $WORK/corpus-manifest.json; took $((SECONDS / 60)) min $((SECONDS % 60)) s"
if in_list train "${SPLIT_LIST[@]}" && ((TRAIN_PACKAGES < MIN_TRAIN_PACKAGES)); then
  die "only $TRAIN_PACKAGES training packages produced modules (want at least $MIN_TRAIN_PACKAGES)"
fi
