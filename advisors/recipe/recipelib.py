#!/usr/bin/env python3
# ===- recipelib.py - What every training-data recipe shares --------------===#
#
# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# ===----------------------------------------------------------------------===#
"""The shared library of the recipes in advisors/recipe/: a recipe adds only
its own decision logic (which compiles to run, how to label their logs).

It offers:

  Corpus
    corpus_modules(corpus, sample, levels, packages, exclude)
        An MLGO corpus's modules, in name order, filtered by level and
        package, every sample-th.
    add_arguments(parser), search_modules(args, ...)
        The options every search takes (--corpus, --out, --sample, --jobs,
        --plugin), and the modules they choose.

  Compiling with a timeout
    compile_recorded(base, command, products, scratch, measure, timeout)
        One compile whose outputs appear under `base` only if it succeeded.
        A non-zero exit, a timeout, a missing output or a failed
        measurement fails that compile alone: it is recorded as failed, its
        temporary files are removed, and the caller's other compiles go on.
    text_size(obj)
        Bytes of an object's .text* sections (llvm-size -A).
    linked_text(objects, scratch)
        Bytes of the .text* sections of objects linked together as one
        relocatable object (`ld -r`): what a link keeps of them.
    then_functions(argv, obj, funcs)
        A compile's command followed by llvm-nm -S of its object.
    nm_functions(lines), object_functions(obj), comdat(functions)
        {function: (bytes, llvm-nm type)} of llvm-nm -S output, of an
        object; the C++ inline functions among them.
    shared_inline(counts, stock_comdat), linked_objective(text, fns, shared)
        The C++ inline functions another object of the package carries at
        stock, and one module's .text less those it carries: what one
        module adds to its package's link, the --linked objective.

  Grouping
    disjoint_groups(items)
        (item, set) pairs packed first fit into groups whose sets do not
        meet.

  Atomic records
    write_file(path, data)
        Written whole under a temporary name and renamed, or not at all.
    write_list(path, paths), write_search(out, steps, columns, rows)
        A list of logs for `irtk-train fit --logs-from`; a search's
        steps.txt and outcomes.tsv.
    read_record(path), collected(data, run), collected_text(data, runs)
        The tab-separated records of collect-inline.sh / collect-evict.sh.
    recorded(base)
        Whether compile_recorded has recorded the compile `base`.

  A resumable parallel map
    map_resumable(fn, items, out, params, jobs, client)
        {item: fn(item)} in parallel. Resumable: fn records its work with
        compile_recorded under `out`, and a rerun replays those records
        instead of compiling again; `params` (what the records depend on)
        are kept in out/search.json (check_parameters) and a rerun with
        others is refused. An item whose records do not make sense fails
        alone (None). The tasks run on `jobs` local processes by default,
        or on `client`: a Dask client (see dask_client) or any
        concurrent.futures.Executor.
    search_all(args, search, params, ...)
        map_resumable of search(args, module) over search_modules(args):
        a search's whole driver.
    dask_client(scheduler, workers)
        A client of the Dask cluster at `scheduler`, or of a local one of
        `workers` processes, started as `python3 -m ir2vec.distributed`
        starts its own (tools/python/ir2vec/distributed.py). On a cluster,
        the paths must be the same on every worker (a shared file system)
        and advisors/recipe/ importable there (PYTHONPATH).
        ir2vec_distributed() finds that module (else: ImportError).

A new search is its decision logic around this (a module-level search,
so that it reaches other processes and Dask workers):

    def search(args, module):  # a module's compiles; None if it fails
        base = os.path.join(args.out, "runs", module, "stock")
        done = recipelib.compile_recorded(
            base, lambda tmp: [args.clang, "-c", ..., "-o", tmp[".o"]],
            scratch=(".o",),
            measure=lambda tmp: recipelib.text_size(tmp[".o"]))
        return done.value if done.ok else None

    p = argparse.ArgumentParser()
    recipelib.add_arguments(p)
    args = p.parse_args()
    results = recipelib.search_all(args, search, params={...})

As a command, for the shell recipes:

  recipelib.py modules --corpus DIR [--sample K] [--levels L,...]
      [--packages P,...] [--exclude-packages P,...]
      Prints corpus_modules(...), a line each.
"""

import argparse
import contextlib
import functools
import importlib.util
import json
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

LLVM_BIN = os.environ.get("LLVM_BIN", "/usr/lib/llvm-22/bin")
RECIPE_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(RECIPE_DIR))
# Seconds a compile may take before it counts as failed.
COMPILE_TIMEOUT = 1800
PARAMETERS = "search.json"


