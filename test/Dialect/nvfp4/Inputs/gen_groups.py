"""Prints an nvfp4.grouped_matmul with G identical groups (generic form; each group has its
own C, which the verifier requires) for the group-count tests: python gen_groups.py G."""
import sys

g = int(sys.argv[1])
types = ["memref<128x256xf4E2M1FN>", "memref<128x256xf4E2M1FN>",
         "memref<1x4x32x4x4xf8E4M3FN>", "memref<1x4x32x4x4xf8E4M3FN>", "memref<128x128xf16>"]
names = ["a", "b", "sa", "sb"]
args = ", ".join("%%%s: %s" % (n, t) for n, t in zip(names, types))
args += "".join(", %%c%d: %s" % (i, types[4]) for i in range(g))
operands = ", ".join(["%" + n for n in names for _ in range(g)] + ["%%c%d" % i for i in range(g)])
optypes = ", ".join(t for t in types for _ in range(g))
print("func.func @groups_%d(%s) {" % (g, args))
print('  "nvfp4.grouped_matmul"(%s) <{operandSegmentSizes = array<i32: %d, %d, %d, %d, %d, 0, 0, 0>, '
      'target = "sm_100a", kernel_name = "g%d", variants = ["swap_n128"]}> : (%s) -> ()'
      % (operands, g, g, g, g, g, g, optypes))
print("  return")
print("}")
