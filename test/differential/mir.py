#!/usr/bin/env python3
"""Differential test of --mode=mir: irtk against upstream LLVM 22's llvm-ir2vec.

The inputs are machine IR that upstream's own llc writes: the hand-written
``Inputs/*.ll`` files and the ``Inputs/*.c`` files (compiled with clang -O2)
lowered for x86-64, AArch64 and RISC-V, stopped after instruction selection
(``finalize-isel``, virtual registers) and after register rewriting
(``virtregrewriter``, physical registers, calls with implicit $ssp and the
like), plus the hand-written ``mir/*.mir`` files.

LLVM 22 resolves every function's virtual registers through the first
machine function's register info, so for a file of several functions its
answers are wrong past the first. The comparison is therefore made on
single-function files: for each function, the file's IR module with that
function's machine body alone. On each, for ``triplets`` and for
``embeddings`` at func, bb and inst level with a random vocabulary of the
target (some runs with non-default weights):

  * where upstream succeeds, our output must be byte-identical;
  * where upstream crashes (registers without a class, empty machine
    functions), ours must succeed; these are counted.

Then, for every multi-function file, our embedding of each function in the
whole file must equal its embedding alone: the per-function register info
is used. ``entities`` is compared once per target.

The module level (irtk's; upstream has none): on each single-function file
that upstream embeds, our ``--level=module`` vector must print as upstream's
function vector; on each multi-function file, our module vector
(``--format=jsonl``) must be the sum, in double and in module order, of our
function vectors there, which are each function's alone.

Last, in-process lowering: each LLVM IR input lowered by our llvm-ir2vec
itself (``--stop-after``, no llc) must give the same triplets, block
embeddings and instruction vectors as the .mir file llc wrote at that point
(the instruction text may differ: reading a .mir renumbers blocks and
metadata slots). Where llc writes a .mir that cannot be read back (unnamed
functions), only the in-process run is checked.

The last line is ``differential-mir: N passed, M failed`` (upstream crashes
counted separately); the exit status is 1 when anything failed.
"""

import argparse
import concurrent.futures
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

SEED = 20261201
TARGETS = ["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu",
           "riscv64-unknown-linux-gnu"]
# After instruction selection for every target; after register rewriting
# (physical registers, calls) for X86-64, where upstream crashes most.
STOPS = {"x86_64": ["finalize-isel", "virtregrewriter"],
         "aarch64": ["finalize-isel"], "riscv64": ["finalize-isel"]}

_spec = importlib.util.spec_from_file_location(
    "random_vocab",
    Path(__file__).resolve().parent.parent / "Inputs" / "mir-random-vocab.py")
random_vocab = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(random_vocab)

# Upstream's crashes print a stack trace; symbolizing it would take longer
# than the rest of the run.
ENV = dict(os.environ, LLVM_DISABLE_SYMBOLIZATION="1")


def run(cmd, timeout=120):
    p = subprocess.run(cmd, capture_output=True, timeout=timeout, env=ENV)
    return p.returncode, p.stdout, p.stderr


def crashed(code):
    return code < 0 or code >= 128


def vector_line(out, heading):
    """The text after ``heading`` on its line of ``out`` (bytes), or None."""
    for line in out.splitlines():
        if line.startswith(heading):
            return line[len(heading):]
    return None


def split_docs(text):
    """The YAML documents of a .mir file: the IR module, then one per
    machine function."""
    docs = re.split(r"^---(?: \|)?\n", text, flags=re.M)
    docs = [d for d in docs if d.strip()]
    if not text.startswith("--- |"):
        return None, docs
    return docs[0], docs[1:]


def function_name(doc):
    m = re.search(r"^name:\s+'?([^'\n]+)'?\s*$", doc, flags=re.M)
    return m.group(1) if m else None


def single_function_file(ir_doc, fn_doc):
    body = "--- |\n" + ir_doc.rstrip("\n") + "\n"
    if not body.rstrip().endswith("..."):
        body += "...\n"
    body += "---\n" + fn_doc.rstrip("\n") + "\n"
    if not body.rstrip().endswith("..."):
        body += "...\n"
    return body


def sections_by_function(text):
    """Our func-level text output, by function name."""
    out = {}
    for m in re.finditer(r"^MIR2Vec embeddings for machine function (.*):\n"
                         r"(Function vector: .*\n)", text, flags=re.M):
        out[m.group(1)] = m.group(2)
    return out


