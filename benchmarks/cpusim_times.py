#!/usr/bin/env python3
"""CPU execution target: simulation time per case and variant.

Compiles examples/any16.mlir for the CPU target with the given variants (one object per
family part: 1-CTA and CTA-pair variants cannot share a family of 16), runs every case
with `nvfp4-run --cpu --json` and prints a Markdown table of the simulator's CPU time per
run (the thread's CPU time, robust on a loaded machine; wall time next to it in the JSON),
then one JSON line with every measurement. Every run must pass; a failure is printed and
the exit status is 1.

  benchmarks/cpusim_times.py [--build build] [--variants ab_n128,swap2_n128,...]
                             [--cases test:0,...,B4] [--sms 4] [--schedule-seed 1]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_VARIANTS = "ab_n128,ab_n128_st,ab_n256,swap_n128,swap_n256,ab2_n256,swap2_n128"
DEFAULT_CASES = ",".join(["test:%d" % i for i in range(10)] + ["random:8", "edge:12"])


def compile_family(build, variants, path):
    src = open(os.path.join(ROOT, "examples", "any16.mlir")).read()
    listed = ", ".join('"%s"' % v for v in variants)
    src = src.replace('target = "sm_100a"', 'target = "sm_100a", variants = [%s]' % listed)
    mlir = path + ".mlir"
    open(mlir, "w").write(src)
    subprocess.run([os.path.join(build, "bin", "nvfp4-compile"), mlir, "--cpu", path], check=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--variants", default=DEFAULT_VARIANTS)
    ap.add_argument("--cases", default=DEFAULT_CASES)
    ap.add_argument("--sms", default="4")
    ap.add_argument("--schedule-seed", default="1")
    args = ap.parse_args()
    variants = args.variants.split(",")
    cases = args.cases.split(",")
    run = os.path.join(args.build, "bin", "nvfp4-run")
    tmp = tempfile.mkdtemp(prefix="nvfp4-cpusim-times-")
    objects = {}
    for pair in (False, True):
        part = [v for v in variants if v.startswith(("ab2_", "swap2_")) == pair]
        if part:
            path = os.path.join(tmp, "pair.so" if pair else "single.so")
            compile_family(args.build, part, path)
            for v in part:
                objects[v] = path
    rows, failed = [], 0
    for case in cases:
        row = {"case": case}
        for v in variants:
            extra = ["--full-range"] if case.startswith("random") else []
            extra += ["--ldc-pad", "24"] if case.startswith("edge") else []
            p = subprocess.run([run, "--cpu", objects[v], "--variant", v, "--case", case,
                                "--sms", args.sms, "--schedule-seed", args.schedule_seed,
                                "--json"] + extra, capture_output=True, text=True)
            try:
                j = json.loads(p.stdout.strip().splitlines()[-1])
            except (ValueError, IndexError):
                j = {}
            if p.returncode != 0 or not j.get("pass"):
                failed += 1
                print("FAIL %s %s (exit %d)\n%s" % (case, v, p.returncode, p.stderr[-800:]),
                      file=sys.stderr)
            row[v] = {"cpu_ms": j.get("sim_cpu_ms"), "wall_ms": j.get("sim_wall_ms"),
                      "tiles": j.get("total_tiles"), "mma": j.get("mma_ops"),
                      "exit": p.returncode}
        rows.append(row)
    print("| case | " + " | ".join(variants) + " |")
    print("|---|" + "---|" * len(variants))
    for row in rows:
        cells = ["%.0f" % row[v]["cpu_ms"] if row[v]["cpu_ms"] is not None else "FAIL"
                 for v in variants]
        print("| %s | %s |" % (row["case"], " | ".join(cells)))
    total = {v: sum(r[v]["cpu_ms"] or 0 for r in rows) for v in variants}
    print("| total | %s |" % " | ".join("%.0f" % total[v] for v in variants))
    print(json.dumps({"sms": args.sms, "schedule_seed": args.schedule_seed, "runs": rows,
                      "failed": failed}))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
