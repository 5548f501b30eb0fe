#!/usr/bin/env python3
"""A misbehaving interactive host, for the channel's error tests.

bad-host.py --channel BASE --policy MODE
Makes the two pipes like examples/advisors/interactive_host.py, then:
  close-after-header  reads the header and closes both pipes
  short-answer        reads the header and the next line, writes 3 of the
                      answer's 8 bytes, closes <base>.in, reads to the end
  answer=N            answers N (an int64) to every decision
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "examples", "advisors"))
import interactive_host  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--channel", required=True)
p.add_argument("--policy", required=True)
args = p.parse_args()
base = args.channel

if args.policy.startswith("answer="):
    value = int(args.policy.split("=", 1)[1], 0)
    if value >= 1 << 63:
        value -= 1 << 64
    interactive_host.serve(base, lambda context, features: value)
    sys.exit(0)

for path in (base + ".in", base + ".out"):
    if not os.path.exists(path):
        os.mkfifo(path)
to_compiler = open(base + ".in", "wb", buffering=0)
from_compiler = open(base + ".out", "rb")
from_compiler.readline()
if args.policy == "close-after-header":
    to_compiler.close()
    from_compiler.close()
elif args.policy == "short-answer":
    from_compiler.readline()
    to_compiler.write(b"\x01\x00\x00")
    to_compiler.close()
    while from_compiler.read(65536):
        pass
else:
    sys.exit(f"bad-host.py: unknown mode {args.policy}")
