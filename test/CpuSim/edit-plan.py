#!/usr/bin/env python3
"""edit-plan.py IN OUT WHAT — writes a copy of a CPU object with its first plan text edited in
place (same length, so the ELF stays intact):
  kernel   the last letter of the plan's kernel name changed (its metadata name is not)
  site     the first site line's id replaced by 2147483648 (2^31) and its text shortened."""
import re
import sys

src, dst, what = sys.argv[1:4]
data = bytearray(open(src, "rb").read())
if what == "kernel":
    m = re.search(rb"kernel ([A-Za-z_0-9]+)\nvariant ", data)
    end = m.end(1) - 1
    data[end] = ord("x") if data[end] != ord("x") else ord("y")
elif what == "site":
    m = re.search(rb"\nsite (\d+) ([^\n]{12,})\n", data)
    line = m.group(0)[1:-1]
    new = b"site 2147483648 "
    new += b"x" * (len(line) - len(new))
    assert len(new) == len(line)
    data[m.start() + 1:m.end() - 1] = new
else:
    sys.exit(f"edit-plan.py: unknown edit {what}")
open(dst, "wb").write(data)
