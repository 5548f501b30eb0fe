"""Reads `irtk-train dump --observations` and prints, per observation,
`same` when the decision feature (argv[2]) equals the default one (argv[1]),
else `flipped`."""
import sys

default, decision = sys.argv[1], sys.argv[2]
values, words = {}, []
for line in sys.stdin:
    name, _, value = line.strip().partition(": ")
    if name == "observation":
        values = {}
    elif name in (default, decision):
        values[name] = value
        if len(values) == 2:
            words.append("same" if values[default] == values[decision]
                         else "flipped")
print(" ".join(words))
