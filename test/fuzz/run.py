#!/usr/bin/env python3
"""Runs irtk's libFuzzer targets: the ctest entry ``fuzz``.

For every seed corpus ``CORPUS/<name>/`` this runs ``BIN/irtk-fuzz-<name>``

  * over every seed once (``-runs=0``), so that each known input, and each
    reproducer kept there, is checked on every run, together with a generated
    input nested 40,000 levels deep (``{"a": [[[...``), past the depth at
    which ``llvm::json::parse`` overflowed the stack before irtk limited
    nesting;
  * then fuzzes it for ``--seconds`` seconds (``-max_total_time``) with
    inputs up to ``--max-len`` bytes, starting from a copy of the seeds in a
    temporary directory, so that the tree's corpus is never modified.

A target that crashes, leaks, trips a sanitizer or times out fails the run;
its reproducer is kept in ``--artifacts`` (default: a directory under
``/tmp`` that is printed) and its output is printed. The last line is
``fuzz: N passed, M failed``; the exit status is 1 when any failed.
``--only NAME`` (repeatable) runs some targets only.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

DEEP_NESTING = 40000


def run(cmd, env, log):
    """Runs cmd, appending its output to log; returns (status, output)."""
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    out = p.stdout.decode("utf-8", "replace")
    log.append("$ " + " ".join(cmd) + "\n" + out)
    return p.returncode, out


def stat(output, name):
    m = re.search(r"stat::%s:\s*(\d+)" % name, output)
    return int(m.group(1)) if m else None


def fuzz_one(name, target, seeds, args, artifacts):
    log = []
    # The targets that read a path write every input to a file: on a disk
    # that costs most of their time, in memory little.
    scratch = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    env = dict(os.environ, LSAN_OPTIONS="suppressions=" + os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "lsan.supp"))
    if scratch:
        env["TMPDIR"] = scratch
    common = ["-artifact_prefix=" + os.path.join(artifacts, name + "-"),
              "-timeout=%d" % args.timeout, "-rss_limit_mb=%d" % args.rss_mb,
              "-print_final_stats=1"]
    with tempfile.TemporaryDirectory(prefix="irtk-fuzz-" + name + "-",
                                     dir=scratch) as tmp:
        corpus = os.path.join(tmp, "corpus")
        shutil.copytree(seeds, corpus)
        # The depth at which llvm::json::parse once overflowed the stack,
        # too big to keep in the tree for every target: run with the seeds.
        with open(os.path.join(corpus, "generated-deep-nesting"), "w") as f:
            f.write('{"a": ' + "[" * DEEP_NESTING)
        status, _ = run([target, "-runs=0"] + common + [corpus], env, log)
        if status != 0:
            return False, "seeds", log
        status, out = run([target, "-max_total_time=%d" % args.seconds,
                           "-max_len=%d" % args.max_len] + common + [corpus],
                          env, log)
        if status != 0:
            return False, "fuzzing", log
    return True, "%s execs" % stat(out, "number_of_executed_units"), log


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--corpus-dir", required=True)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--max-len", type=int, default=8192,
                    help="longest generated input; the deep-nesting seeds "
                    "are about 4000 bytes")
    ap.add_argument("--timeout", type=int, default=25,
                    help="seconds one input may take")
    ap.add_argument("--rss-mb", type=int, default=2560)
    ap.add_argument("--artifacts")
    ap.add_argument("--only", action="append", default=[])
    args = ap.parse_args()

    artifacts = args.artifacts or tempfile.mkdtemp(prefix="irtk-fuzz-crashes-")
    os.makedirs(artifacts, exist_ok=True)
    names = sorted(d for d in os.listdir(args.corpus_dir)
                   if os.path.isdir(os.path.join(args.corpus_dir, d)))
    if args.only:
        names = [n for n in names if n in args.only]
    passed = failed = 0
    for name in names:
        target = os.path.join(args.bin_dir, "irtk-fuzz-" + name)
        if not os.access(target, os.X_OK):
            print("FAIL %s: %s not built (ninja irtk-fuzzers)" % (name, target))
            failed += 1
            continue
        ok, what, log = fuzz_one(name, target,
                                 os.path.join(args.corpus_dir, name), args,
                                 artifacts)
        if ok:
            print("PASS %s: %s" % (name, what))
            passed += 1
        else:
            print("FAIL %s: crashed while %s; reproducers in %s" %
                  (name, what, artifacts))
            print("".join(log))
            failed += 1
        sys.stdout.flush()
    if failed == 0 and not args.artifacts:
        shutil.rmtree(artifacts, ignore_errors=True)
    print("fuzz: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
