# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Environments over an advisor's interactive policy: a Python policy
decides inside a real compile.

- ``InlineEnv``: clang with irtk's plugin, ``-irtk-inline-policy=
  interactive`` (the inliner of ``clang -Oz -c module.bc``);
- ``EvictionEnv``: llc with irtk's plugin, ``-irtk-evict-policy=
  interactive`` (the greedy register allocator of ``llc -O2
  -filetype=obj module.bc``).

They follow gymnasium's method names and return values without depending
on it: ``reset()`` gives ``(observation, info)``, ``step(action)`` gives
``(observation, reward, terminated, truncated, info)``. An episode is one
module's compile: the compiler runs as a subprocess and asks over the two
named pipes of LLVM's interactive protocol (docs/AdvisorModels.md); each
of its questions is an observation, a dict {feature: numpy array} named,
shaped and typed as the header the compiler sends says (the advisor's
feature table, docs/AdvisorFeatures.md, embeddings included).
``run(policy)`` plays a whole episode with ``policy(observation) ->
action`` and gives its summary.

The reward is 0 until the compile ends; then it is what the episode saved
against the same compile without irtk's policy: ``.text`` bytes for the
inliner (``-Oz``'s minus the episode's), RegAllocScore for eviction (stock
policy's minus the episode's, from the log the compiler writes; lower is
better, so a positive reward is better either way).

