#!/usr/bin/env python3
"""parity_check.py — reads the output of `nvfp4-opt --nvfp4-to-ptx` over the target parity
matrix (scripts/parity-ops.py --variants cycle) and checks that every op of the list came
out as a gpu.binary for the target, holding the PTX entry of the op's variant: each op
compiled, none dropped, none extra. Prints one line per class of ops (form, group count,
C type, alpha: its variant and ops) and a summary; exits 1 on any problem, so that a test
built on it cannot pass by matching nothing.

    parity_check.py OUTPUT LIST TARGET
LIST: the lines of `parity-ops.py --list` (kernel name, class, variant)."""
import re
import sys


def main(argv):
    if len(argv) != 4:
        print("usage: parity_check.py OUTPUT LIST TARGET", file=sys.stderr)
        return 2
    text = open(argv[1], encoding="utf-8", errors="replace").read()
    ops = [line.split() for line in open(argv[2]) if line.strip()]
    target = argv[3]
    binaries = {}
    starts = [m for m in re.finditer(r"gpu\.binary @([A-Za-z0-9_]+)_module", text)]
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        binaries[m.group(1)] = text[m.end():end]
    errors, classes = [], {}
    for name, cls, variant in ops:
        body = binaries.pop(name, None)
        if body is None:
            errors.append(f"{name}: no gpu.binary")
            continue
        if f'chip = "{target}"' not in body[:400]:
            errors.append(f"{name}: not a {target} binary")
        if f".entry {name}_{variant}(" not in body:
            errors.append(f"{name}: no PTX entry {name}_{variant}")
        classes.setdefault(cls, [variant, 0])[1] += 1
    for name in binaries:
        errors.append(f"{name}: a gpu.binary no op of the list has")
    for cls in sorted(classes, key=lambda c: (c.split("_")[0], int(c.split("_")[1][1:]), c)):
        variant, n = classes[cls]
        print(f"{target} {cls}: {variant}, {n} ops")
    for e in errors:
        print(f"FAIL: {e}")
    print(f"{target}: {len(ops)} ops, {len(ops) - len(errors)} compiled to PTX, "
          f"{len(errors)} problems")
    return 1 if errors or not ops else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
