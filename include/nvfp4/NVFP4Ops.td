// NVFP4Ops.td — ODS definition of `nvfp4.grouped_matmul` (DESIGN.md §3). Operand types
// are only constrained to memrefs here; every semantic check (element types, ranks,
// shapes, attributes) is done by the C verifier mlirNvfp4GroupedMatmulVerify.
#ifndef NVFP4_OPS_TD
#define NVFP4_OPS_TD

include "nvfp4/NVFP4Dialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def NVFP4_GroupedMatmulOp : NVFP4_Op<"grouped_matmul", [AttrSizedOperandSegments]> {
  let summary = "grouped block-scaled NVFP4 matmul: C_g = (A_g * SFA_g) (B_g * SFB_g)^T";
  let description = [{
    For each group g (G >= 1 groups, at most 1024):

        C_g[m, n] = f16( sum_k A_g[m,k] SFA_g[m,k/16] * B_g[n,k] SFB_g[n,k/16] )

    accumulated in f32. Operands, one memref per group in each list:

    - `a`:   `M_g x K_g` of `f4E2M1FN` (K-major).
    - `b`:   `N_g x K_g` of `f4E2M1FN` (K-major; C = A * B^T).
    - `sfa`: `ceil(M_g/128) x ceil(K_g/64) x 32 x 4 x 4` of `f8E4M3FN` (blocked layout).
    - `sfb`: `ceil(N_g/128) x ceil(K_g/64) x 32 x 4 x 4` of `f8E4M3FN`.
    - `c`:   `M_g x N_g` of `f16`, row-major.

    All memrefs have the identity layout and the default memory space. M, N and K may
    be dynamic (`?`); static sizes must agree with each other, K must be a multiple of
    64, and within a group A's and B's K dimensions are either both static or both
    dynamic.

    Attributes:
    - `target` (required): `"sm_100a"` (`"sm_90a"` is reserved and rejected for now).
    - `tile_n` (optional, default 128): N tile width of the default family's AB
      variant, one of 64, 128, 192, 256.
    - `stages` (optional, 2..8): pipeline depth of every variant; when absent each
      variant gets the largest that fits in shared memory.
    - `kernel_name` (optional): base name of the generated kernels, a C identifier of
      at most 47 characters; each variant's kernel is `<kernel_name>_<variant>`.
    - `variants` (optional): the kernel family to compile into one cubin, by name:
      `ab_n<N>` (the M side of the MMA is A's rows, N tile of B rows N),
      `swap_n<N>` (swap-AB: B's rows on the MMA's M side, A's rows on N, sized per
      group up to N), with N in 64, 128, 192, 256, a `2` after the orientation for a
      CTA pair (`ab2_n256`, `swap2_n256`), and `_st` for the direct-store epilogue of
      an AB variant. Default: `ab_n<tile_n>`, `swap_n128`, `swap_n256`. The runtime
      picks one per launch (docs/kernel-sm100a.md).

    Example:

    ```mlir
    nvfp4.grouped_matmul
        a(%a0 : memref<?x7168xf4E2M1FN>) b(%b0 : memref<4096x7168xf4E2M1FN>)
        sfa(%sa0 : memref<?x112x32x4x4xf8E4M3FN>)
        sfb(%sb0 : memref<32x112x32x4x4xf8E4M3FN>)
        c(%c0 : memref<?x4096xf16>) {target = "sm_100a"}
    ```
  }];

  let arguments = (ins
    Arg<Variadic<AnyMemRef>, "A per group (M x K, f4E2M1FN)", [MemRead]>:$a,
    Arg<Variadic<AnyMemRef>, "B per group (N x K, f4E2M1FN)", [MemRead]>:$b,
    Arg<Variadic<AnyMemRef>, "SFA per group (blocked, f8E4M3FN)", [MemRead]>:$sfa,
    Arg<Variadic<AnyMemRef>, "SFB per group (blocked, f8E4M3FN)", [MemRead]>:$sfb,
    Arg<Variadic<AnyMemRef>, "C per group (M x N, f16)", [MemWrite]>:$c,
    StrAttr:$target,
    OptionalAttr<I64Attr>:$tile_n,
    OptionalAttr<I64Attr>:$stages,
    OptionalAttr<StrAttr>:$kernel_name,
    OptionalAttr<StrArrayAttr>:$variants
  );
  let results = (outs);

  let assemblyFormat = [{
    `a` `(` $a `:` type($a) `)`
    `b` `(` $b `:` type($b) `)`
    `sfa` `(` $sfa `:` type($sfa) `)`
    `sfb` `(` $sfb `:` type($sfb) `)`
    `c` `(` $c `:` type($c) `)`
    attr-dict
  }];

  let hasVerifier = 1;
}

#endif // NVFP4_OPS_TD
