# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Corpus embedding, similarity search and per-module commands on Dask.

One command line for a laptop and a cluster::

    python3 -m ir2vec.distributed embed -o out --workers 2 corpus/
    python3 -m ir2vec.distributed embed -o out --scheduler tcp://host:8786 corpus/
    python3 -m ir2vec.distributed merge out merged
    python3 -m ir2vec.distributed topk --store out --function inflate -k 10
    python3 -m ir2vec.distributed pairs --store out --threshold 0.99
    python3 -m ir2vec.distributed index --store out --kind ivf-flat
    python3 -m ir2vec.distributed topk --store out --function inflate --index ivf-flat
    python3 -m ir2vec.distributed collect -o logs --command 'clang-22 ... {input} ... {out}' corpus/

``embed`` splits the inputs into tasks of consecutive inputs of about
``--task-bytes`` bytes each, runs the largest first, and has each task write
one shard (an ordinary store, written beside its place and renamed into it by
the worker, through ``ir2vec._ir2vec.writeStore``: the C++ library, not a
process per file). When every task is done it writes ``store.json``, the
manifest that makes the directory one sharded store. A rerun of the same
command skips the shards already complete. See docs/Distributed.md.
"""

import argparse
import contextlib
import hashlib
import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time

from . import _ir2vec
from .store import (SHARDED_VERSION, StoreError, checkNotAnInput,
                    checkNotAStream, functionMatch, loadStore,
                    resolveFunction, sizeRows)

PROG = "python3 -m ir2vec.distributed"
PLAN_NAME = "plan.json"
PLAN_FORMAT = "irtk-distributed-plan"
SHARDS_DIR = "shards"
FAILURES_NAME = "failures.jsonl"
DEFAULT_TASK_BYTES = 4 << 20


class RunError(Exception):
    """A failure of the whole run, reported as one line, exit status 1."""


def _say(msg, kind=None):
    prefix = f"{PROG}: {kind}: " if kind else f"{PROG}: "
    print(prefix + msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Inputs and the plan.
# ---------------------------------------------------------------------------

CORPUS_DESCRIPTION = "corpus_description.json"


def _corpus_modules(path):
    """The bitcode paths of an MLGO corpus, as llvm-ir2vec names them."""
    desc = path if os.path.basename(path) == CORPUS_DESCRIPTION and \
        not os.path.isdir(path) else os.path.join(path, CORPUS_DESCRIPTION)
    try:
        with open(desc, encoding="utf-8") as f:
            modules = json.load(f).get("modules")
    except (OSError, ValueError, AttributeError) as e:
        raise RunError(f"{desc}: cannot read corpus description: {e}")
    if not isinstance(modules, list):
        raise RunError(f"{desc}: no \"modules\" list")
    root = os.path.dirname(desc)
    out = []
    for i, m in enumerate(modules):
        if not isinstance(m, str):
            raise RunError(f"{desc}: \"modules\" element {i} is not a string")
        if os.path.isabs(m) or ".." in m.split("/"):
            raise RunError(f"{desc}: module '{m}' is outside the corpus root")
        out.append(os.path.join(root, m + ".bc") if root else m + ".bc")
    return out


def expandInputs(args):
    """Files stay files; an MLGO corpus (a directory holding
    corpus_description.json, or that file) stands for its modules in the
    description's order, as llvm-ir2vec reads it; any other directory for
    the .bc and .ll files under it, in sorted path order."""
    out = []
    for a in args:
        if (os.path.isdir(a) and os.path.isfile(
                os.path.join(a, CORPUS_DESCRIPTION))) or (
                os.path.basename(a) == CORPUS_DESCRIPTION
                and os.path.isfile(a)):
            out.extend(_corpus_modules(a))
        elif os.path.isdir(a):
            found = []
            for root, dirs, files in os.walk(a):
                dirs.sort()
                found.extend(os.path.join(root, f) for f in files
                             if f.endswith((".bc", ".ll")))
            out.extend(sorted(found))
        else:
            out.append(a)
    return out


def _size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0  # The task records the failure to read it.


def _stat(path):
    try:
        return os.stat(path), None
    except OSError as e:
        return None, e.strerror or str(e)


def makeTasks(inputs, sizes, task_bytes):
    """Consecutive inputs grouped into tasks of at most task_bytes (an input
    larger than that is a task of its own). Returns [(first, end, bytes)].
    Consecutive, so that the shards in task order hold the rows in input
    order; the engine runs the largest tasks first."""
    tasks = []
    first, total = 0, 0
    for i, size in enumerate(sizes):
        if i > first and total + size > task_bytes:
            tasks.append((first, i, total))
            first, total = i, 0
        total += size
    if first < len(inputs):
        tasks.append((first, len(inputs), total))
    return tasks


def _digest(obj):
    text = json.dumps(obj, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def _write_json_atomically(path, obj):
    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp-", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8",
                       errors="surrogateescape") as f:
            json.dump(obj, f, indent=1, ensure_ascii=False)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _prepare_output(out, plan, what):
    """Creates out, or checks that it holds a run of the same plan (then the
    run resumes). Anything else there is refused."""
    plan_path = os.path.join(out, PLAN_NAME)
    if os.path.isdir(out) and os.listdir(out):
        try:
            checkNotAStream(plan_path)
        except StoreError as e:
            raise RunError(str(e))
        try:
            with open(plan_path, encoding="utf-8",
                      errors="surrogateescape") as f:
                old = json.load(f)
        except (OSError, ValueError):
            raise RunError(f"{out}: exists and holds no {what} run (no "
                           f"readable {PLAN_NAME}); not touching it")
        if old.get("digest") != plan["digest"]:
            raise RunError(f"{out}: holds a run of other inputs, input "
                           f"sizes or settings; remove it or choose another "
                           f"directory")
        return True
    if os.path.exists(out) and not os.path.isdir(out):
        raise RunError(f"{out}: exists and is not a directory")
    os.makedirs(os.path.join(out, SHARDS_DIR), exist_ok=True)
    _write_json_atomically(plan_path, plan)
    return False


def _remove_leftovers(shards):
    """Temporary directories of tasks that died (a killed worker's); never
    read, removed before and after a run."""
    if not os.path.isdir(shards):
        return
    for name in os.listdir(shards):
        if ".tmp-" in name or ".old-" in name:
            shutil.rmtree(os.path.join(shards, name), ignore_errors=True)


def _discard_run(out, tasks, keep_dir):
    """Removes what a run that makes no store wrote (its plan and shards) and
    out itself once empty, unless keep_dir (an empty directory the user
    named)."""
    shards = os.path.join(out, SHARDS_DIR)
    for t in tasks:
        shutil.rmtree(os.path.join(shards, t["id"]), ignore_errors=True)
    try:
        os.unlink(os.path.join(out, PLAN_NAME))
    except OSError:
        pass
    for d in (shards,) if keep_dir else (shards, out):
        try:
            os.rmdir(d)
        except OSError:
            pass


# ---------------------------------------------------------------------------
# The cluster.
# ---------------------------------------------------------------------------

def _client(args):
    """A client of the cluster at --scheduler, or of a new local cluster of
    --workers processes on 127.0.0.1 (one thread each)."""
    import logging

    from distributed import Client, LocalCluster
    if args.scheduler:
        return Client(args.scheduler, timeout=args.connect_timeout), None
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1,
                           processes=True, host="127.0.0.1",
                           dashboard_address=None,
                           silence_logs=logging.CRITICAL)
    return Client(cluster), cluster


def _close(client, cluster):
    try:
        client.close()
    finally:
        if cluster is not None:
            cluster.close()


@contextlib.contextmanager
def cluster(scheduler=None, workers=None, connect_timeout="30s"):
    """A Dask client for other code's tasks (ir2vec.mlgo's engine): of the
    cluster at ``scheduler`` (tcp://HOST:PORT), or of a new local cluster of
    ``workers`` processes (default: the number of cores), closed (and the
    local cluster stopped) on exit."""
    client, local = _client(argparse.Namespace(
        scheduler=scheduler, workers=workers or os.cpu_count() or 1,
        connect_timeout=connect_timeout))
    try:
        yield client
    finally:
        _close(client, local)


def _run_tasks(client, calls, on_result):
    """Submits calls [(key, priority, fn, args)], highest priority first, and
    hands each result (or exception) to on_result as tasks finish. Returns
    the number of tasks that raised."""
    from distributed import as_completed
    futures = [client.submit(fn, *fargs, key=key, priority=prio, pure=False,
                             retries=1)
               for key, prio, fn, fargs in calls]
    failed = 0
    try:
        for fut in as_completed(futures):
            try:
                on_result(fut.result())
            except Exception as e:  # the task's own error, after retries
                failed += 1
                _say(f"task {fut.key} failed: {type(e).__name__}: {e}",
                     "error")
    except KeyboardInterrupt:
        client.cancel(futures)
        raise
    return failed


# ---------------------------------------------------------------------------
# embed: on the workers.
# ---------------------------------------------------------------------------

_VOCABS = {}


def _vocab(settings):
    """The vocabulary of these settings, loaded once per worker process."""
    key = (settings["vocabulary"], tuple(settings["weights"]))
    if key not in _VOCABS:
        opc, typ, arg = settings["weights"]
        _VOCABS[key] = _ir2vec.loadVocab(settings["vocabulary"],
                                         opcWeight=opc, typeWeight=typ,
                                         argWeight=arg)
    return _VOCABS[key]


def _shard_result(task_id, shard, skipped):
    """What a complete shard says about its inputs (inputs.jsonl)."""
    rows, failures, warnings = 0, [], []
    with open(os.path.join(shard, "inputs.jsonl"), encoding="utf-8",
              errors="surrogateescape") as f:
        for line in f:
            r = json.loads(line)
            rows += r["rows"]
            if "error" in r:
                failures.append((r["input"], r["error"]))
            warnings.extend(r.get("warnings", []))
    return {"id": task_id, "rows": rows, "failures": failures,
            "warnings": warnings, "skipped": skipped}


def embedTask(task_id, inputs, out, settings, tool, delay=0.0):
    """One task: the shard out/shards/<task_id>, unless it is complete
    already. delay (tests): seconds to wait with the shard written but not
    yet renamed into place."""
    shard = os.path.join(out, SHARDS_DIR, task_id)
    if os.path.isfile(os.path.join(shard, "inputs.jsonl")):
        return _shard_result(task_id, shard, skipped=True)
    before = (lambda: time.sleep(delay)) if delay else None
    _ir2vec.writeStore(inputs, shard, settings["kind"], _vocab(settings),
                       level=settings["level"], tool=tool, threads=1,
                       beforeCommit=before)
    return _shard_result(task_id, shard, skipped=False)


# ---------------------------------------------------------------------------
# embed: the driver.
# ---------------------------------------------------------------------------

def _settings(args):
    vocab = args.vocab
    if vocab is None:
        from . import vocab as bundled
        vocab = bundled.seedEmbedding75D
    vocab = os.path.abspath(vocab)
    # Loaded here first: a bad vocabulary is one error, not one per task.
    try:
        _ir2vec.loadVocab(vocab, opcWeight=args.opc_weight,
                          typeWeight=args.type_weight,
                          argWeight=args.arg_weight)
    except ValueError as e:
        raise RunError(str(e))
    return {"level": args.level, "kind": args.kind, "vocabulary": vocab,
            "weights": [args.opc_weight, args.type_weight, args.arg_weight]}


def _sizes(inputs):
    """The sizes of the inputs, 32 stat calls at a time: on a network file
    system each waits for a round trip."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(32) as pool:
        return list(pool.map(_size, inputs, chunksize=256))


def _embed_sizes(inputs):
    """The sizes of embed's inputs, checked before anything is written: an
    input that is not a regular file (a named pipe would block its task for
    ever, a device would never end) is refused; a missing input is a
    failure its task records, unless every input is missing (no run, no
    output)."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(32) as pool:
        stats = list(pool.map(_stat, inputs, chunksize=256))
    for path, (st, _) in zip(inputs, stats):
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise RunError(f"{path}: not a regular file; expected an IR or "
                           f"bitcode file")
    if all(st is None for st, _ in stats):
        err = stats[0][1]
        raise RunError(f"{inputs[0]}: {err}; no store written"
                       if len(inputs) == 1 else
                       f"none of the {len(inputs)} inputs can be read "
                       f"({inputs[0]}: {err}); no store written")
    return [st.st_size if st is not None else 0 for st, _ in stats]


def plan(inputs, settings, task_bytes):
    """The plan of an embedding run: inputs with sizes, settings, tasks."""
    sizes = _embed_sizes(inputs)
    key = {"inputs": inputs, "sizes": sizes, "settings": settings,
           "task_bytes": task_bytes}
    digest = _digest(key)
    tasks = []
    for n, (first, end, size) in enumerate(makeTasks(inputs, sizes,
                                                     task_bytes)):
        tid = f"{n:06d}-" + _digest([inputs[first:end], settings])[:12]
        tasks.append({"id": tid, "first": first, "end": end, "bytes": size})
    return {"format": PLAN_FORMAT, "version": 1, "command": "embed",
            "digest": digest, "settings": settings, "task_bytes": task_bytes,
            "inputs": inputs, "sizes": sizes, "tasks": tasks}


def _write_manifest(out, the_plan, results, tool):
    """store.json of the sharded store, from the shards' own store.json, and
    failures.jsonl. Written last: until then the directory is no store."""
    shards_info = []
    for t in the_plan["tasks"]:
        path = f"{SHARDS_DIR}/{t['id']}"
        with open(os.path.join(out, path, "store.json"),
                  encoding="utf-8") as f:
            shards_info.append((path, json.load(f)))
    info = dict(shards_info[0][1])
    info["version"] = SHARDED_VERSION
    info["count"] = sum(i["count"] for _, i in shards_info)
    info["tool"] = tool
    info["shards"] = [{"path": p, "count": i["count"]}
                      for p, i in shards_info]
    with open(os.path.join(out, FAILURES_NAME + ".tmp"), "w",
              encoding="utf-8", errors="surrogateescape") as f:
        for t in the_plan["tasks"]:
            for inp, err in results[t["id"]]["failures"]:
                f.write(json.dumps({"input": inp, "error": err},
                                   ensure_ascii=False) + "\n")
    os.replace(os.path.join(out, FAILURES_NAME + ".tmp"),
               os.path.join(out, FAILURES_NAME))
    _write_json_atomically(os.path.join(out, "store.json"), info)


def _embed(args):
    inputs = expandInputs(args.inputs)
    if not inputs:
        raise RunError("no inputs")
    settings = _settings(args)
    the_plan = plan(inputs, settings, args.task_bytes)
    tool = f"ir2vec.distributed (IR2Vec Toolkit {_ir2vec.__version__})"
    out = args.output
    keep_dir = os.path.isdir(out) and not os.listdir(out)
    resumed = _prepare_output(out, the_plan, "embed")
    shards = os.path.join(out, SHARDS_DIR)
    _remove_leftovers(shards)
    tasks = the_plan["tasks"]
    done = {t["id"] for t in tasks
            if os.path.isfile(os.path.join(shards, t["id"], "inputs.jsonl"))}
    _say(f"{len(inputs)} inputs, {sum(the_plan['sizes'])} bytes, "
         f"{len(tasks)} tasks" + (f"; resuming: {len(done)} shards complete"
                                  if resumed else ""))
    results = {tid: _shard_result(tid, os.path.join(shards, tid), True)
               for tid in done}
    pending = sorted((t for t in tasks if t["id"] not in done),
                     key=lambda t: (-t["bytes"], t["id"]))
    failed = 0
    if pending:
        client, cluster = _client(args)
        try:
            started = time.monotonic()

            def on_result(r):
                results[r["id"]] = r
                if args.progress:
                    _say(f"[{len(results)}/{len(tasks)}] {r['id']} "
                         f"{r['rows']} rows "
                         f"({time.monotonic() - started:.1f} s)")

            calls = [(f"irtk-embed-{t['id']}", t["bytes"], embedTask,
                      (t["id"], inputs[t["first"]:t["end"]],
                       os.path.abspath(out), settings, tool,
                       args.delay_tasks))
                     for t in pending]
            failed = _run_tasks(client, calls, on_result)
        finally:
            _close(client, cluster)
    _remove_leftovers(shards)
    if failed:
        raise RunError(f"{failed} of {len(tasks)} tasks failed; the "
                       f"{len(tasks) - failed - len(done)} others' shards are "
                       f"kept; run the same command again to retry them")
    for t in tasks:
        for w in results[t["id"]]["warnings"]:
            _say(w, "warning")
        for _, err in results[t["id"]]["failures"]:
            _say(err, "error")
    nfail = sum(len(r["failures"]) for r in results.values())
    if nfail == len(inputs):
        _discard_run(out, tasks, keep_dir)
        raise RunError("every input failed; no store written")
    _write_manifest(out, the_plan, results, tool)
    rows = sum(r["rows"] for r in results.values())
    if nfail:
        _say(f"{nfail} of {len(inputs)} inputs failed; the store holds the "
             f"other {len(inputs) - nfail} (see {FAILURES_NAME})", "error")
    _say(f"{out}: {rows} rows in {len(tasks)} shards")
    return 1 if nfail else 0


def _merge(args):
    try:
        s = loadStore(args.store)
    except StoreError as e:
        raise RunError(str(e))
    # The output directory is replaced as a whole: never the store's own
    # or one of its shards' (the store would lose that shard's rows).
    for d in [args.store] + [p for p, _, _ in s.shards]:
        try:
            same = os.path.samefile(args.output, d)
        except OSError:
            same = False
        if same:
            raise RunError(f"cannot write '{args.output}': it is the input "
                           f"'{d}'")
    if not s.shards:
        _say(f"{args.store}: not a sharded store; copying it", "warning")
    try:
        _ir2vec.mergeStore(args.store, args.output)
    except ValueError as e:
        raise RunError(str(e))
    _say(f"{args.output}: {len(s)} rows")
    return 0


# ---------------------------------------------------------------------------
# Similarity: map per shard, reduce on the client.
# ---------------------------------------------------------------------------

def _shard_vectors(path):
    import numpy
    return numpy.load(os.path.join(path, "embeddings.npy"), mmap_mode="r")


def findTask(path, first, function, rows):
    """Map step of query resolution: the global rows of a shard whose
    function matches `function` (store.functionMatch) or which are in
    `rows`, with how they match, their vectors and records."""
    import numpy
    from .store import Store
    s = Store(path)
    found = []
    for i, r in enumerate(s.records):
        g = first + i
        how = functionMatch(function, r) if function is not None else 0
        if how or g in rows:
            r = dict(r)
            r["row"] = g
            found.append((g, how, numpy.array(s.vectors[i]), r))
    return found


def _local_exclude(exclude, first, n):
    """The global rows to leave out, as rows of the shard starting at
    `first` with `n` rows (-1: none in it)."""
    return [e - first if first <= e < first + n else -1 for e in exclude]


def _kept_vectors(path, keep):
    """A shard's vectors, and the shard's row of each: all of them, or the
    rows `keep` lists (--min-instructions, --min-blocks)."""
    import numpy
    vectors = _shard_vectors(path)
    if keep is None:
        return numpy.ascontiguousarray(vectors), range(len(vectors))
    return numpy.ascontiguousarray(vectors[keep]), keep


def topkTask(path, first, queries, exclude, k, metric, keep=None):
    """Map step of top-k: the best k of one shard per query (of its rows
    that `keep` lists, if given), rows global."""
    base, rows = _kept_vectors(path, keep)
    position = {r: i for i, r in enumerate(rows)}
    local_exclude = [position.get(e, -1) for e in
                     _local_exclude(exclude, first, len(_shard_vectors(path)))]
    res = _ir2vec.topK(queries, base, k, metric, local_exclude, threads=1)
    return [[(first + rows[row], score) for row, score in q] for q in res]


def _index_path(shard, kind, metric):
    return os.path.join(shard, f"approx-{kind}-{metric}.index")


def indexTask(path, kind, metric, options):
    """Builds the approximate index of one shard into the shard's directory
    (kept when a valid index of the shard is there already). Returns its
    info, or {"error": message}."""
    import numpy
    out = _index_path(path, kind, metric)
    base = numpy.ascontiguousarray(_shard_vectors(path))
    try:
        if os.path.exists(out):
            try:
                index = _ir2vec.ApproxIndex.load(out)
                index.check(base, out, path)
                return dict(index.info, path=out, bytes=index.bytes,
                            skipped=True)
            except ValueError:
                pass  # built again below
        index = _ir2vec.ApproxIndex.build(base, kind=kind, metric=metric,
                                          threads=1, **options)
        index.write(out)
    except ValueError as e:
        return {"error": f"{path}: {e}"}
    return dict(index.info, path=out, bytes=index.bytes, skipped=False)


def topkIndexTask(path, first, queries, exclude, k, metric, kind, search):
    """Map step of top-k with the shards' approximate indexes: the best k
    of one shard's candidates per query, rows global; or {"error": ...}."""
    import numpy
    base = numpy.ascontiguousarray(_shard_vectors(path))
    n = len(base)
    local_exclude = _local_exclude(exclude, first, n)
    out = _index_path(path, kind, metric)
    try:
        index = _ir2vec.ApproxIndex.load(out)
        index.check(base, out, path)
        res = index.search(queries, base, k=k, exclude=local_exclude,
                           threads=1, **search)
    except ValueError as e:
        return {"error": str(e)}
    return [[(first + row, score) for row, score in q] for q in res]


def pairsTask(path_a, first_a, path_b, first_b, same, threshold, metric,
              keep_a=None, keep_b=None):
    """Map step of pairs: the pairs of two shards (or of one with itself),
    of their rows that `keep_a` and `keep_b` list if given, rows global."""
    a, rows_a = _kept_vectors(path_a, keep_a)
    b, rows_b = (a, rows_a) if same else _kept_vectors(path_b, keep_b)
    return [(first_a + rows_a[x], first_b + rows_b[y], s)
            for x, y, s in _ir2vec.pairs(a, b, same, threshold, metric,
                                         threads=1)]


def _better_key(metric):
    # Best first, ties by the lower row: the order of irtk-similarity.
    if metric == "cosine":
        return lambda n: (-n[0], n[1])
    return lambda n: (n[0], n[1])


def _shard_list(path):
    """[(shard path, first row, count)] of a store; an ordinary store is one
    shard."""
    try:
        s = loadStore(path)
    except StoreError as e:
        raise RunError(str(e))
    return s, (s.shards or [(path, 0, len(s))])


def _check_output(output, s, indexes=()):
    """Refuses a result file that is one of the files the command reads:
    the store's, and the indexes it searches or builds."""
    try:
        checkNotAnInput(output, s.files() + list(indexes))
    except StoreError as e:
        raise RunError(str(e))


def _fields(r):
    # The description irtk-similarity gives: no row, no sizes.
    return {key: v for key, v in r.items()
            if key not in ("row", "instructions", "blocks")}


def _kept_rows(args, s, shards):
    """Per shard, its rows that --min-instructions and --min-blocks keep
    (rows of the shard), or None for all."""
    if not (args.min_instructions or args.min_blocks):
        return [None] * len(shards)
    try:
        kept = set(sizeRows(s.records, args.min_instructions,
                            args.min_blocks, args.store))
    except StoreError as e:
        raise RunError(str(e))
    return [[r - first for r in range(first, first + count) if r in kept]
            for _, first, count in shards]


def _topk(args):
    import numpy
    s, shards = _shard_list(args.store)
    _check_output(args.output, s, [_index_path(p, args.index, args.metric)
                                   for p, _, _ in shards if args.index])
    if args.row is not None and not 0 <= args.row < len(s):
        raise RunError(f"row {args.row} out of range: store {args.store} "
                       f"has {len(s)} rows")
    if args.index and (args.min_instructions or args.min_blocks):
        raise RunError("--min-instructions and --min-blocks apply to the "
                       "exact search, not --index")
    kept = _kept_rows(args, s, shards)
    client, cluster = _client(args)
    try:
        found = []
        rows = {args.row} if args.row is not None else set()
        futs = [client.submit(findTask, p, first, args.function, rows,
                              pure=False) for p, first, _ in shards]
        for f in futs:
            found.extend(f.result())
        found.sort(key=lambda x: x[0])
        if args.function is not None:
            try:
                chosen = set(resolveFunction(
                    args.function, [(g, how, r) for g, how, _, r in found],
                    f"store {args.store}"))
            except StoreError as e:
                raise RunError(str(e))
            found = [x for x in found if x[0] in chosen]
        found = [(g, v, r) for g, _, v, r in found]
        if not found:
            raise RunError(f"function '{args.function}' not found in store "
                           f"{args.store}")
        queries = numpy.stack([v for _, v, _ in found]).astype(numpy.float32)
        exclude = [g for g, _, _ in found]
        qf = client.scatter(queries, broadcast=True)
        if args.index:
            search = {"nprobe": args.nprobe, "ef": args.ef,
                      "rerank": args.rerank}
            futs = [client.submit(topkIndexTask, p, first, qf, exclude,
                                  args.k, args.metric, args.index, search,
                                  pure=False)
                    for p, first, count in shards if count]
        else:
            futs = [client.submit(topkTask, p, first, qf, exclude, args.k,
                                  args.metric, keep, pure=False)
                    for (p, first, _), keep in zip(shards, kept)]
        per_shard = [f.result() for f in futs]
        for part in per_shard:
            if isinstance(part, dict):
                raise RunError(part["error"])
    finally:
        _close(client, cluster)
    key = _better_key(args.metric)
    results = []
    for qi, (g, _, rec) in enumerate(found):
        cands = [(score, row) for part in per_shard for row, score in part[qi]]
        cands.sort(key=key)
        neighbors = []
        for rank, (score, row) in enumerate(cands[:args.k], 1):
            n = {"rank": rank, "row": row, "score": score}
            n.update(_fields(s.records[row]))
            neighbors.append(n)
        q = {"store": args.store, "row": g}
        q.update(_fields(rec))
        results.append({"query": q, "neighbors": neighbors})
    _write_result({"command": "topk", "metric": args.metric, "k": args.k,
                   "store": args.store, "results": results}, args.output)
    return 0


def _index(args):
    s, shards = _shard_list(args.store)
    _check_output(args.output, s, [_index_path(p, args.kind, args.metric)
                                   for p, _, _ in shards])
    options = {"lists": args.lists, "pqBytes": args.pq_bytes,
               "hnswLinks": args.hnsw_links, "trainRows": args.train_rows,
               "seed": args.seed}
    client, cluster = _client(args)
    try:
        # The largest shards first.
        # The largest shards first; a shard without rows has no index.
        order = sorted((sh for sh in shards if sh[2]), key=lambda sh: -sh[2])
        futs = [client.submit(indexTask, p, args.kind, args.metric, options,
                              pure=False) for p, _, _ in order]
        built = [f.result() for f in futs]
    finally:
        _close(client, cluster)
    errors = [b["error"] for b in built if "error" in b]
    if errors:
        raise RunError(errors[0] + (f" (and {len(errors) - 1} more shards)"
                                    if len(errors) > 1 else ""))
    built.sort(key=lambda b: b["path"])
    _write_result({"command": "index", "store": args.store,
                   "kind": args.kind, "metric": args.metric,
                   "indexes": built}, args.output)
    return 0


def _pairs(args):
    s, shards = _shard_list(args.store)
    _check_output(args.output, s)
    kept = _kept_rows(args, s, shards)
    client, cluster = _client(args)
    try:
        futs = []
        for i, (pa, fa, _) in enumerate(shards):
            for j in range(i, len(shards)):
                pb, fb, _ = shards[j]
                futs.append(client.submit(pairsTask, pa, fa, pb, fb, pa == pb,
                                          args.threshold, args.metric,
                                          kept[i], kept[j], pure=False))
        found = [p for f in futs for p in f.result()]
    finally:
        _close(client, cluster)
    if args.metric == "cosine":
        found.sort(key=lambda p: (-p[2], p[0], p[1]))
    else:
        found.sort(key=lambda p: (p[2], p[0], p[1]))
    out = []
    for a, b, score in found:
        ra = {"row": a}
        ra.update(_fields(s.records[a]))
        rb = {"row": b}
        rb.update(_fields(s.records[b]))
        out.append({"score": score, "a": ra, "b": rb})
    _write_result({"command": "pairs", "metric": args.metric,
                   "threshold": args.threshold, "store": args.store,
                   "against": args.store, "pairs": out}, args.output)
    return 0


def _write_result(doc, output):
    text = json.dumps(doc, ensure_ascii=False) + "\n"
    if output == "-":
        sys.stdout.write(text)
        return
    with open(output + ".tmp", "w", encoding="utf-8",
              errors="surrogateescape") as f:
        f.write(text)
    os.replace(output + ".tmp", output)


# ---------------------------------------------------------------------------
# collect: a command per module on the workers.
# ---------------------------------------------------------------------------

def collectTask(task_id, inputs, first, out, command, timeout, delay=0.0):
    """One task of collect: runs the command for each input, each with its
    own output directory, and renames the task's directory into place when
    all are done. Failures (an exit status other than 0, a timeout) are
    recorded, never raised."""
    final = os.path.join(out, SHARDS_DIR, task_id)
    if os.path.isfile(os.path.join(final, "results.jsonl")):
        return {"id": task_id, "skipped": True}
    tmp = tempfile.mkdtemp(prefix=task_id + ".tmp-",
                           dir=os.path.join(out, SHARDS_DIR))
    lines = []
    for n, inp in enumerate(inputs):
        mod_out = os.path.join(tmp, str(first + n))
        os.mkdir(mod_out)
        # Plain replacement, not str.format: shell commands have braces.
        cmd = command
        for key, value in (("{input}", inp), ("{out}", mod_out),
                           ("{name}", os.path.basename(inp))):
            cmd = cmd.replace(key, shlex.quote(value))
        start = time.monotonic()
        try:
            with open(os.path.join(mod_out, "stdout"), "wb") as so, \
                    open(os.path.join(mod_out, "stderr"), "wb") as se:
                status = subprocess.run(cmd, shell=True, stdout=so,
                                        stderr=se, timeout=timeout,
                                        check=False).returncode
        except subprocess.TimeoutExpired:
            status = "timeout"
        files = {}
        for root, _, names in os.walk(mod_out):
            for name in names:
                p = os.path.join(root, name)
                files[os.path.relpath(p, tmp)] = os.path.getsize(p)
        lines.append({"input": inp, "index": first + n, "status": status,
                      "seconds": round(time.monotonic() - start, 3),
                      "files": files})
    with open(os.path.join(tmp, "results.jsonl"), "w", encoding="utf-8",
              errors="surrogateescape") as f:
        for r in lines:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    if delay:
        time.sleep(delay)
    if os.path.isdir(final):  # a run of the same task finished first
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        os.rename(tmp, final)
    return {"id": task_id, "skipped": False}


def _collect(args):
    inputs = expandInputs(args.inputs)
    if not inputs:
        raise RunError("no inputs")
    sizes = _sizes(inputs)
    key = {"inputs": inputs, "sizes": sizes, "command": args.command,
           "task_bytes": args.task_bytes}
    tasks = []
    for n, (first, end, size) in enumerate(makeTasks(inputs, sizes,
                                                     args.task_bytes)):
        tid = f"{n:06d}-" + _digest([inputs[first:end], args.command])[:12]
        tasks.append({"id": tid, "first": first, "end": end, "bytes": size})
    the_plan = {"format": PLAN_FORMAT, "version": 1, "command": "collect",
                "digest": _digest(key), "template": args.command,
                "task_bytes": args.task_bytes, "inputs": inputs,
                "sizes": sizes, "tasks": tasks}
    out = os.path.abspath(args.output)
    _prepare_output(out, the_plan, "collect")
    shards = os.path.join(out, SHARDS_DIR)
    _remove_leftovers(shards)
    pending = [t for t in tasks if not os.path.isfile(
        os.path.join(shards, t["id"], "results.jsonl"))]
    _say(f"{len(inputs)} inputs, {len(tasks)} tasks, "
         f"{len(tasks) - len(pending)} complete")
    failed = 0
    if pending:
        client, cluster = _client(args)
        try:
            calls = [(f"irtk-collect-{t['id']}", t["bytes"], collectTask,
                      (t["id"], inputs[t["first"]:t["end"]], t["first"], out,
                       args.command, args.timeout, args.delay_tasks))
                     for t in pending]
            failed = _run_tasks(client, calls, lambda r: None)
        finally:
            _close(client, cluster)
    _remove_leftovers(shards)
    if failed:
        raise RunError(f"{failed} tasks failed; run the same command again "
                       f"to retry them")
    bad = 0
    with open(os.path.join(out, "results.jsonl.tmp"), "w", encoding="utf-8",
              errors="surrogateescape") as f:
        for t in tasks:
            with open(os.path.join(shards, t["id"], "results.jsonl"),
                      encoding="utf-8", errors="surrogateescape") as r:
                for line in r:
                    rec = json.loads(line)
                    rec["files"] = {f"{SHARDS_DIR}/{t['id']}/{k}": v
                                    for k, v in rec["files"].items()}
                    bad += rec["status"] != 0
                    f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    os.replace(os.path.join(out, "results.jsonl.tmp"),
               os.path.join(out, "results.jsonl"))
    _say(f"{out}: {len(inputs)} inputs, {bad} failed (results.jsonl)")
    return 1 if bad else 0


# ---------------------------------------------------------------------------
# Command line.
# ---------------------------------------------------------------------------

def _positive(text):
    v = int(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive number")
    return v


def _cluster_options(p):
    g = p.add_argument_group("cluster")
    g.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="run on this Dask cluster (default: start a local one)")
    g.add_argument("--workers", type=_positive, default=os.cpu_count() or 1,
                   metavar="N",
                   help="worker processes of the local cluster (default: one "
                        "per core)")
    g.add_argument("--connect-timeout", default="30s", metavar="T",
                   help="how long to wait for --scheduler (default 30s)")


def _search_options(p):
    p.add_argument("--metric", default="cosine",
                   choices=["cosine", "euclidean"])
    p.add_argument("-o", "--output", default="-", metavar="FILE",
                   help="the JSON result (default: standard output)")
    _cluster_options(p)


def _size_options(p):
    p.add_argument("--min-instructions", type=int, default=0, metavar="N",
                   help="only rows of functions of at least N instructions")
    p.add_argument("--min-blocks", type=int, default=0, metavar="N",
                   help="only rows of functions of at least N blocks")


def _parser():
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="subcommand", required=True,
                           metavar="COMMAND")

    e = sub.add_parser("embed", help="embed a corpus into a sharded store")
    e.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="IR files, directories, MLGO corpora")
    e.add_argument("-o", "--output", required=True, metavar="DIR",
                   help="the sharded store (created, or resumed)")
    e.add_argument("--ir2vec-vocab-path", "--vocab", dest="vocab",
                   metavar="FILE", help="vocabulary (default: the bundled one)")
    e.add_argument("--ir2vec-kind", dest="kind", default="symbolic",
                   choices=["symbolic", "flow-aware"])
    e.add_argument("--level", default="func",
                   choices=["func", "bb", "inst", "module"])
    e.add_argument("--ir2vec-opc-weight", dest="opc_weight", type=float,
                   default=1.0)
    e.add_argument("--ir2vec-type-weight", dest="type_weight", type=float,
                   default=0.5)
    e.add_argument("--ir2vec-arg-weight", dest="arg_weight", type=float,
                   default=0.2)
    e.add_argument("--task-bytes", type=_positive, default=DEFAULT_TASK_BYTES,
                   metavar="N", help="input bytes per task (default 4 MiB)")
    e.add_argument("--progress", action="store_true",
                   help="a line per finished task")
    e.add_argument("--delay-tasks", type=float, default=0.0,
                   help=argparse.SUPPRESS)
    _cluster_options(e)

    m = sub.add_parser("merge", help="a sharded store as one ordinary store")
    m.add_argument("store", metavar="SHARDED")
    m.add_argument("output", metavar="DIR")

    t = sub.add_parser("topk", help="nearest rows, map per shard + reduce")
    t.add_argument("--store", required=True)
    q = t.add_mutually_exclusive_group(required=True)
    q.add_argument("--function")
    q.add_argument("--row", type=int)
    t.add_argument("-k", type=_positive, default=10)
    t.add_argument("--index", choices=["ivf-flat", "ivf-pq", "hnsw"],
                   help="search each shard's approximate index of this kind "
                        "(built by the index command)")
    t.add_argument("--nprobe", type=_positive, default=0)
    t.add_argument("--ef", type=_positive, default=0)
    t.add_argument("--rerank", type=_positive, default=0)
    _size_options(t)
    _search_options(t)

    x = sub.add_parser("index", help="an approximate index per shard, built "
                                     "in parallel")
    x.add_argument("--store", required=True)
    x.add_argument("--kind", default="ivf-flat",
                   choices=["ivf-flat", "ivf-pq", "hnsw"])
    x.add_argument("--lists", type=_positive, default=0)
    x.add_argument("--pq-bytes", type=_positive, default=0)
    x.add_argument("--hnsw-links", type=_positive, default=32)
    x.add_argument("--train-rows", type=_positive, default=0)
    x.add_argument("--seed", type=int, default=1)
    _search_options(x)

    r = sub.add_parser("pairs", help="pairs within a threshold, per shard "
                                     "pair + reduce")
    r.add_argument("--store", required=True)
    r.add_argument("--threshold", type=float, required=True)
    _size_options(r)
    _search_options(r)

    c = sub.add_parser("collect", help="run a command per module (training "
                                       "data of the advisors)")
    c.add_argument("inputs", nargs="+", metavar="INPUT")
    c.add_argument("-o", "--output", required=True, metavar="DIR")
    c.add_argument("--command", required=True, metavar="TEMPLATE",
                   help="shell command; {input}, {out} (this module's output "
                        "directory) and {name} are replaced, shell-quoted")
    c.add_argument("--timeout", type=float, default=900.0,
                   help="seconds per module (default 900)")
    c.add_argument("--task-bytes", type=_positive, default=DEFAULT_TASK_BYTES,
                   metavar="N")
    c.add_argument("--delay-tasks", type=float, default=0.0,
                   help=argparse.SUPPRESS)
    _cluster_options(c)
    return p


def main(argv=None):
    args = _parser().parse_args(argv)
    run = {"embed": _embed, "merge": _merge, "topk": _topk, "pairs": _pairs,
           "index": _index, "collect": _collect}[args.subcommand]
    try:
        return run(args)
    except RunError as e:
        _say(str(e), "error")
        return 1
    except KeyboardInterrupt:
        _say("interrupted; the complete shards are kept: run the same "
             "command again to resume", "error")
        return 130


if __name__ == "__main__":
    # Run as the module ir2vec.distributed, not __main__: the task functions
    # then reach the workers by name, not as pickled copies.
    from ir2vec import distributed as _module
    sys.exit(_module.main())
