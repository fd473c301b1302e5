#!/usr/bin/env bash
# The correctness suite of the generated kernels on an H200 (sm_90a), through the tcgen05
# emulation target, for every variant of the kernel family (VARIANTS): every test case of
# docs/format.md, random cases (G 1..16, ragged M/N, K multiples of 64, competition and
# full-range values), B1..B4, and edge cases (empty groups, tiny and ragged M/N, K = 64 and
# 192, C row stride well above N, with a check that nothing outside each C's M x N region
# is written); the default family with the runtime's own variant choice; and
# compute-sanitizer (memcheck, racecheck, synccheck) on small cases.
# Prerequisite: scripts/package-device.sh run on the build machine (fills .device/).
#   usage: scripts/device-suite.sh [LOG_DIR]
# DEVICE_DIR (environment) names the packaged folder (default .device).
# PARTS (environment) selects parts: runtime smoke tests random edge bench auto sanitizer
# hostlaunch proxy hopper hopper-options moe groups256 moeproxy sm120 fused fusedbench ffn (default: all but smoke). smoke: three quick cases per variant, for a
# first look at new variants before the full parts. VARIANTS / SAN_VARIANTS (environment)
# name the variants. RUN_TIMEOUT (environment, default 300) bounds each nvfp4-run in seconds.
# hopper: the native sm_90a kernel family (its own block at the end; in the default);
# hopper-options: its epilogue options, the contiguous form and patched maps (after it).
# ffn: the expert-FFN example (examples/moe-ffn) on its native sm_90a kernels, scaled down
# and at DeepSeek-V3's shapes (64 and 512 tokens), and its sm_100a build refused.
# sm120: the sm_120a kernel family with its block-scaled mma.sync emulated (SM120_VARIANTS).
# Emulated kernels run ~1000x slower than hardware, so runs pass --launch-iters 0 (no
# host launch-cost loop, which would launch the kernel hundreds of times).
# The variant lists and the cases with their seeds are the run matrix's (run-matrix.txt,
# read through run-matrix.sh beside this script: scripts/, or the package's copy).
set -uo pipefail
source "$(dirname "$0")/run-matrix.sh" || exit 2
cd "$(dirname "$0")/.."
D=${DEVICE_DIR:-.device}
LOG=${1:-/tmp/nvfp4-device}
mkdir -p "$LOG"
export LD_LIBRARY_PATH="$PWD/$D/lib:${LD_LIBRARY_PATH:-}"
RUN="$D/bin/nvfp4-run"
PARTS=${PARTS:-runtime tests random edge bench auto sanitizer hostlaunch proxy hopper hopper-options moe groups256 moeproxy sm120 fused fusedbench ffn}
VARIANTS=${VARIANTS:-$(matrix_variants sm100-family)} || exit 2
FAM="$D/cubin/emu_family.cubin"
has() { [[ " $PARTS " == *" $1 "* ]]; }
pass=0 fail=0
results="$LOG/results.txt"
: > "$results"
one() { # name, then nvfp4-run arguments
  local name=$1; shift
  local t0=$(date +%s%N)
  if timeout "${RUN_TIMEOUT:-300}" "$RUN" "$@" > "$LOG/$name.log" 2>&1 < /dev/null; then
    pass=$((pass + 1)); st=PASS
  else
    rc=$?; fail=$((fail + 1)); st="FAIL(rc=$rc)"
  fi
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  local err=$(grep -m1 -E "^check" "$LOG/$name.log" | tr -s ' ')
  printf '%-34s %-10s %7d ms  %s\n' "$name" "$st" "$ms" "$err" | tee -a "$results"
}
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | tee "$LOG/gpu.txt"
"$RUN" --info "$FAM" | tee "$LOG/info.txt"

