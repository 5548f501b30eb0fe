# Part of the IR2Vec Toolkit, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Prints the store.json of a sharded store STORE listing the shards FIRST
and SECOND (paths relative to STORE), with FIRST's settings and a count
that is the sum of both shards' counts.

    two-shard-manifest.py STORE FIRST SECOND > STORE/store.json
"""

import json
import os
import sys


def main():
    store, first, second = sys.argv[1:]
    shards = []
    for path in (first, second):
        with open(os.path.join(store, path, "store.json"),
                  encoding="utf-8") as f:
            shards.append((path, json.load(f)))
    info = dict(shards[0][1])
    info["version"] = 2
    info["count"] = sum(i["count"] for _, i in shards)
    info["shards"] = [{"path": p, "count": i["count"]} for p, i in shards]
    json.dump(info, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
