#!/usr/bin/env python3
"""Turns the output of `benchmarks/proxy_report.sh run OUT_DIR` (measured on the H200) into
the tables of docs/performance.md, a PNG plot of data-movement efficiency per benchmark and
one merged JSON file.

  usage: benchmarks/plot_proxy.py OUT_DIR [--out results/proxy] [--allow-fake] [--no-plot]

Reads OUT_DIR/proxy1.json (1-CTA families, stage sweeps, fixed cost), proxy2.json (CTA-pair
families), proxy_patchable.json and proxy_patch.json (the 1-CTA families built with
nvfp4.patch_tmaps, with the maps in the parameter block and with the kernel patching its own
maps), fresh.jsonl (whole calls with 15 fresh input sets) and gpu.txt. Writes
OUT/proxy_h200.json and OUT/proxy_efficiency.png (OUT is under results/ by default, which
git ignores; docs/performance/ keeps only the plot the docs show) and prints the Markdown
tables. Results of the tests' fake libcuda (device "fake ...") are refused unless
--allow-fake is given, and then every output says so: they are not measurements.
"""
import argparse
import json
import os
import sys

BASELINE = "ab_n128_st"  # v1-like: AB, 128-wide tiles, direct stores
CASES = ("B1", "B2", "B3", "B4")


def load(path, required=True):
    if not os.path.exists(path):
        if required:
            sys.exit(f"missing {path}")
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def rows_of(report, case):
    for c in (report or {}).get("cases", []):
        if c["case"] == case:
            return c
    return None


def family_rows(case_report):
    """The rows of the full families (not of the stage sweeps, stages*_B*.cubin)."""
    return [v for v in case_report["variants"] if "/stages" not in v["cubin"]]


