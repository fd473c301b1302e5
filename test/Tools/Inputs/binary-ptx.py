#!/usr/bin/env python3
"""Input of compile-jobs.test: prints the PTX held by the (single) gpu.binary of an MLIR
file on standard input, its string escapes (\\XX hex, \\\\, \\") undone."""
import re
import sys

text = sys.stdin.read()
m = re.search(r'gpu\.binary @\w+\s*\[#gpu\.object<.*?assembly = "((?:[^"\\]|\\.)*)"', text, re.S)
if not m:
    sys.exit("no gpu.binary with assembly in the input")
out = bytearray()
s = m.group(1)
i = 0
while i < len(s):
    if s[i] == "\\":
        if s[i + 1] in '\\"':
            out.append(ord(s[i + 1]))
            i += 2
        else:
            out.append(int(s[i + 1:i + 3], 16))
            i += 3
    else:
        out += s[i].encode()
        i += 1
sys.stdout.buffer.write(bytes(out))