def make_vocab(path, entities_text, rng, dim):
    """A random vocabulary of the target with a few entities missing."""
    sections = random_vocab.make_vocab(entities_text, rng, dim, drop=0.05,
                                       digits=(1, 3, 6))
    path.write_text(json.dumps(sections))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ours", type=Path, required=True)
    ap.add_argument("--llvm-bin", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    here = Path(__file__).resolve().parent
    upstream = args.llvm_bin / "llvm-ir2vec"
    llc = args.llvm_bin / "llc"
    clang = args.llvm_bin / "clang"
    for tool in (upstream, llc, clang, args.ours):
        if not tool.exists():
            print(f"differential-mir: {tool} not found")
            print("differential-mir: 0 passed, 1 failed")
            return 1
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    passed = failed = upstream_crashes = 0
    failures = []

    def fail(msg):
        nonlocal failed
        failed += 1
        failures.append(msg)
        print("FAIL:", msg)

    # Machine IR from upstream's llc.
    sources = []
    for src in sorted((here / "Inputs").glob("*.ll")):
        sources.append(src)
    for src in sorted((here / "Inputs").glob("*.c")):
        ll = work / (src.stem + ".O2.ll")
        code, _, err = run([str(clang), "-O2", "-S", "-emit-llvm", str(src),
                            "-o", str(ll)])
        if code == 0:
            sources.append(ll)
    mirs = []
    lowered = []  # (source, triple, stop, llc's .mir)
    for src in sources:
        for triple in TARGETS:
            for stop in STOPS[triple.split("-")[0]]:
                out = work / f"{src.stem}.{triple.split('-')[0]}.{stop}.mir"
                code, _, _ = run([str(llc), "-O2", f"-mtriple={triple}",
                                  f"-stop-after={stop}", str(src), "-o",
                                  str(out)])
                # Some hand-written inputs do not lower for every target.
                if code == 0:
                    mirs.append(out)
                    lowered.append((src, triple, stop, out))
    mirs += sorted((here / "mir").glob("*.mir"))

    # One vocabulary per target, from our entities, after checking them.
    vocabs = {}
    for triple in TARGETS:
        arch = triple.split("-")[0]
        sample = next((m for m in mirs if f".{arch}." in m.name), None)
        if sample is None:
            fail(f"no machine IR for {triple}")
            continue
        cu = run([str(upstream), "entities", "--mode=mir", str(sample)])
        co = run([str(args.ours), "entities", "--mode=mir", str(sample)])
        if cu[0] != 0 or co[0] != 0 or cu[1] != co[1]:
            fail(f"entities differ for {triple} ({sample.name})")
            continue
        passed += 1
        path = work / f"vocab.{arch}.json"
        make_vocab(path, co[1].decode(), rng, rng.choice([2, 3, 5]))
        vocabs[arch] = path

    def arch_of(mir_text, path):
        m = re.search(r'target triple = "([^"-]+)', mir_text)
        return m.group(1) if m else path.name.split(".")[1]

    def check_file(mir, rng):
        """Compares one machine IR file; returns (passed, failures,
        upstream crashes)."""
        ok, bad, crashes = 0, [], 0
        text = mir.read_text()
        ir_doc, fn_docs = split_docs(text)
        arch = arch_of(text, mir)
        vocab = vocabs.get(arch)
        if ir_doc is None or vocab is None:
            return ok, bad, crashes
        weights = []
        if rng.random() < 0.3:
            weights = ["--mir2vec-opc-weight=0.5",
                       "--mir2vec-common-operand-weight=0.25",
                       "--mir2vec-reg-operand-weight=2"]
        singles = {}
        for i, doc in enumerate(fn_docs):
            name = function_name(doc)
            if name is None:
                continue
            single = work / f"{mir.stem}.f{i}.mir"
            single.write_text(single_function_file(ir_doc, doc))
            singles[name] = single
            commands = [["triplets"]] + [
                ["embeddings", f"--mir2vec-vocab-path={vocab}",
                 f"--level={level}"] + weights
                for level in ("func", "bb", "inst")]
            for cmd in commands:
                full = cmd + ["--mode=mir", str(single)]
                uc, uo, ue = run([str(upstream)] + full)
                oc, oo, oe = run([str(args.ours)] + full)
                what = f"{' '.join(cmd)} {single.name} ({name})"
                if "--level=func" in cmd and uc == 0:
                    module = [x if x != "--level=func" else "--level=module"
                              for x in full]
                    mc, mo, me = run([str(args.ours)] + module)
                    if mc != 0 or vector_line(mo, b"Module vector: ") != \
                            vector_line(uo, b"Function vector: "):
                        bad.append(f"module vector is not upstream's function "
                                   f"vector: {what}: {(mo + me)[:200]!r}")
                    else:
                        ok += 1
                if crashed(oc):
                    bad.append(f"ours crashed: {what}: {oe.decode()[:200]}")
                elif crashed(uc):
                    crashes += 1
                    if oc != 0:
                        bad.append(f"upstream crashed and ours failed: "
                                   f"{what}: {oe.decode()[:200]}")
                    else:
                        ok += 1
                elif uc != 0 and oc != 0:
                    ok += 1  # Both reject it (llc wrote MIR it cannot read).
                elif uc != oc or uo != oo:
                    bad.append(f"output differs: {what}")
                    (work / "failures").mkdir(exist_ok=True)
                    (work / "failures" / (single.name + ".upstream")
                     ).write_bytes(uo)
                    (work / "failures" / (single.name + ".ours")
                     ).write_bytes(oo)
                else:
                    ok += 1
        # Each function of a multi-function file embeds as it does alone.
        if len(singles) > 1:
            base = ["embeddings", f"--mir2vec-vocab-path={vocab}",
                    "--level=func", "--mode=mir"] + weights
            oc, oo, oe = run([str(args.ours)] + base + [str(mir)])
            if oc != 0:
                uc, _, _ = run([str(upstream)] + base + [str(mir)])
                if uc != 0 and not crashed(uc):
                    return ok + 1, bad, crashes  # Both reject the file.
                bad.append(f"ours failed on {mir.name}: {oe.decode()[:200]}")
                return ok, bad, crashes
            whole = sections_by_function(oo.decode())
            jsonl = [x for x in base if x != "--level=func"] + \
                ["--format=jsonl", str(mir)]
            fc, fo, _ = run([str(args.ours)] + jsonl + ["--level=func"])
            mc, mo, me = run([str(args.ours)] + jsonl + ["--level=module"])
            funcs = [json.loads(l)["embedding"] for l in fo.splitlines()]
            total = [0.0] * (len(funcs[0]) if funcs else 0)
            for f in funcs:
                total = [a + b for a, b in zip(total, f)]
            module = [json.loads(l) for l in mo.splitlines()]
            if fc != 0 or mc != 0 or len(module) != 1 or \
                    module[0]["embedding"] != total:
                bad.append(f"module vector of {mir.name} is not the sum of "
                           f"its function vectors: {(mo + me)[:200]!r}")
            else:
                ok += 1
            for name, single in singles.items():
                sc, so, _ = run([str(args.ours)] + base + [str(single)])
                alone = sections_by_function(so.decode()).get(name)
                if sc != 0 or alone is None or whole.get(name) != alone:
                    bad.append(f"{name} in {mir.name} differs from alone")
                else:
                    ok += 1
        return ok, bad, crashes

    seeds = [rng.randrange(1 << 30) for _ in mirs]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for ok, bad, crashes in pool.map(
                lambda a: check_file(a[0], random.Random(a[1])),
                zip(mirs, seeds)):
            passed += ok
            upstream_crashes += crashes
            for msg in bad:
                fail(msg)

    def vectors_only(text):
        """Instruction-level text without the instructions: re-reading a
        .mir renumbers blocks and metadata slots, so only the vectors (and
        their number) must agree."""
        return [l for l in text.splitlines() if l.startswith(b" ->")]

    def check_lowering(item):
        src, triple, stop, mir = item
        vocab = vocabs.get(triple.split("-")[0])
        if vocab is None:
            return 0, []
        ok, bad = 0, []
        for cmd in (["triplets"],
                    ["embeddings", f"--mir2vec-vocab-path={vocab}",
                     "--level=bb"],
                    ["embeddings", f"--mir2vec-vocab-path={vocab}",
                     "--level=inst"]):
            ac, ao, ae = run([str(args.ours)] + cmd + ["--mode=mir", str(mir)])
            bc, bo, be = run([str(args.ours)] + cmd + [
                "--mode=mir", f"--mtriple={triple}", f"--stop-after={stop}",
                str(src)])
            what = f"{' '.join(cmd[::2])} of {src.name} lowered for {triple} to {stop}"
            if bc != 0:
                bad.append(f"{what}: failed: {be.decode()[:200]}")
            elif ac != 0:
                # llc wrote machine IR that cannot be read back (e.g.
                # unnamed functions): nothing to compare with.
                ok += 1
            elif "--level=inst" in cmd:
                if vectors_only(ao) != vectors_only(bo):
                    bad.append(f"{what}: vectors differ from llc's .mir")
                else:
                    ok += 1
            elif ao != bo:
                bad.append(f"{what}: differs from llc's .mir")
            else:
                ok += 1
        return ok, bad

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for ok, bad in pool.map(check_lowering, lowered):
            passed += ok
            for msg in bad:
                fail(msg)

    print(f"differential-mir: {len(lowered)} lowerings compared with llc")
    print(f"differential-mir: {len(mirs)} machine IR files, "
          f"{upstream_crashes} upstream crashes (ours succeeded)")
    print(f"differential-mir: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
