"""Checks that every inline training log under the given directories has a
trace beside it (same name, .trace) with a line per logged decision.
Prints how many logs it checked; exits 1 at the first mismatch."""
import glob
import os
import subprocess
import sys

logs = sorted(p for d in sys.argv[1:]
              for p in glob.glob(os.path.join(d, "**", "*.log"),
                                 recursive=True))
for path in logs:
    dump = subprocess.run(["irtk-train", "dump", "--observations", path],
                          capture_output=True, text=True, check=True).stdout
    observed = sum(1 for line in dump.splitlines()
                   if line.startswith("observation:"))
    with open(path[:-len(".log")] + ".trace") as f:
        traced = sum(1 for _ in f)
    if observed != traced:
        sys.exit(f"{path}: {observed} decisions logged, {traced} traced")
print(f"{len(logs)} logs, every trace matches")
