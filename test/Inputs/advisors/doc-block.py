#!/usr/bin/env python3
"""Prints the lines of a Markdown file between "<!-- COMMAND -->" and the
next "<!-- end -->": the block a command generates, for a test to compare
with the command's output.

doc-block.py FILE COMMAND
"""
import sys

path, command = sys.argv[1:3]
lines = open(path, encoding="utf-8").read().splitlines(keepends=True)
start = f"<!-- {command} -->\n"
if start not in lines:
    sys.exit(f"doc-block.py: {path}: no block '{start.strip()}'")
first = lines.index(start) + 1
last = lines.index("<!-- end -->\n", first)
sys.stdout.write("".join(lines[first:last]))
