// --nvfp4-host-launch alone: the host code around each op (lazy-load guard, load through
// the ABI, descriptors, launch through the plan cache, statuses returned), the per-op
// globals and ABI declarations, the new i32 status result, call sites, the default stream.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-host-launch | FileCheck %s

// The ABI entry points, declared once, and the four globals of the op.
// CHECK-LABEL: {{^}}module {
// CHECK-DAG: llvm.func @nvfp4rt_gen_launch(!llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @nvfp4rt_gen_module_load(!llvm.ptr, !llvm.ptr, i64) -> i32
// CHECK:      llvm.mlir.global internal @moe_up_rt_module() {{.*}}alignment = 8 : i64} : !llvm.ptr {
// CHECK-NEXT:   %[[Z:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:   llvm.return %[[Z]] : !llvm.ptr
// CHECK:      llvm.mlir.global internal @moe_up_rt_plan() {{.*}} : !llvm.ptr {
// CHECK-NEXT:   llvm.mlir.zero
// The cubin placeholder and its size, filled by nvfp4-embed-cubin from gpu.binary @moe_up_module.
// CHECK: llvm.mlir.global internal constant @moe_up_cubin("") {{{.*}}alignment = 16 : i64, nvfp4.cubin_of = "moe_up_module"}
// CHECK: llvm.mlir.global internal constant @moe_up_cubin_size(0 : i64) {{{.*}}nvfp4.cubin_size_of = "moe_up_module"} : i64
// The function returns a status and gets a C interface.
// CHECK: func.func @moe(%[[A0:[^:]*]]: memref<?x256xf4E2M1FN>, %[[A1:[^:]*]]: memref<?x512xf4E2M1FN>,
// CHECK-SAME: %[[C1:[^:]*]]: memref<?x256xf16>, %[[S:[^:]*]]: !llvm.ptr {nvfp4.stream}) -> i32 attributes {llvm.emit_c_interface} {
// Entry-block allocas: one descriptor per operand, the operand array.
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-COUNT-2: llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK-COUNT-4: llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64, array<5 x i64>, array<5 x i64>)>
// CHECK-COUNT-4: llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: %[[OPS:.*]] = llvm.alloca %[[ONE]] x !llvm.array<10 x ptr>
// Ops before the op stay before the guard.
// CHECK: %[[BEFORE:.*]] = memref.dim %[[A0]]
// The lazy-load guard: an acquire load of the module slot, null -> load.
// CHECK: %[[SLOT:.*]] = llvm.mlir.addressof @moe_up_rt_module : !llvm.ptr
// CHECK: %[[M0:.*]] = llvm.load %[[SLOT]] atomic acquire {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[ISNULL:.*]] = llvm.icmp "eq" %[[M0]], %[[NULL]] : !llvm.ptr
// CHECK: cf.cond_br %[[ISNULL]], ^[[LOAD:bb[0-9]+]], ^[[READY:bb[0-9]+]](%[[M0]] : !llvm.ptr)
// The first call loads the embedded cubin through the ABI; a failure returns its status.
// CHECK: ^[[LOAD]]:
// CHECK: %[[IMG:.*]] = llvm.mlir.addressof @moe_up_cubin : !llvm.ptr
// CHECK: %[[SZP:.*]] = llvm.mlir.addressof @moe_up_cubin_size : !llvm.ptr
// CHECK: %[[SZ:.*]] = llvm.load %[[SZP]] {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK: %[[LST:.*]] = llvm.call @nvfp4rt_gen_module_load(%[[SLOT]], %[[IMG]], %[[SZ]]) : (!llvm.ptr, !llvm.ptr, i64) -> i32
// CHECK: %[[M1:.*]] = llvm.load %[[SLOT]] {alignment = 8 : i64} : !llvm.ptr -> !llvm.ptr
// CHECK: %[[LOK:.*]] = llvm.icmp "eq" %[[LST]], %{{.*}} : i32
// CHECK: cf.cond_br %[[LOK]], ^[[READY]](%[[M1]] : !llvm.ptr), ^[[FAIL:bb[0-9]+]](%[[LST]] : i32)
// Ready: every operand's memref descriptor stored, its address in the operand array in the
// op's order (a0 a1 b0 b1 sfa0 sfa1 sfb0 sfb1 c0 c1).
// CHECK: ^[[READY]](%[[MOD:.*]]: !llvm.ptr):
// CHECK: %[[D0:.*]] = builtin.unrealized_conversion_cast %[[A0]] : memref<?x256xf4E2M1FN> to !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: llvm.store %[[D0]], %[[P0:.*]] : !llvm.struct
// CHECK: %[[G0:.*]] = llvm.getelementptr %[[OPS]][0] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.store %[[P0]], %[[G0]] {alignment = 8 : i64} : !llvm.ptr, !llvm.ptr
// CHECK: builtin.unrealized_conversion_cast %[[A1]] : memref<?x512xf4E2M1FN>
// CHECK: llvm.getelementptr %[[OPS]][8]
// CHECK: memref<2x8x32x4x4xf8E4M3FN> to !llvm.struct<(ptr, ptr, i64, array<5 x i64>, array<5 x i64>)>
// CHECK: llvm.getelementptr %[[OPS]][56]
// CHECK: builtin.unrealized_conversion_cast %[[C1]] : memref<?x256xf16>
// CHECK: llvm.getelementptr %[[OPS]][72]
// The op stays for nvfp4-lower-grouped-matmul, marked, with its kernel name.
// CHECK: nvfp4.grouped_matmul {{.*}} {kernel_name = "moe_up", nvfp4.host_launched, target = "sm_100a"}
// The launch: module, plan cache, ABI 1, form 0 (pointer array), flags 0 (f16), 2 groups,
// 10 operands, the operand array, the stream argument.
// CHECK: %[[PLAN:.*]] = llvm.mlir.addressof @moe_up_rt_plan : !llvm.ptr
// CHECK: %[[V:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: %[[F:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[FL:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[G:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: %[[N:.*]] = llvm.mlir.constant(10 : i32) : i32
// CHECK: %[[ST:.*]] = llvm.call @nvfp4rt_gen_launch(%[[MOD]], %[[PLAN]], %[[V]], %[[F]], %[[FL]], %[[G]], %[[N]], %[[OPS]], %[[S]])
// CHECK: %[[OK:.*]] = llvm.icmp "eq" %[[ST]], %{{.*}} : i32
// CHECK: cf.cond_br %[[OK]], ^[[CONT:bb[0-9]+]], ^[[FAIL]](%[[ST]] : i32)
// The rest of the block continues after a successful launch and returns OK (0).
// CHECK: ^[[CONT]]:
// CHECK-NEXT: call @after(%[[BEFORE]])
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: return %[[ZERO]] : i32
// CHECK: ^[[FAIL]](%[[STATUS:.*]]: i32):
// CHECK-NEXT: return %[[STATUS]] : i32
func.func private @after(index)
func.func @moe(%a0: memref<?x256xf4E2M1FN>, %a1: memref<?x512xf4E2M1FN>,
               %b0: memref<128x256xf4E2M1FN>, %b1: memref<256x512xf4E2M1FN>,
               %sa0: memref<?x4x32x4x4xf8E4M3FN>, %sa1: memref<?x8x32x4x4xf8E4M3FN>,
               %sb0: memref<1x4x32x4x4xf8E4M3FN>, %sb1: memref<2x8x32x4x4xf8E4M3FN>,
               %c0: memref<?x128xf16>, %c1: memref<?x256xf16>,
               %stream: !llvm.ptr {nvfp4.stream}) {
  %i0 = arith.constant 0 : index
  %m = memref.dim %a0, %i0 : memref<?x256xf4E2M1FN>
  nvfp4.grouped_matmul
      a(%a0, %a1 : memref<?x256xf4E2M1FN>, memref<?x512xf4E2M1FN>)
      b(%b0, %b1 : memref<128x256xf4E2M1FN>, memref<256x512xf4E2M1FN>)
      sfa(%sa0, %sa1 : memref<?x4x32x4x4xf8E4M3FN>, memref<?x8x32x4x4xf8E4M3FN>)
      sfb(%sb0, %sb1 : memref<1x4x32x4x4xf8E4M3FN>, memref<2x8x32x4x4xf8E4M3FN>)
      c(%c0, %c1 : memref<?x128xf16>, memref<?x256xf16>)
      {target = "sm_100a", kernel_name = "moe_up"}
  call @after(%m) : (index) -> ()
  return
}

