# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""How users get irtk: the CMake package, the Python wheel, the .deb.

ctest runs one class per entry (test/packaging/CMakeLists.txt) with
IRTK_SOURCE_DIR, IRTK_BUILD_DIR (a configured and built tree),
IRTK_LLVM_TOOLS_DIR and IRTK_BUILD_PYTHON (ON or OFF) set; everything is written to a temporary directory.

- CMakePackage: `cmake --install` into a temporary prefix, then
  examples/cmake-consumer configured, built and run against it; and a
  consumer that add_subdirectory()s the source tree compiles.
- PythonWheel: `pip wheel --no-build-isolation` from the build directory
  (IRTK_CMAKE_BUILD_DIR), installed with pip into a directory of its own and
  imported from there; the numpy and wrong-Python messages.
- DebianPackage: `cpack -G DEB`, its metadata, and its tools, plugin,
  Python package and man pages run from `dpkg-deb -x`.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

SOURCE = os.environ["IRTK_SOURCE_DIR"]
BUILD = os.environ["IRTK_BUILD_DIR"]
LLVM_BIN = os.environ["IRTK_LLVM_TOOLS_DIR"]
WITH_PYTHON = os.environ["IRTK_BUILD_PYTHON"] == "ON"
# A sanitized build (docs/Reliability.md): the consumer is compiled with the
# same sanitizers, and hosts that load our code (python3, opt) preload
# ASan's runtime.
SANITIZE_FLAGS = os.environ.get("IRTK_SANITIZE_FLAGS", "")
SANITIZER_PRELOAD = os.environ.get("IRTK_SANITIZER_PRELOAD", "")
CFG_LL = os.path.join(SOURCE, "test", "Inputs", "cfg.ll")
PYTHON_VERSION = f"{sys.version_info[0]}.{sys.version_info[1]}"


def run(args, **kwargs):
    """Runs args, failing the test with its output when it fails."""
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, **kwargs)
    if r.returncode != 0:
        raise AssertionError(f"{args} exited {r.returncode}:\n{r.stdout}")
    return r.stdout


