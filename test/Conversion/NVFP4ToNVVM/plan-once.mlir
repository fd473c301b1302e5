// The planner runs once per op (NVFP4_DEBUG_PLANNER prints a line per variant planned): the
// verifier plans each op's kernel family when the op is parsed, and again finds it in the
// planner's memo whenever the op is verified later; the lowering builds the kernels from
// that memoised plan and attaches it to them (nvfp4.plan); the CPU target reads it from
// there. Two ops in two functions (verified in parallel when threading is on): the default
// sm_100a family of 2 groups (3 variants) and one sm_90a variant of 1 group, each variant
// planned once — 4 lines, not the 12 of planning in the verifier, the lowering and the CPU
// target. The same through nvfp4-compile's whole CPU-object pipeline (one op: the default
// family of examples/test1.mlir, 3 variants).
// RUN: env NVFP4_DEBUG_PLANNER=1 nvfp4-opt %s --mlir-disable-threading --nvfp4-lower-grouped-matmul --nvfp4-cpu-target -o %t.mlir 2>&1 | FileCheck %s
// RUN: env NVFP4_DEBUG_PLANNER=1 nvfp4-opt %s --nvfp4-lower-grouped-matmul --nvfp4-cpu-target -o %t.mt.mlir 2>&1 | grep -c "^nvfp4-planner: run" | FileCheck %s --check-prefix=COUNT
// RUN: env NVFP4_DEBUG_PLANNER=1 nvfp4-compile %nvfp4_src/examples/test1.mlir --cpu %t.so 2>&1 | grep -c "^nvfp4-planner: run" | FileCheck %s --check-prefix=COUNT3
// The kernels the CPU target built carry the plan's role map, in the plan text.
// RUN: FileCheck %s --check-prefix=PLAN < %t.mlir

// CHECK: nvfp4-planner: run 1: ab_n128 for 2 groups
// CHECK-NEXT: nvfp4-planner: run 2: swap_n128 for 2 groups
// CHECK-NEXT: nvfp4-planner: run 3: swap_n256 for 2 groups
// CHECK-NEXT: nvfp4-planner: run 4: swap_n64 for 1 groups
// CHECK-NOT: nvfp4-planner
// COUNT: {{^}}4{{$}}
// COUNT3: {{^}}3{{$}}
// PLAN-DAG: @once_ab_n128__nvfp4_cpu_plan("kernel once_ab_n128\0Avariant ab_n128\0Athreads 192\0Acluster 1\0Adyn_smem {{[0-9]+}}\0Arole 0 3 epilogue\0Arole 4 4 producer\0Arole 5 5 mma\0Asmem
// PLAN-DAG: @once90_swap_n64__nvfp4_cpu_plan("kernel once90_swap_n64\0Avariant swap_n64\0Athreads 640\0Acluster 1\0Adyn_smem {{[0-9]+}}\0Arole 0 3 producer\0Arole 4 11 consumer\0Arole 12 19 decoder\0Asmem

func.func @two_groups(%a0: memref<?x256xf4E2M1FN>, %a1: memref<?x256xf4E2M1FN>,
                      %b0: memref<128x256xf4E2M1FN>, %b1: memref<128x256xf4E2M1FN>,
                      %sa0: memref<?x4x32x4x4xf8E4M3FN>, %sa1: memref<?x4x32x4x4xf8E4M3FN>,
                      %sb0: memref<1x4x32x4x4xf8E4M3FN>, %sb1: memref<1x4x32x4x4xf8E4M3FN>,
                      %c0: memref<?x128xf16>, %c1: memref<?x128xf16>) {
  nvfp4.grouped_matmul a(%a0, %a1 : memref<?x256xf4E2M1FN>, memref<?x256xf4E2M1FN>)
      b(%b0, %b1 : memref<128x256xf4E2M1FN>, memref<128x256xf4E2M1FN>)
      sfa(%sa0, %sa1 : memref<?x4x32x4x4xf8E4M3FN>, memref<?x4x32x4x4xf8E4M3FN>)
      sfb(%sb0, %sb1 : memref<1x4x32x4x4xf8E4M3FN>, memref<1x4x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<?x128xf16>, memref<?x128xf16>) {target = "sm_100a", kernel_name = "once"}
  return
}

func.func @one_group_sm90(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
                          %sa: memref<?x4x32x4x4xf8E4M3FN>, %sb: memref<1x4x32x4x4xf8E4M3FN>,
                          %c: memref<?x128xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_90a", variants = ["swap_n64"], kernel_name = "once90"}
  return
}
