# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Real programs built from their Debian sources (as
vocab/recipe/build-corpus.sh fetched them) with a policy's compiler flags,
and judged by what they do.

``programs`` (the held-out packages, for size policies): builds each
package's libraries, tools and tests with ``clang-22 -Oz FLAGS EXTRA -c``
(EXTRA goes to every compile, never to a link: the libraries are static
archives, links are ``clang-22 -o prog objects archives -lm``), runs the
package's own tests and writes, per package, ``<out>/<package>/{obj,lib,
bin}/``, ``build.log``, ``test.log`` and a line of ``<out>/summary.tsv``:
package, build (ok/failed), tests (passed/failed/-), tests passed, run, and
the summed ``.text*`` bytes of its objects (``llvm-size -A``). Every run
starts from an empty ``<out>/<package>``; a failed build or test fails the
command after every package ran.

  cjson    libcjson, libcjson_utils, Unity; the 18 Unity tests and 3
           cJSON_Utils tests of tests/CMakeLists.txt, run beside copies of
           tests/inputs and tests/json-patch-tests; test.c as a smoke test
  giflib   libgif, libutil, the 14 utilities; the 10 groups of
           tests/makefile's `test` target, one make target at a time
  tinyxml2 (C++17) libtinyxml2 and xmltest beside a copy of resources/; its
           last "Pass N, Fail M" line counts
  double-conversion
           (C++17) the library and cctest (with the gay-*.cc tables the
           corpus leaves out), run once per group of
           test/cctest/CMakeLists.txt (9)

``workloads`` (for eviction policies): builds lua 5.4, bzip2 and zstd with
``clang-22 -O2 -w EXTRA -c`` into ``<out>/<name>/`` and runs their
workloads under ``valgrind --tool=callgrind`` (instruction counts are
deterministic on a shared machine, times are not; lua gets a fixed hash
seed, and each workload runs in the build's directory with relative paths
and a fixed environment, so two builds of the same objects count the same
to a few instructions): lua runs
data/evict-workload.lua; bzip2 (-9) and zstd (-3, one thread) compress and
decompress 2 MB of the three packages' sources. ``<out>/<name>/counts.tsv``
holds program, workload, instructions and the SHA-256 (16 digits) of the
output, which must be the same for every build. Only what is missing is
built and run again.
"""

import concurrent.futures
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

from .debcorpus import log, multiarch, srcdir
from .engine import write_atomically
from .objective import text_size


class ProgramError(Exception):
    pass


def _glob(pattern):
    return sorted(glob.glob(pattern))


def compile_env():
    """The compiles' environment: __DATE__ and __TIME__ fixed (to
    SOURCE_DATE_EPOCH, 0 unless set), so that two builds' objects compare."""
    return {**os.environ,
            "SOURCE_DATE_EPOCH": os.environ.get("SOURCE_DATE_EPOCH", "0")}


def _object_name(path):
    name = os.path.basename(path)
    for ext in (".c", ".cpp"):
        name = name[:-len(ext)] if name.endswith(ext) else name
    return name + ".o"


class Build:
    """One package's compiles, archives and links, their output in a log."""

    def __init__(self, tools, level, extra, jobs, log_path, cwd):
        self.tools, self.level, self.extra = tools, level, extra
        self.jobs, self.log, self.cwd = jobs, log_path, cwd
        self.env = compile_env()

    def _run(self, argv):
        with open(self.log, "a") as f:
            return subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT,
                                  cwd=self.cwd, env=self.env
                                  ).returncode == 0

    def compile(self, obj, flags, files):
        """An object per file in obj (named after it); False when any
        compile fails."""
        os.makedirs(obj, exist_ok=True)
        argv = [[self.tools.clang, self.level, *flags, *self.extra, "-c", f,
                 "-o", os.path.join(obj, _object_name(f))] for f in files]
        with concurrent.futures.ThreadPoolExecutor(self.jobs) as pool:
            return all(list(pool.map(self._run, argv)))

    def archive(self, out, objects):
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if os.path.exists(out):
            os.remove(out)
        return self._run([self.tools.llvm_ar, "rcs", out, *objects])

    def link(self, out, objects, cxx=False):
        return self._run([self.tools.clang, "-o", out, *objects,
                          *(["-lstdc++"] if cxx else []), "-lm"])


