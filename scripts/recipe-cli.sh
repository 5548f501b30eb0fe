#===- recipe-cli.sh - Command-line helpers of the recipe scripts -----------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===------------------------------------------------------------------------===#
#
# Sourced by vocab/recipe/build-corpus.sh and the advisors/recipe/ scripts
# after they set RECIPE_NAME (for log lines). Defines:
#   log MSG...           "[<RECIPE_NAME> HH:MM:SS] MSG" on stderr
#   die MSG...           logs "error: MSG" and exits 1
#   usage                the "# Usage:" and "# Options:" paragraphs of the
#                        running script's header comment
#   usage_error MSG...   logs "error: MSG", prints the usage, exits 2
#   next_opt VALUE-OPTS ARGS...
#                        reads the first of ARGS into OPT and VAL: --opt=val,
#                        or --opt val when --opt is one of the space-separated
#                        VALUE-OPTS; NSHIFT is how many ARGS it took
#   parse_options TABLE ARGS...
#                        the options of ARGS by TABLE, space-separated
#                        words --opt=VARIABLE (a value: --opt v or
#                        --opt=v) or --opt=VARIABLE! (a flag: VARIABLE=1);
#                        -h/--help prints the usage and exits, an unknown
#                        option is a usage error, and what follows "--" is
#                        left in the array EXTRA
#   want_positive OPT VAL [OPT VAL]...
#                        usage error unless each VAL is a positive number
#   use_mlgo PYTHON ROOT makes `PYTHON -m ir2vec.mlgo` work: as PYTHONPATH
#                        has it, else from ROOT's build tree
#
#===------------------------------------------------------------------------===#

# shellcheck shell=bash
log() { printf '[%s %s] %s\n' "$RECIPE_NAME" "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }
usage() {
  sed -n -e '/^# Usage:/,/^#$/p' -e '/^# Options:/,/^# Environment\|^#===/p' "$0" |
    sed -e '/^#===/d' -e 's/^# \{0,1\}//' -e '/^Environment/d'
}
usage_error() { log "error: $*"; usage >&2; exit 2; }

# shellcheck disable=SC2034 # OPT, VAL and NSHIFT are for the caller
next_opt() { # value-options args...
  local WANT=" $1 "
  shift
  OPT=$1 VAL='' NSHIFT=1
  if [[ $OPT == --*=* ]]; then
    VAL=${OPT#*=} OPT=${OPT%%=*}
  elif [[ $WANT == *" $OPT "* ]]; then
    (($# >= 2)) || usage_error "$OPT needs a value"
    VAL=$2 NSHIFT=2
  fi
}

# shellcheck disable=SC2034 # EXTRA is for the caller
parse_options() { # table args...
  local TABLE=$1 W VALUED=() FOUND
  shift
  for W in $TABLE; do [[ $W == *! ]] || VALUED+=("${W%%=*}"); done
  EXTRA=()
  while (($#)); do
    if [[ $1 == -- ]]; then
      shift
      EXTRA=("$@")
      return 0
    fi
    next_opt "${VALUED[*]}" "$@"
    shift "$NSHIFT"
    if [[ $OPT == -h || $OPT == --help ]]; then
      usage
      exit 0
    fi
    FOUND=
    for W in $TABLE; do
      [[ ${W%%=*} == "$OPT" ]] || continue
      FOUND=${W#*=}
      if [[ $FOUND == *! ]]; then printf -v "${FOUND%!}" 1; else printf -v "$FOUND" '%s' "$VAL"; fi
    done
    [[ -n $FOUND ]] || usage_error "unknown option '$OPT'"
  done
}

want_positive() { # option value [option value]...
  while (($# >= 2)); do
    [[ $2 =~ ^[1-9][0-9]*$ ]] || usage_error "$1 wants a positive number, not '$2'"
    shift 2
  done
}

# Makes `python3 -m ir2vec.mlgo` importable for the recipe: as PYTHONPATH
# has it, else from this checkout's build tree (IRTK_BUILD_DIR, default
# build/).
use_mlgo() { # python root
  "$1" -c 'import ir2vec.mlgo' 2>/dev/null && return 0
  export PYTHONPATH="${IRTK_BUILD_DIR:-$2/build}/python${PYTHONPATH:+:$PYTHONPATH}"
  "$1" -c 'import ir2vec.mlgo' 2>/dev/null ||
    die "ir2vec.mlgo is not importable: build irtk, or set PYTHONPATH"
}