def hostEnv(**extra):
    """The environment of a host that is not ours but loads our code."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **extra)
    if SANITIZER_PRELOAD:
        env.update(LD_PRELOAD=SANITIZER_PRELOAD, ASAN_OPTIONS="detect_leaks=0")
    return env


def neededLibraries(path):
    """The DT_NEEDED entries of the ELF file \p path."""
    out = run(["objdump", "-p", path])
    return [l.split()[1] for l in out.splitlines()
            if l.strip().startswith("NEEDED")]


def cliFunctionVectors(tool, env=None):
    """{function: first three elements} as llvm-ir2vec prints them (%.2f),
    with the default vocabulary."""
    out = run([tool, "embeddings", "--level=func", CFG_LL], env=env)
    vectors = {}
    for m in re.finditer(r"Function: (\S+)\n\s*\[\s*(\S+)\s+(\S+)\s+(\S+)", out):
        vectors[m.group(1)] = list(m.group(2, 3, 4))
    return vectors


class Temp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="irtk-packaging-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)


class CMakePackage(Temp):
    def writeProject(self, files):
        """A consumer's source directory holding \p files (name: text)."""
        source = os.path.join(self.tmp, "src")
        os.makedirs(source)
        for name, text in files.items():
            with open(os.path.join(source, name), "w") as f:
                f.write(text)
        return source

    def test_installed_package_builds_the_example(self):
        prefix = os.path.join(self.tmp, "prefix")
        out = run(["cmake", "--install", BUILD, "--prefix", prefix])
        if WITH_PYTHON:
            # This prefix is not on the Python's sys.path: the install says
            # so.
            site = f"{prefix}/lib/python{PYTHON_VERSION}/dist-packages"
            self.assertIn(f"Note: {sys.executable} does not search {site}",
                          out)
            self.assertTrue(os.path.isfile(os.path.join(site, "ir2vec",
                                                        "__init__.py")))
        for f in ("include/irtk/ir2vec/Embedder.h",
                  "include/irtk/support/Version.h",
                  "lib/libirtkIR2Vec.a", "lib/cmake/irtk/irtkConfig.cmake",
                  "lib/cmake/irtk/irtkConfigVersion.cmake",
                  "share/irtk/vocab/ir2vec-75d.json",
                  "share/irtk/vocab/ir2vec-75d.json.bin",
                  "share/irtk/vocab/mir2vec-x86-64-75d.json.bin"):
            self.assertTrue(os.path.exists(os.path.join(prefix, f)), f)
        # The size-pipeline model ships (docs/Pipeline.md); no inline model
        # does (docs/InlineTraining.md, issue 41).
        models = os.path.join(prefix, "share", "irtk", "models")
        self.assertEqual(os.listdir(models), ["pipeline-oz.json"])
        example = os.path.join(self.tmp, "example")
        run(["cmake", "-S", os.path.join(SOURCE, "examples", "cmake-consumer"),
             "-B", example, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
             f"-DCMAKE_PREFIX_PATH={prefix}",
             f"-DCMAKE_CXX_FLAGS={SANITIZE_FLAGS}",
             f"-DCMAKE_EXE_LINKER_FLAGS={SANITIZE_FLAGS}"])
        run(["cmake", "--build", example])
        out = run([os.path.join(example, "embed-functions"), CFG_LL])
        lines = out.splitlines()
        self.assertRegex(lines[0], r"^irtk \d+\.\d+\.\d+, dimension 75$")
        got = {l.split(":")[0]: l.split()[1:] for l in lines[1:]}
        self.assertEqual(got, cliFunctionVectors(
            os.path.join(BUILD, "bin", "llvm-ir2vec")))
        # The package names the vocabulary inside the prefix.
        with open(os.path.join(example, "CMakeCache.txt")) as f:
            cache = f.read()
        self.assertIn(f"irtk_DIR:PATH={prefix}/lib/cmake/irtk", cache)
        # The example names irtk::ir2vec alone: libLLVM came with it.
        self.assertTrue(any(n.startswith("libLLVM") for n in
                            neededLibraries(os.path.join(example,
                                                         "embed-functions"))))

        # A pass plugin asks for no LLVM library (its host provides LLVM).
        plugin = self.writeProject({
            "plug.cpp": ('#include "irtk/ir2vec/Embedder.h"\n'
                         'extern "C" int irtkPlug() { return 0; }\n'),
            "CMakeLists.txt": (
                "cmake_minimum_required(VERSION 3.20)\n"
                "project(p LANGUAGES CXX)\n"
                "set(irtk_LINK_LLVM OFF)\n"
                "find_package(irtk 0.1 CONFIG REQUIRED)\n"
                "add_library(plug MODULE plug.cpp)\n"
                "target_link_libraries(plug PRIVATE irtk::ir2vec)\n"
                "set_target_properties(plug PROPERTIES PREFIX \"\")\n")})
        pbuild = os.path.join(self.tmp, "plugin")
        run(["cmake", "-S", plugin, "-B", pbuild, "-G", "Ninja",
             "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_PREFIX_PATH={prefix}"])
        run(["cmake", "--build", pbuild])
        needed = neededLibraries(os.path.join(pbuild, "plug.so"))
        self.assertFalse(any(n.startswith("libLLVM") for n in needed), needed)

    def test_version_mismatch_is_refused(self):
        consumer = self.writeProject({"CMakeLists.txt": (
            "cmake_minimum_required(VERSION 3.20)\n"
            "project(c LANGUAGES CXX)\n"
            "find_package(irtk 99 CONFIG REQUIRED)\n")})
        r = subprocess.run(
            ["cmake", "-S", consumer, "-B", os.path.join(self.tmp, "b"),
             f"-Dirtk_DIR={BUILD}/cmake"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        # The version file (build tree) refuses 99 before the config runs.
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('compatible\n  with requested version "99"', r.stdout)
        self.assertIn("irtkConfig.cmake, version: 0.", r.stdout)

    def test_add_subdirectory_passes_llvm_on(self):
        consumer = self.writeProject({
            # Headers of irtk that include LLVM's (StringRef.h, Error.h).
            "use.cpp": ('#include "irtk/ir2vec/Embedder.h"\n'
                        '#include "irtk/support/Version.h"\n'
                        'const char *V = IRTK_VERSION;\n'
                        'int main() { return 0; }\n'),
            "CMakeLists.txt": f"""cmake_minimum_required(VERSION 3.20)
project(c LANGUAGES C CXX)
set(IRTK_BUILD_TOOLS OFF CACHE BOOL "")
set(IRTK_BUILD_PYTHON OFF CACHE BOOL "")
add_subdirectory("{SOURCE}" irtk)
add_executable(use use.cpp)
target_link_libraries(use PRIVATE irtk::ir2vec LLVM)
"""})
        build = os.path.join(self.tmp, "b")
        out = run(["cmake", "-S", consumer, "-B", build, "-G", "Ninja",
                   "-DCMAKE_BUILD_TYPE=Release"])
        # Neither Boost nor pybind11 is looked for; no tests are added.
        self.assertNotIn("pybind11", out)
        self.assertNotIn("Boost", out)
        self.assertFalse(os.path.exists(os.path.join(build, "irtk", "test")))
        # The consumer's own source compiles against irtk's and LLVM's
        # headers (building irtk's libraries too would take minutes).
        run(["ninja", "-C", build, "CMakeFiles/use.dir/use.cpp.o"])


class PythonWheel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # One wheel for every test: built from the build directory by pip,
        # installed by pip into a directory of its own.
        cls.tmp = tempfile.mkdtemp(prefix="irtk-packaging-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, ignore_errors=True)
        wheels = os.path.join(cls.tmp, "wheels")
        env = dict(os.environ, IRTK_CMAKE_BUILD_DIR=BUILD)
        env.pop("PYTHONPATH", None)
        run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation",
             "--no-cache-dir", "--no-deps", "--no-index", "-w", wheels, SOURCE],
            env=env)
        found = glob.glob(os.path.join(wheels, "*.whl"))
        if len(found) != 1:
            raise AssertionError(f"pip made {found}")
        cls.wheel = found[0]
        cls.site = os.path.join(cls.tmp, "site")
        run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index",
             "--no-cache-dir", "--target", cls.site, cls.wheel], env=env)

    def python(self, code, site=None, extra_path=()):
        env = hostEnv(
            PYTHONPATH=os.pathsep.join([*extra_path, site or self.site]))
        return subprocess.run([sys.executable, "-c", code], cwd=self.tmp,
                              env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)

    def test_wheel_contents(self):
        tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
        self.assertRegex(os.path.basename(self.wheel),
                         rf"^irtk_ir2vec-\d+\.\d+\.\d+-{tag}-{tag}-linux_\w+\.whl$")
        names = zipfile.ZipFile(self.wheel).namelist()
        for f in ("ir2vec/__init__.py", "ir2vec/vocab.py", "ir2vec/store.py",
                  "ir2vec/_build_info.py", "ir2vec/vocab_data/ir2vec-75d.json"):
            self.assertIn(f, names)
        self.assertTrue(any(re.match(r"ir2vec/_ir2vec\..*\.so$", n)
                            for n in names), names)
        metadata = next(n for n in names if n.endswith("/METADATA"))
        text = zipfile.ZipFile(self.wheel).read(metadata).decode()
        self.assertIn("Requires-Dist: numpy", text)

    def test_installed_wheel_embeds_with_the_default_vocabulary(self):
        r = self.python(
            "import ir2vec, os\n"
            "print(os.path.dirname(ir2vec.__file__))\n"
            "t = ir2vec.initEmbedding(" + repr(CFG_LL) + ")\n"
            "for name, v in t.getFuncEmbMap().items():\n"
            "    print(name, ' '.join('%.2f' % x for x in v[:3]))\n")
        self.assertEqual(r.returncode, 0, r.stdout)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], os.path.join(self.site, "ir2vec"))
        got = {l.split()[0]: l.split()[1:] for l in lines[1:]}
        self.assertEqual(got, cliFunctionVectors(
            os.path.join(BUILD, "bin", "llvm-ir2vec")))

    def test_missing_numpy_is_named(self):
        fake = os.path.join(self.tmp, "no-numpy", "numpy")
        self.addCleanup(shutil.rmtree, os.path.dirname(fake))
        os.makedirs(fake)
        with open(os.path.join(fake, "__init__.py"), "w") as f:
            f.write("raise ImportError('No module named numpy (test)')\n")
        r = self.python("import ir2vec", extra_path=[os.path.dirname(fake)])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("ImportError: ir2vec needs numpy, which this Python "
                      f"({sys.executable}) cannot import", r.stdout)
        self.assertIn("apt install python3-numpy", r.stdout)

    def test_other_python_is_named(self):
        # A package built for "Python 3.99": its extension has that ABI tag,
        # so this Python finds no _ir2vec it can load.
        other = os.path.join(self.tmp, "other")
        shutil.copytree(self.site, other)
        self.addCleanup(shutil.rmtree, other)
        package = os.path.join(other, "ir2vec")
        ext = glob.glob(os.path.join(package, "_ir2vec.*.so"))[0]
        os.rename(ext, os.path.join(package,
                                    "_ir2vec.cpython-399-x86_64-linux-gnu.so"))
        with open(os.path.join(package, "_build_info.py"), "w") as f:
            f.write('PYTHON = "/opt/python3.99/bin/python3"\n'
                    'PYTHON_VERSION = "3.99"\n'
                    'EXTENSION = "_ir2vec.cpython-399-x86_64-linux-gnu.so"\n')
        r = self.python("import ir2vec", site=other)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(
            "ImportError: ir2vec's extension was built for Python 3.99 "
            "(/opt/python3.99/bin/python3: "
            "_ir2vec.cpython-399-x86_64-linux-gnu.so), and this is Python "
            f"{PYTHON_VERSION} ({sys.executable}), which cannot load it.",
            r.stdout)
        self.assertIn(f"-DPython3_EXECUTABLE={sys.executable}", r.stdout)