# The runtime on the real driver: metadata/ABI round trip, tensor-map encodes, a probe
# kernel launch through a plan, and the host cost of a cached-plan launch.
if has runtime; then
G="$D/bin/runtime-gpu-test"
C="$D/cubin"
for t in "load $C/probe_sm90a.cubin $C/probe_sm100a.cubin $C/nometa.cubin" "encode" \
         "launch $C/probe_sm90a.cubin" "tmap-update $C/probe_sm90a.cubin" \
         "bench-launch $C/probe_sm90a.cubin 5000"; do
  name="runtime_${t%% *}"
  if timeout 120 $G $t > "$LOG/$name.log" 2>&1; then pass=$((pass + 1)); st=PASS
  else rc=$?; fail=$((fail + 1)); st="FAIL(rc=$rc)"; fi
  printf '%-34s %-10s %s\n' "$name" "$st" "$(tail -1 "$LOG/$name.log")" | tee -a "$results"
done
fi

ONE="--iters 1 --warmup 0 --launch-iters 0"
# The per-variant cases of the family (the matrix's case list `family`): smoke (a first look
# at each variant: a 2-group and a 4-group test case, ragged M, several N tiles, and a
# 3-group random full-range case), then per variant tests, random, edge and bench.
FAMILY_CASES=$(matrix_runs family) || exit 2
family_part() { # VARIANT PART...: the variant's runs of these parts
  local v=$1 part name args; shift
  while IFS='|' read -r part name args; do
    [[ " $* " == *" $part "* ]] && one "${v}_$name" "$FAM" --variant $v $args $ONE
  done <<< "$FAMILY_CASES"
}
has smoke && for v in $VARIANTS; do family_part $v smoke; done
for v in $VARIANTS; do
  family_part $v $(for p in tests random edge bench; do has $p && echo $p; done)
done
# The default family, the runtime choosing the variant.
has auto && while IFS='|' read -r _ name args; do
  one "auto_$name" "$D/cubin/emu_default.cubin" $args $ONE
done <<< "$(matrix_runs auto)"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SAN_CASES=$(matrix_runs sanitizer) || exit 2
has sanitizer && for tool in memcheck racecheck synccheck; do
  for v in ${SAN_VARIANTS:-$(matrix_variants sm100-sanitizer)}; do
    while IFS='|' read -r _ c args; do
      name="sanitizer_${tool}_${v}_$c"
      if timeout 300 "$CS" --tool $tool --error-exitcode 9 "$RUN" "$FAM" --variant $v $args $ONE > "$LOG/$name.log" 2>&1 < /dev/null; then
        pass=$((pass + 1)); st=PASS
      else
        rc=$?; fail=$((fail + 1)); st="FAIL(rc=$rc)"
      fi
      printf '%-34s %-10s %s\n' "$name" "$st" "$(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOG/$name.log")" | tee -a "$results"
    done <<< "$SAN_CASES"
  done
done
# The host lowering: the clang-built program calling the host-lowered function with the
# emulation cubin embedded (load once, plan cache, re-plan, bad descriptor, checked C); the
# native sm_100a build, whose generated call must fail cleanly with TARGET_MISMATCH on
# sm_90; the generated-code ABI on the driver (also under memcheck) and its host cost.
if has hostlaunch; then
  hostlaunch() { # name, grep pattern that must appear in the log, command...
    local name=$1 want=$2; shift 2
    local t0=$(date +%s%N)
    timeout 120 "$@" > "$LOG/$name.log" 2>&1
    local rc=$?
    if grep -q -- "$want" "$LOG/$name.log"; then pass=$((pass + 1)); st=PASS
    else fail=$((fail + 1)); st="FAIL(rc=$rc)"; fi
    local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    printf '%-34s %-10s %7d ms  %s\n' "$name" "$st" "$ms" "$(grep -m1 -- "$want" "$LOG/$name.log")" | tee -a "$results"
  }
  hostlaunch hostlaunch_emulation "host-launch: PASS" "$D/bin/host-launch-emu"
  hostlaunch hostlaunch_native_on_sm90 "call 1 (stream): NVFP4RT_STATUS_TARGET_MISMATCH" "$D/bin/host-launch-native"
  hostlaunch hostlaunch_gen_abi "gpu: PASS" "$D/bin/runtime-gen-test" gpu "$D/cubin/probe_sm90a.cubin"
  hostlaunch hostlaunch_gen_abi_memcheck "ERROR SUMMARY: 0 errors" \
    "$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)" --tool memcheck \
    "$D/bin/runtime-gen-test" gpu "$D/cubin/probe_sm90a.cubin"
  hostlaunch hostlaunch_gen_bench "bench: PASS" "$D/bin/runtime-gen-test" bench "$D/cubin/probe_sm90a.cubin" 5000