def _ir2vec_importable():
    if importlib.util.find_spec("ir2vec") is None:
        sys.path.insert(0, os.path.join(ROOT, "build", "python"))


# What the package holds, the recipes take from it (ir2vec.mlgo: the
# linked objective and the first-fit grouping), until they move there.
_ir2vec_importable()
from ir2vec.mlgo import edgesearch as _edgesearch  # noqa: E402
from ir2vec.mlgo import objective as _objective  # noqa: E402

disjoint_groups = _edgesearch.disjoint_groups
linked_objective = _objective.linked_objective
shared_inline = _objective.shared_inline


# --- Corpus ----------------------------------------------------------------

def corpus_modules(corpus, sample=1, levels=None, packages=(), exclude=()):
    """Every sample-th module of an MLGO corpus, in name order; with levels,
    packages or exclude, only the modules <level>/<package>/... of those
    levels, of those packages (all when empty) and not of the excluded
    ones."""
    with open(os.path.join(corpus, "corpus_description.json")) as f:
        mods = json.load(f)["modules"]
    keep, drop = set(filter(None, packages)), set(filter(None, exclude))
    if levels is not None or keep or drop:
        levels = set(levels) if levels is not None else None
        mods = [m for m in mods
                if (levels is None or m.split("/")[0] in levels)
                and (not keep or m.split("/")[1] in keep)
                and m.split("/")[1] not in drop]
    return sorted(mods)[::sample]


def add_arguments(parser):
    """The options every search takes: the corpus and its sample, where the
    records go, how many compiles at once, and the plugin."""
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--sample", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--plugin", default=os.path.join(
        ROOT, "build", "lib", "IRTKPlugin.so"))


def search_modules(args, levels=None, packages=(), exclude=()):
    """The modules a search covers: corpus_modules of args.corpus every
    args.sample-th; a --sample or --jobs below 1 is refused."""
    if args.sample < 1 or args.jobs < 1:
        raise SystemExit("--sample and --jobs must be positive")
    return corpus_modules(args.corpus, args.sample, levels, packages, exclude)


# --- Compiling with a timeout ------------------------------------------------

class Compiled:
    """What compile_recorded recorded: ok, and the measured value (an
    integer, or None without a measurement)."""

    def __init__(self, ok, value):
        self.ok, self.value = ok, value


def recorded(base):
    """Whether the compile `base` is recorded (compile_recorded replays
    it)."""
    return os.path.exists(base + ".status")


def _read_status(status, measured):
    with open(status) as f:
        words = f.read().split()
    ok = bool(words) and words[0] == "ok"
    if ok and measured and len(words) < 2:
        raise ValueError(f"{status}: 'ok' without the measured value")
    return Compiled(ok, int(words[1]) if ok and measured else None)


def compile_recorded(base, command, products=(), scratch=(), measure=None,
                     timeout=COMPILE_TIMEOUT):
    """Runs one compile, or replays its record.

    command(tmp) is the compile's argv, where tmp maps each suffix of
    products and scratch (e.g. ".log", ".o") to a temporary path beside
    base (base + suffix + ".tmp"). The compile succeeds when it exits 0
    within `timeout` seconds, leaves every product, and measure(tmp) (when
    given) returns an integer; then each product becomes base + suffix.
    Whatever happens, the temporary files are removed and base.status
    records the outcome, written last and atomically: "ok[ VALUE]" or
    "failed[ 0]" (the value only with a measurement). A rerun replays the
    status and compiles nothing. Only a compiler that cannot be started
    (OSError) raises, unrecorded: a rerun tries again."""
    status = base + ".status"
    if recorded(base):
        return _read_status(status, measure is not None)
    os.makedirs(os.path.dirname(base) or ".", exist_ok=True)
    tmp = {s: base + s + ".tmp" for s in list(products) + list(scratch)}
    value = None
    try:
        try:
            ok = subprocess.run(command(tmp), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL,
                                timeout=timeout).returncode == 0
        except subprocess.TimeoutExpired:
            ok = False
        ok = ok and all(os.path.exists(tmp[s]) for s in products)
        if ok and measure is not None:
            try:
                value = measure(tmp)
            except (OSError, ValueError, subprocess.SubprocessError):
                ok = False
        if ok:
            for s in products:
                os.replace(tmp[s], base + s)
    finally:
        for path in tmp.values():
            if os.path.exists(path):
                os.remove(path)
    word = "ok" if ok else "failed"
    if measure is not None:
        word += f" {value}" if ok else " 0"
    write_file(status, word + "\n")
    return Compiled(ok, value if ok else None)


