# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A first learned size-pipeline policy (docs/Pipeline.md, "A first
policy"): a module's k nearest training modules, by their module-level
embeddings, vote for one of a few candidate configurations.

The candidates are the stock size settings (``data/stock-settings.json``,
table ``size``) and the clang-space configurations the training search
(``tune``) found best most often. Every candidate is compiled on every
training module; a module's choice is the candidate with the smallest
total .text over its k nearest training modules (cosine similarity of the
standardised embeddings). k = every training module is the best fixed
candidate; k = 1 copies the nearest module's best candidate. Validation
chooses k; held-out code only reports.
"""

import collections
import json

from .pipeline import Config, Pipeline, stock_policies


def candidates(results, n):
    """[(name, policy)]: the stock size settings, then the n clang-space
    configurations most often best in a search's results (ties in the
    configurations' order), without plain -Oz again."""
    out = list(stock_policies("size"))
    counts = collections.Counter(
        json.dumps(r["best"]["config"], sort_keys=True) for r in results
        if r and r["best"]["text"] is not None)
    oz = Config.oz()
    picked = 0
    for key, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        cfg = Config.from_key(json.loads(key))
        if cfg == oz:
            continue
        if picked == n:
            break
        out.append((cfg.describe(), Pipeline(cfg)))
        picked += 1
    return out


def standardise(train, *others):
    """The rows of train and others, each feature centred and scaled by
    train's mean and deviation, then each row scaled to unit length."""
    import numpy as np
    mean = train.mean(axis=0)
    dev = train.std(axis=0)
    dev[dev == 0] = 1.0

    def norm(x):
        z = (x - mean) / dev
        length = np.linalg.norm(z, axis=1, keepdims=True)
        length[length == 0] = 1.0
        return z / length
    return [norm(train)] + [norm(o) for o in others]


def choose(train_x, train_text, x, k):
    """Each row of x's candidate (a column index of train_text): the one
    with the smallest .text summed over the row's k nearest rows of
    train_x (unit rows: cosine similarity). Ties go to the lower index."""
    import numpy as np
    k = min(k, len(train_x))
    sim = x @ train_x.T
    near = np.argsort(-sim, axis=1, kind="stable")[:, :k]
    totals = train_text[near].sum(axis=1)
    return np.argmin(totals, axis=1)


def embed(paths, threads=0):
    """The module-level flow-aware embeddings of bitcode files (a matrix,
    one row a file); a file that cannot be embedded raises ValueError."""
    import numpy as np
    import ir2vec
    rows = []
    for r in ir2vec.embedFiles(paths, "fa", level="module", threads=threads):
        if r["error"]:
            raise ValueError(f"{r['filename']}: {r['error']}")
        rows.append(np.asarray(r["embeddings"], dtype=np.float64))
    return np.vstack(rows)
