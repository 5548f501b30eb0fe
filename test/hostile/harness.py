# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The harness of the hostile-input tables (docs/Reliability.md).

Each test_<class>.py holds one table: a row is one place in the inventory
where the class applies (a tool's subcommand and option, a plugin flag, a
Python call), written as a command line with placeholders. The harness
runs every row in a fresh directory, with a time limit (a hang fails the
row instead of the suite), and checks what every row of the class must
show: a non-zero exit, one error line naming the file and the problem,
and the files it names left as they were.

ctest sets the paths (test/hostile/CMakeLists.txt): IRTK_BIN (our tools),
IRTK_PLUGIN, IRTK_LLVM_TOOLS_DIR and PYTHONPATH (the build's ir2vec
package); in a sanitized build, LD_PRELOAD for the whole table, which the
plugin's hosts and the Python snippets inherit.
"""

import atexit
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
SOURCE_ROOT = HERE.parents[1]
INPUTS = SOURCE_ROOT / "test" / "Inputs"
# A row that does not end within this many seconds hangs.
TIMEOUT = 60 * float(os.environ.get("IRTK_TIMEOUT_SCALE", "1"))


def env_path(name):
    value = os.environ.get(name)
    if not value:
        raise SystemExit(f"{name} is not set; run this test through ctest")
    return value


def tool(name):
    """Our tool NAME in the build."""
    return os.path.join(env_path("IRTK_BIN"), name)


def llvm_tool(name):
    return os.path.join(env_path("IRTK_LLVM_TOOLS_DIR"), name)


def host(name):
    """An LLVM tool that loads the plugin."""
    return [llvm_tool(name)]


def plugin_opt(module, out, *flags):
    """opt -passes=default<Oz> with the plugin and FLAGS, from MODULE to
    OUT."""
    return host("opt") + ["-load-pass-plugin=" + env_path("IRTK_PLUGIN"),
                          "-passes=default<Oz>", *flags, module, "-o", out]


def plugin_llc(module, out, *flags):
    """llc with the plugin and FLAGS, from MODULE to OUT."""
    return host("llc") + ["-load-pass-plugin=" + env_path("IRTK_PLUGIN"),
                          *flags, module, "-o", out]


def store(path):
    """Makes a small store at PATH (llvm-ir2vec --format=npy, instruction
    rows of cfg.ll) with its default ivf-flat index beside its files."""
    check_call([tool("llvm-ir2vec"), "embeddings", "--format=npy",
                "--level=inst", "--ir2vec-vocab-path=" +
                str(INPUTS / "ids2d.json"), str(INPUTS / "cfg.ll"),
                "-o", str(path)])
    check_call([tool("irtk-similarity"), "index", "--store", str(path),
                "--lists", "1"])


def corpus(path):
    """Makes a one-module MLGO corpus at PATH (cfg.ll as bitcode,
    Oz-preopt/p/cfg)."""
    module = path / "Oz-preopt" / "p"
    module.mkdir(parents=True)
    check_call([llvm_tool("llvm-as"), str(INPUTS / "cfg.ll"), "-o",
                str(module / "cfg.bc")])
    (path / "corpus_description.json").write_text(
        '{"has_thinlto": false, "modules": ["Oz-preopt/p/cfg"]}\n')


def mlgo(*args):
    """python3 -m ir2vec.mlgo with ARGS, by the interpreter of these tests."""
    return [sys.executable, "-m", "ir2vec.mlgo", *args]


def python(code):
    """A Python snippet run by the interpreter of these tests, which must
    import the build's ir2vec; an exception is printed as one line
    ("<Type>: <message>") with exit status 1."""
    wrapped = (
        "import sys\n"
        "try:\n"
        + "".join("    " + line + "\n" for line in code.strip().splitlines())
        + "except Exception as e:\n"
        "    print(f'{type(e).__name__}: {e}', file=sys.stderr)\n"
        "    sys.exit(1)\n")
    return [sys.executable, "-c", wrapped]


class Result:
    def __init__(self, returncode, stdout, stderr, hung):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.hung = hung

    def error_lines(self):
        """stderr's lines, without the empty ones and LLVM's crash notes."""
        return [l for l in self.stderr.splitlines() if l.strip()]


def run(argv, cwd, stdin=subprocess.DEVNULL):
    """Runs ARGV in CWD with the time limit; a process that does not end
    is killed with its children and reported as hung."""
    proc = subprocess.Popen(argv, cwd=cwd, stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
        return Result(proc.returncode, out, err, False)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, err = proc.communicate()
        return Result(None, out, err, True)


def snapshot(paths):
    """The bytes of each path (None: absent; 'dir' for a directory)."""
    state = {}
    for p in paths:
        p = pathlib.Path(p)
        if p.is_dir():
            state[str(p)] = "dir"
        elif p.is_file():
            state[str(p)] = p.read_bytes()
        else:
            state[str(p)] = None
    return state


_FIXTURES = {}


def fixture(name, build):
    """The directory that BUILD(path) fills, made once per table run (the
    first row that asks for NAME) and shared by the rows, which copy it
    (Workdir.copy); removed at exit."""
    if name not in _FIXTURES:
        root = pathlib.Path(tempfile.mkdtemp(prefix="irtk-hostile-fixture-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        build(root / name)
        _FIXTURES[name] = root / name
    return _FIXTURES[name]


def check_call(argv):
    """Runs ARGV to make a fixture; a failure is the harness's."""
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=TIMEOUT)
    if r.returncode != 0:
        raise RuntimeError(f"{argv}: exit {r.returncode}: {r.stderr}")


class Workdir:
    """A fresh directory for one row, removed afterwards."""

    def __enter__(self):
        self.path = pathlib.Path(tempfile.mkdtemp(prefix="irtk-hostile-"))
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)

    def file(self, name):
        return str(self.path / name)

    def copy(self, source, name):
        """Copies SOURCE (a file, or a directory with everything under it)
        here as NAME; returns the new path."""
        dest = self.path / name
        if pathlib.Path(source).is_dir():
            shutil.copytree(source, dest)
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest)
        return str(dest)

    def files(self):
        """Every file under the directory, for snapshot()."""
        return sorted(str(p) for p in self.path.rglob("*") if p.is_file())


class TableTest(unittest.TestCase):
    """Base of the tables: subTest per row, so every failing row is
    reported, not only the first."""

    def check_refused(self, row, result, needles, unchanged_before=None,
                      unchanged_paths=()):
        where = f"{row}: exit {result.returncode}, stderr:\n{result.stderr}"
        self.assertFalse(result.hung, f"{row}: hung (killed after "
                         f"{TIMEOUT:.0f} s)")
        self.assertIsNotNone(result.returncode, where)
        self.assertNotEqual(result.returncode, 0, where)
        # Killed by a signal (an abort, out of memory) is not a refusal.
        self.assertGreater(result.returncode, 0, where)
        lines = result.error_lines()
        self.assertTrue(lines, where)
        last = lines[-1]
        for needle in needles:
            self.assertIn(needle, last, where)
        if unchanged_before is not None:
            self.assertEqual(snapshot(unchanged_paths), unchanged_before,
                             f"{row}: a named file changed\n{where}")