def text_size(obj):
    """Bytes of an object's .text* sections (llvm-size -A)."""
    out = subprocess.run([os.path.join(LLVM_BIN, "llvm-size"), "-A", obj],
                         capture_output=True, text=True, check=True).stdout
    return sum(int(f[1]) for f in (line.split() for line in out.splitlines())
               if len(f) >= 2 and f[0].startswith(".text"))


# Symbol types of functions in llvm-nm's output: local, global, weak (C++
# inline functions and template instances, in COMDAT groups).
FUNCTION_TYPES = ("t", "T", "W")


def nm_functions(lines):
    """{function: (bytes, type)} of the lines of `llvm-nm -S --defined-only`
    (a name defined twice, local functions of one name: their bytes added)."""
    out = {}
    for line in lines:
        fields = line.split()
        if len(fields) == 4 and fields[2] in FUNCTION_TYPES:
            size, _ = out.get(fields[3], (0, None))
            out[fields[3]] = (size + int(fields[1], 16), fields[2])
    return out


def object_functions(obj):
    """nm_functions of an object file."""
    out = subprocess.run(
        [os.path.join(LLVM_BIN, "llvm-nm"), "-S", "--defined-only", obj],
        capture_output=True, text=True, check=True).stdout
    return nm_functions(out.splitlines())


def comdat(functions):
    """The C++ inline functions (llvm-nm's W, in COMDAT groups) of
    nm_functions' result."""
    return {f for f, (_, kind) in functions.items() if kind == "W"}


def then_functions(argv, obj, funcs):
    """A command that runs `argv` (a compile writing `obj`) and then, if it
    succeeded, writes the object's functions (llvm-nm -S --defined-only)
    to `funcs`: the sizes come from the object before it is dropped."""
    return ["sh", "-c", 'nm=$0 o=$1 f=$2; shift 2; '
            '"$@" && "$nm" -S --defined-only "$o" > "$f"',
            os.path.join(LLVM_BIN, "llvm-nm"), obj, funcs] + list(argv)


def linked_text(objects, scratch):
    """Bytes of the .text* sections of `objects` linked together into one
    relocatable object (GNU `ld -r`, at scratch + ".o", removed after): the
    linker keeps one copy of each COMDAT group (C++'s inline functions and
    template instances that every object using them carries), so this
    counts what a package's link keeps rather than the sum of its objects.
    Nothing is garbage-collected: unreferenced functions stay, and so do
    both of two strong definitions of a symbol (the mains of a package's
    programs). A failed link raises ValueError with ld's first line."""
    out = scratch + ".o"
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    try:
        done = subprocess.run(
            ["ld", "-r", "--allow-multiple-definition", "-o", out] +
            list(objects), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True)
        if done.returncode != 0:
            first = (done.stderr.strip().splitlines() or ["failed"])[0]
            raise ValueError(f"ld -r of {len(objects)} objects: {first}")
        return text_size(out)
    finally:
        if os.path.exists(out):
            os.remove(out)


# --- Atomic records ----------------------------------------------------------

