#!/usr/bin/env python3
"""Kernel benchmark: the benchmarks B1..B4 (docs/format.md) on a Blackwell GPU, timed by
nvfp4-run (CUDA events, L2 flushed between iterations, median of N) and checked against the C
reference, printed side by side with the B200 speed of light and the best public hand-written
result (docs/format.md, "The benchmark shapes"), plus the geometric mean the competition ranks
by.

  usage: benchmarks/kernel_bench.py CUBIN [--run build/bin/nvfp4-run] [--iters 50]
                                    [--json out.json] [--allow-emulation]

CUBIN must hold at least 8 groups (examples/b1.mlir or examples/any16.mlir compiled with
nvfp4-compile). An emulation cubin (sm_90a) runs the tcgen05 emulator, ~1000x slower than
hardware: its times say nothing about performance, so it is refused unless
--allow-emulation is given (useful only to test this script).
"""
import argparse
import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# B200 speed of light at 1.5 GHz and the best public write-up (docs/format.md, "The benchmark
# shapes").
SPEED_OF_LIGHT_US = {"B1": 18.833, "B2": 10.667, "B3": 2.406, "B4": 1.525}
BEST_PUBLIC_US = {"B1": 38.2, "B2": 25.2, "B3": 12.8, "B4": 9.1}


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cubin")
    ap.add_argument("--run", default=os.path.join(ROOT, "build", "bin", "nvfp4-run"))
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--json")
    ap.add_argument("--allow-emulation", action="store_true")
    args = ap.parse_args()

    info = subprocess.run([args.run, "--info", args.cubin, "--json"], capture_output=True,
                          text=True)
    if info.returncode != 0:
        sys.exit(f"nvfp4-run --info failed:\n{info.stderr}")
    emulated = json.loads(info.stdout)["emulation"]
    if emulated and not args.allow_emulation:
        sys.exit("this is an emulation cubin: its times are not performance "
                 "(pass --allow-emulation to run anyway)")
    # An emulated launch takes about a second: no warm-up, no host launch-cost loop.
    extra = ["--warmup", "0", "--launch-iters", "0"] if emulated else ["--warmup", "5"]

    rows = []
    for name in ("B1", "B2", "B3", "B4"):
        cmd = [args.run, args.cubin, "--case", name, "--iters", str(args.iters), "--flush-l2",
               "--json"] + extra
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode == 77:
            sys.exit("no CUDA driver or device here")
        if p.returncode not in (0, 1):
            sys.exit(f"{' '.join(cmd)} failed:\n{p.stdout}{p.stderr}")
        r = json.loads(p.stdout.strip().splitlines()[-1])
        rows.append({"config": name, "us": r["time_us_median"], "pass": r["pass"],
                     "host_launch_us": r["host_launch_us_median"],
                     "sol_us": SPEED_OF_LIGHT_US[name], "best_public_us": BEST_PUBLIC_US[name]})

    print(f"{'config':<7}{'ours us':>10}{'check':>7}{'SOL us':>9}{'% of SOL':>10}"
          f"{'best public us':>16}{'vs best':>9}")
    for r in rows:
        print(f"{r['config']:<7}{r['us']:>10.2f}{'PASS' if r['pass'] else 'FAIL':>7}"
              f"{r['sol_us']:>9.3f}{100 * r['sol_us'] / r['us']:>9.1f}%"
              f"{r['best_public_us']:>16.1f}{r['best_public_us'] / r['us']:>8.2f}x")
    ours = geomean([r["us"] for r in rows])
    print(f"{'geomean':<7}{ours:>10.2f}{'':>7}{geomean(list(SPEED_OF_LIGHT_US.values())):>9.3f}"
          f"{'':>10}{geomean(list(BEST_PUBLIC_US.values())):>16.1f}")
    print(f"(median of {args.iters} launches, L2 flushed between iterations"
          + ("; EMULATED: not performance)" if emulated else
             f"; host launch cost median {rows[0]['host_launch_us']:.2f} us)"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"iters": args.iters, "rows": rows, "geomean_us": ours}, f, indent=2)
    sys.exit(0 if all(r["pass"] for r in rows) else 1)


if __name__ == "__main__":
    main()
