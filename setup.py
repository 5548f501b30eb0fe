# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""setuptools glue that builds the ir2vec package with CMake.

pip runs it (pyproject.toml): ``python -m pip install --no-build-isolation
.``. build_ext configures a CMake build of the Python module alone
(-DIRTK_BUILD_TOOLS=OFF, no tests) for the Python that runs pip, in
build-pip/temp.*/cmake-<hash of the interpreter's path>, builds the
target irtk-python-ir2vec (the whole package: extension, Python files,
_build_info.py, default vocabulary) and copies the package into the wheel.

IRTK_CMAKE_BUILD_DIR=<dir> reuses an already configured irtk build
directory instead (the test suite does, to build a wheel in seconds); its
Python must be the one running pip. IRTK_CMAKE_ARGS adds arguments to the
configure step, IRTK_BUILD_JOBS sets the parallelism.
"""

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE_DIR = os.path.dirname(os.path.abspath(__file__))
REUSED_BUILD_DIR = os.environ.get("IRTK_CMAKE_BUILD_DIR")


def projectVersion():
    """irtk's version, from project() in CMakeLists.txt (written once)."""
    with open(os.path.join(SOURCE_DIR, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(irtk VERSION ([0-9.]+)", f.read())
    if not m:
        sys.exit("setup.py: no 'project(irtk VERSION ...)' in CMakeLists.txt")
    return m.group(1)


def cachedPython(build_dir):
    """The Python3_EXECUTABLE an existing CMake build directory uses."""
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("Python3_EXECUTABLE:"):
                    return line.split("=", 1)[1].strip()
    except OSError as e:
        sys.exit(f"setup.py: IRTK_CMAKE_BUILD_DIR={build_dir} is not a "
                 f"configured irtk build directory: {e}")
    sys.exit(f"setup.py: {build_dir} was configured without the Python "
             "module (IRTK_BUILD_PYTHON=OFF)")


class CMakeBuild(build_ext):
    """Builds ir2vec._ir2vec, and the rest of the package, with CMake."""

    def run(self):
        for tool in ("cmake",):
            if shutil.which(tool) is None:
                sys.exit(f"setup.py: {tool} not found: on Debian run "
                         "scripts/setup.sh (or apt install cmake ninja-build)")
        super().run()

    def cmake(self, *args):
        print("setup.py: cmake " + " ".join(shlex.quote(a) for a in args),
              flush=True)
        subprocess.run(["cmake", *args], check=True)

    def build_extension(self, ext):
        jobs = os.environ.get("IRTK_BUILD_JOBS", str(os.cpu_count() or 1))
        if REUSED_BUILD_DIR:
            build_dir = os.path.abspath(REUSED_BUILD_DIR)
            python = cachedPython(build_dir)
            if os.path.realpath(python) != os.path.realpath(sys.executable):
                sys.exit(f"setup.py: {build_dir} builds the module for "
                         f"{python}, not for {sys.executable}, which runs pip; "
                         "unset IRTK_CMAKE_BUILD_DIR or run pip with that "
                         "Python")
        else:
            # One CMake build per interpreter: two Pythons of one version
            # share build_temp.
            tag = hashlib.sha1(sys.executable.encode()).hexdigest()[:8]
            build_dir = os.path.abspath(
                os.path.join(self.build_temp, f"cmake-{tag}"))
            args = ["-S", SOURCE_DIR, "-B", build_dir,
                    "-DCMAKE_BUILD_TYPE=Release",
                    f"-DPython3_EXECUTABLE={sys.executable}",
                    "-DIRTK_BUILD_TOOLS=OFF", "-DIRTK_BUILD_PYTHON=ON",
                    "-DBUILD_TESTING=OFF"]
            if shutil.which("ninja") and not os.path.exists(
                    os.path.join(build_dir, "CMakeCache.txt")):
                args += ["-G", "Ninja"]
            args += shlex.split(os.environ.get("IRTK_CMAKE_ARGS", ""))
            self.cmake(*args)
        self.cmake("--build", build_dir, "--target", "irtk-python-ir2vec",
                   "-j", jobs)

        package = os.path.join(build_dir, "python", "ir2vec")
        built = os.path.join(package, os.path.basename(
            self.get_ext_filename(ext.name)))
        if not os.path.exists(built):
            sys.exit(f"setup.py: CMake built no {built}; its extension suffix "
                     f"differs from this Python's "
                     f"({sysconfig.get_config_var('EXT_SUFFIX')})")
        dest = os.path.dirname(self.get_ext_fullpath(ext.name))
        shutil.copytree(package, dest, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))


# Out of the source tree's build/ (a CMake build directory by convention):
# setuptools' own files go to build-pip/, or beside the reused build.
build_base = (os.path.join(os.path.abspath(REUSED_BUILD_DIR), "pip")
              if REUSED_BUILD_DIR else os.path.join(SOURCE_DIR, "build-pip"))
os.makedirs(build_base, exist_ok=True)

setup(
    version=projectVersion(),
    packages=["ir2vec", "ir2vec.mlgo"],
    package_data={"ir2vec.mlgo": ["data/*.json", "data/*.lua"]},
    package_dir={"": "tools/python"},
    ext_modules=[Extension("ir2vec._ir2vec", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": build_base},
             "egg_info": {"egg_base": build_base}},
    zip_safe=False,
)
