#!/usr/bin/env python3
"""Differential test: irtk against upstream LLVM 22's IR2Vec.

For every input IR file, every generated vocabulary, embedding kind and
level, this compares

  * our ``llvm-ir2vec embeddings`` text output with upstream's
    ``llvm-ir2vec embeddings`` (byte-identical, exit status equal);
  * our ``--format=jsonl`` output with ``irtk-upstream-oracle``, which prints
    the same records from upstream's in-library embedders at full precision
    (every float bit-identical; the maximum absolute difference is reported
    when not). Both tools take all inputs in one run here, which keeps this,
    the strictest comparison, affordable for every input and vocabulary;
  * the plugin's ``print<irtk-ir2vec>`` with upstream opt's ``print<ir2vec>``
    (stderr identical);
  * our ``--level=module`` (irtk's; upstream has no module level) with the
    sum of upstream's function vectors: in JSON lines, bit for bit with the
    oracle's ``--level=func`` records added up in double in module order
    (every vocabulary and kind, all inputs in one run); in text, within the
    two printed decimals with upstream ``llvm-ir2vec --level=func``'s
    printed vectors added up (vocabulary ``A``, every input);

and, per input or globally, ``triplets``, ``entities``, ``embeddings
--function`` for one defined function and one declaration,
``print<irtk-ir2vec-vocab>`` against ``print<ir2vec-vocab>``, standard input,
``-o``, vocabularies in odd but valid JSON (both must agree), malformed ones
(both must fail; the messages differ on purpose) and ones with a key twice,
which upstream takes (the last one wins) and we refuse.

Inputs are the hand-written ``Inputs/*.ll`` files plus ``Inputs/*.c`` and
``Inputs/*.cpp`` compiled here with upstream clang at -O0 and -O2 (one also
with -g, one to bitcode). Vocabularies are generated with a fixed seed: random
full ones of dimension 1, 3, 5 and 75, a partial one, one with its sections and
keys in another order plus unknown keys, one written with unusual number
spellings, and non-default weights in some. Upstream's 75-dimension seed
vocabulary joins when ``../shared/reference`` exists beside the source tree.

The JSON-lines comparison covers every input, vocabulary, kind and level.
The text and opt comparisons, which need one upstream process each, use
vocabulary ``A`` on every input and each of the others on a rotating share of
the inputs; that keeps a run within about three minutes on two cores.
``--full`` runs them for every vocabulary on every input too.

Everything generated goes to ``--work``. Each failure prints the two commands
and the first difference; both outputs are kept under ``WORK/failures``. The
last line is ``differential: N passed, M failed``; the exit status is 1 when
anything failed or a required tool (upstream included) is missing.
"""

import argparse
import concurrent.futures
import json
import math
import os
import random
import re
import shlex
import shutil
import struct
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Optional

SEED = 20250722
TIMEOUT = 120  # seconds, per command
LEVELS = ("inst", "bb", "func")
KINDS = ("symbolic", "flow-aware")
HERE = Path(__file__).resolve().parent
INPUTS = HERE / "Inputs"
SEED_VOCAB = (HERE.parents[2] / "shared" / "reference" /
              "seedEmbeddingVocab75D.json")


# --------------------------------------------------------------------------
# Running commands


@dataclass
class Result:
    cmd: List[str]
    code: int
    out: str
    err: str


# Set for the commands that load our plugin into upstream's opt or clang
# (--plugin-host-env): in a sanitized build, ASan's runtime preloaded.
PLUGIN_HOST_ENV = {}


