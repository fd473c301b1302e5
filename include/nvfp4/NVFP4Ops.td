// NVFP4Ops.td — ODS definition of `nvfp4.grouped_matmul` (docs/ops.md). Operand types
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

    accumulated in f32 (times `alpha[g]` when `alpha` is given), converted to C's element
    type. Operands, one memref per group in each list:

    - `a`:   `M_g x K_g` of `f4E2M1FN` (K-major).
    - `b`:   `N_g x K_g` of `f4E2M1FN` (K-major; C = A * B^T).
    - `sfa`: `ceil(M_g/128) x ceil(K_g/64) x 32 x 4 x 4` of `f8E4M3FN` (blocked layout).
    - `sfb`: `ceil(N_g/128) x ceil(K_g/64) x 32 x 4 x 4` of `f8E4M3FN`.
    - `c`:   `M_g x N_g` of `f16`, `bf16` or `f32` (the same for every group), row-major
      (a row stride `strided<[ldc, 1]>` is allowed).
    - `alpha` (optional, one memref): `G` of `f32`, device-resident; C_g is scaled by
      `alpha[g]` in f32 before the conversion.
    - `sfc`, `gs` (with `epilogue = "swiglu_nvfp4"` only): the fused SwiGLU + NVFP4
      re-quantization epilogue. B_g holds 2I gate/up rows (gate 0..I-1, up I..2I-1,
      N_g = 2I, I a multiple of 64); C_g is `M_g x I` of `f4E2M1FN` holding
      E2M1(silu(g) * u) per 16-feature block, `sfc` per group its block scales
      (`ceil(M_g/128) x ceil(I/64) x 32 x 4 x 4` of `f8E4M3FN`, blocked) and `gs` one
      memref of `G` f32 global scales (docs/format.md, "Re-quantization to NVFP4").

    All memrefs have the identity layout and the default memory space. M, N and K may
    be dynamic (`?`); static sizes must agree with each other, K must be a multiple of
    64, and within a group A's and B's K dimensions are either both static or both
    dynamic.

    Attributes:
    - `target` (required): `"sm_100a"` (Blackwell: tcgen05, docs/kernel-sm100a.md) or
      `"sm_90a"` (Hopper: FP4 x scale decoded to BF16, wgmma; f16 C without alpha, the
      pointer-array form only; docs/kernel-sm90a.md).
    - `tile_n` (optional, default 128): N tile width of the default family's AB
      variant, one of 64, 128, 192, 256; for sm_90a the first variant's largest token
      tile, 64, 128 or 192.
    - `stages` (optional, 2..8): pipeline depth of every variant; when absent each
      variant gets the largest that fits in shared memory.
    - `kernel_name` (optional): base name of the generated kernels, a C identifier of
      at most 47 characters; each variant's kernel is `<kernel_name>_<variant>`.
    - `variants` (optional): the kernel family to compile into one cubin, by name:
      `ab_n<N>` (the M side of the MMA is A's rows, N tile of B rows N),
      `swap_n<N>` (swap-AB: B's rows on the MMA's M side, A's rows on N, sized per
      group up to N), with N in 64, 128, 192, 256, a `2` after the orientation for a
      CTA pair (`ab2_n256`, `swap2_n256`), and `_st` for the direct-store epilogue of
      an AB variant. Default: `ab_n<tile_n>`, `swap_n128`, `swap_n256`. For sm_90a
      (swap-AB only): `swap_n64`, `swap_n128`, `swap_n192` (128-weight tiles) and
      `swap_n128_m192`, `swap_n64_m192` (192-weight tiles, three consumer warpgroups);
      default `swap_n<tile_n>`, the other two widths, then the two 192-weight variants.
      The runtime picks one per launch.
    - `epilogue` (optional): `"swiglu_nvfp4"`, the fused SwiGLU + NVFP4 epilogue; it
      requires the `sfc` and `gs` operands and an `f4E2M1FN` C.

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
    Arg<Variadic<AnyMemRef>, "C per group (M x N, f16/bf16/f32)", [MemWrite]>:$c,
    Arg<Optional<AnyMemRef>, "alpha per group (G, f32)", [MemRead]>:$alpha,
    Arg<Variadic<AnyMemRef>, "SFC per group (blocked, f8E4M3FN; fused epilogue)", [MemWrite]>:$sfc,
    Arg<Optional<AnyMemRef>, "global scale per group (G, f32; fused epilogue)", [MemRead]>:$gs,
    StrAttr:$target,
    OptionalAttr<I64Attr>:$tile_n,
    OptionalAttr<I64Attr>:$stages,
    OptionalAttr<StrAttr>:$kernel_name,
    OptionalAttr<StrArrayAttr>:$variants,
    OptionalAttr<StrAttr>:$epilogue
  );
  let results = (outs);

  let assemblyFormat = [{
    `a` `(` $a `:` type($a) `)`
    `b` `(` $b `:` type($b) `)`
    `sfa` `(` $sfa `:` type($sfa) `)`
    `sfb` `(` $sfb `:` type($sfb) `)`
    `c` `(` $c `:` type($c) `)`
    (`alpha` `(` $alpha^ `:` type($alpha) `)`)?
    (`sfc` `(` $sfc^ `:` type($sfc) `)`)?
    (`gs` `(` $gs^ `:` type($gs) `)`)?
    attr-dict
  }];

  let hasVerifier = 1;
}

