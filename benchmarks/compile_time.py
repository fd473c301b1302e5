#!/usr/bin/env python3
"""Compile-time benchmark: wall time of .mlir -> cubin (nvfp4-compile) for the PROBLEM.md
benchmark configurations B1..B4, for the sm_100a kernel and the sm_90a emulation kernel.

Each configuration is compiled REPEAT times; the table reports the median wall time of
the whole command and the median of each phase nvfp4-compile reports (parse, lowering,
LLVM NVPTX, ptxas). Target: < 250 ms per sm_100a kernel on a 2-core machine. Side by side,
in the same run, the same compilation through MLIR's own route: `nvfp4-opt
--nvfp4-to-cubin` (gpu-module-to-binary{format=bin} runs ptxas itself and the cubin is
printed into the IR).

  usage: benchmarks/compile_time.py [--build build] [--repeat 5] [--json out.json]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PHASES = ("parse", "lower", "llvm", "ptxas")


def compile_once(tool, src, emulate):
    with tempfile.TemporaryDirectory() as d:
        cmd = [tool, src, "-o", os.path.join(d, "k.cubin"), "--time"]
        if emulate:
            cmd.append("--emulate")
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall = (time.perf_counter() - t0) * 1e3
        if p.returncode != 0:
            sys.exit(f"compile failed: {' '.join(cmd)}\n{p.stderr}")
        phases = {k: float(v) for k, v in re.findall(r"(\w+) ([0-9.]+) ms", p.stderr)}
        return wall, phases


def mlir_route_once(opt, src, emulate):
    pipeline = "--nvfp4-emulation-to-cubin" if emulate else "--nvfp4-to-cubin"
    t0 = time.perf_counter()
    p = subprocess.run([opt, src, pipeline, "-o", os.devnull], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"nvfp4-opt {pipeline} failed on {src}\n{p.stderr}")
    return (time.perf_counter() - t0) * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()
    tool = os.path.join(args.build, "bin", "nvfp4-compile")
    opt = os.path.join(args.build, "bin", "nvfp4-opt")
    rows = []
    for target, emulate in (("sm_100a", False), ("sm_90a-emu", True)):
        for name in ("b1", "b2", "b3", "b4"):
            src = os.path.join(ROOT, "examples", name + ".mlir")
            runs = [compile_once(tool, src, emulate) for _ in range(args.repeat)]
            row = {"config": name.upper(), "target": target,
                   "wall_ms": statistics.median(r[0] for r in runs)}
            for ph in PHASES:
                row[ph + "_ms"] = statistics.median(r[1].get(ph, 0.0) for r in runs)
            row["nvfp4_opt_pipeline_ms"] = statistics.median(
                mlir_route_once(opt, src, emulate) for _ in range(args.repeat))
            rows.append(row)
    print(f"{'config':<7}{'target':<12}{'wall ms':>9}" + "".join(f"{p + ' ms':>10}" for p in PHASES)
          + f"{'nvfp4-opt pipeline ms':>23}")
    for r in rows:
        print(f"{r['config']:<7}{r['target']:<12}{r['wall_ms']:>9.1f}" +
              "".join(f"{r[p + '_ms']:>10.1f}" for p in PHASES) +
              f"{r['nvfp4_opt_pipeline_ms']:>23.1f}")
    print(f"(median of {args.repeat} runs on {os.cpu_count()} cores; "
          f"target < 250 ms per sm_100a kernel)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"repeat": args.repeat, "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
