#!/usr/bin/env python3
"""Plot of one nvfp4-hopper-bench run (benchmarks/hopper_bench.c): per B1..B4, this kernel,
cuBLAS BF16 (grouped and per-group GEMMs on pre-decoded operands), the BF16 compute bound and
the DRAM bound at the peaks measured in the same run, in microseconds (log scale), with the
ratio to the faster cuBLAS form printed over this kernel's bar.

  usage: benchmarks/hopper_plot.py BENCH.json OUT.png
Needs matplotlib (Debian: python3-matplotlib).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        run = json.load(f)
    cases = run["cases"]
    series = [("this kernel (sm_90a)", "ours_us"),
              ("cuBLAS BF16 grouped", "cublas_grouped_us"),
              ("cuBLAS BF16 per group", "cublas_per_group_us"),
              ("BF16 compute bound", "bound_compute_us"),
              ("DRAM bound", "bound_dram_us")]
    width = 0.16
    fig, ax = plt.subplots(figsize=(9, 4.8))
    for i, (label, key) in enumerate(series):
        xs = [c + (i - 2) * width for c in range(len(cases))]
        bars = ax.bar(xs, [case[key] for case in cases], width, label=label)
        if key == "ours_us":
            for bar, case in zip(bars, cases):
                ax.annotate(f"{case['ratio_to_cublas']:.2f}x", (bar.get_x() + width / 2,
                            bar.get_height()), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels([c["case"] for c in cases])
    ax.set_yscale("log")
    ax.set_ylabel("microseconds (median, L2 flushed)")
    ax.set_title(f"{run['device']}: BF16 peak {run['peak_bf16_tflops']:.0f} TFLOP/s, "
                 f"DRAM {run['peak_dram_gbps']:.0f} GB/s (measured in the run)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
