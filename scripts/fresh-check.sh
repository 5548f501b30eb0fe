#!/usr/bin/env bash
# Runs the README's two commands as a new user would: in a throw-away Debian 12
# (bookworm, minbase) root made with debootstrap, holding nothing but git and a
# clone of this checkout's HEAD. Prints each command's result and exits 0 only
# if both pass. Run it (as root) before resolving anything that touches set-up,
# packaging or dependencies: this machine has packages a user's does not.
#
#   scripts/fresh-check.sh [--keep] [--only example|test] [--dir DIR]
#
#   --keep      leave the root in place (its path is printed) for a look
#               inside; by default it is removed at the end.
#   --only X    run only the example command (run-example.sh) or only the
#               test command (test.sh); both by default, in the README's order.
#   --dir DIR   make the root under DIR (default: $TMPDIR or /var/tmp); it
#               needs about 8 GB.
#
# The mirror and apt sources are this machine's own (/etc/apt): the root's
# sources are the host's Debian ones, so it sees the same bookworm,
# bookworm-updates and bookworm-security suites a fresh install has.
# Uncommitted changes are not checked: commit first (a warning says so).
# Each command's full output is kept in the root's /root/<command>.log and,
# on failure, its last lines are printed.
set -euo pipefail

KEEP=0
ONLY=""
BASE=${TMPDIR:-/var/tmp}
usage() {
  echo "usage: $0 [--keep] [--only example|test] [--dir DIR]" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
  --keep) KEEP=1 ;;
  --only)
    [ $# -ge 2 ] || usage
    ONLY=$2
    shift
    case "$ONLY" in example | test) ;; *) usage ;; esac
    ;;
  --dir)
    [ $# -ge 2 ] || usage
    BASE=$2
    shift
    ;;
  *) usage ;;
  esac
  shift
done

say() { echo "fresh-check: $*" >&2; }
die() {
  say "error: $*"
  exit 1
}

[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap and chroot need it)"
SRC=$(cd "$(dirname "$0")/.." && pwd)
git -C "$SRC" rev-parse --verify -q HEAD >/dev/null ||
  die "$SRC is not a git checkout with a commit"
if [ -n "$(git -C "$SRC" status --porcelain --untracked-files=no)" ]; then
  say "warning: uncommitted changes in $SRC are not part of the check"
fi

# The host's Debian mirror: the first URI of an enabled source that serves
# bookworm (deb822 .sources or one-line .list files).
mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk '
      /^[[:space:]]*$/ { if (uri != "" && suite) { print uri; exit } uri = ""; suite = 0; next }
      /^URIs:/ { uri = $2 }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") suite = 1 }
      END { if (uri != "" && suite) print uri }' "$f" | head -n1
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' "$f"
  done
}
MIRROR=$(mirror | head -n1)
[ -n "$MIRROR" ] || die "no Debian bookworm source in /etc/apt to take a mirror from"

if ! command -v debootstrap >/dev/null 2>&1; then
  say "installing debootstrap"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi

mkdir -p "$BASE"
ROOT=$(mktemp -d "$BASE/irtk-fresh.XXXXXX")
MOUNTS=()
cleanup() {
  local m i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
    m=${MOUNTS[$i]}
    umount -l "$m" 2>/dev/null || true
  done
  if [ "$KEEP" -eq 1 ]; then
    say "root kept at $ROOT"
  else
    rm -rf --one-file-system "$ROOT"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "debootstrap bookworm (minbase, with git) into $ROOT"
T0=$SECONDS
debootstrap --variant=minbase --include=git,ca-certificates bookworm "$ROOT" \
  "$MIRROR" >"$ROOT.debootstrap.log" 2>&1 || {
  tail -n 20 "$ROOT.debootstrap.log" >&2
  die "debootstrap failed (log: $ROOT.debootstrap.log)"
}
rm -f "$ROOT.debootstrap.log"
say "root made in $((SECONDS - T0)) s"

# The same Debian suites as this machine (a fresh install has security and
# updates too; debootstrap writes only the main suite).
rm -f "$ROOT/etc/apt/sources.list"
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
  /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  mkdir -p "$ROOT$(dirname "$f")"
  cp "$f" "$ROOT$f"
done
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true

mountin() {
  mkdir -p "$ROOT$2"
  mount "${@:3}" "$1" "$ROOT$2"
  MOUNTS+=("$ROOT$2")
}
mountin proc /proc -t proc
mountin sysfs /sys -t sysfs
mountin /dev /dev --bind
mountin devpts /dev/pts -t devpts
mountin tmpfs /dev/shm -t tmpfs

git clone -q --no-local "$SRC" "$ROOT/root/irtk"
say "cloned $(git -C "$SRC" rev-parse --short HEAD) into /root/irtk"

# One README command in the root, with a clean environment; its output goes
# to /root/<name>.log.
runin() {
  local name=$1 cmd=$2 t0=$SECONDS rc=0
  say "running $cmd"
  chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c "cd /root/irtk && $cmd" >"$ROOT/root/$name.log" 2>&1 || rc=$?
  if [ "$rc" -eq 0 ]; then
    RESULTS+=("$cmd: passed in $((SECONDS - t0)) s")
  else
    tail -n 40 "$ROOT/root/$name.log" >&2
    RESULTS+=("$cmd: FAILED (exit $rc) after $((SECONDS - t0)) s; log: /root/$name.log in the root")
    FAILED=1
  fi
}

RESULTS=()
FAILED=0
[ "$ONLY" = test ] || runin example ./scripts/run-example.sh
[ "$ONLY" = example ] || runin test ./scripts/test.sh
if [ "$FAILED" -ne 0 ]; then KEEP=1; fi
for r in "${RESULTS[@]}"; do say "$r"; done
exit "$FAILED"
