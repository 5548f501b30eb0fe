# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Embedding stores, as ``llvm-ir2vec embeddings --format=npy`` writes them.

A store is a directory: ``store.json`` (what the rows are), ``embeddings.npy``
(a float32 matrix, one row per embedding) and ``index.jsonl`` (one JSON
object per row: module, function, level, block, instruction). The same
reader serves LLVM IR stores (kind ``symbolic`` or ``flow-aware``) and
machine IR stores (kind ``mir2vec-symbolic``, from ``--mode=mir``)::

    import ir2vec
    s = ir2vec.loadStore("mir-store")
    s.kind, s.level, s.dimension          # 'mir2vec-symbolic', 'func', 75
    s.vectors                             # numpy float32 array (count, dim)
    rows = s.rows(function="quicksort")   # row numbers
    s.records[rows[0]]["module"]
    i = s.index("ivf-flat")               # an approximate index, written
    i.topk(s.vectors[rows[0]], k=10)      # [(row, score), ...]
    s.loadIndex(i.path)                   # refused if the store changed

The layout is described in docs/CommandGuide/llvm-ir2vec.md (STORES); sharded
stores (ir2vec.distributed) in docs/Distributed.md.
"""

import functools
import json
import numbers
import os
import stat

import numpy

FORMAT = "irtk-embedding-store"
VERSION = 1
#: store.json's version for a sharded store (one that lists "shards").
SHARDED_VERSION = 2
#: The settings every shard of a sharded store shares with its store.json.
SETTINGS = ("dimension", "level", "kind", "vocabulary", "weights", "source")


class StoreError(ValueError):
    """A store that cannot be read: the message names the file and why."""


def checkNotAStream(path):
    """Raises StoreError when ``path`` exists and is neither a regular file
    nor a directory (a FIFO would block the reader forever, a device such
    as /dev/zero would be read without end), as irtk's C++ readers refuse
    it: "<path>: cannot read: not a regular file". A missing file is left
    to the reader, whose message says so."""
    try:
        st = os.stat(path)
    except OSError:
        return
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        raise StoreError(f"{os.fsdecode(path)}: cannot read: not a regular "
                         f"file")


def checkNotAnInput(output, inputs):
    """Raises StoreError when writing ``output`` would replace one of
    ``inputs`` (the same file, by any path to it), with the message of
    irtk's C++ tools: "cannot write '<output>': it is the input '<input>'".
    An output that does not exist yet or is not a regular file (a device)
    never is."""
    try:
        out = os.stat(output)
    except OSError:
        return
    if not stat.S_ISREG(out.st_mode):
        return
    for path in inputs:
        try:
            st = os.stat(path)
        except OSError:
            continue
        if os.path.samestat(out, st):
            raise StoreError(f"cannot write '{os.fsdecode(output)}': it is "
                             f"the input '{os.fsdecode(path)}'")


def _check_count(name, value, lo, hi, zero=None):
    """irtk-similarity's check of a count option, for a keyword argument;
    ``zero`` names what 0 means where it is allowed."""
    if not isinstance(value, bool) and isinstance(value, numbers.Integral) \
            and (lo <= value <= hi or (zero and value == 0)):
        return
    allowed = f"a number from {lo} to {hi}"
    if zero:
        allowed = f"0 ({zero}) or " + allowed
    raise ValueError(f"invalid {name} '{value}'; expected {allowed}")


#: At most this many candidates are listed when a function name is
#: ambiguous (as irtk-similarity lists them).
MAX_CANDIDATES_SHOWN = 10

#: How a record's function matches a name: not, by its qualified name
#: without parameters, or by its symbol or demangled name.
NO_MATCH, QUALIFIED_MATCH, EXACT_MATCH = 0, 1, 2


@functools.lru_cache(maxsize=4096)
def _qualified_name(symbol):
    from . import _ir2vec
    return _ir2vec.qualifiedFunctionName(symbol)


def functionMatch(name, record):
    """How the function of ``record`` (an index.jsonl line) matches
    ``name``: EXACT_MATCH (symbol or demangled name), QUALIFIED_MATCH (the
    qualified name without parameters, as ``mup::OprtAdd::Eval``) or
    NO_MATCH."""
    function, demangled = record.get("function"), record.get("demangled")
    if name in (function, demangled):
        return EXACT_MATCH
    # A demangled name holds the qualified name followed by its parameters.
    if isinstance(demangled, str) and name + "(" in demangled and \
            isinstance(function, str) and _qualified_name(function) == name:
        return QUALIFIED_MATCH
    return NO_MATCH


def _ambiguous(what, name, candidates, where, hint):
    """irtk-similarity's error for a name that matches several functions or
    modules (``candidates``, as shown)."""
    shown = ", ".join(f"'{c}'" for c in candidates[:MAX_CANDIDATES_SHOWN])
    more = len(candidates) - MAX_CANDIDATES_SHOWN
    return StoreError(f"{what} '{name}' matches {len(candidates)} {what}s in "
                      f"{where}: {shown}"
                      + (f" and {more} more" if more > 0 else "")
                      + f"; {hint}")


def resolveFunction(name, matches, where):
    """The rows that ``name`` selects among ``matches``, [(row, how,
    record)] in row order (``how`` from functionMatch): the exact matches,
    or else the qualified ones when they are of one function (symbol).
    Several functions raise StoreError listing them, with irtk-similarity's
    message; ``where`` names the store in it."""
    exact = [row for row, how, _ in matches if how == EXACT_MATCH]
    if exact:
        return exact
    symbols = {}
    for _, how, r in matches:
        if how == QUALIFIED_MATCH:
            symbols.setdefault(r.get("function"), r.get("demangled"))
    if len(symbols) > 1:
        raise _ambiguous("function", name, list(symbols.values()), where,
                         "name one by its full signature or symbol")
    return [row for row, how, _ in matches if how == QUALIFIED_MATCH]


def resolveModule(name, records, where):
    """The rows among ``records`` (index.jsonl lines, in row order) of the
    module ``name``, as irtk-similarity topk --module selects them: the
    module as recorded, or else every module whose path ends in
    "/<name>". A name that ends the paths of several modules raises
    StoreError listing them, with irtk-similarity's message; ``where`` names
    the store in it."""
    exact = [i for i, r in enumerate(records) if r.get("module") == name]
    if exact:
        return exact
    suffix = "/" + name
    rows, modules = [], {}
    for i, r in enumerate(records):
        module = r.get("module")
        if isinstance(module, str) and module.endswith(suffix):
            rows.append(i)
            modules.setdefault(module, None)
    if len(modules) > 1:
        raise _ambiguous("module", name, list(modules), where,
                         "name one by a longer path")
    return rows


def sizeRows(records, min_instructions, min_blocks, where, first=0):
    """The rows among ``records`` (numbered from ``first``) whose function
    has at least ``min_instructions`` instructions and ``min_blocks``
    blocks. A record without sizes (a store written before irtk recorded
    them) raises StoreError naming ``where``, as irtk-similarity does."""
    rows = []
    for i, r in enumerate(records):
        n, b = r.get("instructions"), r.get("blocks")
        if not isinstance(n, int) or not isinstance(b, int):
            raise StoreError(f"{where}: row {first + i} records no function "
                             f"size (the store was written before irtk "
                             f"recorded sizes); write it again to filter by "
                             f"size")
        if n >= min_instructions and b >= min_blocks:
            rows.append(first + i)
    return rows


def _read_info(path):
    info_path = os.path.join(path, "store.json")
    checkNotAStream(info_path)
    try:
        with open(info_path, encoding="utf-8") as f:
            info = json.load(f)
    except (OSError, ValueError) as e:
        raise StoreError(f"{info_path}: {e}") from None
    if not isinstance(info, dict) or info.get("format") != FORMAT:
        raise StoreError(f"{info_path}: not a store description")
    version = info.get("version")
    if not isinstance(version, int) or version > SHARDED_VERSION:
        raise StoreError(f"{info_path}: unsupported store version "
                         f"{version!r}")
    shards = info.get("shards")
    if version == SHARDED_VERSION:
        if (not isinstance(shards, list) or not shards or not all(
                isinstance(s, dict) and isinstance(s.get("path"), str)
                and isinstance(s.get("count"), int) for s in shards)):
            raise StoreError(f"{info_path}: a sharded store without a valid "
                             f"\"shards\" list")
        # Each shard once: a path listed twice (by any spelling) would be
        # read as two shards, every row of it its own duplicate.
        seen = {}
        for i, s in enumerate(shards):
            p = s["path"]
            if not p or os.path.isabs(p) or ".." in p.split("/"):
                raise StoreError(f"{info_path}: shard path {p!r} is not a "
                                 f"relative path inside the store")
            key = "/".join(c for c in p.split("/") if c not in ("", "."))
            if key in seen:
                j = seen[key]
                raise StoreError(f"{info_path}: shard {i} ({p!r}) is shard "
                                 f"{j} ({shards[j]['path']!r}) again")
            seen[key] = i
    elif shards is not None:
        raise StoreError(f"{info_path}: \"shards\" in a version 1 store")
    return info_path, info


class Store:
    """A store read from disk. ``vectors`` is memory-mapped (read-only) for
    an ordinary store; a sharded store's shards are read as one store, their
    rows one after another (``vectors`` is then a copy in memory, and
    ``shards`` lists each shard's path, first row and row count)."""

    def __init__(self, path, _shard=False):
        path = os.fspath(path)
        self.path = path
        info_path, info = _read_info(path)
        self.info = info
        if info["version"] == SHARDED_VERSION:
            # Checked before opening any shard: a shard naming its own store
            # would otherwise be opened again and again.
            if _shard:
                raise StoreError(f"{path}: a shard that is itself sharded")
            self._open_sharded(info_path, info)
            return
        self.shards = []
        npy_path = os.path.join(path, "embeddings.npy")
        checkNotAStream(npy_path)
        try:
            vectors = numpy.load(npy_path, mmap_mode="r")
        except (OSError, ValueError) as e:
            raise StoreError(f"{npy_path}: {e}") from None
        if vectors.dtype != numpy.float32 or vectors.ndim != 2:
            raise StoreError(f"{npy_path}: not a 2-d float32 matrix")
        if vectors.shape != (info.get("count"), info.get("dimension")):
            raise StoreError(f"{npy_path}: shape {vectors.shape} differs from "
                             f"store.json's count and dimension "
                             f"({info.get('count')}, {info.get('dimension')})")
        self.vectors = vectors
        index_path = os.path.join(path, "index.jsonl")
        checkNotAStream(index_path)
        records = []
        try:
            with open(index_path, encoding="utf-8",
                      errors="surrogateescape") as f:
                for n, line in enumerate(f, 1):
                    try:
                        records.append(json.loads(line))
                    except ValueError as e:
                        raise StoreError(f"{index_path}:{n}: {e}") from None
        except OSError as e:
            raise StoreError(f"{index_path}: {e}") from None
        if len(records) != len(vectors):
            raise StoreError(f"{index_path}: {len(records)} lines for "
                             f"{len(vectors)} rows")
        self.records = records

    def _open_sharded(self, info_path, info):
        vectors, records, self.shards = [], [], []
        # The same directory under two paths (a symbolic link) is refused as
        # the same path twice is (_read_info).
        seen = {}
        for i, ref in enumerate(info["shards"]):
            shard_path = os.path.join(self.path, ref["path"])
            try:
                st = os.stat(shard_path)
            except OSError:
                pass  # Store() says what is wrong with it.
            else:
                j = seen.setdefault((st.st_dev, st.st_ino), i)
                if j != i:
                    raise StoreError(
                        f"{info_path}: shard {i} ({ref['path']!r}) is the "
                        f"directory of shard {j} "
                        f"({info['shards'][j]['path']!r})")
            shard = Store(shard_path, _shard=True)
            for key in SETTINGS:
                if shard.info.get(key) != info.get(key):
                    raise StoreError(f"{shard_path}: its {key} differs from "
                                     f"{info_path}'s")
            if len(shard) != ref["count"]:
                raise StoreError(f"{shard_path}: {len(shard)} rows, but "
                                 f"{info_path} says {ref['count']}")
            first = len(records)
            self.shards.append((shard_path, first, len(shard)))
            for r in shard.records:
                r = dict(r)
                r["row"] += first
                records.append(r)
            vectors.append(shard.vectors)
        if len(records) != info.get("count"):
            raise StoreError(f"{info_path}: the shards hold {len(records)} "
                             f"rows, but \"count\" says {info.get('count')}")
        self.vectors = numpy.concatenate(vectors) if len(vectors) > 1 \
            else vectors[0]
        self.records = records

    @property
    def kind(self):
        """``symbolic``, ``flow-aware`` or ``mir2vec-symbolic``."""
        return self.info["kind"]

    @property
    def level(self):
        """``func``, ``bb`` or ``inst``: what a row is."""
        return self.info["level"]

    @property
    def dimension(self):
        return self.info["dimension"]

    @property
    def source(self):
        """How machine IR rows were made (target, opt_level, stop point),
        or an empty dict."""
        return self.info.get("source", {})

    def __len__(self):
        return len(self.records)

    def files(self):
        """The files the store is read from: its store.json, and each
        shard's (the store's own for an ordinary store) store.json,
        embeddings.npy and index.jsonl."""
        dirs = [p for p, _, _ in self.shards] or [self.path]
        out = [os.path.join(self.path, "store.json")]
        for d in dirs:
            out += [os.path.join(d, n) for n in ("store.json",
                                                 "embeddings.npy",
                                                 "index.jsonl")]
        return list(dict.fromkeys(out))

    def rows(self, function=None, module=None):
        """Row numbers whose function (symbol or demangled name) and module
        match the given ones; all rows when none is given."""
        return [i for i, r in enumerate(self.records)
                if (function is None or function in (r.get("function"),
                                                     r.get("demangled")))
                and (module is None or r.get("module") == module)]

    def functionRows(self, name):
        """The rows of the function ``name`` as irtk-similarity topk
        --function selects them: by symbol or demangled name, or else by
        qualified name without parameters (``mup::OprtAdd::Eval``) when
        that names one function; several raise StoreError listing them.
        Empty when nothing matches."""
        matches = [(i, how, r) for i, r in enumerate(self.records)
                   for how in (functionMatch(name, r),) if how]
        return resolveFunction(name, matches, f"store {self.path}")

    def moduleRows(self, name):
        """The rows of the module ``name`` as irtk-similarity topk --module
        selects them: its path as recorded, or else the end of a path
        ("/<name>") when that names one module; several raise StoreError
        listing them. Empty when nothing matches. In a module-level store
        (``level == "module"``) a module has one row."""
        return resolveModule(name, self.records, f"store {self.path}")

    def sizeRows(self, minInstructions=0, minBlocks=0):
        """The rows of functions with at least ``minInstructions``
        instructions and ``minBlocks`` blocks (irtk-similarity's
        --min-instructions and --min-blocks). A store written before irtk
        recorded sizes raises StoreError saying to write it again."""
        return sizeRows(self.records, minInstructions, minBlocks, self.path)

    def topk(self, function=None, *, module=None, row=None, k=10,
             metric="cosine", minInstructions=0, minBlocks=0, threads=0):
        """irtk-similarity topk --function, --module or --row over this
        store: for each query row, ``(query row, [(row, score), ...])``,
        best first, the query row left out; ``minInstructions`` and
        ``minBlocks`` keep only the rows of larger functions (modules) as
        results."""
        from . import _ir2vec
        _check_count("k", k, 1, 1000000)
        if sum(q is not None for q in (function, module, row)) != 1:
            raise ValueError("topk needs exactly one of function, module "
                             "and row")
        if row is not None:
            if not 0 <= row < len(self):
                raise StoreError(f"row {row} out of range: store {self.path} "
                                 f"has {len(self)} rows")
            queries = [row]
        elif module is not None:
            queries = self.moduleRows(module)
            if not queries:
                raise StoreError(f"module '{module}' not found in store "
                                 f"{self.path}")
        else:
            queries = self.functionRows(function)
            if not queries:
                raise StoreError(f"function '{function}' not found in store "
                                 f"{self.path}")
        base, rows = self._searched(minInstructions, minBlocks)
        position = {r: i for i, r in enumerate(rows)}
        found = _ir2vec.topK(self._matrix()[queries], base, k, metric,
                             [position.get(q, -1) for q in queries],
                             threads=threads)
        return [(q, [(rows[r], score) for r, score in res])
                for q, res in zip(queries, found)]

    def pairs(self, threshold, metric="cosine", *, minInstructions=0,
              minBlocks=0, threads=0):
        """irtk-similarity pairs over this store: [(row a, row b, score)],
        a < b, best first; ``minInstructions`` and ``minBlocks`` leave out
        the rows of smaller functions."""
        from . import _ir2vec
        base, rows = self._searched(minInstructions, minBlocks)
        return [(rows[a], rows[b], score)
                for a, b, score in _ir2vec.pairs(base, base, True, threshold,
                                                 metric, threads=threads)]

    def _searched(self, min_instructions, min_blocks):
        """The matrix a search considers and the store's row of each of its
        rows."""
        if not (min_instructions or min_blocks):
            return self._matrix(), range(len(self))
        rows = self.sizeRows(min_instructions, min_blocks)
        return numpy.ascontiguousarray(self._matrix()[rows]), rows

    def __repr__(self):
        return (f"<ir2vec.Store {self.path!r}: {len(self)} {self.level} rows, "
                f"{self.kind}, dimension {self.dimension}>")

    def index(self, kind="ivf-flat", metric="cosine", path=None, *, lists=0,
              pqBytes=0, hnswLinks=32, trainRows=0, seed=1, threads=0):
        """Builds an approximate index of the vectors (irtk-similarity
        index: ``ivf-flat``, ``ivf-pq`` or ``hnsw``), writes it to ``path``
        (default: ``approx-<kind>-<metric>.index`` in the store's directory)
        and returns it as an Index. Raises StoreError when the options do
        not fit the store."""
        from . import _ir2vec
        if path is None:
            path = os.path.join(self.path, f"approx-{kind}-{metric}.index")
        checkNotAnInput(path, self.files())
        try:
            native = _ir2vec.ApproxIndex.build(
                self._matrix(), kind=kind, metric=metric, lists=lists,
                pqBytes=pqBytes, hnswLinks=hnswLinks, trainRows=trainRows,
                seed=seed, threads=threads)
            native.write(os.fspath(path))
        except ValueError as e:
            raise StoreError(f"{self.path}: {e}") from None
        return Index(self, native, os.fspath(path))

    def loadIndex(self, path):
        """Reads the index file ``path`` and checks that it was built from
        this store's vectors (a StoreError names the file and the reason
        when not, or when the file is truncated or corrupt)."""
        from . import _ir2vec
        path = os.fspath(path)
        try:
            native = _ir2vec.ApproxIndex.load(path)
            native.check(self._matrix(), path, self.path)
        except ValueError as e:
            raise StoreError(str(e)) from None
        return Index(self, native, path)

    def _matrix(self):
        return numpy.ascontiguousarray(self.vectors, dtype=numpy.float32)


class Index:
    """An approximate index of a store (Store.index, Store.loadIndex). Its
    candidates are scored exactly from the store's vectors: scores are
    exact, only the recall is approximate (docs/CommandGuide/
    irtk-similarity.md, "Approximate search")."""

    def __init__(self, store, native, path):
        self.store = store
        self.path = path
        self._native = native

    @property
    def info(self):
        """The index file's header: kind, metric, dimension, rows, indexed,
        store_checksum, lists, pq_bytes, hnsw_links, faiss."""
        return self._native.info

    @property
    def bytes(self):
        return self._native.bytes

    def topk(self, queries, k=10, *, nprobe=0, ef=0, rerank=0, exclude=None,
             threads=0):
        """For each row of ``queries`` (a vector or a 2-d array), the ``k``
        best rows of the store among the index's candidates, as a list of
        (row, score), best first. ``nprobe`` (ivf-*), ``ef`` (hnsw) and
        ``rerank`` are irtk-similarity topk's; ``exclude`` gives per query a
        row to leave out (-1: none). The arguments are checked as
        irtk-similarity checks its options (ValueError)."""
        _check_count("k", k, 1, 1000000)
        for name, value in (("nprobe", nprobe), ("ef", ef),
                            ("rerank", rerank)):
            _check_count(name, value, 1, 1 << 20, "the index's default")
        _check_count("threads", threads, 0, 4096)
        n = len(self.store)
        for e in exclude if exclude is not None else []:
            if isinstance(e, bool) or not isinstance(e, numbers.Integral):
                raise ValueError(f"exclude: {e!r} is not a row number")
            if e != -1 and not 0 <= e < n:
                raise ValueError(f"exclude: row {e} out of range: store "
                                 f"{self.store.path} has {n} rows")
        q = numpy.ascontiguousarray(queries, dtype=numpy.float32)
        if q.ndim == 1:
            q = q.reshape(1, -1)
        try:
            return self._native.search(
                q, self.store._matrix(), k=k, nprobe=nprobe, ef=ef,
                rerank=rerank,
                exclude=list(exclude if exclude is not None else []),
                threads=threads)
        except ValueError as e:
            raise StoreError(f"{self.path}: {e}") from None

    def __repr__(self):
        i = self.info
        return (f"<ir2vec.Index {self.path!r}: {i['kind']}, {i['metric']}, "
                f"{i['indexed']} rows>")


def loadStore(path):
    """Reads the store directory ``path``; raises StoreError (a ValueError)
    naming the file when it cannot."""
    return Store(path)
