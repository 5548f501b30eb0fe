"""Runs a command and fails unless it exits with the given status.

Usage: exit-status.py STATUS COMMAND [ARG...]
lit's `not` only tells zero from non-zero; the tools promise 0 (success),
1 (an input or output problem) and 2 (a usage error). The command's output
is passed through, so FileCheck can read it too.
"""
import subprocess
import sys

want = int(sys.argv[1])
proc = subprocess.run(sys.argv[2:])
if proc.returncode != want:
    sys.stderr.write(f"exit-status.py: {sys.argv[2]} exited {proc.returncode}, expected {want}\n")
    sys.exit(1)