def run_test(test_log, name, argv, cwd, timeout, ok=None):
    """Runs one test, its output in test_log; (passed, output)."""
    try:
        p = subprocess.run(argv, cwd=cwd, capture_output=True, timeout=timeout)
        out = (p.stdout + p.stderr).decode(errors="replace")
        passed = p.returncode == 0 and (ok is None or ok(out))
    except subprocess.TimeoutExpired:
        out, passed = f"timed out after {timeout} s\n", False
    with open(test_log, "a") as f:
        f.write(f"=== {name}\n{out}")
        if not passed:
            f.write(f"*** {name} failed\n")
    return passed, out


# --- The held-out packages: (build, test) each --------------------------------
CJSON_TESTS = """parse_examples parse_number parse_hex4 parse_string parse_array
  parse_object parse_value print_string print_number print_array print_object
  print_value misc_tests parse_with_opts compare_tests cjson_add
  readme_examples minify_tests""".split()
CJSON_UTILS_TESTS = "json_patch_tests old_utils_tests misc_utils_tests".split()


def build_cjson(b, s, d):
    tests = CJSON_TESTS + CJSON_UTILS_TESTS
    o, lib = f"{d}/obj", f"{d}/lib"
    if not b.compile(o, [f"-I{s}", f"-I{s}/tests", f"-I{s}/tests/unity/src"],
                     [f"{s}/cJSON.c", f"{s}/cJSON_Utils.c",
                      f"{s}/tests/unity/src/unity.c", f"{s}/test.c"]
                     + [f"{s}/tests/{t}.c" for t in tests]):
        return False
    # The tests include cJSON.c (tests/common.h) and link the libraries as
    # CMake does: archives, so that cJSON.o is only taken where needed.
    cjson, utils, unity = (f"{lib}/libcjson.a", f"{lib}/libcjson_utils.a",
                           f"{lib}/libunity.a")
    return (b.archive(cjson, [f"{o}/cJSON.o"])
            and b.archive(utils, [f"{o}/cJSON_Utils.o"])
            and b.archive(unity, [f"{o}/unity.o"])
            and all(b.link(f"{d}/bin/{t}", [f"{o}/{t}.o", cjson, unity])
                    for t in CJSON_TESTS)
            and all(b.link(f"{d}/bin/{t}", [f"{o}/{t}.o", utils, cjson, unity])
                    for t in CJSON_UTILS_TESTS)
            and b.link(f"{d}/bin/cJSON_test", [f"{o}/test.o", cjson]))


def test_cjson(s, d, test_log):
    run = f"{d}/run"
    for x in ("inputs", "json-patch-tests"):
        shutil.copytree(f"{s}/tests/{x}", f"{run}/{x}")
    names = CJSON_TESTS + CJSON_UTILS_TESTS + ["cJSON_test"]
    return [run_test(test_log, t, [f"{d}/bin/{t}"], run, 120)[0]
            for t in names]


GIF_LIB = """dgif_lib egif_lib gifalloc gif_err gif_font gif_hash
  openbsd-reallocarray quantize""".split()
GIF_UTIL = ["qprintf", "getarg"]
GIF_TOOLS = """gif2rgb gifbuild giffix giftext giftool gifclrmp gifbg gifcolor
  gifecho giffilter gifhisto gifinto gifsponge gifwedge""".split()
# The prerequisites of tests/makefile's `test` target.
GIF_TESTS = """render-regress gifbuild-regress gifclrmp-regress
  gifecho-regress giffilter-regress giffix-regress gifsponge-regress
  giftext-regress giftool-regress gifwedge-regress""".split()