class DebianPackage(Temp):
    def test_deb(self):
        packages = os.path.join(self.tmp, "packages")
        run(["cpack", "-G", "DEB", "-B", packages,
             "--config", os.path.join(BUILD, "CPackConfig.cmake")], cwd=BUILD)
        debs = glob.glob(os.path.join(packages, "*.deb"))
        self.assertEqual(len(debs), 1, debs)
        deb = debs[0]
        self.assertRegex(os.path.basename(deb), r"^irtk_\d+\.\d+\.\d+_amd64\.deb$")

        info = run(["dpkg-deb", "--field", deb, "Depends"])
        depends = [d.strip() for d in info.split(",")]
        for needed in ("libllvm22", "python3-numpy",
                       f"python3 (>= {PYTHON_VERSION})"):
            self.assertTrue(any(d.startswith(needed) for d in depends),
                            f"{needed} not in {depends}")
        self.assertTrue(any(d.startswith("libboost-program-options")
                            for d in depends), depends)

        contents = run(["dpkg-deb", "--contents", deb])
        for f in ("./usr/bin/llvm-ir2vec", "./usr/bin/irtk-vocab",
                  "./usr/bin/irtk-similarity", "./usr/bin/irtk-train",
                  "./usr/lib/IRTKPlugin.so",
                  "./usr/share/irtk/vocab/ir2vec-75d.json",
                  "./usr/share/irtk/vocab/ir2vec-75d.json.bin",
                  "./usr/share/irtk/vocab/mir2vec-x86-64-75d.json.bin",
                  f"./usr/lib/python{PYTHON_VERSION}/dist-packages/ir2vec/__init__.py",
                  "./usr/share/man/man1/llvm-ir2vec.1",
                  "./usr/share/man/man1/irtk-vocab.1",
                  "./usr/share/man/man1/irtk-similarity.1",
                  "./usr/share/man/man1/irtk-train.1",
                  "./usr/share/doc/irtk/README.md",
                  "./usr/share/doc/irtk/docs/Python.md"):
            self.assertIn(f, contents)
        self.assertNotIn("/include/", contents)  # headers: a -dev package
        # The size-pipeline model ships (docs/Pipeline.md); no inline one.
        self.assertIn("./usr/share/irtk/models/pipeline-oz.json", contents)
        self.assertNotIn("/share/irtk/models/inline", contents)

        root = os.path.join(self.tmp, "root")
        run(["dpkg-deb", "-x", deb, root])
        usr = os.path.join(root, "usr")
        # The tools find the vocabulary beside them, in the package.
        self.assertEqual(
            cliFunctionVectors(os.path.join(usr, "bin", "llvm-ir2vec")),
            cliFunctionVectors(os.path.join(BUILD, "bin", "llvm-ir2vec")))
        # validate also checks the binary form beside the JSON: made from it.
        out = run([os.path.join(usr, "bin", "irtk-vocab"), "validate",
                   "--strict", os.path.join(usr, "share/irtk/vocab/ir2vec-75d.json")])
        self.assertIn("ir2vec-75d.json", out)
        # The plugin, in opt, with the default vocabulary.
        out = run([os.path.join(LLVM_BIN, "opt"), "-load-pass-plugin",
                   os.path.join(usr, "lib", "IRTKPlugin.so"),
                   "-passes=print<irtk-ir2vec>", "-disable-output", CFG_LL],
                  env=hostEnv())
        self.assertIn("add", out)
        # The Python package, for Debian's Python.
        site = os.path.join(usr, "lib", f"python{PYTHON_VERSION}",
                            "dist-packages")
        r = subprocess.run(
            [sys.executable, "-c",
             "import ir2vec; print(ir2vec.__file__); "
             f"print(sorted(ir2vec.initEmbedding({CFG_LL!r}).getFuncEmbMap()))"],
            env=hostEnv(PYTHONPATH=site),
            cwd=self.tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertEqual(r.stdout.splitlines(),
                         [os.path.join(site, "ir2vec", "__init__.py"),
                          "['add', 'f']"])
        # The man pages are man pages.
        for tool in ("llvm-ir2vec", "irtk-vocab", "irtk-similarity",
                     "irtk-train"):
            with open(os.path.join(usr, "share/man/man1", tool + ".1")) as f:
                page = f.read()
            self.assertIn(f'.TH "{tool}" "1"', page)
            for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "EXIT STATUS"):
                self.assertIn(f".SH {section}", page)


if __name__ == "__main__":
    unittest.main()