// -----

// No stream argument: the default stream (null). No kernel_name: the lowering's default
// names are fixed on the ops. Two ops in one function: two guards, two plans, one failure
// block. A call inside the module receives the status as a trailing result.
// CHECK-LABEL: {{^}}module {
// CHECK-DAG: llvm.mlir.global internal @nvfp4_grouped_matmul_g1_rt_module()
// CHECK-DAG: llvm.mlir.global internal @nvfp4_grouped_matmul_g1_1_rt_module()
// CHECK-DAG: llvm.mlir.global internal @nvfp4_grouped_matmul_g1_rt_plan()
// CHECK-DAG: llvm.mlir.global internal @nvfp4_grouped_matmul_g1_1_rt_plan()
// CHECK: func.func @two({{.*}}) -> i32 attributes {llvm.emit_c_interface}
// CHECK: llvm.load {{.*}} atomic acquire
// CHECK: llvm.call @nvfp4rt_gen_module_load
// CHECK: cf.cond_br {{.*}}, ^bb{{[0-9]+}}(%{{.*}} : !llvm.ptr), ^[[FAIL:bb[0-9]+]](%{{.*}} : i32)
// CHECK: nvfp4.grouped_matmul {{.*}}kernel_name = "nvfp4_grouped_matmul_g1", nvfp4.host_launched
// CHECK: %[[DEF:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[P0:.*]] = llvm.mlir.addressof @nvfp4_grouped_matmul_g1_rt_plan
// CHECK: llvm.call @nvfp4rt_gen_launch(%{{.*}}, %[[P0]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[DEF]])
// CHECK: cf.cond_br {{.*}}, ^[[NEXT:bb[0-9]+]], ^[[FAIL]](
// CHECK: ^[[NEXT]]:
// CHECK: llvm.mlir.addressof @nvfp4_grouped_matmul_g1_1_rt_module
// CHECK: llvm.load {{.*}} atomic acquire
// CHECK: nvfp4.grouped_matmul {{.*}}kernel_name = "nvfp4_grouped_matmul_g1_1", nvfp4.host_launched
// CHECK: llvm.mlir.addressof @nvfp4_grouped_matmul_g1_1_rt_plan
// CHECK: cf.cond_br {{.*}}, ^{{bb[0-9]+}}, ^[[FAIL]](
// CHECK: ^[[FAIL]](%[[S:.*]]: i32):  // 4 preds
// CHECK-NEXT: return %[[S]] : i32
// CHECK: func.func @caller(
// CHECK-NEXT: %{{.*}} = call @two({{.*}}) -> i32
// CHECK-NEXT: return
func.func @two(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
               %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
               %c: memref<?x128xf16>, %d: memref<?x128xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_100a"}
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%d : memref<?x128xf16>) {target = "sm_100a"}
  return
}
func.func @caller(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
                  %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
                  %c: memref<?x128xf16>, %d: memref<?x128xf16>) {
  call @two(%a, %b, %sfa, %sfb, %c, %d)
      : (memref<?x256xf4E2M1FN>, memref<128x256xf4E2M1FN>, memref<?x4x32x4x4xf8E4M3FN>,
         memref<1x4x32x4x4xf8E4M3FN>, memref<?x128xf16>, memref<?x128xf16>) -> ()
  return
}

// -----

// An op that was already given its host code is left alone (running the pass twice).
// CHECK-LABEL: {{^}}module {
// CHECK-NOT: llvm.call @nvfp4rt_gen_launch
// CHECK: func.func @again({{.*}}) {
// CHECK-NEXT: nvfp4.grouped_matmul {{.*}}nvfp4.host_launched
// CHECK-NEXT: return
func.func @again(%a: memref<?x256xf4E2M1FN>, %b: memref<128x256xf4E2M1FN>,
                 %sfa: memref<?x4x32x4x4xf8E4M3FN>, %sfb: memref<1x4x32x4x4xf8E4M3FN>,
                 %c: memref<?x128xf16>) {
  nvfp4.grouped_matmul a(%a : memref<?x256xf4E2M1FN>) b(%b : memref<128x256xf4E2M1FN>)
      sfa(%sfa : memref<?x4x32x4x4xf8E4M3FN>) sfb(%sfb : memref<1x4x32x4x4xf8E4M3FN>)
      c(%c : memref<?x128xf16>) {target = "sm_100a", nvfp4.host_launched}
  return
}