A compiler that exits with an error, dies or stays silent longer than
``timeout`` ends the episode with ``EnvError``, a one-line message naming
the module and what happened: every wait (for the pipes, for each message,
for the exit) has a deadline, and the compiler's process group is killed
when an episode is abandoned or the environment closed.
"""

import json
import math
import os
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

from . import objective
from .corpus import Corpus
from .engine import _first_line, _Stage
from .log import Spec
from .policy import advisor_info
from .toolchain import Toolchain

DEFAULT_TIMEOUT = 60.0
# The compiler in a process group of its own (so that closing kills its
# children too), in the caller's session (and so its scheduling group).
_OWN_GROUP = {"process_group": 0} if sys.version_info >= (3, 11) else \
    {"preexec_fn": os.setpgrp}


class EnvError(RuntimeError):
    """An episode that cannot go on: one line naming the module."""


class Discrete:
    """An action space of ``n`` choices (0 to n-1); ``mask``, when set, is
    the observation's feature whose nonzero elements are the legal ones
    (any other answer is not carried out: stock's is taken), ``default``
    the feature holding the compiler's own choice."""

    def __init__(self, n, dtype, default, mask=None):
        self.n, self.dtype = n, np.dtype(dtype)
        self.default, self.mask = default, mask

    def contains(self, action):
        return isinstance(action, (int, np.integer)) and 0 <= action < self.n

    def __repr__(self):
        mask = f", mask={self.mask!r}" if self.mask else ""
        return f"Discrete({self.n}, default={self.default!r}{mask})"


class _Channel:
    """The host's end of one compile: the process, its two pipes (made in
    a fresh directory) and a buffered, deadline-bounded reader of
    ``<base>.out``."""

    def __init__(self, base, argv, stderr_path, timeout):
        self.base, self.timeout = base, timeout
        for suffix in (".in", ".out"):
            os.mkfifo(base + suffix)
        # The read end opens at once; the compiler's write end then opens
        # without waiting for us.
        self.out_fd = os.open(base + ".out", os.O_RDONLY | os.O_NONBLOCK)
        self.in_fd = None
        self.buf, self.pos, self.seen_writer = bytearray(), 0, False
        self.proc = self.pidfd = None
        try:
            with open(stderr_path, "wb") as err:
                self.proc = subprocess.Popen(
                    argv, stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL, stderr=err, **_OWN_GROUP)
        except OSError:
            self.close()
            raise
        self.poller = select.poll()
        self.poller.register(self.out_fd, select.POLLIN)
        try:  # wakes the poll when the compiler exits
            self.pidfd = os.pidfd_open(self.proc.pid)
            self.poller.register(self.pidfd, select.POLLIN)
        except (AttributeError, OSError):
            self.pidfd = None

    def _read_now(self):
        """Bytes, b"" (no writer: not yet, or gone), or None (none yet)."""
        try:
            return os.read(self.out_fd, 1 << 16)
        except BlockingIOError:
            return None

    def _more(self, what):
        """Reads what the compiler wrote next; False at the end of the
        channel (the compiler closed it or exited)."""
        deadline = time.monotonic() + self.timeout
        while True:
            data = self._read_now()
            if data:
                if self.pos:
                    del self.buf[:self.pos]
                    self.pos = 0
                self.buf += data
                self.seen_writer = True
                return True
            if data == b"" and self.seen_writer:
                return False
            if self.proc.poll() is not None:
                data = self._read_now()
                if data:
                    continue
                return False
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"the compiler sent nothing for "
                                   f"{self.timeout:g} s (waiting for {what})")
            slice_ = left if self.pidfd is not None else min(left, 0.05)
            self.poller.poll(max(1, math.ceil(slice_ * 1000)))

    def line(self, what):
        """The next line (with its newline), or b"" at the end."""
        while True:
            end = self.buf.find(b"\n", self.pos)
            if end >= 0:
                out = bytes(self.buf[self.pos:end + 1])
                self.pos = end + 1
                return out
            if not self._more(what):
                return b""

    def exactly(self, n, what):
        """The next n bytes, or None when the channel ends first."""
        while len(self.buf) - self.pos < n:
            if not self._more(what):
                return None
        out = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        return out

    def answer(self, raw):
        """Writes an answer; False when the compiler no longer reads."""
        try:
            if self.in_fd is None:
                # The compiler opens <base>.in before it writes the header.
                self.in_fd = os.open(self.base + ".in",
                                     os.O_WRONLY | os.O_NONBLOCK)
            return os.write(self.in_fd, raw) == len(raw)
        except OSError:  # ENXIO, EPIPE, EAGAIN: it is not reading
            return False

    def wait(self):
        """The compiler's exit status; TimeoutError if it does not exit."""
        if self.pidfd is not None:  # Popen.wait(timeout) polls with sleeps
            select.select([self.pidfd], [], [], self.timeout)
        try:
            return self.proc.wait(timeout=0 if self.pidfd else self.timeout)
        except subprocess.TimeoutExpired:
            raise TimeoutError(f"the compiler did not exit within "
                               f"{self.timeout:g} s after its channel "
                               "closed") from None

    def close(self):
        """Kills the compiler's process group unless the compiler ended
        well (what a crashed one started may still run), closes and
        removes the pipes."""
        if self.proc is not None and self.proc.returncode != 0:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.wait()
        for fd in (self.out_fd, self.in_fd, self.pidfd):
            if fd is not None:
                os.close(fd)
        self.out_fd = self.in_fd = self.pidfd = None
        for suffix in (".in", ".out"):
            try:
                os.remove(self.base + suffix)
            except FileNotFoundError:
                pass


def _modules(modules):
    """[(name, path)] of a Corpus, a path, or paths / (name, path) pairs."""
    if isinstance(modules, Corpus):
        return [(m, modules.bitcode(m)) for m in modules]
    if isinstance(modules, (str, os.PathLike)):
        modules = [modules]
    out = []
    for m in modules:
        name, path = (m, m) if isinstance(m, (str, os.PathLike)) else m
        out.append((str(name), os.fspath(path)))
    if not out:
        raise ValueError("an environment needs at least one module")
    return out


def _status(rc):
    if rc < 0:
        try:
            return f"was killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"was killed by signal {-rc}"
    return f"failed (exit status {rc})"


