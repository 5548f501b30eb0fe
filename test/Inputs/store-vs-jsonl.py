# Checks that a store written by `llvm-ir2vec embeddings --format=npy` holds
# what `--format=jsonl` prints for the same run: numpy.load reads the matrix,
# row i is line i's embedding rounded to float32, and index line i carries
# line i's module, function, demangled name, level, block and instruction.
# Usage: store-vs-jsonl.py STORE_DIR JSONL_FILE   (Debian's python3 + numpy)
import json
import os
import sys

import numpy as np

store, jsonl = sys.argv[1], sys.argv[2]
matrix = np.load(os.path.join(store, "embeddings.npy"))
index = [json.loads(l) for l in open(os.path.join(store, "index.jsonl"))]
lines = [json.loads(l) for l in open(jsonl)]
info = json.load(open(os.path.join(store, "store.json")))

assert matrix.dtype == np.float32, matrix.dtype
assert matrix.flags["C_CONTIGUOUS"]
assert matrix.shape == (len(lines), info["dimension"]), (matrix.shape, len(lines))
assert info["count"] == len(lines) == len(index)
for i, (row, rec, line) in enumerate(zip(matrix, index, lines)):
    want = np.array(line["embedding"], dtype=np.float64).astype(np.float32)
    assert np.array_equal(row, want), (i, row, want)
    assert rec["row"] == i, rec
    for key in line:
        if key in ("embedding", "kind"):
            continue
        assert rec[key] == line[key], (i, key, rec, line)
    assert line["kind"] == info["kind"]
print("OK", matrix.shape[0], "rows")
