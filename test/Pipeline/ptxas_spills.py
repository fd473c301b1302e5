#!/usr/bin/env python3
"""ptxas_spills.py — reads the `ptxas -v` log of one cubin (nvfp4-compile --ptxas-verbose) and
checks that it compiled exactly the expected entry functions, each with a 0-byte stack
frame and 0 bytes of spill stores and loads. Prints one line per kernel (registers,
barriers) and a summary; exits 1 on a missing, extra or unreadable kernel or on any
spill, so a test built on it cannot pass by matching nothing.

    ptxas_spills.py LOG KERNEL...
"""
import re
import sys


def main(argv):
    if len(argv) < 3:
        print("usage: ptxas_spills.py LOG KERNEL...", file=sys.stderr)
        return 2
    text = open(argv[1], encoding="utf-8", errors="replace").read()
    expected = argv[2:]
    entry = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
    props = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
    used = re.compile(r"Used (\d+) registers(?:, used (\d+) barriers)?")
    found = {}
    errors = []
    matches = list(entry.finditer(text))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        block = text[m.end():end]
        p, u = props.search(block), used.search(block)
        if not p or not u:
            errors.append(f"{m.group(1)}: no stack/spill or register line in the log")
            continue
        stack, stores, loads = (int(x) for x in p.groups())
        found[m.group(1)] = (int(u.group(1)), int(u.group(2) or 0), stack, stores, loads,
                             m.group(2))
    for name in expected:
        if name not in found:
            errors.append(f"{name}: not compiled (no 'Compiling entry function' line)")
    for name in found:
        if name not in expected:
            errors.append(f"{name}: compiled but not expected")
    for name in sorted(found):
        regs, bars, stack, stores, loads, arch = found[name]
        print(f"{name}: {arch}, {regs} registers, {bars} barriers, {stack} bytes stack, "
              f"{stores + loads} bytes spilled")
        if stack or stores or loads:
            errors.append(f"{name}: {stack} bytes stack frame, {stores} bytes spill stores, "
                          f"{loads} bytes spill loads")
    for e in errors:
        print(f"FAIL: {e}")
    print(f"{len(found)} kernels, {len(errors)} problems")
    return 1 if errors or not found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
