#!/usr/bin/env bash
# Builds everything the GPU suite needs into .device/ (git-ignored): nvfp4-run, libnvfp4rt,
# the test binaries, and the emulation cubins (the whole kernel family) compiled here, on
# the LLVM machine. The GPU machine needs no LLVM: it only runs scripts/device-suite.sh.
#   usage: scripts/package-device.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/run-matrix.sh  # the variant lists (scripts/run-matrix.txt)
BUILD=${1:-build}
OUT=${DEVICE_DIR:-.device}
rm -rf "$OUT" && mkdir -p "$OUT/bin" "$OUT/lib" "$OUT/cubin"
cp "$BUILD"/bin/nvfp4-run "$OUT/bin/"
cp -P "$BUILD"/lib/libnvfp4rt.so* "$BUILD"/lib/libnvfp4sim.so* "$OUT/lib/"  # nvfp4-run links the CPU simulator (--cpu)
cp "$BUILD"/bin/runtime-gpu-test "$OUT/bin/"
CUDA=${CUDA_ROOT:-/usr/local/cuda}
for p in probe_sm90a:sm_90a probe_sm100a:sm_100a nometa:sm_90a; do
  "$CUDA"/bin/ptxas -arch="${p#*:}" test/Runtime/Inputs/"${p%%:*}".ptx -o "$OUT/cubin/${p%%:*}.cubin"
