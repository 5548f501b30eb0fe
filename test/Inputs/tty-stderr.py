"""Runs a command with its standard error on a terminal (a pseudo-terminal)
and prints what it wrote there, after its standard output, with the
carriage returns and erase-line sequences of an in-place status line made
visible as <CR> and <EL>, one line per newline.

Usage: tty-stderr.py COMMAND [ARG...]
The exit status is the command's.
"""
import os
import pty
import subprocess
import sys

master, slave = pty.openpty()
proc = subprocess.Popen(sys.argv[1:], stderr=slave)
os.close(slave)
data = b""
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:  # EIO: the terminal's last writer has gone
        break
    if not chunk:
        break
    data += chunk
status = proc.wait()
text = data.decode("utf-8", "replace").replace("\r\n", "\n")
text = text.replace("\r", "<CR>").replace("\x1b[K", "<EL>")
sys.stdout.flush()
sys.stdout.write("--- stderr ---\n" + text)
sys.exit(status)