class _AdvisorEnv:
    """What both environments share; subclasses give the commands and the
    measure (``_argv``, ``_baseline``, ``_measure``)."""

    advisor = None
    level = None

    def __init__(self, modules, tools=None, flags=(), options=(),
                 level=None, target="", timeout=DEFAULT_TIMEOUT,
                 workdir=None):
        if timeout <= 0:
            raise ValueError("the timeout must be positive")
        self.modules = _modules(modules)
        self.tools = tools or Toolchain()
        self.flags, self.options = list(flags), list(options)
        self.level = level or self.level
        self.target, self.timeout = target, float(timeout)
        self._own_workdir = workdir is None
        self.workdir = os.path.abspath(
            workdir or tempfile.mkdtemp(prefix=f"irtk-{self.advisor}-env-"))
        os.makedirs(self.workdir, exist_ok=True)
        info = advisor_info(self.advisor)
        self._default, self._mask = info["default"], info.get("mask")
        self._output = info["output"]
        self.observation_space = None  # from the first header
        self.action_space = None
        self._baselines = {}
        self._rng, self._next_module = None, 0
        self._channel = None

    # gymnasium's interface

    def reset(self, *, seed=None, options=None):
        """Starts the compile of a module and returns its first question:
        ``(observation, info)``. The module is ``options["module"]`` (a
        name or a path of the environment's modules), else the next one
        in order, or at random once a ``seed`` was given. A module where
        the advisor asks nothing ends at once: the observation is None and
        ``info["episode"]`` is its summary."""
        self._abandon()
        if seed is not None:
            self._rng = random.Random(seed)
        name, path = self._pick((options or {}).get("module"))
        self._name, self._path = name, path
        stem = re.sub(r"[^\w.-]", "_", name.strip("/"))
        self._object = os.path.join(self.workdir, "objects", stem + ".o")
        os.makedirs(os.path.dirname(self._object), exist_ok=True)
        chdir = tempfile.mkdtemp(prefix="ch", dir=self.workdir)
        self._files = {"dir": chdir, "err": os.path.join(chdir, "stderr"),
                       "log": os.path.join(chdir, "episode.log")}
        if os.path.exists(self._object):
            os.remove(self._object)
        self._decisions, self._context, self._obs = 0, "", None
        self._start = time.monotonic()
        argv = self._argv(path, self._object,
                          os.path.join(chdir, "ch"), self._files["log"])
        try:
            self._channel = _Channel(os.path.join(chdir, "ch"), argv,
                                     self._files["err"], self.timeout)
        except OSError as e:
            shutil.rmtree(chdir, ignore_errors=True)
            raise EnvError(f"{name}: cannot start {argv[0]}: "
                           f"{e.strerror or e}") from None
        header = self._guard(lambda: self._channel.line("the header"))
        if not header:
            return None, {"episode": self._end()}
        self._read_header(header)
        self._obs = self._guard(self._next)
        if self._obs is None:
            return None, {"episode": self._end()}
        return self._obs, {"module": name, "context": self._context}

    def step(self, action):
        """Answers the current question with ``action`` and returns
        ``(observation, reward, terminated, truncated, info)``: the next
        question, or, once the compile has ended, the last observation
        again, the episode's reward, terminated True and
        ``info["episode"]``, its summary."""
        if self._channel is None:
            raise EnvError("step() outside an episode: call reset() first")
        raw = np.asarray(action, dtype=self._advice.dtype).reshape(-1)
        if raw.size != 1:
            raise ValueError(f"an action is one number, not {action!r}")
        self._decisions += 1
        if not self._channel.answer(raw.tobytes()):
            self._fail_from_exit("stopped reading answers")
        obs = self._guard(self._next)
        if obs is None:
            episode = self._end()
            return self._obs, episode["reward"], True, False, \
                {"episode": episode}
        self._obs = obs
        return obs, 0.0, False, False, {"module": self._name,
                                        "context": self._context}

    def run(self, policy, module=None):
        """Compiles a module (``module``, else the next one) with
        ``policy(observation) -> action`` and returns the episode's
        summary: module, decisions, reward, text (the object's ``.text``
        bytes), baseline_text, object (its path), seconds and the
        compiler's warnings (an answer that is not a legal choice is
        counted there)."""
        obs, info = self.reset(options={"module": module} if module else None)
        while "episode" not in info:
            obs, _, _, _, info = self.step(policy(obs))
        return info["episode"]

    def close(self):
        """Stops a running compile and removes the work directory if the
        environment made it."""
        self._abandon()
        if self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def compiler_pid(self):
        """The running compiler's process id (None between episodes)."""
        return self._channel.proc.pid if self._channel else None

    def baseline(self, module):
        """The measures of the same compile without irtk's policy, for the
        module of that name or path (computed once)."""
        name, path = self._find(module)
        if path not in self._baselines:
            self._baselines[path] = self._baseline(name, path)
        return self._baselines[path]

    # The episode

    def _pick(self, module):
        if module is not None:
            return self._find(module)
        if self._rng is not None:
            return self._rng.choice(self.modules)
        m = self.modules[self._next_module % len(self.modules)]
        self._next_module += 1
        return m

    def _find(self, module):
        for name, path in self.modules:
            if module in (name, path):
                return name, path
        raise ValueError(f"{module}: not one of the environment's modules")

    def _read_header(self, line):
        try:
            header = json.loads(line)
            self._specs = [Spec(d) for d in header["features"]]
            self._advice = Spec(header["advice"])
        except (ValueError, KeyError, TypeError) as e:
            self._fail(f"sent a header that does not read: {e}")
        self._size = sum(s.size for s in self._specs)
        self.observation_space = {s.name: (s.shape, s.dtype)
                                  for s in self._specs}
        if self._output == "logit":
            n = 2
        elif self._mask in self.observation_space:
            n = math.prod(self.observation_space[self._mask][0])
        else:
            self._fail(f"sent no '{self._mask}' feature")
        self.action_space = Discrete(n, self._advice.dtype, self._default,
                                     self._mask)

    def _next(self):
        """The next observation, or None when the compile is done."""
        what = f"question {self._decisions}"
        while True:
            line = self._channel.line(what)
            if not line:
                return None
            if not line.startswith(b'{"observation":'):
                event = json.loads(line)
                if "context" not in event:
                    raise ValueError(f"unexpected {line[:80]!r}")
                self._context = event["context"]
                continue
            raw = self._channel.exactly(self._size + 1, what)
            if raw is None:
                self._fail_from_exit("closed its channel mid-message")
            obs, at = {}, 0
            for s in self._specs:  # read-only views of raw
                obs[s.name] = np.ndarray(s.shape, s.dtype, raw, at)
                at += s.size
            return obs

    def _guard(self, fn):
        try:
            return fn()
        except TimeoutError as e:
            self._fail(str(e))
        except ValueError as e:  # a line that is not JSON
            self._fail(f"sent something that does not read: {e}")

    def _fail(self, what):
        """Ends the episode (killing the compiler) with EnvError."""
        decisions = self._decisions
        self._abandon()
        raise EnvError(f"{self._name}: {what} (after {decisions} "
                       f"decision{'s' if decisions != 1 else ''})")

    def _fail_from_exit(self, what):
        """The compiler stopped talking: says how it ended."""
        try:
            rc = self._channel.wait()
        except TimeoutError as e:
            self._fail(f"the compiler {what}; {e}")
        if rc != 0:
            self._fail(f"the compiler {_status(rc)}{self._stderr_line()}")
        self._fail(f"the compiler {what}")

    def _stderr_line(self):
        """": <the compiler's first error line>", or "" if it said nothing."""
        try:
            with open(self._files["err"], errors="replace") as f:
                text = f.read()
        except OSError:
            return ""
        return ": " + _first_line(text) if text.strip() else ""

    def _end(self):
        """The compile is done: its exit, measures and summary."""
        try:
            rc = self._channel.wait()
        except TimeoutError as e:
            self._fail(str(e))
        if rc != 0:
            self._fail(f"the compiler {_status(rc)}{self._stderr_line()}")
        if not os.path.exists(self._object):
            self._fail("the compiler wrote no object")
        seconds = time.monotonic() - self._start
        with open(self._files["err"], errors="replace") as f:
            warnings = [ln.strip() for ln in f if "warning" in ln]
        try:
            episode = self._measure(self._object, self._files["log"])
            base = self.baseline(self._path)
        except (objective.MeasureError, OSError, ValueError) as e:
            self._fail(f"cannot measure the episode: {e}")
        episode.update(module=self._name, decisions=self._decisions,
                       object=self._object, seconds=round(seconds, 4),
                       warnings=warnings)
        self._reward(episode, base)
        self._abandon()
        return episode

    def _abandon(self):
        if self._channel is not None:
            self._channel.close()
            shutil.rmtree(self._files["dir"], ignore_errors=True)
            self._channel = None

    def _run_baseline(self, name, argv, obj):
        """Runs a baseline compile, bounded by the timeout."""
        status, error, _ = _Stage("baseline", argv, self.timeout).run()
        if status == "ok" and not os.path.exists(obj):
            status, error = "failed", "no object written"
        if status != "ok":
            raise EnvError(f"{name}: the baseline compile {status}: {error}")


