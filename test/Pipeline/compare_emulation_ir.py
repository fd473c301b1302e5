#!/usr/bin/env python3
"""Compares the generic-form IR of the sm_100a kernel with its sm_90a rewrite (the tcgen05
emulation, or with --tag nvfp4.proxy the timing proxy).

Each op line is reduced to its op name and attribute dictionary (SSA names dropped). The
native sequence minus nvvm.tcgen05.* ops must equal the rewritten sequence minus ops
tagged with the rewrite's unit attribute (default `nvfp4.emulation`) and the emulation
library declarations; the gpu.module target and the metadata record are the only other
allowed differences.

With --replaced PREFIX the native ops the rewrite replaces are those named PREFIX (e.g.
nvvm.mma.block_scale for the sm_120a emulation) together with the llvm.extractvalue ops
reading their results (the rewrite reads those from a buffer instead).

  usage: compare_emulation_ir.py NATIVE.mlir REWRITTEN.mlir [--tag ATTR] [--replaced PREFIX]"""
import re
import sys

OP = re.compile(r'\s*(?:%[\w:#, ]+ = )?"([a-z_0-9.]+)"')


def ops(path):
    out = []
    for line in open(path, encoding="utf-8"):
        m = OP.match(line)
        if not m:
            continue
        name = m.group(1)
        attrs = re.sub(r"%[\w#:]+", "%", line[m.end():])
        attrs = re.sub(r"\^bb\d+", "^bb", attrs)
        out.append((name, attrs.strip(), line))
    return out


def main():
    args = sys.argv[1:]
    tag = "nvfp4.emulation"
    if "--tag" in args:
        i = args.index("--tag")
        tag = args[i + 1]
        del args[i:i + 2]
    prefix = "nvvm.tcgen05."
    if "--replaced" in args:
        i = args.index("--replaced")
        prefix = args[i + 1]
        del args[i:i + 2]
    native = ops(args[0])
    emu = ops(args[1])
    replaced = sum(1 for n, _, _ in native if n.startswith(prefix))
    results = set()  # SSA names of the replaced ops' results
    keep_native = []
    for n, a, l in native:
        if n.startswith(prefix):
            m = re.match(r"\s*(%[\w#:]+) = ", l)
            if m:
                results.add(m.group(1))
            continue
        m = re.match(r'\s*%[\w#:]+ = "llvm.extractvalue"\((%[\w#:]+)\)', l)
        if m and m.group(1) in results:
            continue
        keep_native.append((n, a))
    keep_emu = [(n, a) for n, a, l in emu
                if tag not in l and "sym_name = \"nvfp4_emu_" not in l]
    allowed = ("gpu.module", "llvm.mlir.global")
    bad = 0
    if len(keep_native) != len(keep_emu):
        print(f"op count differs: {len(keep_native)} native vs {len(keep_emu)} emulated")
        bad += 1
    for (n1, a1), (n2, a2) in zip(keep_native, keep_emu):
        if n1 != n2 or (a1 != a2 and n1 not in allowed):
            print(f"difference: {n1} {a1[:160]}\n        vs: {n2} {a2[:160]}")
            bad += 1
            if bad > 10:
                break
    if bad:
        sys.exit(1)
    what = tag.split(".")[-1]
    kind = prefix.rstrip(".").split(".")[-1] if prefix != "nvvm.tcgen05." else "tcgen05"
    print(f"identical apart from the {what} rewrite: {replaced} {kind} ops replaced, "
          f"{len(keep_native)} ops compared")


if __name__ == "__main__":
    main()