fi
# The timing proxy (sm_100a kernels with free tcgen05 ops, native speed): every variant of
# its family (1-CTA and CTA-pair, every tile_n, both epilogues) on every case in one
# process per case (--all-variants), checked for C = +0 inside each group's M x N and
# nothing written outside it; once more with the kernel patching its own tensor maps (the
# family is built with nvfp4.patch_tmaps); and the kernel-patch path on the emulation
# target with a distinct input set per call.
if has proxy; then
PX="$D/cubin/proxy_family.cubin"
"$RUN" --info "$PX" > "$LOG/proxy_info.txt"
while IFS='|' read -r _ name args; do
  one "proxy_$name" "$PX" $args
done <<< "$(matrix_runs proxy)"
one emu_fresh_sets_patch_test3 "$D/cubin/emu_patch.cubin" --case test:3 --fresh-sets 3 --calls 3 --e2e-calls 1 --tmap-update kernel-patch
fi

# The native sm_90a parts' runner: one run with a timeout, a line in the results; after the
# first timeout the rest are skipped (a hang is a failure, not a wait).
htimeouts=0
hone() { # name, timeout, then the command
  local name=$1 to=$2; shift 2
  if [ "$htimeouts" -gt 0 ]; then
    fail=$((fail + 1)); printf '%-34s %-10s\n' "$name" "SKIP(after timeout)" | tee -a "$results"; return
  fi
  local t0=$(date +%s%N) rc=0
  timeout "$to" "$@" > "$LOG/$name.log" 2>&1 < /dev/null || rc=$?
  if [ $rc -eq 0 ]; then pass=$((pass + 1)); st=PASS; else fail=$((fail + 1)); st="FAIL(rc=$rc)"; fi
  [ $rc -eq 124 ] && htimeouts=$((htimeouts + 1))
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  local what=$(grep -m1 -E "^check|^end result|ERROR SUMMARY|RACECHECK SUMMARY" "$LOG/$name.log" | tr -s ' ')
  case $name in *_busy*) what="$what; $(grep -m1 -E "^busy +(the|FAIL)" "$LOG/$name.log" | tr -s ' ')" ;; esac
  printf '%-34s %-10s %7d ms  %s\n' "$name" "$st" "$ms" "$what" | tee -a "$results"
}
# ---- hopper: the native sm_90a kernel family (docs/kernel-sm90a.md) ------------------------
# Every variant of $D/cubin/sm90_family.cubin (examples/any16.mlir for sm_90a) forced in turn
# on the 10 test cases (docs/format.md), random cases (G 1..16, competition and full-range),
# the edge cases and B1..B4; the default family with the runtime's choice; B1 and a random
# case with most SMs held by another kernel (--busy-sms); compute-sanitizer memcheck,
# racecheck and synccheck. The kernel runs natively, so runs get a short timeout
# (HOPPER_TIMEOUT s) and the part stops at the first timeout: a hang is a failure, not a wait.
if has hopper; then
  HF="$D/cubin/sm90_family.cubin"
  H1="--iters 1 --warmup 0 --launch-iters 0"
  "$RUN" --info "$HF" | tee "$LOG/sm90_info.txt"
  HT=${HOPPER_TIMEOUT:-60}
  SM90=$(matrix_variants sm90-family) || exit 2
  HOPPER_CASES=$(matrix_runs hopper) || exit 2
  for v in ${HOPPER_VARIANTS:-$SM90}; do
    while IFS='|' read -r _ name args; do
      hone "sm90_${v}_$name" "$HT" "$RUN" "$HF" --variant $v $args $H1
    done <<< "$HOPPER_CASES"
  done
  while IFS='|' read -r _ name args; do
    hone "sm90_auto_$name" "$HT" "$RUN" "$HF" $args $H1
  done <<< "$(matrix_runs hopper-auto)"
  # Beside other work: the checked launch while a kernel on another stream holds N of the
  # 132 SMs (nvfp4-run --busy-sms, with its grid-barrier control). Stream-K shares and
  # persistent tiles never wait for another CTA, so they must complete on the SMs left.
  BUSY_CASES=$(matrix_runs hopper-busy) || exit 2
  for v in ${HOPPER_BUSY_VARIANTS:-$(matrix_variants sm90-busy)}; do
    while IFS='|' read -r _ name args; do
      hone "sm90_${v}_$name" "$HT" "$RUN" "$HF" --variant $v $args $H1
    done <<< "$BUSY_CASES"
  done
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck synccheck; do
    for v in ${HOPPER_SAN_VARIANTS:-$SM90}; do
      while IFS='|' read -r _ c args; do
        hone "sm90_san_${tool}_${v}_$c" "$((HT * 4))" "$CS" --tool $tool --error-exitcode 9 \
          "$RUN" "$HF" --variant $v $args $H1
      done <<< "$SAN_CASES"
    done
  done