def fmt(x, digits=2):
    return "-" if x is None or x < 0 else f"{x:.{digits}f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--out", default="results/proxy")
    ap.add_argument("--allow-fake", action="store_true")
    ap.add_argument("--no-plot", action="store_true", help="tables and JSON only (no matplotlib)")
    args = ap.parse_args()

    p1 = load(os.path.join(args.dir, "proxy1.json"))
    p2 = load(os.path.join(args.dir, "proxy2.json"), required=False)
    pp = load(os.path.join(args.dir, "proxy_patch.json"), required=False)
    pq = load(os.path.join(args.dir, "proxy_patchable.json"), required=False)
    fresh = []
    fresh_path = os.path.join(args.dir, "fresh.jsonl")
    if os.path.exists(fresh_path):
        with open(fresh_path, encoding="utf-8") as f:
            fresh = [json.loads(line) for line in f if line.strip()]
    fake = "fake" in p1["device"]
    if fake and not args.allow_fake:
        sys.exit("these results come from the tests' fake libcuda: not measurements "
                 "(--allow-fake to render them anyway, marked as such)")
    label = " (FAKE DRIVER: NOT A MEASUREMENT)" if fake else ""
    gpu = ""
    gpu_path = os.path.join(args.dir, "gpu.txt")
    if os.path.exists(gpu_path):
        gpu = open(gpu_path, encoding="utf-8").read().strip()

    peak = p1["dram_peak_measured_tbps"]
    datasheet = p1["dram_peak_datasheet_tbps"]
    summary = {"device": p1["device"], "gpu": gpu, "fake": fake, "iters": p1["iters"],
               "dram_peak_measured_tbps": peak, "dram_peak_datasheet_tbps": datasheet,
               "dram_read_tbps": p1["dram_read_tbps"], "dram_copy_tbps": p1["dram_copy_tbps"],
               "cases": {}, "fresh_sets": fresh}

    print(f"### Data movement on the {p1['device']}{label}\n")
    print(f"DRAM peak measured in the same run: {peak:.2f} TB/s (read {p1['dram_read_tbps']:.2f}, "
          f"copy {p1['dram_copy_tbps']:.2f}); datasheet {datasheet:.1f} TB/s. L2 flushed before "
          f"every launch, median of {p1['iters']} launches.\n")
    print("| case | MB moved | proxy µs (runtime's choice) | streaming ceiling µs | efficiency "
          "| best variant µs | bytes / measured peak µs | bytes / 4.8 TB/s µs |")
    print("|---|---|---|---|---|---|---|---|")
    plot = {}
    for case in CASES + ("fixed",):
        c1 = rows_of(p1, case)
        if not c1:
            continue
        rows = family_rows(c1) + (family_rows(rows_of(p2, case)) if rows_of(p2, case) else [])
        bytes_ = c1["read_bytes"] + c1["write_bytes"]
        # the heuristic's choice over the union of the families (its modelled minimum)
        modelled = [r for r in rows if r["model_us"] >= 0]
        chosen = min(modelled, key=lambda r: r["model_us"]) if modelled else None
        best = min(rows, key=lambda r: r["us"])
        base = next((r for r in rows if r["variant"] == BASELINE), None)
        summary["cases"][case] = {
            "bytes": bytes_, "stream_us": c1["stream_us"], "variants": rows,
            "stage_sweep": [v for v in c1["variants"] if "/stages" in v["cubin"]],
            "patched": family_rows(rows_of(pp, case)) if rows_of(pp, case) else [],
            "patchable": family_rows(rows_of(pq, case)) if rows_of(pq, case) else []}
        eff = lambda r: c1["stream_us"] / r["us"] if r and r["us"] > 0 else None
        print(f"| {case} | {bytes_ / 1e6:.1f} | {fmt(chosen['us'] if chosen else None)} "
              f"({chosen['variant'] if chosen else '-'}) | {fmt(c1['stream_us'])} | "
              f"{fmt(100 * eff(chosen) if chosen else None, 1)} % | {fmt(best['us'])} "
              f"({best['variant']}) | {bytes_ / (peak * 1e12) * 1e6:.2f} | "
              f"{bytes_ / (datasheet * 1e12) * 1e6:.2f} |")
        if case != "fixed":
            plot[case] = {"baseline": eff(base), "chosen": eff(chosen), "best": eff(best)}

    print(f"\n### Every variant forced (µs, and time relative to {BASELINE}){label}\n")
    variants = []
    for case in CASES:
        for r in summary["cases"].get(case, {}).get("variants", []):
            if r["variant"] not in variants:
                variants.append(r["variant"])
    print("| variant | " + " | ".join(CASES) + " |")
    print("|---|" + "---|" * len(CASES))
    for v in variants:
        cells = []
        for case in CASES:
            rows = summary["cases"].get(case, {}).get("variants", [])
            r = next((x for x in rows if x["variant"] == v), None)
            b = next((x for x in rows if x["variant"] == BASELINE), None)
            cells.append("-" if not r else f"{r['us']:.2f} ({r['us'] / b['us']:.2f}x)" if b
                         else f"{r['us']:.2f}")
        print(f"| {v} | " + " | ".join(cells) + " |")

    print(f"\n### Stage count (proxy µs){label}\n")
    print("| case | variant | stages: µs |")
    print("|---|---|---|")
    for case in CASES:
        c = summary["cases"].get(case)
        if not c:
            continue
        by_variant = {}
        for r in c["stage_sweep"] + [r for r in c["variants"]]:
            by_variant.setdefault(r["variant"], {})[r["stages"]] = r["us"]
        for v in sorted(by_variant):
            if len(by_variant[v]) > 1:
                cells = ", ".join(f"{s}: {us:.2f}" for s, us in sorted(by_variant[v].items()))
                print(f"| {case} | {v} | {cells} |")

    if pp and pq:
        print(f"\n### The kernel patching its own tensor maps: in-kernel cost (µs){label}\n")
        print("| case | variant | default kernel | patchable kernel, maps in the parameter block "
              "| patchable kernel, kernel-patched | cost of patching |")
        print("|---|---|---|---|---|---|")
        for case in CASES:
            c = summary["cases"].get(case)
            if not c:
                continue
            for r in c["patched"]:
                base = next((x for x in c["variants"] if x["variant"] == r["variant"]), None)
                off = next((x for x in c["patchable"] if x["variant"] == r["variant"]), None)
                if base and off:
                    print(f"| {case} | {r['variant']} | {base['us']:.2f} | {off['us']:.2f} | "
                          f"{r['us']:.2f} | {r['us'] - off['us']:+.2f} |")

    if fresh:
        print(f"\n### Whole calls with 15 fresh input sets{label}\n")
        print("| case | technique | host µs median | host µs p90 | update µs | end-to-end µs "
              "median (p90) | kernel alone µs | check |")
        print("|---|---|---|---|---|---|---|---|")
        for r in fresh:
            if "skipped" in r:
                print(f"| {r['case']} | {r['name']} | ({r['skipped']}) | | | | | |")
                continue
            print(f"| {r['case']} | {r['name']} | {r['host_us_median']:.2f} | {r['host_us_p90']:.2f} "
                  f"| {r['update_us_median']:.2f} | {r['e2e_us_median']:.2f} ({r['e2e_us_p90']:.2f}) "
                  f"| {r['kernel_us_median']:.2f} | {'PASS' if r['pass'] else 'FAIL'} |")

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "proxy_h200.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
    if args.no_plot:
        print(f"\nwrote {args.out}/proxy_h200.json (no plot)")
        return
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("matplotlib is missing (apt-get install -y python3-matplotlib)")
    cases = [c for c in CASES if c in plot]
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.27
    for i, (key, name) in enumerate((("baseline", f"{BASELINE} (v1-like)"),
                                     ("chosen", "runtime's choice"), ("best", "best variant"))):
        vals = [100 * (plot[c][key] or 0) for c in cases]
        ax.bar([x + (i - 1) * width for x in range(len(cases))], vals, width, label=name)
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(cases)
    ax.set_ylabel("streaming ceiling / proxy time (%)")
    ax.set_title(f"Data-movement efficiency of the timing proxy, L2 flushed\n{p1['device']}{label}",
                 fontsize=9)
    ax.axhline(100, color="grey", linewidth=0.8)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "proxy_efficiency.png"), dpi=120)
    print(f"\nwrote {args.out}/proxy_h200.json and {args.out}/proxy_efficiency.png")


if __name__ == "__main__":
    main()