done
# The kernel family of the suite: the 1-CTA variants and the 2-CTA (cta_group::2, 1x2
# cluster) variants, 16 kernels compiled into one cubin from examples/any16.mlir (16
# groups, every dimension dynamic; the matrix's sm100-family); the suite forces each variant.
matrix_family sm100-family sm_100a examples/any16.mlir > "$OUT/any16_family.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/any16_family.mlir" --emulate -o "$OUT/cubin/emu_family.cubin"
"$BUILD"/bin/nvfp4-compile "$OUT/any16_family.mlir" -o "$OUT/cubin/sm100_family.cubin"
# The default family (what an op without `variants` gets), for the runtime's own choice.
"$BUILD"/bin/nvfp4-compile examples/any16.mlir --emulate -o "$OUT/cubin/emu_default.cubin"
# The host lowering (examples/host-launch): the example program built with each host
# pipeline (emulation cubin / native sm_100a cubin embedded) and the generated-code ABI tests.
cp "$BUILD"/bin/runtime-gen-test "$OUT/bin/"
for p in emu: native:--native; do
  bash examples/host-launch/build.sh ${p#*:} "$BUILD" "$OUT/host-launch-${p%%:*}" > /dev/null
  cp "$OUT/host-launch-${p%%:*}/host-launch" "$OUT/bin/host-launch-${p%%:*}"
  rm -rf "$OUT/host-launch-${p%%:*}"
done
# The timing proxy of every variant, 1-CTA and CTA pair (the suite's `proxy` part), built to
# patch its own tensor maps too; the emulated default family built the same way, for the
# kernel-patch path with distinct inputs per call.
PROXY_VARIANTS="[$(matrix_attr sm100-proxy)]"
sed "s/target = \"sm_100a\"/target = \"sm_100a\", variants = $PROXY_VARIANTS, nvfp4.patch_tmaps/" examples/any16.mlir > "$OUT/any16_proxy.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/any16_proxy.mlir" --proxy -o "$OUT/cubin/proxy_family.cubin"
# The sm_100a stream-K variants beside their persistent twins, through the proxy (the
# small-problem-device-run.sh measurement; a family lists at most 16 variants).
SK_VARIANTS='["ab_n64", "ab_n128", "swap_n64", "swap_n128", "ab_n64_sk", "ab_n128_sk", "swap_n64_sk", "swap_n128_sk"]'
sed "s/target = \"sm_100a\"/target = \"sm_100a\", variants = $SK_VARIANTS, nvfp4.patch_tmaps/" examples/any16.mlir > "$OUT/any16_proxy_sk.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/any16_proxy_sk.mlir" --proxy -o "$OUT/cubin/proxy_sk.cubin"
sed "s/target = \"sm_100a\"/target = \"sm_100a\", nvfp4.patch_tmaps/" examples/any16.mlir > "$OUT/any16_patch.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/any16_patch.mlir" --emulate -o "$OUT/cubin/emu_patch.cubin"
# The contiguous MoE form and the epilogue options (the suite's moe and groups256 parts):
# families of every 1-CTA variant for 8 experts (f16), 64 (bf16, alpha) and 256 (f32,
# alpha), the default family of 256 experts (bf16, alpha) for the host cost, 256 groups of
# the pointer-array form (bf16, alpha) and 16 groups with f32 C and alpha.
for spec in "8 f16" "64 bf16 --alpha" "256 f32 --alpha"; do
  set -- $spec
  python3 scripts/gen-ops.py moe "$1" --c "$2" ${3:-} --variant-set one-cta > "$OUT/moe_e$1.mlir"
  "$BUILD"/bin/nvfp4-compile "$OUT/moe_e$1.mlir" --emulate -o "$OUT/cubin/emu_moe_e$1_$2.cubin"
done
python3 scripts/gen-ops.py moe 256 --c bf16 --alpha > "$OUT/moe_e256_default.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/moe_e256_default.mlir" --emulate -o "$OUT/cubin/emu_moe_e256_bf16_default.cubin"
python3 scripts/gen-ops.py grouped 256 --c bf16 --alpha --variant-set groups256 > "$OUT/g256.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/g256.mlir" --emulate -o "$OUT/cubin/emu_g256_bf16.cubin"
python3 scripts/gen-ops.py grouped 16 --c f32 --alpha --variant-set one-cta > "$OUT/g16_f32.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/g16_f32.mlir" --emulate -o "$OUT/cubin/emu_g16_f32.cubin"
# DeepSeek-V3's up-projection through the timing proxy (the suite's moeproxy part).
"$BUILD"/bin/nvfp4-compile examples/moe_deepseek_up.mlir --proxy -o "$OUT/cubin/proxy_moe_up.cubin"
# The sm_120a kernel family (docs/kernel-sm120a.md) with its block-scaled mma.sync emulated
# on sm_90a (the suite's sm120 part): every variant for 16 groups (the matrix's
# sm120-family), the default family of an sm_120f op, the default family patching its own
# tensor maps (nvfp4.patch_tmaps), the contiguous form for 8 experts
# (f16) and 64 (bf16 C, alpha, sm_121a), 16 groups with f32 C and alpha; and the native
# sm_120a family, which the runtime must refuse on the H200 with its own status.
matrix_family sm120-family sm_120a examples/any16.mlir > "$OUT/any16_sm120.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/any16_sm120.mlir" --emulate -o "$OUT/cubin/emu120_family.cubin"
"$BUILD"/bin/nvfp4-compile "$OUT/any16_sm120.mlir" -o "$OUT/cubin/sm120_family.cubin"
sed 's/target = "sm_100a"/target = "sm_120f"/' examples/any16.mlir > "$OUT/any16_sm120f.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/any16_sm120f.mlir" --emulate -o "$OUT/cubin/emu120_default.cubin"
sed 's/target = "sm_100a"/target = "sm_120a", nvfp4.patch_tmaps/' examples/any16.mlir > "$OUT/any16_sm120_patch.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/any16_sm120_patch.mlir" --emulate -o "$OUT/cubin/emu120_patch.cubin"
python3 scripts/gen-ops.py moe 8 --variant-set sm120-family --target sm_120a > "$OUT/moe120_e8.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/moe120_e8.mlir" --emulate -o "$OUT/cubin/emu120_moe_e8_f16.cubin"
python3 scripts/gen-ops.py moe 64 --c bf16 --alpha --variant-set sm120-family --target sm_121a > "$OUT/moe120_e64.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/moe120_e64.mlir" --emulate -o "$OUT/cubin/emu120_moe_e64_bf16.cubin"
python3 scripts/gen-ops.py grouped 16 --c f32 --alpha --variant-set sm120-family --target sm_120a > "$OUT/g16_sm120_f32.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/g16_sm120_f32.mlir" --emulate -o "$OUT/cubin/emu120_g16_f32.cubin"
# The suite itself travels with the package (the GPU machine gets another checkout's scripts),
# with the run matrix it reads: run it as `bash $OUT/device-suite.sh` from the repository root.
cp scripts/device-suite.sh scripts/run-matrix.sh scripts/run-matrix.txt "$OUT/"
# The native sm_90a family (its default: swap_n128, swap_n64, swap_n192, swap_n128_m192,
# swap_n64_m192, swap_n128_m192_sk) and the Hopper benchmark.
sed 's/target = "sm_100a"/target = "sm_90a"/' examples/any16.mlir > "$OUT/any16_sm90.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/any16_sm90.mlir" -o "$OUT/cubin/sm90_family.cubin"
cp "$BUILD"/bin/nvfp4-hopper-bench "$OUT/bin/"
cp scripts/hopper-device-run.sh scripts/pdl-device-run.sh scripts/table-cache-device-run.sh \
   scripts/small-problem-device-run.sh "$OUT/"
# The sm_90a epilogue options and the contiguous form (the suite's hopper-options part and
# hopper-device-run.sh's timings): default families of 16 groups with bf16 C + alpha and
# f32 C + alpha, 256 groups with f32 C + alpha (the global group table), the contiguous form
# with 8 (f16), 64 (bf16, alpha), 256 (f32, alpha) and 1024 (f16) experts, any16 with
# patched tensor maps (the 16-group bf16 C + alpha family is also the options' cost beside
# sm90_family, the same op with f16 C and no alpha),
# and DeepSeek-V3's up-projection in both forms (the contiguous one of the example, and 256
# groups of the pointer-array form, f16 C, for nvfp4-hopper-bench and cuBLAS).
for spec in "grouped 16 bf16 --alpha" "grouped 16 f32 --alpha" "grouped 256 f32 --alpha" \
            "moe 8 f16" "moe 64 bf16 --alpha" "moe 256 f32 --alpha" "moe 1024 f16"; do
  set -- $spec
  python3 scripts/gen-ops.py "$1" "$2" --c "$3" ${4:-} --target sm_90a > "$OUT/sm90_$1_$2_$3.mlir"
  "$BUILD"/bin/nvfp4-compile "$OUT/sm90_$1_$2_$3.mlir" -o "$OUT/cubin/sm90_$1_$2_$3${4:+_alpha}.cubin"
done
sed 's/target = "sm_100a"/target = "sm_90a", nvfp4.patch_tmaps/' examples/any16.mlir > "$OUT/any16_sm90_patch.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/any16_sm90_patch.mlir" -o "$OUT/cubin/sm90_patch.cubin"
sed 's/target = "sm_100a"/target = "sm_90a"/' examples/moe_deepseek_up.mlir > "$OUT/moe_deepseek_up_sm90.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/moe_deepseek_up_sm90.mlir" -o "$OUT/cubin/sm90_moe_deepseek_up.cubin"
python3 scripts/gen-ops.py grouped 256 --target sm_90a --name ds_grouped > "$OUT/sm90_grouped_256_f16.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/sm90_grouped_256_f16.mlir" -o "$OUT/cubin/sm90_grouped_256_f16.cubin"
# The fused SwiGLU + NVFP4 epilogue (the suite's fused and fusedbench parts): families built
# with nvfp4.debug_activations for the bit-exact check — native sm_90a, the emulated sm_100a
# and sm_120a kernels — in both forms (4 groups with alpha; 8 experts with alpha), and for
# the timings DeepSeek-V3's up-projection with the epilogue (production builds: native
# sm_90a, the sm_100a timing proxy) beside the same op with bf16 C (sm90_moe_deepseek_up
# above; through the proxy with ab_n256_st, the fused kernel's tile, in its family).
fused_family() { # NAME TARGET VARIANT-SET [nvfp4-compile options]
  local name=$1 target=$2 set=$3; shift 3
  python3 scripts/gen-ops.py grouped 4 --target "$target" --variant-set "$set" --swiglu --alpha \
      --debug-activations > "$OUT/${name}_g4.mlir"
  python3 scripts/gen-ops.py moe 8 --target "$target" --variant-set "$set" --swiglu --alpha \
      --debug-activations > "$OUT/${name}_e8.mlir"
  "$BUILD"/bin/nvfp4-compile "$OUT/${name}_g4.mlir" "$@" -o "$OUT/cubin/${name}_g4.cubin"
  "$BUILD"/bin/nvfp4-compile "$OUT/${name}_e8.mlir" "$@" -o "$OUT/cubin/${name}_e8.cubin"
}
fused_family fused_sm90 sm_90a fused-sm90
fused_family fused_emu100 sm_100a fused-sm100 --emulate
fused_family fused_emu120 sm_120a fused-sm120 --emulate
sed 's/target = "sm_100a"/target = "sm_90a"/' examples/moe_deepseek_swiglu.mlir > "$OUT/moe_deepseek_swiglu_sm90.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/moe_deepseek_swiglu_sm90.mlir" -o "$OUT/cubin/sm90_moe_deepseek_swiglu.cubin"
"$BUILD"/bin/nvfp4-compile examples/moe_deepseek_swiglu.mlir --proxy -o "$OUT/cubin/proxy_moe_swiglu.cubin"
sed 's/kernel_name = "deepseek_v3_up"/kernel_name = "deepseek_v3_up", variants = ["ab_n256_st", "ab_n128", "swap_n128", "swap_n256"]/' \
    examples/moe_deepseek_up.mlir > "$OUT/moe_deepseek_up_st.mlir"
"$BUILD"/bin/nvfp4-compile "$OUT/moe_deepseek_up_st.mlir" --proxy -o "$OUT/cubin/proxy_moe_up_st.cubin"
# The expert-FFN example (the suite's ffn part) with its kernels as the build compiled them
# (examples/moe-ffn): the native sm_90a cubins, both shapes, and the scaled-down sm_100a
# ones (for the runtime's refusal on the H200). The binary finds them at ../lib/moe-ffn.
cp "$BUILD"/bin/moe-ffn "$OUT/bin/"
mkdir -p "$OUT/lib/moe-ffn"
cp "$BUILD"/lib/moe-ffn/*.sm_90a.cubin "$BUILD"/lib/moe-ffn/*_small.sm_100a.cubin "$OUT/lib/moe-ffn/"
echo "packaged into $OUT: $(du -sh "$OUT" | cut -f1)"