def build_giflib(b, s, d):
    o = f"{d}/obj"
    if not b.compile(o, [f"-I{s}"], [f"{n}.c" for n in
                                     GIF_LIB + GIF_UTIL + GIF_TOOLS]):
        return False
    gif, util = f"{d}/lib/libgif.a", f"{d}/lib/libutil.a"
    # The utilities live in <dir>/, next to tests/ and pic/ (tests/makefile's
    # UTILS = .. and PICS = ../pic).
    return (b.archive(gif, [f"{o}/{n}.o" for n in GIF_LIB])
            and b.archive(util, [f"{o}/{n}.o" for n in GIF_UTIL])
            and all(b.link(f"{d}/{t}", [f"{o}/{t}.o", util, gif])
                    for t in GIF_TOOLS))


def test_giflib(s, d, test_log):
    for x in ("tests", "pic"):
        shutil.copytree(f"{s}/{x}", f"{d}/{x}")
    # One make target per test group, so that one failure hides no other.
    return [run_test(test_log, g, ["make", "-s", "-C", f"{d}/tests", g], d,
                     300)[0] for g in GIF_TESTS]


def build_tinyxml2(b, s, d):
    o = f"{d}/obj"
    return (b.compile(o, ["-std=c++17", f"-I{s}"],
                      [f"{s}/tinyxml2.cpp", f"{s}/xmltest.cpp"])
            and b.archive(f"{d}/lib/libtinyxml2.a", [f"{o}/tinyxml2.o"])
            and b.link(f"{d}/bin/xmltest",
                       [f"{o}/xmltest.o", f"{d}/lib/libtinyxml2.a"], cxx=True))


def test_tinyxml2(s, d, test_log):
    run = f"{d}/run"
    shutil.copytree(f"{s}/resources", f"{run}/resources")
    os.makedirs(f"{run}/resources/out", exist_ok=True)
    _, out = run_test(test_log, "xmltest", [f"{d}/bin/xmltest"], run, 300)
    counts = re.findall(r"^Pass (\d+), Fail (\d+)$", out, re.M)
    passed, failed = map(int, counts[-1]) if counts else (0, 1)
    return [True] * passed + [False] * failed


# The cctest groups of test/cctest/CMakeLists.txt, one run of cctest each.
DC_TESTS = """test-bignum test-bignum-dtoa test-conversions test-diy-fp
  test-dtoa test-fast-dtoa test-fixed-dtoa test-ieee test-strtod""".split()


def build_double_conversion(b, s, d):
    lib, test = (_glob(f"{s}/double-conversion/*.cc"),
                 _glob(f"{s}/test/cctest/*.cc"))
    # One object directory (the .text total reads it), named after the files.
    o = f"{d}/obj"
    a = f"{d}/lib/libdouble-conversion.a"
    return (b.compile(o, ["-std=c++17", f"-I{s}", f"-I{s}/test/cctest"],
                      lib + test)
            and b.archive(a, [f"{o}/{_object_name(f)}" for f in lib])
            and b.link(f"{d}/bin/cctest",
                       [f"{o}/{_object_name(f)}" for f in test] + [a],
                       cxx=True))


def test_double_conversion(s, d, test_log):
    # A failed CHECK aborts; a group that ran nothing is a failure too.
    return [run_test(test_log, t, [f"{d}/bin/cctest", t], d, 300,
                     lambda out: not re.search(r"^Ran 0 tests", out, re.M))[0]
            for t in DC_TESTS]


PACKAGES = {"cjson": (build_cjson, test_cjson),
            "giflib": (build_giflib, test_giflib),
            "tinyxml2": (build_tinyxml2, test_tinyxml2),
            "double-conversion": (build_double_conversion,
                                  test_double_conversion)}


def _table(rows):
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
                   + "\n" for r in rows)


