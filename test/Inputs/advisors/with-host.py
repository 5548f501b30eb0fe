#!/usr/bin/env python3
"""Runs a compiler command next to examples/advisors/interactive_host.py.

with-host.py HOST CHANNEL POLICY -- COMMAND...
Starts the host on CHANNEL with POLICY, runs COMMAND, waits for the host and
prints its summary line; exits non-zero when either fails.
"""
import subprocess
import sys
import time
import os

host, channel, policy = sys.argv[1:4]
assert sys.argv[4] == "--"
command = sys.argv[5:]
for suffix in (".in", ".out"):
    if os.path.exists(channel + suffix):
        os.remove(channel + suffix)
proc = subprocess.Popen([sys.executable, host, "--channel", channel,
                         "--policy", policy], stdout=subprocess.PIPE)
# The host makes the pipes; the compiler expects them.
deadline = time.time() + 30
while not (os.path.exists(channel + ".in") and
           os.path.exists(channel + ".out")):
    if time.time() > deadline or proc.poll() is not None:
        sys.exit("the host did not make the pipes")
    time.sleep(0.02)
rc = subprocess.call(command, timeout=300)
out, _ = proc.communicate(timeout=60)
sys.stdout.write(out.decode())
sys.exit(rc or proc.returncode)
