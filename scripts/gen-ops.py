#!/usr/bin/env python3
"""Prints an nvfp4 op with every size dynamic except the group / expert count, for the
device suite's packages and for tests:

  gen-ops.py grouped G [--c f16|bf16|f32] [--alpha] [--variants a,b,...|--variant-set SET]
                       [--name NAME] [--target TARGET]
  gen-ops.py moe E     [--c f16|bf16|f32] [--alpha] [--variants a,b,...|--variant-set SET]
                       [--name NAME] [--target TARGET]
  either with --swiglu [--debug-activations] [--inter I]: the fused SwiGLU + NVFP4 epilogue
  (an FP4 C, the operands sfc and gs; --c is ignored), with the unit attribute
  nvfp4.debug_activations, with C's I columns static (else dynamic, as every other size)

grouped: nvfp4.grouped_matmul with G groups (one memref per group in each list);
moe: nvfp4.moe_matmul with E experts (b E x ? x ?, offsets E + 1). --variant-set names a
variant list of the run matrix (scripts/run-matrix.txt, read through run-matrix.sh).
--target: sm_100a (default), sm_100f, sm_103a, sm_90a, sm_120a, sm_121a or sm_120f."""
import argparse
import os
import subprocess
import sys

p = argparse.ArgumentParser()
p.add_argument("form", choices=["grouped", "moe"])
p.add_argument("count", type=int)
p.add_argument("--c", default="f16", choices=["f16", "bf16", "f32"])
p.add_argument("--alpha", action="store_true")
p.add_argument("--variants", default="")
p.add_argument("--variant-set", default="")
p.add_argument("--name", default="")
p.add_argument("--target", default="sm_100a",
               choices=["sm_100a", "sm_100f", "sm_103a", "sm_90a", "sm_120a", "sm_121a", "sm_120f"])
p.add_argument("--swiglu", action="store_true")
p.add_argument("--debug-activations", action="store_true")
p.add_argument("--inter", type=int, default=0)
a = p.parse_args()
if a.variant_set:
    matrix = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run-matrix.sh")
    r = subprocess.run(["bash", matrix, "variants", a.variant_set], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("gen-ops.py: " + r.stderr.strip())
    a.variants = ",".join(r.stdout.split())
n = a.count
fp4, sf = "memref<?x?xf4E2M1FN>", "memref<?x?x32x4x4xf8E4M3FN>"
c = "memref<?x%sx%s>" % (str(a.inter) if a.swiglu and a.inter else "?",
                         "f4E2M1FN" if a.swiglu else a.c)
attrs = ['target = "%s"' % a.target]
if a.swiglu:
    attrs.insert(0, 'epilogue = "swiglu_nvfp4"')
    if a.debug_activations:
        attrs.append("nvfp4.debug_activations")
if a.name:
    attrs.append('kernel_name = "%s"' % a.name)
if a.variants:
    attrs.append("variants = [%s]" % ", ".join('"%s"' % v for v in a.variants.split(",")))
attr = "{%s}" % ", ".join(attrs)
if a.form == "grouped":
    lists = [("a", fp4), ("b", fp4), ("sfa", sf), ("sfb", sf), ("c", c)]
    args = ["%%%s%d: %s" % (k, g, t) for k, t in lists for g in range(n)]
    if a.alpha:
        args.append("%%alpha: memref<%dxf32>" % n)
    if a.swiglu:
        args += ["%%sfc%d: %s" % (g, sf) for g in range(n)] + ["%%gs: memref<%dxf32>" % n]
    print("func.func @grouped_%d(%s) {" % (n, ", ".join(args)))
    print("  nvfp4.grouped_matmul")
    for k, t in lists:
        print("      %s(%s : %s)" % (k, ", ".join("%%%s%d" % (k, g) for g in range(n)),
                                     ", ".join([t] * n)))
    if a.alpha:
        print("      alpha(%%alpha : memref<%dxf32>)" % n)
    if a.swiglu:
        print("      sfc(%s : %s)" % (", ".join("%%sfc%d" % g for g in range(n)), ", ".join([sf] * n)))
        print("      gs(%%gs : memref<%dxf32>)" % n)
else:
    ops = [("a", fp4), ("b", "memref<%dx?x?xf4E2M1FN>" % n), ("sfa", sf),
           ("sfb", "memref<%dx?x?x32x4x4xf8E4M3FN>" % n), ("c", c),
           ("offsets", "memref<%dxi32>" % (n + 1))]
    if a.alpha:
        ops.append(("alpha", "memref<%dxf32>" % n))
    if a.swiglu:
        ops += [("sfc", sf), ("gs", "memref<%dxf32>" % n)]
    print("func.func @moe_%d(%s) {" % (n, ", ".join("%%%s: %s" % (k, t) for k, t in ops)))
    print("  nvfp4.moe_matmul")
    for k, t in ops:
        print("      %s(%%%s : %s)" % (k, k, t))
print("      %s" % attr)
print("  return")
print("}")