def programs(tools, out, src, packages, extra, jobs):
    """Builds and tests the held-out packages; 0 when all passed."""
    for p in packages:
        if p not in PACKAGES:
            raise ProgramError(f"unknown package '{p}' ({', '.join(PACKAGES)})")
    roots = {p: srcdir(src, p) for p in packages}
    for p, root in roots.items():
        if not root:
            raise ProgramError(f"{src}: no sources of {p}")
    os.makedirs(out, exist_ok=True)
    out = os.path.abspath(out)
    version = subprocess.run([tools.clang, "--version"], capture_output=True,
                             text=True).stdout.splitlines()[:1]
    write_atomically(f"{out}/compiler", "".join(v + "\n" for v in version))
    write_atomically(f"{out}/extra-cflags", "\n".join(extra) + "\n")
    rows, status = [["package", "build", "tests", "passed", "run",
                     "text_bytes"]], 0
    for p in packages:
        s, d = os.path.abspath(roots[p]), f"{out}/{p}"
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(f"{d}/bin")
        build_log, test_log = f"{d}/build.log", f"{d}/test.log"
        open(build_log, "w").close()
        open(test_log, "w").close()
        log(f"{p}: building from {s} (-Oz {' '.join(extra)})", "programs")
        build, test = PACKAGES[p]
        row = [p, "ok", "-", "0", "0", "0"]
        if build(Build(tools, "-Oz", extra, jobs, build_log, s), s, d):
            text = sum(text_size(o, tools) for o in _glob(f"{d}/obj/*.o"))
            results = test(s, d, test_log)
            ok = results and all(results)
            status |= not ok
            row[2:] = ["passed" if ok else "failed", str(sum(results)),
                       str(len(results)), str(text)]
            log(f"{p}: built (.text of the objects: {text} bytes);"
                f" tests: {sum(results)} of {len(results)} passed (log: "
                f"{test_log})", "programs")
        else:
            row[1], status = "failed", 1
            log(f"{p}: build failed (log: {build_log})", "programs")
        rows.append(row)
        write_atomically(f"{out}/summary.tsv",
                         "".join("\t".join(r) + "\n" for r in rows))
    print(_table(rows), end="", file=sys.stderr)
    return status


# --- The eviction workloads ---------------------------------------------------
WORKLOAD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                        "evict-workload.lua")
INPUT_BYTES = 2000000


def _workload_sources(src, gen):
    """{program: (flags, sources)}, and the three source roots."""
    roots = {p: srcdir(src, p) for p in ("lua5.4", "bzip2", "libzstd")}
    if not all(roots.values()):
        raise ProgramError(f"{src}: no lua5.4, bzip2 or libzstd sources")
    lua, bz, zs = (roots[p] for p in ("lua5.4", "bzip2", "libzstd"))
    zstd_programs = [f for f in _glob(f"{zs}/programs/*.c") if not re.search(
        "benchzstd|datagen|benchfn|zstdcli_trace", os.path.basename(f))]
    return {
        # lua seeds its string hashes from the time and addresses, which
        # moves its count by about 1% from run to run: a fixed seed.
        "lua": (["-DLUA_COMPAT_5_3", "-DLUA_USE_LINUX", f"-I{gen}",
                 "-Dluai_makeseed(L)=0"],
                [f for f in _glob(f"{lua}/src/*.c")
                 if os.path.basename(f) != "luac.c"]),
        "bzip2": (["-D_FILE_OFFSET_BITS=64"],
                  [f"{bz}/{n}.c" for n in ("blocksort", "huffman", "crctable",
                                           "randtable", "compress",
                                           "decompress", "bzlib", "bzip2")]),
        "zstd": (["-DZSTD_DISABLE_ASM", "-DZSTD_LEGACY_SUPPORT=0",
                  "-DZSTD_NOBENCH", "-DZSTD_NOTRACE", f"-I{zs}/lib",
                  f"-I{zs}/lib/common"],
                 [f for sub in ("common", "compress", "decompress",
                                "dictBuilder")
                  for f in _glob(f"{zs}/lib/{sub}/*.c")] + zstd_programs),
    }, (lua, bz, zs)


def _compile_kept(tools, extra, env, obj, flags, source):
    """One object, kept when it exists (it is written by a rename)."""
    if os.path.exists(obj) and os.path.getsize(obj):
        return None
    os.makedirs(os.path.dirname(obj), exist_ok=True)
    p = subprocess.run([tools.clang, "-O2", "-w", *flags, *extra, "-c", "-o",
                        obj + ".tmp.o", source], capture_output=True, text=True,
                       env=env)
    if p.returncode:
        return f"compiling {source} failed:\n" + "".join(
            p.stderr.splitlines(True)[:5])
    os.replace(obj + ".tmp.o", obj)
    return None