class InlineEnv(_AdvisorEnv):
    """The inliner of ``clang -<level> -c module.bc`` (``-Oz`` by default)
    with irtk's interactive inline policy. ``modules`` is a ``Corpus``, a
    bitcode path, or a list of paths or (name, path) pairs; ``flags`` go
    to clang (and to the baseline compile), ``options`` are the plugin's
    own (``-irtk-inline-embedding=none``), given to clang with
    ``-mllvm``. Observations: the inline advisor's features; actions: 1
    to inline, 0 not to. The reward at the end: the baseline's ``.text``
    (the same clang command without the plugin) minus the episode's."""

    advisor = "inline"
    level = "Oz"

    def _clang(self, path, obj):
        return ([self.tools.clang, "-" + self.level, "-c", path, "-o", obj] +
                (["--target=" + self.target] if self.target else []) +
                self.flags)

    def _argv(self, path, obj, channel, log):
        plugin = ["-irtk-inline-policy=interactive",
                  f"-irtk-inline-channel={channel}",
                  f"-irtk-inline-channel-timeout={math.ceil(self.timeout)}"]
        argv = self._clang(path, obj) + ["-fpass-plugin=" + self.tools.plugin]
        for o in plugin + self.options:
            argv += ["-mllvm", o]
        return argv

    def _baseline(self, name, path):
        obj = os.path.join(self.workdir, "baseline.o")
        self._run_baseline(name, self._clang(path, obj), obj)
        text = objective.text_size(obj, self.tools)
        os.remove(obj)
        return {"text": text}

    def _measure(self, obj, log):
        return {"text": objective.text_size(obj, self.tools)}

    def _reward(self, episode, base):
        episode["baseline_text"] = base["text"]
        episode["reward"] = float(base["text"] - episode["text"])


