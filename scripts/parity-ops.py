#!/usr/bin/env python3
"""The op matrix of the target parity test (docs/design.md, "Targets and parity": one op,
one meaning on every target): both forms (nvfp4.grouped_matmul, nvfp4.moe_matmul) x C in {f16, bf16, f32} x
alpha off / on x C contiguous / strided<[ldc, 1]> x static / dynamic sizes x group (expert)
counts {1, 46, 47, 1024}: 192 ops, each a func.func with its own kernel_name, printed as one
module for one target.

  parity-ops.py --target TARGET [--variants family|cycle] [--forms grouped,moe]
                [--groups 1,46,47,1024] [--representatives] [--list]

TARGET: sm_100a, sm_100f, sm_103a (the tcgen05 kernels), sm_90a, sm_120a, sm_121a, sm_120f (the
block-scaled mma.sync kernels). --variants family (default): no `variants` attribute, each op
gets its target's default family (the verifier plans every variant of it). --variants cycle: each op names one variant
of that family, the classes taking them in turn, so that compiling the matrix covers every
variant with the options at a fraction of the cost. A class is the ops of one form, group
count, C type and alpha: its four ops (C contiguous or strided, sizes static or dynamic)
differ only in what the kernel reads at run time, and get the same variant.
--representatives prints the first op of each class only. --list prints one line per op
(kernel name, class, variant) instead of the module."""
import argparse

TCGEN05 = ["ab_n128", "swap_n128", "swap_n256"]
MMA_SYNC = ["ab_n128", "swap_n64", "swap_n128"]
FAMILY = {
    "sm_100a": TCGEN05, "sm_100f": TCGEN05, "sm_103a": TCGEN05,
    "sm_90a": ["swap_n128", "swap_n64", "swap_n192", "swap_n128_m192", "swap_n64_m192",
               "swap_n128_m192_sk"],
    "sm_120a": MMA_SYNC, "sm_121a": MMA_SYNC, "sm_120f": MMA_SYNC,
}
# the contiguous form's default family leaves the stream-K schedule out (it cuts its shares
# from the group table)
MOE_FAMILY = {t: [v for v in f if not v.endswith("_sk")] for t, f in FAMILY.items()}

M, N, K = 192, 256, 512                     # static sizes (a ragged M for the MoE tokens)
LDC = {"f16": 264, "bf16": 264, "f32": 260}  # strided C: 16-byte rows, past N


def fp4(rows, k):
    return "memref<%sx%sxf4E2M1FN>" % (rows, k)


def c_type(ct, rows, strided, static):
    shape = "%sx%s" % (rows, N if static else "?")
    if not strided:
        return "memref<%sx%s>" % (shape, ct)
    return "memref<%sx%s, strided<[%s, 1]>>" % (shape, ct, LDC[ct] if static else "?")


def grouped(name, g, ct, alpha, strided, static):
    m, n, k = (M, N, K) if static else ("?", "?", "?")
    kb = K // 64 if static else "?"
    sfa = "memref<%sx%sx32x4x4xf8E4M3FN>" % ((M + 127) // 128 if static else "?", kb)
    sfb = "memref<%sx%sx32x4x4xf8E4M3FN>" % ((N + 127) // 128 if static else "?", kb)
    lists = [("a", fp4(m, k)), ("b", fp4(n, k)), ("sfa", sfa), ("sfb", sfb),
             ("c", c_type(ct, m, strided, static))]
    args = ["%%%s%d: %s" % (x, i, t) for x, t in lists for i in range(g)]
    if alpha:
        args.append("%%alpha: memref<%dxf32>" % g)
    out = ["func.func @%s(%s) {" % (name, ", ".join(args)), "  nvfp4.grouped_matmul"]
    for x, t in lists:
        out.append("      %s(%s : %s)" % (x, ", ".join("%%%s%d" % (x, i) for i in range(g)),
                                         ", ".join([t] * g)))
    if alpha:
        out.append("      alpha(%%alpha : memref<%dxf32>)" % g)
    return out


def moe(name, e, ct, alpha, strided, static):
    m, n, k = (M, N, K) if static else ("?", "?", "?")
    kb = K // 64 if static else "?"
    atoms = min(M, e + (M - e) // 128) if M >= e else M  # nvfp4_abi_moe_sfa_atoms
    ops = [("a", fp4(m, k)), ("b", "memref<%dx%sx%sxf4E2M1FN>" % (e, n, k)),
           ("sfa", "memref<%sx%sx32x4x4xf8E4M3FN>" % (atoms if static else "?", kb)),
           ("sfb", "memref<%dx%sx%sx32x4x4xf8E4M3FN>" % (e, (N + 127) // 128 if static else "?", kb)),
           ("c", c_type(ct, m, strided, static)), ("offsets", "memref<%dxi32>" % (e + 1))]
    if alpha:
        ops.append(("alpha", "memref<%dxf32>" % e))
    out = ["func.func @%s(%s) {" % (name, ", ".join("%%%s: %s" % (x, t) for x, t in ops)),
           "  nvfp4.moe_matmul"]
    for x, t in ops:
        out.append("      %s(%%%s : %s)" % (x, x, t))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--target", required=True, choices=sorted(FAMILY))
    p.add_argument("--variants", default="family", choices=["family", "cycle"])
    p.add_argument("--forms", default="grouped,moe")
    p.add_argument("--groups", default="1,46,47,1024")
    p.add_argument("--representatives", action="store_true")
    p.add_argument("--list", action="store_true")
    a = p.parse_args()
    for form in a.forms.split(","):
        fam = (FAMILY if form == "grouped" else MOE_FAMILY)[a.target]
        turn = 0
        for gi, g in enumerate(int(x) for x in a.groups.split(",")):
            for ct in ("f16", "bf16", "f32"):
                for alpha in (False, True):
                    cls = "%s_g%d_%s%s" % ("pa" if form == "grouped" else "moe", g, ct,
                                           "_alpha" if alpha else "")
                    variant = fam[(turn + gi) % len(fam)]  # each variant meets each option
                    turn += 1
                    for strided in (False, True):
                        for static in (True, False):
                            if a.representatives and (strided or not static):
                                continue
                            name = "%s%s_%s" % (cls, "_ldc" if strided else "",
                                                "static" if static else "dyn")
                            attrs = ['target = "%s"' % a.target, 'kernel_name = "%s"' % name]
                            if a.variants == "cycle":
                                attrs.append('variants = ["%s"]' % variant)
                            if a.list:
                                print(name, cls, variant if a.variants == "cycle" else "family")
                                continue
                            make = grouped if form == "grouped" else moe
                            lines = make(name, g, ct, alpha, strided, static)
                            lines += ["      {%s}" % ", ".join(attrs), "  return", "}"]
                            print("\n".join(lines))


if __name__ == "__main__":
    main()