def _count(tools, d, program, workload, argv, input_path):
    counts = f"{d}/counts.tsv"
    if os.path.exists(counts):
        with open(counts) as f:
            if any(line.startswith(f"{program}\t{workload}\t") for line in f):
                return
    # In d, with relative paths and a fixed environment: what the program
    # sees on its stack is the same for every build, so two builds of the
    # same objects count the same.
    with tempfile.TemporaryDirectory() as t, open(input_path, "rb") as i:
        p = subprocess.run([shutil.which("valgrind"), "--tool=callgrind",
                            f"--callgrind-out-file={t}/cg", *argv], stdin=i,
                           capture_output=True, cwd=d,
                           env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
    err = p.stderr.decode(errors="replace")
    if p.returncode:
        raise ProgramError(f"{program} {workload} failed: "
                           + " / ".join(err.splitlines()[-3:]))
    n = re.search(r"Collected : (\d+)", err)
    digest = hashlib.sha256(p.stdout).hexdigest()[:16]
    with open(counts, "a") as f:
        f.write(f"{program}\t{workload}\t{n.group(1) if n else ''}\t"
                f"{digest}\n")


def workloads(tools, out, name, src, extra, jobs):
    """Builds the three programs into out/name and counts their workloads;
    prints counts.tsv."""
    d = os.path.abspath(os.path.join(out, name))
    gen = f"{d}/gen"
    table, (lua, bz, zs) = _workload_sources(src, gen)
    if not shutil.which("valgrind"):
        raise ProgramError("valgrind is needed (Debian package valgrind)")
    os.makedirs(gen, exist_ok=True)
    # Debian's lua patches include a header its rules file writes.
    write_atomically(f"{gen}/lua5.4-deb-multiarch.h",
                     f'#define DEB_HOST_MULTIARCH "{multiarch()}"\n')
    jobs_list = [(f"{d}/obj/{p}/{_object_name(f)}", flags, f)
                 for p, (flags, files) in table.items() for f in files]
    env = compile_env()
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        errors = [e for e in pool.map(
            lambda j: _compile_kept(tools, extra, env, *j), jobs_list) if e]
    if errors:
        raise ProgramError(errors[0] + (f"({len(errors) - 1} more compiles "
                                        "failed)" if len(errors) > 1 else ""))
    for p in table:
        if not os.access(f"{d}/{p}", os.X_OK):
            subprocess.run([tools.clang, "-o", f"{d}/{p}",
                            *_glob(f"{d}/obj/{p}/*.o"), "-lm", "-ldl"],
                           check=True)
    # The workloads' input: the three packages' sources, 2 MB.
    data = f"{d}/input.bin"
    if not (os.path.exists(data) and os.path.getsize(data)):
        chunks = b""
        for f in (_glob(f"{lua}/src/*.c") + _glob(f"{bz}/*.c")
                  + _glob(f"{zs}/lib/*/*.c")):
            with open(f, "rb") as fh:
                chunks += fh.read()
            if len(chunks) >= INPUT_BYTES:
                break
        if len(chunks) < INPUT_BYTES:
            raise ProgramError("the sources make less than 2 MB")
        write_atomically(data, chunks[:INPUT_BYTES])
    shutil.copyfile(WORKLOAD, f"{d}/workload.lua")
    _count(tools, d, "lua", "script", ["./lua", "workload.lua"], data)
    # The programs' own argument orders: a workload's count includes them.
    for p, pack, unpack in (("bzip2", ["-c", "-9"], ["-d", "-c"]),
                            ("zstd", ["-3", "-c", "-T1"], ["-d", "-c", "-T1"])):
        _count(tools, d, p, "compress", [f"./{p}", *pack], data)
        packed = f"{d}/input.{'bz2' if p == 'bzip2' else 'zst'}"
        with open(data, "rb") as i:
            write_atomically(packed, subprocess.run(
                [f"{d}/{p}", *pack], stdin=i, check=True,
                capture_output=True).stdout)
        _count(tools, d, p, "decompress", [f"./{p}", *unpack], packed)
    with open(f"{d}/counts.tsv") as f:
        print(f.read(), end="")
    return 0