def write_file(path, data):
    """Writes data (bytes or str) to path whole or not at all, creating its
    directory: a failure leaves neither a partial path nor its temporary
    file."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    try:
        with open(tmp, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def write_list(path, paths):
    """A list of logs for `irtk-train fit --logs-from`: their absolute
    paths, a line each."""
    write_file(path, "".join(os.path.abspath(p) + "\n" for p in paths))


def write_search(out, steps, columns, rows):
    """A search's listing: out/steps.txt (write_list of the step logs) and
    out/outcomes.tsv (columns, then rows)."""
    write_file(os.path.join(out, "outcomes.tsv"), "".join(
        "\t".join(map(str, r)) + "\n" for r in [columns] + list(rows)))
    write_list(os.path.join(out, "steps.txt"), steps)


def read_record(path):
    """The fields of a collector's record (<run>/<module>.txt: a
    tab-separated key and value a line), {key: value}; of a key given more
    than once (function), the last."""
    with open(path) as f:
        return dict(line.rstrip("\n").split("\t", 1) for line in f
                    if "\t" in line)


def collected(data, run):
    """{module: record fields} of every record a collector wrote for run
    under data (data/<run>/<module>.txt)."""
    root = os.path.join(data, run)
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            if name.endswith(".txt"):
                path = os.path.join(dirpath, name)
                out[os.path.relpath(path, root)[:-len(".txt")]] = \
                    read_record(path)
    return out


def collected_text(data, runs):
    """{module: {run: .text bytes}} of the modules every run compiled."""
    table = {}
    for run in runs:
        for m, f in collected(data, run).items():
            if f.get("status") == "ok" and "text" in f:
                table.setdefault(m, {})[run] = int(f["text"])
    return {m: r for m, r in table.items() if all(x in r for x in runs)}


# --- A resumable parallel map ----------------------------------------------

def check_parameters(out, params):
    """Records the parameters a recipe's records depend on in
    out/search.json, or checks that a rerun's are the same (its records
    are replayed, so they must mean the same runs)."""
    path = os.path.join(out, PARAMETERS)
    if os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
        if old != params:
            raise SystemExit(f"{path}: the records in {out} were made "
                             f"with {old}, not {params}; use another --out")
        return
    write_file(path, json.dumps(params))


def _guarded(fn, item):
    # An item whose records do not make sense fails alone.
    try:
        return fn(item)
    except (ValueError, OSError, subprocess.SubprocessError) as e:
        print(f"{item}: {e}", file=sys.stderr, flush=True)
        return None


def parallel_map(fn, items, jobs=1, client=None):
    """{item: fn(item)}, None where fn failed on it (said on stderr). On
    client (a Dask client or a concurrent.futures.Executor), else on jobs
    local processes (in this one when jobs is 1). fn and the items must
    pickle for processes and clusters: a module-level function, with
    functools.partial for its other arguments."""
    items = list(items)
    if jobs < 1:
        raise SystemExit("--jobs must be positive")
    task = functools.partial(_guarded, fn)
    if client is None and jobs == 1:
        return {item: task(item) for item in items}
    with contextlib.ExitStack() as stack:
        if client is None:
            client = stack.enter_context(ProcessPoolExecutor(jobs))
        if hasattr(client, "get_executor"):  # Dask: once more if a worker dies
            futures = [client.submit(task, i, pure=False, retries=1)
                       for i in items]
        else:
            futures = [client.submit(task, i) for i in items]
        return dict(zip(items, (f.result() for f in futures)))


def map_resumable(fn, items, out, params=None, jobs=1, client=None):
    """parallel_map after check_parameters(out, params) (unless params is
    None): fn records its work under out (compile_recorded), so a rerun
    replays what is recorded and does only the rest."""
    if params is not None:
        check_parameters(out, params)
    return parallel_map(fn, items, jobs, client)


def search_all(args, search, params=None, levels=None, packages=(),
               exclude=(), client=None):
    """{module: search(args, module)} over search_modules(args, levels,
    packages, exclude), by map_resumable under args.out with params, on
    args.jobs processes or client. search is a module-level function."""
    mods = search_modules(args, levels, packages, exclude)
    return map_resumable(functools.partial(search, args), mods, args.out,
                         params, args.jobs, client)


def ir2vec_distributed():
    """The module ir2vec.distributed: from the Python path, else from this
    checkout's build (ImportError if neither has it)."""
    _ir2vec_importable()
    from ir2vec import distributed
    return distributed


def training_log():
    """The module ir2vec.mlgo.log (training logs, cut as bytes by the
    eviction recipes), found as ir2vec_distributed finds its module."""
    _ir2vec_importable()
    from ir2vec.mlgo import log
    return log


def dask_client(scheduler=None, workers=os.cpu_count() or 1,
                connect_timeout="30s"):
    """A Dask client for parallel_map: of the cluster at scheduler
    (tcp://HOST:PORT), or of a new local cluster of `workers` processes;
    closed (and the local cluster stopped) on exit
    (ir2vec.distributed.cluster)."""
    return ir2vec_distributed().cluster(scheduler, workers, connect_timeout)


# --- Command line -----------------------------------------------------------

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("modules", help="print a corpus's chosen modules")
    m.add_argument("--corpus", required=True)
    m.add_argument("--sample", type=int, default=1)
    m.add_argument("--levels")
    m.add_argument("--packages", default="")
    m.add_argument("--exclude-packages", default="")
    a = p.parse_args(argv)
    print("\n".join(corpus_modules(
        a.corpus, a.sample,
        a.levels.split(",") if a.levels is not None else None,
        a.packages.split(","), a.exclude_packages.split(","))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