class EvictionEnv(_AdvisorEnv):
    """The greedy register allocator of ``llc -<level> -filetype=obj
    module`` (``-O2`` by default; the module is IR or bitcode, usually
    optimised) with irtk's interactive eviction policy. ``flags`` go to
    llc (and to the baseline compile), ``options`` are the plugin's own
    (``-irtk-evict-embeddings=false``). Observations: the eviction
    advisor's features, one question per eviction (``info["context"]`` is
    the function); actions: the position to evict for (0-31, 32 for
    none), among those ``evictable`` marks. The reward at the end: the
    RegAllocScore of the stock policy minus the episode's (the sum over
    functions of what ``-irtk-evict-log`` records); the summary also has
    both ``.text`` sizes."""

    advisor = "evict"
    level = "O2"

    def _llc(self, path, obj, policy, log):
        return ([self.tools.llc, "-" + self.level, "-filetype=obj", path,
                 "-o", obj] +
                (["-mtriple=" + self.target] if self.target else []) +
                self.flags + ["-load-pass-plugin=" + self.tools.plugin,
                              f"-irtk-evict-policy={policy}",
                              f"-irtk-evict-log={log}"] + self.options)

    def _argv(self, path, obj, channel, log):
        return self._llc(path, obj, "interactive", log) + [
            f"-irtk-evict-channel={channel}",
            f"-irtk-evict-channel-timeout={math.ceil(self.timeout)}"]

    def _baseline(self, name, path):
        obj = os.path.join(self.workdir, "baseline.o")
        log = os.path.join(self.workdir, "baseline.log")
        self._run_baseline(name, self._llc(path, obj, "default", log), obj)
        out = self._measure(obj, log)
        os.remove(obj)
        os.remove(log)
        return out

    def _measure(self, obj, log):
        return {"text": objective.text_size(obj, self.tools),
                "score": objective.regalloc_score(log)}

    def _reward(self, episode, base):
        episode["baseline_text"] = base["text"]
        episode["baseline_score"] = base["score"]
        episode["reward"] = base["score"] - episode["score"]
