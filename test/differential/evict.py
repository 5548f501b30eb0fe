#!/usr/bin/env python3
"""Differential test of the eviction advisor's features against LLVM 22's own.

LLVM 22's ML eviction advisor (llc -regalloc-enable-advisor=release with
-regalloc-evict-interactive-channel-base) computes its MLGO features inside
the allocator, with the allocator's private state, and sends them over the
interactive protocol. Ours computes the same features from outside. Both
allocators are driven by the same policy, "evict nothing wherever that is
allowed" (ours: the hand-made model evict-never.json, logged; LLVM's: a host
in this script that answers 32, the no-eviction position), so that they
allocate alike. Where not evicting is not allowed (the interval being
allocated cannot be spilled), LLVM's host answers what our model chose at
that point, read from our log. LLVM asks at every call where its mask allows a candidate,
we only where the stock heuristic accepts one: each of our observations is
matched with the next of LLVM's whose integer features agree.

For every matched pair whose candidate positions are the same (LLVM's mask,
our filled positions: where the cascade and the stage, which only LLVM
sees, changed nothing), every feature we compute as LLVM does must equal
LLVM's, element by element; our "evictable" candidates must be a subset of
LLVM's mask everywhere. A function stops being compared at its first
decision where the two could not be made to choose alike.

Usage: evict.py --plugin IRTKPlugin.so --llc LLC --clang CLANG
                --model evict-never.json --work DIR --inputs C_OR_LL...
"""

import argparse
import json
import os
import subprocess
import sys
import threading

# The tensor specs and raw reads of the example host, which speaks the same
# protocol and writes the same tensors as the training log holds.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "examples", "advisors"))
from interactive_host import Spec, read_exactly, serve  # noqa: E402

# Computed as LLVM computes them: compared element by element.
EXACT = ["is_free", "nr_broken_hints", "is_hint", "is_local",
         "nr_rematerializable", "nr_defs_and_uses", "weighed_reads_by_max",
         "weighed_writes_by_max", "weighed_read_writes_by_max",
         "weighed_indvars_by_max", "hint_weights_by_max",
         "start_bb_freq_by_max", "end_bb_freq_by_max",
         "hottest_bb_freq_by_max", "liverange_size", "use_def_density"]
KEYS = ["is_free", "is_hint", "is_local"]
NO_EVICTION = 32


def read_log(path):
    """LLVM's training-log format: {context: [observation dicts]}."""
    contexts = {}
    with open(path, "rb") as f:
        header = json.loads(f.readline())
        specs = [Spec(d) for d in header["features"]]
        reward = Spec(header["score"]) if "score" in header else None
        current = None
        while True:
            line = f.readline()
            if not line:
                break
            event = json.loads(line)
            if "context" in event:
                current = contexts.setdefault(event["context"], [])
            elif "observation" in event:
                current.append({s.name: s.decode(read_exactly(f, s.size))
                                for s in specs})
                read_exactly(f, 1)
            elif "outcome" in event:
                read_exactly(f, reward.size + 1)
    return contexts


def serve_llvm(base, ours, contexts, diverged, errors):
    """LLVM's side: answer 32 where allowed, else what we chose there."""
    forced = {name: [o["index_to_evict"][0] for o in obs
                     if not o["evictable"][NO_EVICTION]]
              for name, obs in ours.items()}

    def decide(name, obs):
        current = contexts.setdefault(name, [])
        current.append(obs)
        mask = obs["mask"]
        if mask[NO_EVICTION]:
            return NO_EVICTION
        queue = forced.get(name, [])
        answer = int(queue.pop(0)) if queue else -1
        if answer < 0 or not mask[answer]:
            diverged.setdefault(name, len(current) - 1)
            answer = mask.index(1)
        return answer

    try:
        serve(base, decide)
    except Exception as e:  # reported by the main thread
        errors.append(repr(e))


