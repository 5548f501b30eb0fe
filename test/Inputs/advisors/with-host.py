#!/usr/bin/env python3
"""Runs a compiler command next to examples/advisors/interactive_host.py.

with-host.py HOST CHANNEL POLICY [HOST-ARGUMENT...] -- COMMAND...
Starts the host on CHANNEL with POLICY (and the further arguments), runs COMMAND, waits for the host and
prints its summary line; exits non-zero when either fails.
"""
import subprocess
import sys
import time
import os

host, channel, policy = sys.argv[1:4]
split = sys.argv.index("--")
host_arguments = sys.argv[4:split]
command = sys.argv[split + 1:]
for suffix in (".in", ".out"):
    if os.path.exists(channel + suffix):
        os.remove(channel + suffix)
proc = subprocess.Popen([sys.executable, host, "--channel", channel,
                         "--policy", policy] + host_arguments,
                        stdout=subprocess.PIPE)
# The host makes the pipes; the compiler expects them.
deadline = time.time() + 30
while not (os.path.exists(channel + ".in") and
           os.path.exists(channel + ".out")):
    if time.time() > deadline or proc.poll() is not None:
        sys.exit("the host did not make the pipes")
    time.sleep(0.02)
out, rc = b"", 1
try:
    rc = subprocess.call(command, timeout=300)
    out, _ = proc.communicate(timeout=60)
finally:
    # A compiler that never opened the pipes leaves the host waiting in
    # open(): never leave it behind (it holds lit's output pipes).
    if proc.poll() is None:
        proc.kill()
        proc.wait()
sys.stdout.write(out.decode())
sys.exit(rc or proc.returncode)