def NVFP4_MoeMatmulOp : NVFP4_Op<"moe_matmul", [AttrSizedOperandSegments]> {
  let summary = "contiguous (MoE) block-scaled NVFP4 matmul with device-resident offsets";
  let description = [{
    The contiguous form of the grouped matmul, as MoE layers hold their tokens: all
    tokens in one buffer sorted by expert, the expert boundaries in device memory. For
    each expert e (E experts, fixed at compile time) owning rows
    `offsets[e] .. offsets[e+1] - 1` of `a` and `c`:

        C[r, n] = alpha[e] * sum_k A[r,k] SFA(r,k/16) * B[e,n,k] SFB[e](n,k/16)

    accumulated in f32, converted to C's element type. The kernel reads `offsets` (and
    `alpha`) from device memory at every launch and schedules the tiles itself: sizes
    can change without any host work, so one CUDA graph serves every routing.

    - `a`:       `M x K` of `f4E2M1FN`, every token, sorted by expert (M: capacity).
    - `b`:       `E x N x K` of `f4E2M1FN`.
    - `sfa`:     `R x ceil(K/64) x 32 x 4 x 4` of `f8E4M3FN`: expert e's token scales in
                 the blocked layout starting at atom row
                 `sum over j < e of ceil(tokens_j / 128)` (each expert's segment starts on a
                 128-row atom, as vLLM's blockscale offsets and CUTLASS example 92 lay
                 them out). R must cover any routing: R >= E + (M - E) / 128 (M if M < E).
    - `sfb`:     `E x ceil(N/128) x ceil(K/64) x 32 x 4 x 4` of `f8E4M3FN`.
    - `c`:       `M x N` of `f16`, `bf16` or `f32` (a row stride `strided<[ldc, 1]>` is
                 allowed).
    - `offsets`: `E + 1` of `i32`, device-resident.
    - `alpha`:   optional, `E` of `f32`, device-resident.
    - `sfc`, `gs`: with `epilogue = "swiglu_nvfp4"` only, as for `nvfp4.grouped_matmul`:
                 B holds 2I gate/up rows per expert, C is `M x I` of `f4E2M1FN`, `sfc` is
                 `R x ceil(I/64) x 32 x 4 x 4` of `f8E4M3FN` in the layout of `sfa` (the
                 down-projection's SFA), `gs` is `E` of `f32`.

    Offsets are read defensively: each is clamped to [0, M], an expert whose end is below
    its start has no rows; rows no expert owns are not written, and nothing outside C's
    M x N region is ever written (docs/kernel-sm100a.md).

    Attributes as for `nvfp4.grouped_matmul` (`target`, `tile_n`, `stages`,
    `kernel_name`, `variants`, `epilogue`).

    Example (DeepSeek-V3 up-projection, 256 experts):

    ```mlir
    nvfp4.moe_matmul
        a(%a : memref<?x7168xf4E2M1FN>) b(%b : memref<256x4096x7168xf4E2M1FN>)
        sfa(%sfa : memref<?x112x32x4x4xf8E4M3FN>)
        sfb(%sfb : memref<256x32x112x32x4x4xf8E4M3FN>)
        c(%c : memref<?x4096xbf16>) offsets(%off : memref<257xi32>)
        alpha(%alpha : memref<256xf32>) {target = "sm_100a"}
    ```
  }];

  let arguments = (ins
    Arg<AnyMemRef, "all tokens (M x K, f4E2M1FN), sorted by expert", [MemRead]>:$a,
    Arg<AnyMemRef, "weights (E x N x K, f4E2M1FN)", [MemRead]>:$b,
    Arg<AnyMemRef, "token scales (blocked, expert segments)", [MemRead]>:$sfa,
    Arg<AnyMemRef, "weight scales (E blocked tensors)", [MemRead]>:$sfb,
    Arg<AnyMemRef, "C (M x N, f16/bf16/f32)", [MemWrite]>:$c,
    Arg<AnyMemRef, "expert row offsets (E + 1, i32)", [MemRead]>:$offsets,
    Arg<Optional<AnyMemRef>, "alpha per expert (E, f32)", [MemRead]>:$alpha,
    Arg<Optional<AnyMemRef>, "SFC (blocked, expert segments; fused epilogue)", [MemWrite]>:$sfc,
    Arg<Optional<AnyMemRef>, "global scale per expert (E, f32; fused epilogue)", [MemRead]>:$gs,
    StrAttr:$target,
    OptionalAttr<I64Attr>:$tile_n,
    OptionalAttr<I64Attr>:$stages,
    OptionalAttr<StrAttr>:$kernel_name,
    OptionalAttr<StrArrayAttr>:$variants,
    OptionalAttr<StrAttr>:$epilogue
  );
  let results = (outs);

  let assemblyFormat = [{
    `a` `(` $a `:` type($a) `)`
    `b` `(` $b `:` type($b) `)`
    `sfa` `(` $sfa `:` type($sfa) `)`
    `sfb` `(` $sfb `:` type($sfb) `)`
    `c` `(` $c `:` type($c) `)`
    `offsets` `(` $offsets `:` type($offsets) `)`
    (`alpha` `(` $alpha^ `:` type($alpha) `)`)?
    (`sfc` `(` $sfc^ `:` type($sfc) `)`)?
    (`gs` `(` $gs^ `:` type($gs) `)`)?
    attr-dict
  }];

  let hasVerifier = 1;
}

#endif // NVFP4_OPS_TD
