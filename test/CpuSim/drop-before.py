#!/usr/bin/env python3
"""drop-before.py IN OUT ANCHOR OP — copies the MLIR text IN to OUT without the last line
matching the regex OP before each line matching the regex ANCHOR (a planted bug made by
editing lowered IR: e.g. the barrier before each atomic add), and prints how many lines
matching OP there were before and after."""
import re
import sys

src, dst, anchor, op = sys.argv[1:5]
lines = open(src).read().split("\n")
drop, last = set(), None
for i, line in enumerate(lines):
    if re.search(op, line):
        last = i
    elif re.search(anchor, line) and last is not None:
        drop.add(last)
        last = None
out = [line for i, line in enumerate(lines) if i not in drop]
open(dst, "w").write("\n".join(out))
count = lambda ls: sum(1 for line in ls if re.search(op, line))
print(f"{count(lines)} -> {count(out)} lines matching {op}")