fi
# ---- hopper-options: the sm_90a epilogue options and the contiguous form -----------------
# (docs/kernel-sm90a.md, "Epilogue", "The contiguous MoE form", "Patched tensor maps"), every
# variant forced in turn, natively, with the hopper part's timeout rule:
#   - bf16 C and f32 C with alpha (16 groups): test:8, random:16 full-range with alpha 0,
#     negative, large and tiny (--alpha-values), edge:16 with C's rows padded, and B1 with the
#     alphas; 256 groups with f32 C and alpha (the global group table): edge and random;
#   - the contiguous form with 8 (f16), 64 (bf16, alpha) and 256 (f32, alpha) experts over the
#     random, empty, one, balanced, decreasing and past-M routings (37 token rows owned by no expert, C
#     padded), 1024 experts (f16) random; one CUDA graph replayed over six new routings (per
#     E), memcheck / racecheck / synccheck on the past-M routing;
#   - patched tensor maps (any16, swap_n128 and swap_n64): kernel-patch launches, fresh
#     input sets per call;
#   - compute-sanitizer memcheck, racecheck and synccheck on f32 C with alpha.
if has hopper-options; then
  HT=${HOPPER_TIMEOUT:-60}
  H1="--iters 1 --warmup 0 --launch-iters 0"
  HV=${HOPPER_VARIANTS:-swap_n128 swap_n64 swap_n192 swap_n128_m192 swap_n64_m192 swap_n128_m192_sk}
  HMV=${HOPPER_MOE_VARIANTS:-swap_n128 swap_n64 swap_n192 swap_n128_m192 swap_n64_m192}
  ALPHAS="--alpha-values 0,-1.5,0x1p60,0x1p-100,3,0.75"
  for c in bf16 f32; do
    cub="$D/cubin/sm90_grouped_16_${c}_alpha.cubin"
    for v in $HV; do
      hone "sm90o_${c}a_${v}_test8" "$HT" "$RUN" "$cub" --variant $v --case test:8 $H1
      hone "sm90o_${c}a_${v}_random16" "$HT" "$RUN" "$cub" --variant $v --case random:16 --seed 16 --full-range $ALPHAS $H1
      hone "sm90o_${c}a_${v}_edge16_pad" "$HT" "$RUN" "$cub" --variant $v --case edge:16 --seed 17 --ldc-pad 24 $H1
      hone "sm90o_${c}a_${v}_B1" "$HT" "$RUN" "$cub" --variant $v --case B1 --full-range $ALPHAS $H1
    done
  done
  for v in swap_n128 swap_n128_m192_sk; do
    hone "sm90o_g256_f32a_${v}_edge" "$HT" "$RUN" "$D/cubin/sm90_grouped_256_f32_alpha.cubin" --variant $v --case edge:256 --seed 257 --full-range $H1
    hone "sm90o_g256_f32a_${v}_random" "$HT" "$RUN" "$D/cubin/sm90_grouped_256_f32_alpha.cubin" --variant $v --case random:256 --seed 256 $H1
  done
  for spec in "8 f16" "64 bf16_alpha" "256 f32_alpha"; do
    set -- $spec
    e=$1 cub="$D/cubin/sm90_moe_$1_$2.cubin" m=$((8 * $1 + 300)) extra=""
    [[ $2 == *alpha ]] && extra="--alpha-values 0,-1.5,0x1p60,0x1p-100,3"
    for v in $HMV; do
      for r in random empty one balanced decreasing beyond; do
        hone "sm90o_moe_e${e}_${v}_$r" "$HT" "$RUN" "$cub" --moe "$e,$m,200,320" --tokens $((m - 37)) \
             --routing $r --variant $v --full-range --ldc-pad 8 --seed $((e + ${#r})) $extra
      done
    done
    hone "sm90o_moe_e${e}_graph_replays" "$HT" "$RUN" "$cub" --moe "$e,$m,256,512" --tokens $((m - 37)) --graph-replays 6
  done
  hone "sm90o_moe_e1024_random" "$HT" "$RUN" "$D/cubin/sm90_moe_1024_f16.cubin" --moe 1024,8492,200,320 --tokens 8455 --full-range --ldc-pad 8
  for v in swap_n128 swap_n64; do
    hone "sm90o_patch_${v}_test3" "$HT" "$RUN" "$D/cubin/sm90_patch.cubin" --variant $v --case test:3 --tmap-update kernel-patch $H1
    hone "sm90o_patch_${v}_random16" "$HT" "$RUN" "$D/cubin/sm90_patch.cubin" --variant $v --case random:16 --seed 5 --tmap-update kernel-patch $H1
  done
  hone "sm90o_patch_fresh_sets" "$HT" "$RUN" "$D/cubin/sm90_patch.cubin" --case test:3 --fresh-sets 3 --calls 3 --e2e-calls 1 --tmap-update kernel-patch
  CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck synccheck; do
    for v in swap_n128 swap_n128_m192_sk; do
      hone "sm90o_san_${tool}_f32a_${v}" "$((HT * 4))" "$CS" --tool $tool --error-exitcode 9 \
        "$RUN" "$D/cubin/sm90_grouped_16_f32_alpha.cubin" --variant $v --case test:8 --seed 7 $H1
    done
    hone "sm90o_san_${tool}_moe_e64_beyond" "$((HT * 4))" "$CS" --tool $tool --error-exitcode 9 \
      "$RUN" "$D/cubin/sm90_moe_64_bf16_alpha.cubin" --moe 64,812,200,320 --routing beyond --variant swap_n128_m192
  done
fi
# The contiguous MoE form (nvfp4.moe_matmul): 8 experts (f16), 64 (bf16 C, alpha) and 256
# (f32 C, alpha), every 1-CTA variant forced in turn over the routings random, most experts
# empty, all tokens on one expert and the adversarial offsets (decreasing, past M,
# negative), 37 of the M token rows owned by no expert and C's rows padded: every row must
# hold its expert's result and nothing outside the experts' M x N may change. Then one CUDA
# graph captured once and replayed over six new routings written into device memory (per
# E), memcheck and racecheck on adversarial offsets, and the host cost of a launch with 256
# experts (cached plan; fresh pointers: update + launch), the default family choosing.
if has moe; then
  MOE_VARIANTS=${MOE_VARIANTS:-$(matrix_variants one-cta)} || exit 2
  for ec in 8:f16 64:bf16 256:f32; do
    e=${ec%%:*}
    cub="$D/cubin/emu_moe_e${e}_${ec#*:}.cubin" m=$((8 * e + 300))
    MOE_CASES=$(matrix_runs "device-moe-e$e") || exit 2
    for v in $MOE_VARIANTS; do
      while IFS='|' read -r _ name args; do
        one "moe_e${e}_${v}_$name" "$cub" --variant $v $args
      done <<< "$MOE_CASES"
    done
    one "moe_e${e}_graph_replays" "$cub" --moe "$e,$m,256,512" --tokens $((m - 37)) --graph-replays 6
  done
  MCS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck; do
    name="sanitizer_${tool}_moe_e64_beyond"
    if timeout 300 "$MCS" --tool $tool --error-exitcode 9 "$RUN" "$D/cubin/emu_moe_e64_bf16.cubin" \
         --moe 64,812,200,320 --routing beyond --variant swap_n128 > "$LOG/$name.log" 2>&1 < /dev/null; then
      pass=$((pass + 1)); st=PASS
    else
      rc=$?; fail=$((fail + 1)); st="FAIL(rc=$rc)"
    fi
    printf '%-34s %-10s %s\n' "$name" "$st" "$(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOG/$name.log")" | tee -a "$results"
  done
  one moe_e256_host_cost "$D/cubin/emu_moe_e256_bf16_default.cubin" --moe 256,2048,128,256 \
      --launch-iters 1000 --no-check
  grep -m1 "^host" "$LOG/moe_e256_host_cost.log" | tee -a "$results"
fi
# DeepSeek-V3's up-projection (256 experts, N = 4096, K = 7168, bf16 + alpha) through the
# timing proxy: kernel time with the L2 flushed, 2048 tokens = 8 per expert on average
# (balanced and random routings) and 512 = 2 per expert; C comes out +0, so no check.
if has moeproxy; then
  for spec in "2048 balanced" "2048 random" "512 random"; do
    set -- $spec
    one "moeproxy_up_t$1_$2" "$D/cubin/proxy_moe_up.cubin" --moe "256,$1,4096,7168" --routing $2 \
        --iters 20 --flush-l2 --no-check --json
    grep -o '"kernel": "[^"]*"\|"time_us_median": [0-9.]*' "$LOG/moeproxy_up_t$1_$2.log" | tr '\n' ' ' | tee -a "$results"
    echo | tee -a "$results"
  done
fi
# The fused SwiGLU + NVFP4 epilogue (nvfp4-run CUBIN --fused): every variant of the native
# sm_90a kernels and of the emulated sm_100a and sm_120a kernels, built with
# nvfp4.debug_activations, on the fused and fused-moe cases: FP4 codes and SFC bit for bit
# against the reference quantizer of the kernel's own activations, the activations against
# swiglu of the reference GEMM, nothing written outside.
if has fused; then
  for fam in "fused_sm90 fused-sm90" "fused_emu100 fused-sm100" "fused_emu120 fused-sm120"; do
    set -- $fam
    for v in $(matrix_variants $2); do
      while IFS='|' read -r _ name args; do
        one "${1}_${v}_$name" "$D/cubin/${1}_g4.cubin" --fused --variant $v $args
      done <<< "$(matrix_runs fused)"
      while IFS='|' read -r _ name args; do
        one "${1}_moe_${v}_$name" "$D/cubin/${1}_e8.cubin" --fused --variant $v $args
      done <<< "$(matrix_runs fused-moe)"
    done
  done
fi
# The fused epilogue's cost: DeepSeek-V3's up-projection (256 experts, 2I = 4096, K = 7168)
# with the fused epilogue against the same op with bf16 C and alpha, at the same N, the L2
# flushed: natively on sm_90a (fused swap_n128 and swap_n64; the bf16 family's runtime
# choice and swap_n128) and through the sm_100a timing proxy (fused ab_n256_st against bf16
# ab_n256_st), for 2048 and 512 tokens.
if has fusedbench; then
  B="--iters 20 --flush-l2 --no-check --json"
  for t in 2048 512; do
    for v in swap_n128 swap_n64; do
      one "fusedbench_sm90_fused_${v}_t$t" "$D/cubin/sm90_moe_deepseek_swiglu.cubin" --fused \
          --moe "256,$t,4096,7168" --variant $v $B
    done
    one "fusedbench_sm90_bf16_auto_t$t" "$D/cubin/sm90_moe_deepseek_up.cubin" --moe "256,$t,4096,7168" $B
    one "fusedbench_sm90_bf16_swap_n128_t$t" "$D/cubin/sm90_moe_deepseek_up.cubin" \
        --moe "256,$t,4096,7168" --variant swap_n128 $B
    one "fusedbench_proxy_fused_t$t" "$D/cubin/proxy_moe_swiglu.cubin" --fused --moe "256,$t,4096,7168" $B
    one "fusedbench_proxy_bf16_ab_n256_st_t$t" "$D/cubin/proxy_moe_up_st.cubin" \
        --moe "256,$t,4096,7168" --variant ab_n256_st $B
  done
  for f in "$LOG"/fusedbench_*.log; do
    printf '%-44s %s\n' "$(basename "$f" .log)" \
        "$(grep -o '"kernel": "[^"]*"\|"time_us_median": [0-9.]*' "$f" | tr '\n' ' ')" | tee -a "$results"
  done
fi
# More than 46 groups in the pointer-array form: 256 groups, the group table in global
# memory, bf16 C with a per-group alpha, random and edge shapes (empty groups, tiny and
# ragged M/N) on two variants; f32 C with alpha on 16 groups for every 1-CTA variant.
if has groups256; then
  for v in $(matrix_variants groups256); do
    while IFS='|' read -r _ name args; do
      one "g256_${v}_$name" "$D/cubin/emu_g256_bf16.cubin" --variant $v $args $ONE
    done <<< "$(matrix_runs groups256)"
  done
  for v in $(matrix_variants one-cta); do
    while IFS='|' read -r _ name args; do
      one "g16_f32_alpha_${v}_$name" "$D/cubin/emu_g16_f32.cubin" --variant $v $args $ONE
    done <<< "$(matrix_runs groups16-f32)"
  done
fi
# The sm_120a kernel family (docs/kernel-sm120a.md) on the H200: the generated kernel as it
# is (TMA, mbarrier ring, ldmatrix, scheduler, epilogue run natively), its block-scaled
# mma.sync computed by the emulation library (nvfp4-emulate-sm120). Every variant on every
# test case of docs/format.md, random cases (competition and full-range values), edge cases with
# C's rows padded (nothing outside M x N may change) and B1..B4; the default family of an
# sm_120f op choosing its own variant; the default family patching its own tensor maps
# (kernel-patch launches, fresh input sets per call); the contiguous form (8 experts f16
# over every routing, 64 experts bf16 C with alpha); 16 groups with f32 C and alpha; memcheck,
# racecheck and synccheck on small cases; and the native sm_120a cubin refused by the
# runtime (exit 2, its TARGET_MISMATCH status naming the cubin's target and the device's
# compute capability) before the driver sees it. The variants and cases are the run matrix's
# sm120-family, sm120-sanitizer, sm120, sm120-g16-f32, sm120-moe-e8, sm120-moe-e64,
# sm120-auto and sm120-patch.
if has sm120; then
  F120="$D/cubin/emu120_family.cubin"
  "$RUN" --info "$F120" | tee "$LOG/sm120_info.txt"
  S120=${SM120_VARIANTS:-$(matrix_variants sm120-family)} || exit 2
  S120_CASES=$(matrix_runs sm120) || exit 2
  S120_F32=$(matrix_runs sm120-g16-f32) || exit 2
  S120_E8=$(matrix_runs sm120-moe-e8) || exit 2
  S120_E64=$(matrix_runs sm120-moe-e64) || exit 2
  for v in $S120; do
    while IFS='|' read -r _ name args; do
      one "sm120_${v}_$name" "$F120" --variant $v $args $ONE
    done <<< "$S120_CASES"
    while IFS='|' read -r _ name args; do
      one "sm120_${v}_$name" "$D/cubin/emu120_g16_f32.cubin" --variant $v $args $ONE
    done <<< "$S120_F32"
    while IFS='|' read -r _ name args; do
      one "sm120_moe_e8_${v}_$name" "$D/cubin/emu120_moe_e8_f16.cubin" --variant $v $args
    done <<< "$S120_E8"
    while IFS='|' read -r _ name args; do
      one "sm120_moe_e64_${v}_$name" "$D/cubin/emu120_moe_e64_bf16.cubin" --variant $v $args
    done <<< "$S120_E64"
  done
  while IFS='|' read -r _ name args; do
    one "sm120_auto_$name" "$D/cubin/emu120_default.cubin" $args $ONE
  done <<< "$(matrix_runs sm120-auto)"
  while IFS='|' read -r _ name args; do
    one "sm120_patch_$name" "$D/cubin/emu120_patch.cubin" $args $ONE
  done <<< "$(matrix_runs sm120-patch)"
  one sm120_patch_fresh_sets "$D/cubin/emu120_patch.cubin" --case test:3 --fresh-sets 3 --calls 3 \
      --e2e-calls 1 --tmap-update kernel-patch
  SCS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  S120_SAN=$(matrix_runs sm120-sanitizer) || exit 2
  for tool in memcheck racecheck synccheck; do
    for v in ${SM120_SAN_VARIANTS:-$(matrix_variants sm120-sanitizer)}; do
      while IFS='|' read -r _ c args; do
        name="sm120_san_${tool}_${v}_$c"
        if timeout 600 "$SCS" --tool $tool --error-exitcode 9 "$RUN" "$F120" --variant $v $args \
             $ONE > "$LOG/$name.log" 2>&1 < /dev/null; then pass=$((pass + 1)); st=PASS
        else rc=$?; fail=$((fail + 1)); st="FAIL(rc=$rc)"; fi
        printf '%-34s %-10s %s\n' "$name" "$st" "$(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$LOG/$name.log")" | tee -a "$results"
      done <<< "$S120_SAN"
    done
  done
  name=sm120_native_refused
  "$RUN" "$D/cubin/sm120_family.cubin" --case test:0 $ONE > "$LOG/$name.log" 2>&1 < /dev/null; rc=$?
  if [[ $rc -eq 2 ]] && grep -q "TARGET_MISMATCH.*cubin targets sm_120a (sm_120; runs on compute capability 12.0) but the device is sm_90" "$LOG/$name.log"; then
    pass=$((pass + 1)); st=PASS
  else fail=$((fail + 1)); st="FAIL(rc=$rc)"; fi
  printf '%-34s %-10s %s\n' "$name" "$st" "$(grep -m1 TARGET_MISMATCH "$LOG/$name.log" | cut -c1-160)" | tee -a "$results"
fi
# ---- ffn: the expert-FFN example on the native sm_90a kernels --------------------------------
# moe-ffn --target gpu: the up-projection with the fused SwiGLU + NVFP4 epilogue and the
# down-projection reading its output, checked against the C reference (the intermediate
# within its mismatch budget, the down-projection on the kernel's own intermediate, the end
# result against the unfused computation); 20 timed launches of the pair (medians in the
# log). The C reference of the DeepSeek-V3 shapes takes minutes on the host. Then the
# scaled-down sm_100a build forced: the runtime must refuse it with TARGET_MISMATCH.
if has ffn; then
  FFN="$D/bin/moe-ffn"
  hone ffn_small_300 600 "$FFN" 300 --small --target gpu --iters 20
  hone ffn_deepseek_64 1200 "$FFN" 64 --target gpu --iters 20 --threads 16
  hone ffn_deepseek_512 1800 "$FFN" 512 --target gpu --iters 20 --threads 16
  name=ffn_sm100a_refused
  "$FFN" 8 --small --target gpu --kernel-arch sm_100a > "$LOG/$name.log" 2>&1 < /dev/null; rc=$?
  if [[ $rc -eq 2 ]] && grep -q "TARGET_MISMATCH: cubin targets sm_100a" "$LOG/$name.log"; then
    pass=$((pass + 1)); st=PASS
  else fail=$((fail + 1)); st="FAIL(rc=$rc)"; fi
  printf '%-34s %-10s %s\n' "$name" "$st" "$(grep -m1 TARGET_MISMATCH "$LOG/$name.log" | cut -c1-160)" | tee -a "$results"
fi
echo "$pass passed, $fail failed" | tee -a "$results"
[ "$fail" -eq 0 ]
