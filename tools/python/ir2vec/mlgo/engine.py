# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The one compile engine: a job in, a record out.

A ``Job`` is a module, a policy, flags, a level and a target. The engine
compiles it in two stages:

1. **optimize**: the policy's command turns the pre-optimisation bitcode
   into optimised bitcode (``clang -Oz -c -emit-llvm``, with irtk's plugin
   for an advisor's policy, or ``opt -passes=...`` for a pipeline);
2. **codegen**: ``clang -Oz -c opt.bc -Xclang -disable-llvm-passes``, which
   gives the object ``clang -Oz -c`` of the module gives
   (test/python/mlgo/test_engine.py checks it byte for byte).

The **cache**: the object of a code generation is kept under the hash of
the optimised bitcode and the codegen flags (``cache/``), so a job whose
optimised IR is one already measured skips code generation. Most
evolution-strategies candidates, and most pipeline variants, leave most
modules exactly as -Oz does.

**Records** (``records/<id>.json``, written atomically and last) hold the
job, the command its first stage ran, the status (``ok``, ``failed`` or
``timeout``, with the stage and the compiler's first error line), the
``.text`` bytes, the hash of the optimised IR, whether the cache hit, the
seconds of each stage, the object and the policy's products (its log and
trace, when asked). A rerun replays
the records and runs only the jobs without one: it resumes after a kill.

**Parameters**: ``Engine(out, params)`` keeps ``params`` and the compiler's
identity in ``out/engine.json``; a rerun with other parameters is refused
(``EngineError``), so records always mean what their directory says.

**Where jobs run**: ``workers`` local processes, or a Dask client
(``ir2vec.distributed.cluster``) with the output on a file system every
worker shares. Each run of a job works in a directory of its own under
``tmp/`` (named by the job, the host and the process), so two runs of one
job at once (two recipes on one output directory, a job given twice) do
not collide; a job given more than once to one ``run`` runs once.
"""

import contextlib
import copy
import dataclasses
import functools
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

from . import objective
from .policy import Policy
from .toolchain import Toolchain

FORMAT = 1
PARAMS_NAME = "engine.json"
DEFAULT_TIMEOUT = 900


class EngineError(RuntimeError):
    """An output directory the engine cannot use as asked."""


def write_atomically(path, data):
    """Writes data (str or bytes) at path whole or not at all."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise


def keep_params(path, doc):
    """Records ``doc`` (what a directory's records depend on) at ``path``,
    or checks that it is what is recorded there: EngineError naming the
    first difference, so that records always mean what their directory
    says."""
    doc = json.loads(json.dumps(doc))  # tuples as lists, as read back
    if os.path.exists(path):
        try:
            with open(path, encoding="utf-8") as f:
                old = json.load(f)
        except (OSError, ValueError) as e:
            raise EngineError(f"{path}: cannot read it: {e}") from e
        if old != doc:
            what = [k for k in list(doc) + list(old)
                    if old.get(k) != doc.get(k)]
            raise EngineError(
                f"{path}: the records in {os.path.dirname(path)} were made "
                f"with other {' and '.join(dict.fromkeys(what))} "
                f"({json.dumps(old.get(what[0]))}, not "
                f"{json.dumps(doc.get(what[0]))}); use another output "
                "directory")
        return
    write_atomically(path, json.dumps(doc, indent=1, sort_keys=True) + "\n")


def _digest(obj):
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()


@dataclasses.dataclass(frozen=True)
class Job:
    """A module compiled under a policy. ``name`` names it in records and
    reports (a corpus module's name); ``bitcode`` is the input."""

    name: str
    bitcode: str
    policy: Policy = dataclasses.field(default_factory=Policy)
    flags: tuple = ()
    level: str = "Oz"
    target: str = ""

    def key(self):
        return {"name": self.name, "bitcode": os.path.abspath(self.bitcode),
                "policy": self.policy.key(), "flags": list(self.flags),
                "level": self.level, "target": self.target}

    @property
    def id(self):
        return _digest(self.key())[:32]


class Record(dict):
    """A job's outcome (a dict, as stored): ``ok``, ``text``, ``object``."""

    @property
    def ok(self):
        return self.get("status") == "ok"

    @property
    def text(self):
        return self.get("text")


def _first_line(text):
    lines = [ln for ln in (text or "").splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error" in ln]
    return ((errors or lines or ["(no message)"])[0]).strip()[:300]


def _hash_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class _Stage:
    def __init__(self, name, argv, timeout):
        self.name, self.argv, self.timeout = name, argv, timeout

    def run(self):
        start = time.monotonic()
        try:
            done = subprocess.run(self.argv, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True,
                                  errors="replace", timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return "timeout", f"{self.name} took over {self.timeout} s", \
                time.monotonic() - start
        seconds = time.monotonic() - start
        if done.returncode != 0:
            return "failed", _first_line(done.stderr), seconds
        return "ok", None, seconds


def codegen_argv(tools, job, src, dst):
    """The second stage: optimised bitcode to the object clang -<level> -c
    gives, with the policy's codegen flags."""
    return ([tools.clang, "-" + job.level, "-c", src, "-Xclang",
             "-disable-llvm-passes", "-o", dst] +
            (["--target=" + job.target] if job.target else []) +
            job.policy.codegen_flags())


def execute(out, job, tools, timeout, functions=False):
    """Runs one job (or replays its record) and returns its Record. Runs in
    a worker: everything it needs is in its arguments."""
    path = record_path(out, job)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return Record(json.load(f))
    tmp = _working_dir(out, job)
    rec = Record(job=job.key(), id=job.id, seconds={})
    try:
        _run_job(out, job, tools, timeout, functions, tmp, rec)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    write_atomically(path, json.dumps(rec, sort_keys=True) + "\n")
    return rec


def _working_dir(out, job):
    """A new working directory for one run of job: its own, so that two
    processes (or hosts) running the same job at once, such as two recipes
    on one output directory, never share one. What a killed run of the job
    on this host left (its process gone) is removed first."""
    base = os.path.join(out, "tmp")
    os.makedirs(base, exist_ok=True)
    host = socket.gethostname().replace(".", "_")
    for name in os.listdir(base):
        parts = name.split(".")
        if len(parts) == 4 and parts[0] == job.id and parts[1] == host and \
                parts[2].isdigit() and not _alive(int(parts[2])):
            shutil.rmtree(os.path.join(base, name), ignore_errors=True)
    return tempfile.mkdtemp(prefix=f"{job.id}.{host}.{os.getpid()}.",
                            dir=base)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _run_job(out, job, tools, timeout, functions, tmp, rec):
    products = {s: os.path.join(tmp, "product" + s)
                for s in job.policy.products}
    if getattr(job.policy, "stage", "clang") == "llc":
        _run_llc(out, job, tools, timeout, functions, tmp, rec, products)
        return
    opt_bc = os.path.join(tmp, "opt.bc")
    if not _stage(rec, "optimize", lambda: job.policy.optimize(
            tools, job, job.bitcode, opt_bc, products), timeout,
            dict(_named(products), **{"optimised bitcode": opt_bc})):
        return
    ir = _hash_file(opt_bc)
    cg = codegen_argv(tools, job, "{in}", "{out}")
    key = _digest({"ir": ir, "codegen": cg[1:], "clang": tools.clang})[:40]
    cached = os.path.join(out, "cache", key[:2], key + ".json")
    obj = os.path.join(out, "cache", key[:2], key + ".o")
    rec.update(ir=ir, cache_key=key)
    if os.path.exists(cached):
        with open(cached, encoding="utf-8") as f:
            measures = json.load(f)
        rec["cache"] = "hit"
    else:
        rec["cache"] = "miss"
        tmp_obj = os.path.join(tmp, "module.o")
        if not _stage(rec, "codegen", lambda: codegen_argv(
                tools, job, opt_bc, tmp_obj), timeout, {"object": tmp_obj}):
            return
        measures = _measure(rec, tmp_obj, tools, functions)
        if measures is None:
            return
        os.makedirs(os.path.dirname(obj), exist_ok=True)
        os.replace(tmp_obj, obj)
        write_atomically(cached, json.dumps(measures, sort_keys=True))
    if functions and "functions" not in measures:
        measures["functions"] = objective.object_functions(obj, tools)
    _done(out, job, rec, measures, obj, products)


def _run_llc(out, job, tools, timeout, functions, tmp, rec, products):
    """An llc job: one stage from the (optimised) bitcode to the object,
    the advisor deciding there. Nothing is cached: the compile is what
    writes the products."""
    tmp_obj = os.path.join(tmp, "module.o")
    if not _stage(rec, "codegen", lambda: job.policy.llc_argv(
            tools, job, job.bitcode, tmp_obj, products), timeout,
            dict(_named(products), object=tmp_obj)):
        return
    measures = _measure(rec, tmp_obj, tools, functions)
    if measures is None:
        return
    obj = os.path.join(out, "objects", job.id[:2], job.id + ".o")
    os.makedirs(os.path.dirname(obj), exist_ok=True)
    os.replace(tmp_obj, obj)
    _done(out, job, rec, measures, obj, products)


def _named(products):
    """{".log": path} as {"log": path}: the outputs' names in messages."""
    return {s.lstrip("."): p for s, p in products.items()}


def _stage(rec, name, argv, timeout, outputs):
    """Runs one stage (argv() builds its command) and records it; False,
    with the failure recorded, when it fails or leaves one of ``outputs``
    ({what: path}) out."""
    try:
        command = argv()
    except Exception as e:  # a policy that cannot be built: the job fails
        rec.update(status="failed", stage=name, error=str(e))
        return False
    rec.setdefault("command", command)  # what ran (the plugin's path, say)
    status, error, secs = _Stage(name, command, timeout).run()
    rec["seconds"][name] = round(secs, 4)
    missing = [what for what, p in outputs.items() if not os.path.exists(p)]
    if status == "ok" and missing:
        status, error = "failed", f"no {', '.join(missing)} written"
    if status != "ok":
        rec.update(status=status, stage=name, error=error)
        return False
    return True


def _measure(rec, obj, tools, functions):
    try:
        measures = {"text": objective.text_size(obj, tools)}
        if functions:
            measures["functions"] = objective.object_functions(obj, tools)
        return measures
    except (objective.MeasureError, OSError) as e:
        rec.update(status="failed", stage="measure", error=str(e))
        return None


def _done(out, job, rec, measures, obj, products):
    rec.update(measures)
    rec["object"] = os.path.relpath(obj, out)
    kept = {}
    for s, p in products.items():
        dst = os.path.join(out, "products", job.id[:2], job.id + s)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        os.replace(p, dst)
        kept[s.lstrip(".")] = os.path.relpath(dst, out)
    if kept:
        rec["products"] = kept
        if "trace" in kept:
            with open(os.path.join(out, kept["trace"]), "rb") as f:
                rec["decisions"] = sum(1 for _ in f)
    rec["status"] = "ok"


def record_path(out, job):
    return os.path.join(out, "records", job.id[:2], job.id + ".json")


class Engine:
    """Runs jobs under ``out``: ``run(jobs)`` gives their records.

    ``params`` is what the records depend on beyond each job (e.g. a
    search's budget); ``workers`` local processes run the jobs, or
    ``client`` (a Dask client, or any concurrent.futures executor);
    ``timeout`` is per stage, in seconds; ``functions`` adds each
    function's bytes to the records (for linked objectives)."""

    def __init__(self, out, params=None, tools=None, workers=1, client=None,
                 timeout=DEFAULT_TIMEOUT, functions=False):
        if workers < 1:
            raise EngineError("the number of workers must be positive")
        if timeout <= 0:
            raise EngineError("the timeout must be positive")
        self.out = os.path.abspath(out)
        self.tools = tools or Toolchain()
        self.workers, self.client = workers, client
        self.timeout, self.functions = timeout, functions
        self.params = params or {}
        self._check_params()

    def _check_params(self):
        keep_params(os.path.join(self.out, PARAMS_NAME),
                    {"format": FORMAT, "params": self.params,
                     "compiler": self.tools.identity()})

    def path(self, rel):
        """The absolute path of a path a record holds (object, products)."""
        return os.path.join(self.out, rel)

    def recorded(self, job):
        return os.path.exists(record_path(self.out, job))

    def input(self, text, suffix=".txt"):
        """The path of a file a job reads (a decisions or callers file),
        kept under out/inputs/ by its content's hash: a job that names it
        names its content, so its record means the same on a rerun."""
        key = hashlib.sha256(text.encode()).hexdigest()[:40]
        path = os.path.join(self.out, "inputs", key[:2], key + suffix)
        if not os.path.exists(path):
            write_atomically(path, text)
        return path

    def run(self, jobs, on_record=None):
        """[Record] of the jobs, in their order; on_record(job, record) as
        each finishes (replayed ones first). A job given more than once
        runs once (its copies would share a working directory)."""
        jobs = list(jobs)
        results = [None] * len(jobs)
        todo, first, copies = [], {}, {}
        for i, job in enumerate(jobs):
            if self.recorded(job):
                results[i] = execute(self.out, job, self.tools, self.timeout,
                                     self.functions)
                if on_record:
                    on_record(job, results[i])
            elif job.id in first:
                copies[i] = first[job.id]
            else:
                first[job.id] = i
                todo.append(i)
        task = functools.partial(_execute_job, self.out, self.tools,
                                 self.timeout, self.functions)
        self._spread(task, jobs, todo, results, on_record)
        for i, j in copies.items():
            results[i] = results[j]
            if on_record:
                on_record(jobs[i], results[i])
        return results

    def map(self, fn, items, on_result=None):
        """[fn(engine, item)] over items, on the workers or the client:
        for a search or a trainer whose jobs for one item depend on each
        other (fn runs the item's jobs itself, on a copy of this engine that
        runs them in its own process). fn must be a module-level function.
        An item whose fn raises fails alone: None, said on stderr."""
        items = list(items)
        local = copy.copy(self)
        local.client, local.workers = None, 1
        results = [None] * len(items)
        self._spread(functools.partial(_guarded, fn, local), items,
                     range(len(items)), results, on_result)
        return results

    def _spread(self, task, items, todo, results, on_result):
        spread(task, items, todo, results, on_result, self.workers,
               self.client)


def spread(task, items, todo, results, on_result=None, workers=1,
           client=None):
    """results[i] = task(items[i]) for i in todo, here (one worker), on
    ``workers`` local processes or on ``client`` (a Dask client or any
    concurrent.futures executor); on_result(item, result) as each ends.
    ``task`` must pickle (a module-level function or a partial of one)."""
    def done(i, value):
        results[i] = value
        if on_result:
            on_result(items[i], value)

    if client is None and workers == 1:
        for i in todo:
            done(i, task(items[i]))
        return
    with contextlib.ExitStack() as stack:
        if client is None:
            client = stack.enter_context(ProcessPoolExecutor(workers))
        extra = {}
        done_order = as_completed
        if hasattr(client, "get_executor"):  # Dask: retry a lost worker
            from distributed import as_completed as done_order
            extra = {"pure": False, "retries": 1}
        futures = {client.submit(task, items[i], **extra): i for i in todo}
        for fut in done_order(list(futures)):
            done(futures[fut], fut.result())


def _execute_job(out, tools, timeout, functions, job):
    return execute(out, job, tools, timeout, functions)


def _guarded(fn, engine, item):
    try:
        return fn(engine, item)
    except Exception as e:  # one item's failure never loses the others
        print(f"{item}: {type(e).__name__}: {e}", file=sys.stderr,
              flush=True)
        return None


def summary(records):
    """(jobs, ok, failed, cache hits among those compiled) of records."""
    ok = [r for r in records if r is not None and r.ok]
    hits = sum(1 for r in ok if r.get("cache") == "hit")
    return {"jobs": len(records), "ok": len(ok),
            "failed": len(records) - len(ok), "cache_hits": hits}
