# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The ir2vec module against our CLI, value for value.

For every input, vocabulary, kind and level, the module's results must equal
`llvm-ir2vec embeddings --format=jsonl` (full precision: shortest
round-trip numbers) exactly, keys and order included:

  getFuncEmbMap()        vs --level=func
  getBBEmbMap(f)         vs --level=bb,   every block of f (an unnamed
                                          block's key is %N, the CLI's "")
  getInstEmbMap(f)       vs --level=inst, instructions of f as a dict
  getProgramVector()     vs --level=module, and the sum in double, in
                                          module order, of --level=func's
                                          vectors
  embedFiles(level=...)  vs all four, every row (lists, nothing collapsed;
                                          blocks keyed as getBBEmbMap)

The CLI is itself checked against upstream LLVM 22 bit for bit by
test/differential. Inputs: this suite's and test/Inputs' IR, the
differential suite's hand-written IR, and its C/C++ files compiled with
clang-22 at -O0, -O2, -O2 -g and to bitcode. Vocabularies: ids2d.json with
default and odd weights, the 3-D test vocabulary, a random partial
vocabulary with full-precision values, and the 75-D seed vocabularies when
present.
"""

import collections
import json
import pathlib
import random
import re
import subprocess
import tempfile
import unittest

import ir2vec

from common import DUMMY3D, IDS2D, SHARED_INPUTS, SOURCE_ROOT, UPSTREAM_LL, as_list, env_path

LLVM_IR2VEC = env_path("IRTK_LLVM_IR2VEC")
LLVM_TOOLS = pathlib.Path(env_path("IRTK_LLVM_TOOLS_DIR"))
DIFF_INPUTS = SOURCE_ROOT / "test" / "differential" / "Inputs"

WORK = None
INPUTS = []
VOCABS = []  # (label, path, weights dict)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError(f"{cmd} failed ({p.returncode}):\n{p.stderr}")
    return p.stdout


def random_vocab(path):
    """Dimension 5, values drawn at full double precision, a tenth of the
    entities left out."""
    lines = run([LLVM_IR2VEC, "entities"]).splitlines()
    count = int(lines[0])
    rng = random.Random(20250611)
    sections = {"Opcodes": {}, "Types": {}, "Arguments": {}}
    for line in lines[1:]:
        name, ident = line.split("\t")
        ident = int(ident)
        section = "Opcodes" if ident < 68 else "Types" if ident < 80 else "Arguments"
        if rng.random() < 0.1:
            continue
        sections[section][name] = [rng.uniform(-3, 3) for _ in range(5)]
    assert count == 110, count
    path.write_text(json.dumps(sections))  # repr precision: exact


def setUpModule():
    global WORK
    WORK = tempfile.TemporaryDirectory(prefix="irtk-python-diff-")
    work = pathlib.Path(WORK.name)

    INPUTS.extend([UPSTREAM_LL, str(SHARED_INPUTS / "cfg.ll"), str(SHARED_INPUTS / "mangled.ll")])
    INPUTS.extend(str(p) for p in sorted(DIFF_INPUTS.glob("*.ll")))
    clang, clangxx = LLVM_TOOLS / "clang", LLVM_TOOLS / "clang++"
    if clang.exists() and clangxx.exists():
        sources = sorted(DIFF_INPUTS.glob("*.c")) + sorted(DIFF_INPUTS.glob("*.cpp"))
        sources.append(SHARED_INPUTS / "sumsq.c")
        for src in sources:
            cc = clangxx if src.suffix == ".cpp" else clang
            for flags in (["-O0"], ["-O2"], ["-O2", "-g"]):
                out = work / f"{src.stem}{''.join(flags)}.ll"
                run([str(cc), "-S", "-emit-llvm", *flags, str(src), "-o", str(out)])
                INPUTS.append(str(out))
            out = work / f"{src.stem}-O1.bc"
            run([str(cc), "-c", "-emit-llvm", "-O1", str(src), "-o", str(out)])
            INPUTS.append(str(out))

    rnd = work / "random5d.json"
    random_vocab(rnd)
    VOCABS.extend([
        ("ids2d", IDS2D, {}),
        ("ids2d-weights", IDS2D, {"opcWeight": 0.7, "typeWeight": 0.3, "argWeight": 1.9}),
        ("dummy3d", DUMMY3D, {}),
        ("random5d", str(rnd), {}),
    ])
    for label, path in (
        ("upstream-seed75d", SOURCE_ROOT.parent / "shared" / "reference" / "seedEmbeddingVocab75D.json"),
        ("irtk-default75d", SOURCE_ROOT / "vocab" / "data" / "ir2vec-75d.json"),
    ):
        if path.is_file():
            VOCABS.append((label, str(path), {}))


def tearDownModule():
    WORK.cleanup()


CLI_WEIGHTS = {"opcWeight": "--ir2vec-opc-weight", "typeWeight": "--ir2vec-type-weight",
               "argWeight": "--ir2vec-arg-weight"}
KINDS = (("symbolic", ir2vec.IR2VecKind.Symbolic), ("flow-aware", ir2vec.IR2VecKind.FlowAware))


def cli(vocab, weights, kind, level):
    """{module: [record, ...]} from one CLI run over every input."""
    cmd = [LLVM_IR2VEC, "embeddings", f"--ir2vec-vocab-path={vocab}", f"--ir2vec-kind={kind}",
           f"--level={level}", "--format=jsonl"]
    cmd += [f"{CLI_WEIGHTS[k]}={v!r}" for k, v in weights.items()]
    out = collections.defaultdict(list)
    for line in run(cmd + INPUTS).splitlines():
        rec = json.loads(line)
        out[rec["module"]].append(rec)
    return out


def rows(records, key):
    """{function: [(key, vector)]} in output order."""
    out = collections.defaultdict(list)
    for r in records:
        out[r["function"]].append((r[key], r["embedding"]))
    return out


def items(mapping, strip=False):
    return [(k.lstrip(" ") if strip else k, as_list(v)) for k, v in mapping.items()]


def block_name(key):
    """The CLI's block name for a Python block key: an unnamed block's key is
    its number, %N (test_api checks the numbers against the .ll), and its
    name is ""."""
    return "" if re.fullmatch(r"%\d+", key) else key


class AgainstCLI(unittest.TestCase):
    def test_inputs_were_found(self):
        self.assertGreater(len(INPUTS), 20)
        self.assertGreaterEqual(len(VOCABS), 4)

    def test_all(self):
        checked = collections.Counter()
        for label, path, weights in VOCABS:
            vocab = ir2vec.loadVocab(path, **weights)
            for kind_name, kind in KINDS:
                func = cli(path, weights, kind_name, "func")
                bb = cli(path, weights, kind_name, "bb")
                inst = cli(path, weights, kind_name, "inst")
                module = cli(path, weights, kind_name, "module")
                files = {lvl: ir2vec.embedFiles(INPUTS, kind, vocab, level=lvl, threads=2)
                         for lvl in ("func", "bb", "inst", "module")}
                for i, name in enumerate(INPUTS):
                    with self.subTest(vocab=label, kind=kind_name, input=name):
                        tool = ir2vec.initEmbedding(filename=name, mode=kind, vocab=vocab)
                        expect_func = [(r["function"], r["embedding"]) for r in func[name]]
                        self.assertEqual(items(tool.getFuncEmbMap()), expect_func)
                        self.assertEqual(tool.getFuncNames(), [f for f, _ in expect_func])
                        bb_rows, inst_rows = rows(bb[name], "block"), rows(inst[name], "inst")
                        for f, vector in expect_func:
                            self.assertEqual(as_list(tool.getFuncEmb(f)), vector)
                            # Every block: labels do not collide.
                            bbs = tool.getBBEmbMap(f)
                            self.assertEqual([(block_name(k), as_list(v)) for k, v in bbs.items()], bb_rows[f])
                            insts = tool.getInstEmbMap(f)
                            self.assertTrue(all(k.startswith("  ") and k[2] != " " for k in insts))
                            self.assertEqual(items(insts, strip=True), list(dict(inst_rows[f]).items()))
                            checked["functions"] += 1
                        for lvl, expect in (("bb", bb_rows), ("inst", inst_rows)):
                            r = files[lvl][i]
                            self.assertIsNone(r["error"])
                            got = {f: [(k.lstrip(" ") if lvl == "inst" else block_name(k), as_list(v))
                                       for k, v in pairs]
                                   for f, pairs in r["embeddings"].items()}
                            self.assertEqual(got, dict(expect))
                        self.assertEqual(items(files["func"][i]["embeddings"]), expect_func)
                        # The module: one record, the sum of the function
                        # vectors from zero in module order.
                        [expect_module] = [r["embedding"] for r in module[name]]
                        total = [0.0] * len(expect_module)
                        for _, vector in expect_func:
                            total = [a + b for a, b in zip(total, vector)]
                        self.assertEqual(expect_module, total)
                        self.assertEqual(as_list(tool.getProgramVector()), expect_module)
                        self.assertEqual(as_list(files["module"][i]["embeddings"]), expect_module)
                        checked["modules"] += 1
        self.assertGreater(checked["functions"], 100)
        self.assertGreater(checked["modules"], 20)


if __name__ == "__main__":
    unittest.main()
