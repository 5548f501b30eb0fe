# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Smoke tests of the example scripts in examples/python/.

They run on test/Inputs with test/Inputs/ids2d.json (entity k is [k, 1]),
so they are fast and need no corpus. With the default weights (opcodes 1,
types 0.5, operand kinds 0.2) the function vectors are, by hand:

  cfg.ll      add       Add + Int/2 + 2 Var/5 = [82.2, 1.9]
                        + Ret + Void/2 + Var/5 = [51.1, 1.7]  -> [133.3, 3.6]
              f         entry [85.3, 2.1] + a [176.1, 3.6]
                        + b [134.1, 3.6] (dead is unreachable) -> [395.5, 9.3]
  mangled.ll  _Z3addii  the same body as add                   -> [133.3, 3.6]
              _Z3addff  Ret + Void/2 + Const/5                 -> [50.9, 1.7]

Directions (second/first): add 0.0270, f 0.0235, addff 0.0334, so f is
closer to _Z3addii than to _Z3addff, and so is add (cosine 1).
"""

import json
import os
import struct
import subprocess
import sys
import tempfile
import unittest

import numpy

from common import IDS2D, SHARED_INPUTS, SOURCE_ROOT

EXAMPLES = SOURCE_ROOT / "examples" / "python"
CFG = str(SHARED_INPUTS / "cfg.ll")
MANGLED = str(SHARED_INPUTS / "mangled.ll")
VECTORS = {  # by hand, above
    "cfg:add": [133.3, 3.6], "cfg:f": [395.5, 9.3],
    "mangled:_Z3addii": [133.3, 3.6], "mangled:_Z3addff": [50.9, 1.7],
}


def run(script, *args, cwd=None):
    return subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        capture_output=True, text=True, env=os.environ, timeout=120,
        cwd=cwd)


def cosine(a, b):
    a, b = numpy.array(VECTORS[a]), numpy.array(VECTORS[b])
    return float(a @ b / numpy.linalg.norm(a) / numpy.linalg.norm(b))


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", head
    return struct.unpack(">II", head[16:24])


class ClosestAcrossPackages(unittest.TestCase):
    def test_json_matches_hand_computed_cosines(self):
        out = run("closest_across_packages.py", CFG, MANGLED, "-k", "2",
                  "--vocab", IDS2D, "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        data = json.loads(out.stdout)
        self.assertEqual(data["a"], {"package": "cfg", "functions": 2})
        self.assertEqual(data["b"], {"package": "mangled", "functions": 2})
        got = [(r["function"], [(c["function"], c["cosine"])
                                for c in r["closest"]])
               for r in data["results"]]
        want = [(a, [(b, cosine(a, b))
                     for b in ("mangled:_Z3addii", "mangled:_Z3addff")])
                for a in ("cfg:add", "cfg:f")]
        self.assertEqual([(a, [b for b, _ in bs]) for a, bs in got],
                         [(a, [b for b, _ in bs]) for a, bs in want])
        for (_, got_bs), (_, want_bs) in zip(got, want):
            for (_, g), (_, w) in zip(got_bs, want_bs):
                self.assertAlmostEqual(g, w, places=7)
        self.assertAlmostEqual(got[0][1][0][1], 1.0, places=12)

    def test_table_order_and_k(self):
        out = run("closest_across_packages.py", f"A={CFG}", MANGLED,
                  "-k", "1", "--vocab", IDS2D)
        self.assertEqual(out.returncode, 0, out.stderr)
        rows = [line.split() for line in out.stdout.splitlines()
                if not line.startswith("#")]
        self.assertEqual(rows, [
            ["A", "rank", "mangled", "cosine"],
            ["cfg:add", "1", "mangled:_Z3addii", "1.0000"],
            ["cfg:f", "1", "mangled:_Z3addii", "1.0000"]])

    def test_module_error_is_one_line(self):
        out = run("closest_across_packages.py", CFG, MANGLED,
                  "--vocab", str(SHARED_INPUTS / "bad-syntax.json"))
        self.assertEqual(out.returncode, 1)
        self.assertEqual(out.stdout, "")
        self.assertRegex(out.stderr, r"\Aclosest_across_packages.py: error: "
                         r"Failed to load vocabulary: [^\n]*\n\Z")


class PcaByPackage(unittest.TestCase):
    # matplotlib is a dependency (scripts/setup.sh installs it): without it
    # these tests fail rather than skip.
    def centroids(self, normalise):
        """Per-package centroids of the PCA coordinates, computed here with
        an eigendecomposition of the covariance (the script uses an SVD)."""
        x = numpy.array(list(VECTORS.values()))
        if normalise:
            x /= numpy.linalg.norm(x, axis=1)[:, None]
        x -= x.mean(axis=0)
        _, vecs = numpy.linalg.eigh(x.T @ x)
        axes = vecs[:, ::-1]  # largest variance first
        axes *= numpy.sign(axes[numpy.abs(axes).argmax(axis=0), [0, 1]])
        coords = x @ axes
        return {"cfg": coords[:2].mean(axis=0), "mangled": coords[2:].mean(0)}

    def check(self, *extra, normalise=True):
        with tempfile.TemporaryDirectory() as tmp:
            png = os.path.join(tmp, "sub", "pca.png")
            out = run("pca_by_package.py", f"cfg={CFG}", f"mangled={MANGLED}",
                      "--vocab", IDS2D, "-o", png, "--size", "400", "300",
                      *extra)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertEqual(png_size(png), (400, 300))
        lines = out.stdout.splitlines()
        want = self.centroids(normalise)
        for name in ("cfg", "mangled"):
            row = next(line.split() for line in lines
                       if line.startswith(name + " "))
            self.assertEqual(row[1:3], ["1", "2"])  # files, functions
            for got, value in zip(row[3:], want[name]):
                self.assertAlmostEqual(float(got), value, delta=6e-4)
        # Two dimensions: the two components explain all the variance.
        pcs = [float(w.rstrip("%,")) for w in lines[-2].split()[3::2]]
        self.assertAlmostEqual(sum(pcs), 100.0, places=1)

    def test_normalised(self):
        self.check()

    def test_raw(self):
        self.check("--no-normalize", normalise=False)

    def test_default_output_is_not_the_docs_picture(self):
        # Without -o the picture goes to the current directory; the one in
        # docs/images stays as it is.
        docs_png = SOURCE_ROOT / "docs" / "images" / "pca-functions.png"
        before = docs_png.read_bytes() if docs_png.exists() else None
        with tempfile.TemporaryDirectory() as tmp:
            out = run("pca_by_package.py", f"cfg={CFG}", f"mangled={MANGLED}",
                      "--vocab", IDS2D, "--size", "200", "150", cwd=tmp)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertEqual(png_size(os.path.join(tmp, "pca-functions.png")),
                             (200, 150))
        after = docs_png.read_bytes() if docs_png.exists() else None
        self.assertEqual(before, after)

    def test_bad_input_is_one_line(self):
        out = run("pca_by_package.py", "nothing=/nonexistent/*.bc",
                  "--vocab", IDS2D)
        self.assertEqual(out.returncode, 1)
        self.assertRegex(out.stderr, r"\Apca_by_package.py: error: "
                         r"'/nonexistent/\*\.bc' matches no [^\n]*\n\Z")


if __name__ == "__main__":
    unittest.main()
