#!/usr/bin/env python3
"""The speed model of the sm_120a kernel (docs/kernel-sm120a.md, "Speed model").

No GPU of compute capability 12.x can be reached by this project: every number this prints
is the model's, not a measurement. For each benchmark shape of docs/format.md (B1..B4) and each
sm_120a variant it computes, on an RTX PRO 6000 Blackwell (default) or another sm_12x part:

  tiles     the tiles the runtime plans (AB: 128 token rows x tile_n weights; swap-AB: 128
            weights x the group's token tile T = min(tile_n, M rounded up to 16), as
            nvfp4rt_group_tile_n), and the waves of one persistent CTA per SM;
  mma       the time of the busiest SM at the block-scaled mma.sync rate (4096 FP4 FLOP per
            clock per SM: one m16n8k64 per 4 clocks), tiles dealt round-robin in the
            runtime's order (groups by decreasing work per tile), padding included;
  dram      every tensor's bytes once (A, B, their E4M3 scales with the row padding to 128,
            C in f16) at the DRAM bandwidth; "dram*" re-reads the M-role tensor for each
            further N tile of its group (no L2 reuse), the upper bound;
  l2        the L2 -> shared-memory bandwidth the tiles' stages need at the model's time
            (every stage: 16 KiB of M-role data, 128 B per N-role row, 4 KiB of scales);
  model     max(mma, dram): the variant is DRAM-bound where mma <= dram.

  usage: benchmarks/sm120a_model.py [--device rtx-pro-6000|rtx-5090|dgx-spark] [--json]
"""
import argparse
import json
import math

DEVICES = {
    # SMs, boost clock, DRAM bytes/s (public specifications; the RTX PRO 6000's clock is the
    # one the runtime's variant model uses, runtime/src/plan.c; GB10's is the one at which
    # 48 SMs give its published 1 PFLOP/s of sparse FP4)
    "rtx-pro-6000": (188, 2.6e9, 1.792e12),
    "rtx-5090": (170, 2.407e9, 1.792e12),
    "dgx-spark": (48, 2.5e9, 0.273e12),
}
FLOP_PER_CLOCK_SM = 4096.0  # dense block-scaled FP4 (16384 FLOP per m16n8k64, 4 clocks)
TILE_M, TILE_K, N_ALIGN = 128, 256, 16
BENCHMARKS = {  # docs/format.md, "The benchmark shapes": M per group, N, K
    "B1": ([80, 176, 128, 72, 64, 248, 96, 160], 4096, 7168),
    "B2": ([40, 76, 168, 72, 164, 148, 196, 160], 7168, 2048),
    "B3": ([192, 320], 3072, 4096),
    "B4": ([128, 384], 4096, 1536),
}
VARIANTS = [("ab", 64), ("ab", 128), ("swap", 32), ("swap", 64), ("swap", 128)]


def cdiv(a, b):
    return -(-a // b)


def group_tiles(kind, tile_n, m, n, k):
    """(tile count, N-role rows of a tile, M-role tiles, N tiles) of one group."""
    if kind == "ab":  # M role: the tokens (A), N role: the weights (B)
        return cdiv(m, TILE_M) * cdiv(n, tile_n), tile_n, cdiv(m, TILE_M), cdiv(n, tile_n)
    t = tile_n if m > tile_n else min(tile_n, cdiv(m, N_ALIGN) * N_ALIGN)
    return cdiv(n, TILE_M) * cdiv(m, t), t, cdiv(n, TILE_M), cdiv(m, t)


def model(bench, kind, tile_n, dev):
    sms, clock, dram_bps = DEVICES[dev]
    ms, n, k = BENCHMARKS[bench]
    stages = cdiv(k, TILE_K)
    per_group = []
    for m in ms:
        tiles, rows_n, _, _ = group_tiles(kind, tile_n, m, n, k)
        per_group.append((rows_n * k, tiles, rows_n))  # the runtime's sort key: work per tile
    per_group.sort(key=lambda g: -g[0])
    clocks = [0.0] * sms
    l2_bytes = 0.0
    i = 0
    for _, tiles, rows_n in per_group:
        tile_clocks = 2.0 * TILE_M * rows_n * k / FLOP_PER_CLOCK_SM
        stage_bytes = TILE_M * TILE_K // 2 + rows_n * TILE_K // 2 + 2 * 2048
        for _ in range(tiles):
            clocks[i % sms] += tile_clocks
            i += 1
        l2_bytes += tiles * stages * stage_bytes
    mma_s = max(clocks) / clock
    total_m = sum(ms)
    row = k / 2 + k / 16
    sfa_rows = sum(cdiv(m, 128) * 128 for m in ms)
    unique = total_m * k / 2 + sfa_rows * k / 16 + len(ms) * n * row + 2.0 * total_m * n
    reread = 0.0
    for m in ms:
        _, _, _, n_tiles = group_tiles(kind, tile_n, m, n, k)
        m_rows = m if kind == "ab" else n
        reread += (n_tiles - 1) * m_rows * row
    return {
        "benchmark": bench, "variant": "%s_n%d" % (kind, tile_n), "tiles": i,
        "waves": i / sms, "mma_us": mma_s * 1e6, "dram_us": unique / dram_bps * 1e6,
        "dram_no_l2_us": (unique + reread) / dram_bps * 1e6,
        "l2_tbps": l2_bytes / max(mma_s, unique / dram_bps) / 1e12,
        "model_us": max(mma_s * 1e6, unique / dram_bps * 1e6),
        "useful_tflops": 2.0 * total_m * n * k / max(mma_s, unique / dram_bps) / 1e12,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="rtx-pro-6000", choices=sorted(DEVICES))
    ap.add_argument("--json", action="store_true", help="one JSON object per line")
    args = ap.parse_args()
    rows = [model(b, kind, tn, args.device) for b in BENCHMARKS for kind, tn in VARIANTS]
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return
    sms, clock, dram = DEVICES[args.device]
    print("%s: %d SMs, %.2f GHz, %.0f TFLOP/s dense FP4, %.2f TB/s DRAM (a model)\n" %
          (args.device, sms, clock / 1e9, sms * clock * FLOP_PER_CLOCK_SM / 1e12, dram / 1e12))
    print("| case | variant | tiles | waves | mma µs | dram µs | dram* µs | L2 TB/s | model µs |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        bound = "DRAM" if r["mma_us"] <= r["dram_us"] else "MMA"
        print("| %s | %s | %d | %.2f | %.1f | %.1f | %.1f | %.1f | %.1f (%s) |" %
              (r["benchmark"], r["variant"], r["tiles"], r["waves"], r["mma_us"], r["dram_us"],
               r["dram_no_l2_us"], r["l2_tbps"], r["model_us"], bound))


if __name__ == "__main__":
    main()
