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
# ir2vec.mlgo interprets: adding a package is adding its recipe there and
# its line in packages.txt. This script sets up deb-src, fetches and runs
# the prep steps; `python3 -m ir2vec.mlgo corpus-build build` (the module
# ir2vec.mlgo.debcorpus) computes the module table, prunes, compiles and
# writes the corpus descriptions and the manifest.
#
# Each split (train, heldout, bench, inline-train, inline-valid,
# inline-heldout; a package's splits are in packages.txt) is an MLGO corpus,
# <work>/<split>/corpus_description.json and
# <work>/<split>/<level>/<package>/<file>.bc and .cmd;
# <work>/corpus-manifest.json records the splits' packages, versions, levels
# and counts. The layout, each split's levels and the .cmd format are in
# tools/python/ir2vec/mlgo/debcorpus.py's docstring; the command in
# docs/Training.md.
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
# make, /usr/bin/python3, irtk's Python package ir2vec (PYTHONPATH, else the
# build tree's build/python or $IRTK_BUILD_DIR/python); tclsh for SQLite's
# amalgamation (installed with apt-get when missing). Adds a deb-src entry
# for the running release when none is configured, which needs root.
#
#===------------------------------------------------------------------------===#

set -euo pipefail

RECIPE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RECIPES=$RECIPE_DIR/corpus-recipes.txt
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

# ir2vec.mlgo's corpus-build command with the recipes table (docs/Training.md).
corpus_build() { "$PYTHON" -m ir2vec.mlgo corpus-build "$1" --recipes "$RECIPES" "${@:2}"; }

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
  done < <(corpus_build prep --package "$1")
}

# --- 1. Work directory and package list ---------------------------------------------
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
OWN_SRC=0
if [[ -z $SRC ]]; then SRC=$WORK/src; OWN_SRC=1; fi
mkdir -p "$SRC"
SRC=$(cd "$SRC" && pwd)
LOGS=$WORK/logs

command -v "$CLANG" >/dev/null || die "$CLANG not found (Debian package clang-22)"
command -v "$CLANGXX" >/dev/null || die "$CLANGXX not found (Debian package clang-22)"
[[ -x $PYTHON ]] || die "$PYTHON not found (Debian package python3)"
command -v dpkg-parsechangelog >/dev/null || die "dpkg-parsechangelog not found (Debian package dpkg-dev)"
use_mlgo "$PYTHON" "$RECIPE_DIR/../.."

if ((REBUILD)); then
  WHAT="${SPLIT_LIST[*]}, logs"
  if ((OWN_SRC)); then WHAT+=", sources"; fi
  log "--rebuild: deleting $WHAT"
  for S in "${SPLIT_LIST[@]}"; do rm -rf "${WORK:?}/$S"; done
  rm -rf "$LOGS" "$WORK/gen" "$WORK/state"
  if ((OWN_SRC)); then rm -rf "$SRC"; mkdir -p "$SRC"; fi
fi
mkdir -p "$LOGS"

# The packages of the requested splits, in list order; the list is checked.
LISTED=$(corpus_build packages --packages "$PACKAGE_LIST" --splits "$SPLITS") || exit 1
mapfile -t PKGS <<<"$LISTED"

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

# --- 4. Module table, pruning, compiles, corpus descriptions, manifest -----------------
corpus_build build --packages "$PACKAGE_LIST" --splits "$SPLITS" --work "$WORK" \
  --src "$SRC" --jobs "$JOBS" --levels-per-file "$LEVELS_PER_FILE" \
  --clang "$CLANG" --clangxx "$CLANGXX"
