#!/usr/bin/env python3
"""move-line.py IN OUT LINE ANCHOR — copies the MLIR text IN to OUT with the first line
matching the regex LINE moved to just before the first line after it that matches the regex
ANCHOR (a planted bug made by editing lowered IR: e.g. griddepcontrol.wait moved after the
reads it must precede), and prints the two line numbers."""
import re
import sys

src, dst, line, anchor = sys.argv[1:5]
lines = open(src).read().split("\n")
i = next(n for n, text in enumerate(lines) if re.search(line, text))
j = next(n for n in range(i + 1, len(lines)) if re.search(anchor, lines[n]))
moved = lines[i]
out = lines[:i] + lines[i + 1:j] + [moved] + lines[j:]
open(dst, "w").write("\n".join(out))
print(f"moved line {i + 1} before line {j + 1}")