def run(cmd, stdin_path=None) -> Result:
    env = dict(os.environ, OMP_NUM_THREADS="1", LC_ALL="C")
    if any(str(c).startswith(("-load-pass-plugin=", "-fpass-plugin="))
           for c in cmd):
        env.update(PLUGIN_HOST_ENV)
    try:
        with open(stdin_path or os.devnull, "rb") as stdin:
            p = subprocess.run(cmd, stdin=stdin, capture_output=True, env=env,
                               timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return Result(cmd, -1000, "", f"timed out after {TIMEOUT} s")
    except OSError as e:
        return Result(cmd, -1001, "", str(e))
    dec = lambda b: b.decode("utf-8", "surrogateescape")
    return Result(cmd, p.returncode, dec(p.stdout), dec(p.stderr))


def describe_code(code: int) -> str:
    if code == -1000:
        return "timeout"
    if code == -1001:
        return "could not run"
    if code < 0:
        return f"killed by signal {-code}"
    return f"exit {code}"


# --------------------------------------------------------------------------
# Comparisons: each returns None when the two results agree, else a short
# description of the first difference.


def first_line_diff(ours: str, theirs: str) -> Optional[str]:
    if ours == theirs:
        return None
    a, b = ours.split("\n"), theirs.split("\n")
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"line {i + 1}:\n    ours:     {x!r}\n    upstream: {y!r}"
    shorter, n = ("ours", len(a)) if len(a) < len(b) else ("upstream", len(b))
    extra = (b if len(a) < len(b) else a)[n - 1:n + 1]
    return (f"{shorter} ends early at line {n}; the other goes on with "
            f"{extra!r}")


def status_diff(ours: Result, theirs: Result) -> Optional[str]:
    if ours.code != theirs.code:
        return (f"status differs: ours {describe_code(ours.code)}, upstream "
                f"{describe_code(theirs.code)}\n    ours stderr: "
                f"{ours.err.strip()[:300]!r}\n    upstream stderr: "
                f"{theirs.err.strip()[:300]!r}")
    if ours.code != 0:
        return (f"both failed ({describe_code(ours.code)})\n    ours stderr: "
                f"{ours.err.strip()[:300]!r}\n    upstream stderr: "
                f"{theirs.err.strip()[:300]!r}")
    return None


def compare_stdout(ours: Result, theirs: Result) -> Optional[str]:
    d = status_diff(ours, theirs)
    if d:
        return d
    d = first_line_diff(ours.out, theirs.out)
    if d:
        return "stdout differs at " + d
    if ours.err and not theirs.err:
        return f"ours wrote to stderr: {ours.err.strip()[:300]!r}"
    return None


def compare_stderr(ours: Result, theirs: Result) -> Optional[str]:
    d = status_diff(ours, theirs)
    if d:
        return d
    d = first_line_diff(ours.err, theirs.err)
    if d:
        return "stderr differs at " + d
    if ours.out != theirs.out:
        return "stdout differs at " + first_line_diff(ours.out, theirs.out)
    return None


def compare_both_fail(ours: Result, theirs: Result,
                      same_code=True) -> Optional[str]:
    problems = []
    for who, r in (("ours", ours), ("upstream", theirs)):
        if r.code <= 0:
            problems.append(f"{who} {describe_code(r.code)} (expected an "
                            f"error exit); stderr {r.err.strip()[:200]!r}")
        elif r.out.strip():
            problems.append(f"{who} failed but wrote {r.out[:100]!r}")
    if not problems and same_code and ours.code != theirs.code:
        problems.append(f"exit codes differ: ours {ours.code}, upstream "
                        f"{theirs.code}")
    return "; ".join(problems) or None


def compare_ours_refuses(ours: Result, theirs: Result) -> Optional[str]:
    """Upstream succeeds; ours fails with one line saying "duplicate key"."""
    problems = []
    if theirs.code != 0:
        problems.append(f"upstream {describe_code(theirs.code)} (expected "
                        f"success); stderr {theirs.err.strip()[:200]!r}")
    err = ours.err.strip()
    if ours.code != 1 or "duplicate key" not in err or "\n" in err:
        problems.append(f"ours {describe_code(ours.code)} (expected exit 1 "
                        f"and one 'duplicate key' line); stderr {err[:200]!r}")
    elif ours.out.strip():
        problems.append(f"ours failed but wrote {ours.out[:100]!r}")
    return "; ".join(problems) or None


def float_bits(x) -> Optional[bytes]:
    return None if x is None else struct.pack("<d", x)


def compare_jsonl(ours: Result, theirs: Result) -> Optional[str]:
    d = status_diff(ours, theirs)
    if d:
        return d
    try:
        a = [json.loads(l) for l in ours.out.splitlines()]
    except json.JSONDecodeError as e:
        return f"ours printed invalid JSON: {e}"
    b = [json.loads(l) for l in theirs.out.splitlines()]
    first = None
    max_diff = 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        where = f"record {i + 1} ({x.get('function')!r}" + (
            f", block {x['block']!r}" if "block" in x else "") + (
            f", inst {x['inst']!r}" if "inst" in x else "") + ")"
        ex, ey = x.pop("embedding", None), y.pop("embedding", None)
        if x != y and first is None:
            keys = sorted(set(x) | set(y))
            k = next(k for k in keys if x.get(k) != y.get(k))
            first = (f"{where}: field {k!r}: ours {x.get(k)!r}, oracle "
                     f"{y.get(k)!r}")
        if not isinstance(ex, list) or len(ex) != len(ey or []):
            if first is None:
                first = f"{where}: embedding shape differs"
            continue
        for j, (u, v) in enumerate(zip(ex, ey)):
            if float_bits(u) == float_bits(v):
                continue
            if u is not None and v is not None and math.isfinite(u) \
                    and math.isfinite(v):
                max_diff = max(max_diff, abs(u - v))
            else:
                max_diff = math.inf
            if first is None:
                first = (f"{where}: element {j}: ours {u!r}, oracle {v!r}")
    if len(a) != len(b) and first is None:
        first = f"ours has {len(a)} records, the oracle {len(b)}"
    if first is None:
        return None
    return first + f"\n    max abs diff over all records: {max_diff!r}"


def sum_records(text: str, dim: int) -> list:
    """The sum of the embeddings of JSON lines, from zero, in order, in
    double; an element is None (JSON null: not finite) when any addend's
    is, or when the sum is not finite, as our writer prints it."""
    total = [0.0] * dim
    for line in text.splitlines():
        for j, x in enumerate(json.loads(line)["embedding"]):
            if total[j] is not None:
                total[j] = None if x is None else total[j] + x
    return [None if x is None or not math.isfinite(x) else x for x in total]


def compare_module_sum(ours: Result, theirs: Result) -> Optional[str]:
    """Our one --level=module JSON line against the sum of the oracle's
    --level=func lines, bit for bit."""
    d = status_diff(ours, theirs)
    if d:
        return d
    lines = ours.out.splitlines()
    if len(lines) != 1:
        return f"ours printed {len(lines)} lines, not one module record"
    r = json.loads(lines[0])
    if (r["level"], r["function"], r["demangled"]) != ("module", "", ""):
        return f"not a module record: {lines[0][:200]!r}"
    expected = sum_records(theirs.out, len(r["embedding"]))
    for j, (u, v) in enumerate(zip(r["embedding"], expected)):
        if float_bits(u) != float_bits(v):
            return (f"element {j}: ours {u!r}, the sum of the oracle's "
                    f"function vectors {v!r}")
    return None


VECTOR_RE = re.compile(r"^ \[((?: +[-+0-9.a-z]+)*) *\]$")


def printed_vectors(text: str) -> list:
    """The vectors of llvm-ir2vec's text (lines " [ 1.00  2.00 ]")."""
    return [[float(x) for x in m.group(1).split()]
            for m in map(VECTOR_RE.match, text.splitlines()) if m]


def compare_module_text(ours: Result, theirs: Result) -> Optional[str]:
    """Our --level=module text ("Module: <input>", then its vector) against
    the sum of upstream's printed --level=func vectors: each element within
    half a unit of the second decimal per printed vector, ours and upstream's,
    and the rounding of the sum."""
    d = status_diff(ours, theirs)
    if d:
        return d
    mine, funcs = printed_vectors(ours.out), printed_vectors(theirs.out)
    if len(mine) != 1 or not ours.out.startswith("Module: "):
        return f"ours is not one module record: {ours.out[:200]!r}"
    [m] = mine
    total = [sum(col) for col in zip(*funcs)] if funcs else [0.0] * len(m)
    slack = 0.005 * (len(funcs) + 1) + 1e-9
    for j, (u, v) in enumerate(zip(m, total)):
        if not (math.isfinite(u) and math.isfinite(v)):
            if u != v and not (math.isnan(u) and math.isnan(v)):
                return f"element {j}: ours {u!r}, upstream's sum {v!r}"
        elif abs(u - v) > slack + abs(v) * 1e-12:
            return (f"element {j}: ours {u!r}, the sum of upstream's {len(funcs)}"
                    f" printed function vectors {v!r} (slack {slack:g})")
    return None


# --------------------------------------------------------------------------
# Jobs: each runs some commands and returns one Outcome per comparison.


@dataclass
class Outcome:
    name: str
    diff: Optional[str]  # None when the two sides agree
    ours: Result
    theirs: Result
    stdin: Optional[str] = None


@dataclass
class Check:
    """Our command against upstream's, compared by `compare`."""
    name: str
    ours: List[str]
    theirs: List[str]
    compare: Callable[[Result, Result], Optional[str]]
    stdin: Optional[str] = None
    # Checks that write with -o read back (our file, upstream's file).
    outputs: Optional[tuple] = None

    def __call__(self) -> List[Outcome]:
        ours = run(self.ours, self.stdin)
        theirs = run(self.theirs, self.stdin)
        if self.outputs:
            for r, path in zip((ours, theirs), self.outputs):
                try:
                    r.out = Path(path).read_text("utf-8", "surrogateescape")
                except OSError as e:
                    r.out = f"<no output file: {e}>"
        return [Outcome(self.name, self.compare(ours, theirs), ours, theirs,
                        self.stdin)]


def records_by_module(text: str) -> dict:
    """Groups JSON lines by their leading "module" field, keeping order."""
    groups = {}
    decoder = json.JSONDecoder()
    prefix = '{"module":'
    for line in text.splitlines(keepends=True):
        module = None
        if line.startswith(prefix):
            try:
                module = decoder.raw_decode(line, len(prefix))[0]
            except json.JSONDecodeError:
                pass
        groups[module] = groups.get(module, "") + line
    return groups


@dataclass
class JsonlBatch:
    """Our --format=jsonl against the oracle's, all inputs in one run each,
    by `compare` (record for record, or compare_module_sum).

    Yields one outcome per input. If either run fails as a whole, every input
    is run again on its own so that the failure is pinned on its input."""
    label: str
    inputs: List["Input"]
    ours: List[str]
    oracle: List[str]
    compare: Callable[[Result, Result], Optional[str]] = compare_jsonl

    def __call__(self) -> List[Outcome]:
        files = [str(i.path) for i in self.inputs]
        o, t = run(self.ours + files), run(self.oracle + files)
        if o.code != 0 or t.code != 0:
            outcomes = []
            for f, inp in zip(files, self.inputs):
                oi, ti = run(self.ours + [f]), run(self.oracle + [f])
                outcomes.append(Outcome(f"{inp.name}: {self.label}",
                                        self.compare(oi, ti), oi, ti))
            return outcomes
        ours, theirs = records_by_module(o.out), records_by_module(t.out)
        outcomes = []
        for f, inp in zip(files, self.inputs):
            oi = Result(self.ours + [f], 0, ours.get(f, ""), o.err)
            ti = Result(self.oracle + [f], 0, theirs.get(f, ""), t.err)
            # Identical records agree (not so for a module's sum).
            same = oi.out == ti.out and self.compare is compare_jsonl
            diff = None if same else self.compare(oi, ti)
            outcomes.append(Outcome(f"{inp.name}: {self.label}", diff, oi, ti))
        return outcomes


# --------------------------------------------------------------------------
# Vocabularies


@dataclass
class Vocab:
    name: str
    path: Path
    weights: dict = field(default_factory=dict)  # opc/type/arg -> text

    def ours_flags(self):
        return [f"--ir2vec-vocab-path={self.path}"] + [
            f"--ir2vec-{k}-weight={v}" for k, v in self.weights.items()]

    def upstream_flags(self):
        return self.ours_flags()

    def oracle_flags(self):
        return [f"--vocab={self.path}"] + [
            f"--{k}-weight={v}" for k, v in self.weights.items()]

    def plugin_flags(self):
        return [f"-irtk-vocab-path={self.path}"] + [
            f"-irtk-{k}-weight={v}" for k, v in self.weights.items()]

    def opt_flags(self):
        return [f"-ir2vec-vocab-path={self.path}"] + [
            f"-ir2vec-{k}-weight={v}" for k, v in self.weights.items()]


def split_entities(entities_out: str):
    """Sorts the names of `llvm-ir2vec entities` into the JSON sections."""
    lines = entities_out.strip().split("\n")
    names = [l.split("\t")[0] for l in lines[1:]]
    sections = {"Opcodes": [], "Types": [], "Arguments": []}
    for n in names:
        if n.endswith("Ty"):
            sections["Types"].append(n)
        elif n in ("Function", "Pointer", "Constant", "Variable") or \
                n.startswith(("FCMP_", "ICMP_")):
            sections["Arguments"].append(n)
        else:
            sections["Opcodes"].append(n)
    return sections


def random_value(rng: random.Random) -> float:
    r = rng.random()
    if r < 0.6:
        return rng.uniform(-2.0, 2.0)
    if r < 0.8:  # Exact binary ties for "%.2f": 0.125, -3.375, ...
        return rng.randint(-64, 64) / 8.0
    return rng.uniform(-150.0, 150.0)


def write_json_vocab(path: Path, sections: dict, order=None):
    """Writes sections (name -> {key: [number text, ...]}) in a given order."""
    parts = []
    for sec in order or sections:
        body = ", ".join(f"{json.dumps(k)}: [{', '.join(v)}]"
                         for k, v in sections[sec].items())
        parts.append(f'  {json.dumps(sec)}: {{{body}}}')
    path.write_text("{\n" + ",\n".join(parts) + "\n}\n")


def random_sections(rng, names, dim, keep=1.0):
    out = {}
    for sec, keys in names.items():
        out[sec] = {k: [repr(random_value(rng)) for _ in range(dim)]
                    for k in keys if rng.random() < keep}
    return out


UNUSUAL_NUMBERS = [
    "0", "-0.0", "1e-7", "1E+3", "2.5e-308", "5e-324", "123456789012345678",
    "-9007199254740993", "0.1000000000000000055511151231257827", "0.005",
    "0.015", "1.005", "2.675", "-2.675", "1e15", "-1e15", "1e300", "7",
    "-0.125", "0.375", "1.7976931348623157e308", "4.35", "0.145",
]


def make_vocabs(work: Path, names: dict, with_seed: bool):
    """The vocabulary configurations, generated with a fixed seed."""
    rng = random.Random(SEED)
    d = work / "vocab"
    d.mkdir(parents=True, exist_ok=True)
    vocabs = []

    def full(name, dim, weights=None):
        p = d / f"{name}.json"
        write_json_vocab(p, random_sections(rng, names, dim))
        vocabs.append(Vocab(name, p, weights or {}))

    full("A-dim3", 3)
    full("B-dim75-weighted", 75, {"opc": "0.7", "type": "1.3", "arg": "0.05"})
    full("C-dim1", 1, {"opc": "0x1.8p+0", "type": ".5"})  # cl::opt spellings

    # Partial: about a third of the entities missing, some always.
    p = d / "D-partial-dim5.json"
    secs = random_sections(rng, names, 5, keep=0.65)
    for sec, k in (("Opcodes", "PtrToAddr"), ("Types", "IntegerTy"),
                   ("Arguments", "Variable"), ("Arguments", "ICMP_eq")):
        secs[sec].pop(k, None)
    secs["Opcodes"].setdefault("Ret", ["1", "2", "3", "4", "5"])
    write_json_vocab(p, secs)
    vocabs.append(Vocab("D-partial-dim5", p,
                        {"opc": "2", "type": "0", "arg": "-0.5"}))

    # Sections in another order, keys shuffled, unknown keys and sections.
    p = d / "E-reordered-dim4.json"
    secs = random_sections(rng, names, 4)
    for sec in secs:
        items = list(secs[sec].items())
        rng.shuffle(items)
        secs[sec] = dict(items)
    secs["Arguments"]["Label"] = ["1", "1", "1", "1"]
    secs["Opcodes"]["NotAnOpcode"] = ["9", "9", "9", "9"]
    secs["Metadata"] = {"comment": ["0"]}
    write_json_vocab(p, secs, ["Arguments", "Metadata", "Types", "Opcodes"])
    vocabs.append(Vocab("E-reordered-dim4", p, {"type": "0.25"}))

    # Unusual number spellings and magnitudes in the first element.
    p = d / "F-numbers-dim2.json"
    secs = random_sections(rng, names, 2)
    for sec in secs:
        for k, v in secs[sec].items():
            v[0] = rng.choice(UNUSUAL_NUMBERS)
    write_json_vocab(p, secs)
    vocabs.append(Vocab("F-numbers-dim2", p, {"arg": "1e-3"}))

    if with_seed:
        vocabs.append(Vocab("S-seed75", SEED_VOCAB))
    return vocabs


def make_duplicate_vocab(work: Path, names: dict) -> Vocab:
    """Every key twice, with different values: upstream keeps the last one,
    we refuse the file."""
    rng = random.Random(SEED + 1)
    path = work / "vocab" / "G-duplicates-dim2.json"
    parts = []
    for sec, keys in names.items():
        body = ", ".join(f"{json.dumps(k)}: [{random_value(rng)!r}, "
                         f"{random_value(rng)!r}]" for k in keys + keys)
        parts.append(f"{json.dumps(sec)}: {{{body}}}")
    path.write_text("{" + ", ".join(parts) + "}\n")
    return Vocab("G-duplicates-dim2", path)


def make_sum_order_vocab(work: Path) -> Vocab:
    """For Inputs/operand_sum_order.ll: with weights 1, `add i32 %a, %b` is
    0.125 + 0 + (2^-56 + 2^-56) = 0.12500000000000003 ("0.13") when the
    operands are summed first, as upstream does, but 0.125 ("0.12") when
    each operand is added to the running total (ties round to even)."""
    path = work / "vocab" / "H-sum-order-dim1.json"
    path.write_text('{"Opcodes": {"Add": [0.125]}, '
                    '"Types": {"IntegerTy": [0]}, '
                    '"Arguments": {"Variable": [1.3877787807814457e-17]}}\n')
    return Vocab("H-sum-order-dim1", path,
                 {"opc": "1", "type": "1", "arg": "1"})


# Small vocabularies for the JSON reader, as (name, text with "@" for the
# rest of the file). Upstream's reader accepts some odd spellings; so must we.
_REST = '"Types": {"IntegerTy": [1, 2]}, "Arguments": {"Variable": [1, 2]}'
ODD_VOCABS = [
    ("leading-zero", '{"Opcodes": {"Ret": [01, 2]}, @}'),
    ("plus-sign", '{"Opcodes": {"Ret": [+1, 2]}, @}'),
    ("bare-fraction", '{"Opcodes": {"Ret": [.5, 2.]}, @}'),
    ("exponents", '{"Opcodes": {"Ret": [1E2, 2e+0], "Br": [1e-400, -0]}, @}'),
    ("huge-integers", '{"Opcodes": {"Ret": [123456789012345678901234567890, '
                      '18446744073709551615], "Br": [-9223372036854775809, '
                      '9007199254740993]}, @}'),
    ("escaped-key",
     '{"Opcodes": {"R\\u0065t": [7, 2], "\\ud800": [1, 1]}, @}'),
    ("empty-key", '{"Opcodes": {"": [1, 2], "Ret": [3, 4]}, @}'),
    ("nested-extra", '{"Opcodes": {"Ret": [1, 2]}, @, "X": {"a": '
                     '[1, [2, {"c": null}]]}}'),
    ("whitespace", '{"Opcodes":\r\n\t{"Ret" : [ 1 ,2 ] } , @ }'),
]
# Upstream takes these (llvm::json keeps the last of two equal keys); we
# refuse them with "duplicate key".
TWICE_VOCABS = [
    ("section-twice", '{"Opcodes": {"Ret": [1, 2]}, "Opcodes": '
                      '{"Ret": [5, 6]}, @}'),
    ("key-twice", '{"Opcodes": {"Ret": [1, 2], "Br": [0, 0], '
                  '"Ret": [5, 6]}, @}'),
    ("escaped-key-twice", '{"Opcodes": {"Ret": [1, 2], "R\\u0065t": '
                          '[5, 6]}, @}'),
]
BAD_VOCABS = [
    ("missing-opcodes", '{"Types": {"IntegerTy": [1]}, '
                        '"Arguments": {"Variable": [1]}}'),
    ("section-dims", '{"Opcodes": {"Ret": [1, 2]}, "Types": {"IntegerTy": '
                     '[1]}, "Arguments": {"Variable": [1, 2]}}'),
    ("entry-dims", '{"Opcodes": {"Ret": [1, 2], "Br": [1]}, @}'),
    ("zero-dim", '{"Opcodes": {"Ret": []}, "Types": {"IntegerTy": []}, '
                 '"Arguments": {"Variable": []}}'),
    ("string", '{"Opcodes": {"Ret": [1, "x"]}, @}'),
    ("bool", '{"Opcodes": {"Ret": [true, 2]}, @}'),
    ("null", '{"Opcodes": {"Ret": [null, 2]}, @}'),
    ("nested-array", '{"Opcodes": {"Ret": [[1], 2]}, @}'),
    ("not-an-array", '{"Opcodes": {"Ret": 1}, @}'),
    ("section-array", '{"Opcodes": [], @}'),
    ("root-array", '[]'),
    ("truncated", '{"Opcodes": '),
    ("trailing-comma", '{"Opcodes": {"Ret": [1, 2],}, @}'),
    ("comment", '{"Opcodes": {"Ret": [1, 2]} /* c */, @}'),
    ("nan-literal", '{"Opcodes": {"Ret": [NaN, 2]}, @}'),
    ("text-after", '{"Opcodes": {"Ret": [1, 2]}, @} x'),
    ("byte-order-mark", '\ufeff{"Opcodes": {"Ret": [1, 2]}, @}'),
    ("bad-utf8", None),
]


def make_syntax_vocabs(work: Path):
    """Writes ODD_VOCABS, BAD_VOCABS and TWICE_VOCABS; returns three
    name -> path maps."""
    d = work / "vocab"
    odd, bad, twice = {}, {}, {}
    for table, out, prefix in ((ODD_VOCABS, odd, "odd"),
                               (BAD_VOCABS, bad, "bad"),
                               (TWICE_VOCABS, twice, "twice")):
        for name, text in table:
            p = d / f"{prefix}-{name}.json"
            if text is None:  # bad-utf8
                p.write_bytes(b'{"Opcodes": {"R\xffet": [7, 2]}, '
                              + _REST.encode() + b'}')
            else:
                p.write_text(text.replace("@", _REST) + "\n", "utf-8")
            out[name] = p
    bad["nonexistent"] = d / "does-not-exist.json"
    return odd, bad, twice


# --------------------------------------------------------------------------
# Inputs


@dataclass
class Input:
    name: str
    path: Path
    defined: List[str] = field(default_factory=list)
    declared: List[str] = field(default_factory=list)


NAME_RE = re.compile(
    r'^(define|declare)\b[^@\n]*@(?:"((?:[^"\\]|\\[0-9A-Fa-f]{2}|\\\\)*)"'
    r'|([-a-zA-Z$._0-9]+))\(', re.M)


def unescape_llvm_name(s: str) -> str:
    out = bytearray()
    i = 0
    raw = s.encode("utf-8")
    while i < len(raw):
        if raw[i:i + 1] == b"\\" and raw[i + 1:i + 2] == b"\\":
            out += b"\\"
            i += 2
        elif raw[i:i + 1] == b"\\":
            out.append(int(raw[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return out.decode("utf-8", "surrogateescape")


def scan_functions(ll_text: str, inp: Input):
    for m in NAME_RE.finditer(ll_text):
        name = unescape_llvm_name(m.group(2)) if m.group(2) is not None \
            else m.group(3)
        if name.isdigit():  # @0: an unnamed function
            continue
        (inp.defined if m.group(1) == "define" else inp.declared).append(name)


def compile_inputs(llvm_bin: Path, work: Path):
    """The commands that compile Inputs/*.c and *.cpp with upstream clang."""
    d = work / "ir"
    d.mkdir(parents=True, exist_ok=True)
    builds = []  # (name, output, command, .ll to read function names from)

    def build(out: Path, src: Path, *flags, names_from=None):
        clang = llvm_bin / ("clang++" if src.suffix == ".cpp" else "clang")
        builds.append((out.name, out, [str(clang), "-emit-llvm", *flags,
                                       str(src), "-o", str(out)],
                       names_from or out))

    for src in sorted(INPUTS.glob("*.c")) + sorted(INPUTS.glob("*.cpp")):
        for opt in ("-O0", "-O2"):
            build(d / f"{src.stem}{opt}.ll", src, "-S", opt)
    # Debug info at one level, bitcode for one case.
    build(d / "interp-O2-g.ll", INPUTS / "interp.c", "-S", "-O2", "-g")
    build(d / "strings-O2.bc", INPUTS / "strings.c", "-c", "-O2",
          names_from=d / "strings-O2.ll")
    return builds


# --------------------------------------------------------------------------
# Building the list of jobs


def build_jobs(a, inputs: List[Input], vocabs: List[Vocab],
               targeted: List[tuple], odd: dict, bad: dict, twice: dict,
               work: Path) -> list:
    ours, oracle, plugin = str(a.ours), str(a.oracle), str(a.plugin)
    up = str(a.llvm_bin / "llvm-ir2vec")
    opt = str(a.llvm_bin / "opt")
    jobs = []

    def add(name, o, t, cmp, **kw):
        jobs.append(Check(name, o, t, cmp, **kw))

    # Bit-for-bit: every vocabulary, kind and level, all inputs at once.
    # These are the longest jobs, so they go first.
    for v in vocabs:
        for kind in KINDS:
            for level in LEVELS:
                jobs.append(JsonlBatch(
                    f"{v.name} {kind} {level} jsonl", inputs,
                    [ours, "embeddings", f"--ir2vec-kind={kind}",
                     f"--level={level}", "--format=jsonl", *v.ours_flags()],
                    [oracle, f"--kind={kind}", f"--level={level}",
                     *v.oracle_flags()]))

    # The module level: the sum of upstream's function vectors, bit for bit.
    for v in vocabs:
        for kind in KINDS:
            jobs.append(JsonlBatch(
                f"{v.name} {kind} module = sum of func", inputs,
                [ours, "embeddings", f"--ir2vec-kind={kind}", "--level=module",
                 "--format=jsonl", *v.ours_flags()],
                [oracle, f"--kind={kind}", "--level=func", *v.oracle_flags()],
                compare_module_sum))

    add("entities", [ours, "entities"], [up, "entities"], compare_stdout)

    # Text and opt: vocabulary A everywhere, one of the others in turn.
    primary, rotating = vocabs[:1], vocabs[1:]
    for i, inp in enumerate(inputs):
        f = str(inp.path)
        tag = inp.name
        add(f"{tag}: triplets", [ours, "triplets", f], [up, "triplets", f],
            compare_stdout)
        chosen = primary + (rotating if a.full else
                            rotating[i % len(rotating):][:1])
        for v in chosen:
            for kind in KINDS:
                for level in LEVELS:
                    emb = ["embeddings", f"--ir2vec-kind={kind}",
                           f"--level={level}"]
                    add(f"{tag}: {v.name} {kind} {level} text",
                        [ours, *emb, *v.ours_flags(), f],
                        [up, *emb, *v.upstream_flags(), f], compare_stdout)
                if v is vocabs[0]:
                    add(f"{tag}: {v.name} {kind} module text = sum of func",
                        [ours, "embeddings", f"--ir2vec-kind={kind}",
                         "--level=module", *v.ours_flags(), f],
                        [up, "embeddings", f"--ir2vec-kind={kind}",
                         "--level=func", *v.upstream_flags(), f],
                        compare_module_text)
                add(f"{tag}: {v.name} {kind} print<ir2vec>",
                    [opt, "-disable-output", f"-load-pass-plugin={plugin}",
                     "-passes=print<irtk-ir2vec>", f"-irtk-kind={kind}",
                     *v.plugin_flags(), f],
                    [opt, "-disable-output", "-passes=print<ir2vec>",
                     f"-ir2vec-kind={kind}", *v.opt_flags(), f],
                    compare_stderr)

        # --function: one defined function and one declaration per file.
        # (Upstream 22's triplets rejects --function; ours accepts it.)
        v = vocabs[0]
        if inp.defined:
            fn = inp.defined[len(inp.defined) // 2]
            for kind in KINDS:
                emb = ["embeddings", f"--ir2vec-kind={kind}", "--level=inst",
                       f"--function={fn}", *v.ours_flags(), f]
                add(f"{tag}: --function={fn} {kind} inst", [ours, *emb],
                    [up, *emb], compare_stdout)
        # Debug intrinsic declarations vanish when the reader turns the
        # calls into debug records.
        decls = [n for n in inp.declared if not n.startswith("llvm.")] or \
            [n for n in inp.declared if not n.startswith("llvm.dbg.")]
        if decls:
            emb = ["embeddings", "--level=bb", f"--function={decls[0]}",
                   *v.ours_flags(), f]
            add(f"{tag}: --function={decls[0]} (declaration)", [ours, *emb],
                [up, *emb], compare_stdout)

    # Once per vocabulary: the vocabulary printer passes.
    empty = str(INPUTS / "empty.ll")
    for v in vocabs:
        add(f"{v.name}: print<ir2vec-vocab>",
            [opt, "-disable-output", f"-load-pass-plugin={plugin}",
             "-passes=print<irtk-ir2vec-vocab>", *v.plugin_flags(), empty],
            [opt, "-disable-output", "-passes=print<ir2vec-vocab>",
             *v.opt_flags(), empty], compare_stderr)

    # Vocabularies made for one input each.
    for v, path in targeted:
        for kind in KINDS:
            emb = ["embeddings", f"--ir2vec-kind={kind}", "--level=inst"]
            add(f"{v.name}: {kind} inst text",
                [ours, *emb, *v.ours_flags(), path],
                [up, *emb, *v.upstream_flags(), path], compare_stdout)
            add(f"{v.name}: {kind} inst jsonl",
                [ours, *emb, "--format=jsonl", *v.ours_flags(), path],
                [oracle, f"--kind={kind}", "--level=inst", *v.oracle_flags(),
                 path], compare_jsonl)

    sample = str(INPUTS / "phi_loops.ll")

    # Odd but valid JSON: both must accept it and agree.
    rets = str(INPUTS / "switch.ll")
    for name, path in odd.items():
        add(f"odd vocabulary {name}",
            [ours, "embeddings", "--level=bb", f"--ir2vec-vocab-path={path}",
             rets],
            [up, "embeddings", "--level=bb", f"--ir2vec-vocab-path={path}",
             rets], compare_stdout)

    # Malformed vocabularies: both must fail (the messages differ on
    # purpose: ours name the file, section and entry). A key twice: upstream
    # keeps the last one; we refuse the file. In the CLI and under opt.
    for what, cases, compare in (
            ("bad vocabulary", bad, compare_both_fail),
            ("vocabulary with a key twice", twice, compare_ours_refuses)):
        for name, path in cases.items():
            add(f"{what} {name}: embeddings",
                [ours, "embeddings", f"--ir2vec-vocab-path={path}", sample],
                [up, "embeddings", f"--ir2vec-vocab-path={path}", sample],
                compare)
            add(f"{what} {name}: print<ir2vec>",
                [opt, "-disable-output", f"-load-pass-plugin={plugin}",
                 "-passes=print<irtk-ir2vec>", f"-irtk-vocab-path={path}",
                 sample],
                [opt, "-disable-output", "-passes=print<ir2vec>",
                 f"-ir2vec-vocab-path={path}", sample], compare)

    # A few command-line paths: stdin, -o, unknown function, no vocabulary.
    v = vocabs[1]
    emb = ["embeddings", "--level=bb", "--ir2vec-kind=flow-aware",
           *v.ours_flags()]
    add("stdin input", [ours, *emb, "-"], [up, *emb, "-"], compare_stdout,
        stdin=sample)
    add("stdin input (triplets)", [ours, "triplets"], [up, "triplets"],
        compare_stdout, stdin=sample)
    o1, o2 = work / "out" / "ours-o.txt", work / "out" / "upstream-o.txt"
    add("-o output file", [ours, *emb, "-o", str(o1), sample],
        [up, *emb, "-o", str(o2), sample], compare_stdout, outputs=(o1, o2))
    add("--function=<missing>",
        [ours, *emb, "--function=no_such_function", sample],
        [up, *emb, "--function=no_such_function", sample], compare_both_fail)
    # Without a vocabulary option ours uses the default vocabulary bundled
    # beside it (upstream fails): the same as naming that file to upstream.
    default = (Path(ours).parent.parent / "share" / "irtk" / "vocab" /
               "ir2vec-75d.json")
    add("no vocabulary: the bundled default", [ours, "embeddings", sample],
        [up, "embeddings", f"--ir2vec-vocab-path={default}", sample],
        compare_stdout)
    return jobs


# --------------------------------------------------------------------------


def save_failure(work: Path, index: int, o: Outcome):
    d = work / "failures"
    d.mkdir(parents=True, exist_ok=True)
    stem = f"{index:05d}-" + re.sub(r"[^A-Za-z0-9_.-]+", "_", o.name)[:80]
    for who, r in (("ours", o.ours), ("upstream", o.theirs)):
        (d / f"{stem}.{who}").write_text(
            f"$ {shlex.join(r.cmd)}\n# {describe_code(r.code)}\n"
            f"# --- stdout\n{r.out}# --- stderr\n{r.err}", "utf-8",
            "surrogateescape")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ours", type=Path, required=True,
                    help="our llvm-ir2vec")
    ap.add_argument("--plugin", type=Path, required=True,
                    help="IRTKPlugin.so")
    ap.add_argument("--llvm-bin", type=Path, required=True,
                    help="upstream LLVM 22 bin directory")
    ap.add_argument("--oracle", type=Path, required=True,
                    help="irtk-upstream-oracle")
    ap.add_argument("--work", type=Path, required=True,
                    help="directory for generated files")
    ap.add_argument("--plugin-host-env", default="",
                    help="NAME=VALUE;... to set where opt loads the plugin "
                    "(a sanitized build preloads ASan's runtime)")
    ap.add_argument("--full", action="store_true",
                    help="check every vocabulary on every input (slower)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="list every check")
    a = ap.parse_args()
    start = time.monotonic()
    for item in filter(None, a.plugin_host_env.split(";")):
        name, sep, value = item.partition("=")
        if not sep:
            ap.error(f"--plugin-host-env: expected NAME=VALUE, got '{item}'")
        PLUGIN_HOST_ENV[name] = value

    missing = [p for p in (a.ours, a.plugin, a.oracle,
                           a.llvm_bin / "llvm-ir2vec", a.llvm_bin / "opt",
                           a.llvm_bin / "clang", a.llvm_bin / "clang++")
               if not p.is_file()]
    if missing:
        for p in missing:
            print(f"error: required tool not found: {p}")
        print("differential: 0 passed, 1 failed")
        return 1

    work = a.work.resolve()
    for sub in ("vocab", "ir", "out", "failures"):
        shutil.rmtree(work / sub, ignore_errors=True)
    (work / "out").mkdir(parents=True, exist_ok=True)

    passed = failed = 0
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs))

    def fail(msg):
        nonlocal failed
        failed += 1
        print(f"FAIL: {msg}")

    # Inputs: hand-written IR, then C/C++ compiled by upstream clang.
    inputs = []
    for p in sorted(INPUTS.glob("*.ll")):
        inp = Input(p.name, p)
        scan_functions(p.read_text("utf-8", "surrogateescape"), inp)
        inputs.append(inp)
    builds = compile_inputs(a.llvm_bin, work)
    ll_builds = [b for b in builds if b[1].suffix == ".ll"]
    bc_builds = [b for b in builds if b[1].suffix != ".ll"]
    for batch in (ll_builds, bc_builds):  # .bc names come from the .ll files
        for (name, out, cmd, names_from), r in zip(
                batch, pool.map(lambda b: run(b[2]), batch)):
            if r.code != 0 or not out.is_file():
                fail(f"compiling {name}: {shlex.join(cmd)}\n    "
                     f"{r.err.strip()[:500]}")
                continue
            passed += 1
            inp = Input(name, out)
            if names_from.is_file():
                text = names_from.read_text("utf-8", "surrogateescape")
                scan_functions(text, inp)
            inputs.append(inp)

    # Entity names for the vocabularies come from upstream itself.
    ent = run([str(a.llvm_bin / "llvm-ir2vec"), "entities"])
    names = split_entities(ent.out)
    counts = {k: len(v) for k, v in names.items()}
    if ent.code != 0 or counts != {"Opcodes": 68, "Types": 12,
                                   "Arguments": 30}:
        fail(f"upstream entities: unexpected section sizes {counts} "
             f"({describe_code(ent.code)})")
        print(f"differential: {passed} passed, {failed} failed")
        return 1
    with_seed = SEED_VOCAB.is_file()
    if not with_seed:
        print(f"note: {SEED_VOCAB} not found; the seed vocabulary is skipped")
    vocabs = make_vocabs(work, names, with_seed)
    targeted = [
        (make_sum_order_vocab(work), str(INPUTS / "operand_sum_order.ll"))]
    odd, bad, twice = make_syntax_vocabs(work)
    twice["every-key"] = make_duplicate_vocab(work, names).path

    jobs = build_jobs(a, inputs, vocabs, targeted, odd, bad, twice, work)
    results = [o for outcomes in pool.map(lambda job: job(), jobs)
               for o in outcomes]
    for i, o in enumerate(results):
        if o.diff is None:
            passed += 1
            if a.verbose:
                print(f"PASS: {o.name}")
            continue
        save_failure(work, i, o)
        fail(f"{o.name}\n  ours:     {shlex.join(o.ours.cmd)}\n"
             f"  upstream: {shlex.join(o.theirs.cmd)}"
             + (f"\n  (stdin: {o.stdin})" if o.stdin else "")
             + f"\n  {o.diff}")
    pool.shutdown()

    print(f"note: {len(inputs)} inputs, {len(vocabs)} vocabularies, "
          f"{len(results)} comparisons in "
          f"{time.monotonic() - start:.1f} s with {a.jobs} workers; "
          f"work files in {work}")
    print(f"differential: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