def run_llvm(args, ll, base, ours):
    for suffix in (".in", ".out"):
        if os.path.exists(base + suffix):
            os.remove(base + suffix)
        os.mkfifo(base + suffix)
    contexts, diverged, errors = {}, {}, []
    proc = subprocess.Popen(
        [args.llc, "-O2", ll, "-o", os.devnull,
         "-regalloc-enable-advisor=release",
         "-regalloc-evict-interactive-channel-base=" + base],
        stderr=subprocess.PIPE)
    host = threading.Thread(target=serve_llvm,
                            args=(base, ours, contexts, diverged, errors))
    host.start()
    _, err = proc.communicate(timeout=600)
    host.join(timeout=60)
    if proc.returncode or errors:
        sys.exit(f"evict.py: LLVM's advisor on {ll}: rc={proc.returncode} "
                 f"{err.decode()[-500:]} {errors}")
    return contexts, diverged


def filled(obs, p):
    return obs["is_free"][p] == 1 or obs["nr_defs_and_uses"][p] > 0


def compare(name, ours, theirs, diverged, totals):
    j = 0
    for k, o in enumerate(ours):
        while j < len(theirs):
            t = theirs[j]
            j += 1
            if diverged is not None and j > diverged:
                return  # the allocations may differ from here on
            if all(o[key][p] == t[key][p] for key in KEYS
                   for p in range(NO_EVICTION) if t["mask"][p]) and \
                    all(t["mask"][p] for p in range(NO_EVICTION)
                        if o["evictable"][p]):
                break
        else:
            totals["unmatched"] += 1
            print(f"{name}: our observation {k} matches none of LLVM's")
            return
        totals["matched"] += 1
        same_positions = all(
            bool(t["mask"][p]) == filled(o, p) for p in range(NO_EVICTION))
        if not same_positions:
            continue
        totals["compared"] += 1
        for feature in EXACT:
            for p in range(NO_EVICTION + 1):
                a, b = o[feature][p], t[feature][p]
                if abs(a - b) > 1e-6 * max(1.0, abs(b)):
                    totals["mismatches"] += 1
                    if totals["mismatches"] <= 20:
                        print(f"{name}: observation {k}: {feature}[{p}]: "
                              f"ours {a}, LLVM's {b}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--plugin", required=True)
    p.add_argument("--llc", required=True)
    p.add_argument("--clang", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--inputs", nargs="+", required=True)
    p.add_argument("--plugin-host-env", default="",
                   help="NAME=VALUE;... to set where llc loads the plugin "
                   "(a sanitized build preloads ASan's runtime)")
    args = p.parse_args()
    host_env = dict(os.environ)
    for item in filter(None, args.plugin_host_env.split(";")):
        name, sep, value = item.partition("=")
        if not sep:
            p.error(f"--plugin-host-env: expected NAME=VALUE, got '{item}'")
        host_env[name] = value
    os.makedirs(args.work, exist_ok=True)
    totals = dict(observations=0, matched=0, compared=0, mismatches=0,
                  unmatched=0)
    for src in args.inputs:
        stem = os.path.join(args.work, os.path.basename(src))
        ll = stem + ".ll"
        if src.endswith(".c"):
            subprocess.run([args.clang, "-O2", "-S", "-emit-llvm",
                            "--target=x86_64-linux-gnu", src, "-o", ll],
                           check=True)
        else:
            ll = src
        log = stem + ".evict.log"
        subprocess.run([args.llc, "-O2", "-load-pass-plugin=" + args.plugin,
                        "-irtk-evict-policy=model",
                        "-irtk-evict-model=" + args.model,
                        "-irtk-evict-embeddings=false",
                        "-irtk-evict-log=" + log, ll, "-o", os.devnull],
                       check=True, env=host_env)
        ours = read_log(log)
        theirs, diverged = run_llvm(args, ll, stem + ".ch", ours)
        for function, observations in ours.items():
            totals["observations"] += len(observations)
            compare(f"{os.path.basename(src)}:{function}", observations,
                    theirs.get(function, []), diverged.get(function), totals)
    print(json.dumps(totals, sort_keys=True))
    if totals["mismatches"] or totals["unmatched"]:
        return 1
    if totals["compared"] < max(1, totals["observations"] // 2):
        print("evict.py: too few observations compared")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
