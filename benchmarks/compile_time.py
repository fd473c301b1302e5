#!/usr/bin/env python3
"""Compile-time benchmark: where the CPU time of .mlir -> cubin goes, per target and variant.

For each target (sm_100a, sm_90a) and configuration (examples/b1.mlir ... with the target
swapped in), and for each build given (--build, and optionally --before BUILD_DIR to measure
an older tree beside it in the same run), it measures, each REPEAT times (median reported):

  family   nvfp4-compile IN -o OUT.cubin --ptx OUT.ptx --time: the process' CPU time with
           ptxas included (wait4), its wall time, and the CPU time of each phase as the tool
           reports it (startup, parse, lower, llvm, ptxas; a build without CPU phases
           reports wall phases only); then ptxas alone on the same PTX (one process, the
           reference: `ptxas -arch=ARCH -O3`), PTX and SASS (.text) bytes; with --jobs-1
           also the wall time of --jobs 1.
  variant  the same for an op restricted to each variant of the family (variants = [...]),
           so each kernel's cost stands on its own: CPU with ptxas, ptxas alone, PTX and
           SASS bytes.

It prints a table (medians, and the least CPU time of the runs: contention only ever adds
to it) and writes JSON (--json) with every sample. Measure on an idle machine: CPU time is
what the goals speak of (wall time depends on the cores), and other processes still slow a
shared machine's caches and hyperthreads down.

  usage: benchmarks/compile_time.py [--build build] [--before OLD_BUILD] [--repeat 3]
                                    [--configs b1] [--targets sm_100a,sm_90a]
                                    [--no-variants] [--jobs-1] [--json out.json]
"""
import argparse
import json
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CUDA = os.environ.get("CUDA_ROOT", "/usr/local/cuda")


def run_measured(cmd):
    """Runs cmd; returns (cpu seconds of the process and its waited-for children, wall
    seconds, stderr)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{err}")
    return ru.ru_utime + ru.ru_stime, wall, err


def text_bytes(cubin):
    """Bytes of SASS: the sizes of the cubin's .text.* sections (ELF64 little-endian)."""
    d = open(cubin, "rb").read()
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize) for i in range(shnum)]
    names = hdrs[shstrndx][4]
    total = 0
    for h in hdrs:
        name = d[names + h[0]: d.index(b"\0", names + h[0])].decode()
        if name.startswith(".text."):
            total += h[5]
    return total


def parse_phases(err):
    """CPU phases ('cpu ...' line) and wall phases of nvfp4-compile --time."""
    cpu, wall = {}, {}
    for line in err.splitlines():
        if not line.startswith("nvfp4-compile: "):
            continue
        target = cpu if line.startswith("nvfp4-compile: cpu ") else wall
        for k, v in re.findall(r"(\w+) ([0-9.]+) ms", line):
            target[k] = float(v) / 1e3
    return cpu, wall


def ptx_arch(ptx):
    m = re.search(r"^\.target (sm_\w+)", open(ptx).read(), re.M)
    return m.group(1) if m else "sm_100a"


def entries(ptx):
    return re.findall(r"^\.visible \.entry (\w+)\(", open(ptx).read(), re.M)


def med(xs):
    return statistics.median(xs) if xs else None


def measure(tool, src, repeat, jobs1):
    """One op: the family compile, ptxas alone on its PTX, sizes."""
    with tempfile.TemporaryDirectory() as d:
        cubin, ptx = os.path.join(d, "k.cubin"), os.path.join(d, "k.ptx")
        runs = [run_measured([tool, src, "-o", cubin, "--ptx", ptx, "--time"])
                for _ in range(repeat)]
        arch = ptx_arch(ptx)
        alone = [run_measured([os.path.join(CUDA, "bin", "ptxas"), f"-arch={arch}", "-O3", ptx,
                               "-o", os.path.join(d, "alone.cubin")])[0] for _ in range(repeat)]
        row = {
            "cpu_s": med([r[0] for r in runs]), "cpu_s_min": min(r[0] for r in runs),
            "cpu_s_all": [r[0] for r in runs],
            "wall_s": med([r[1] for r in runs]),
            "ptxas_alone_cpu_s": med(alone), "ptxas_alone_cpu_s_min": min(alone),
            "ptxas_alone_cpu_s_all": alone,
            "ptx_bytes": os.path.getsize(ptx), "sass_bytes": text_bytes(cubin),
            "kernels": entries(ptx),
        }
        phases = [parse_phases(r[2]) for r in runs]
        for kind, idx in (("cpu", 0), ("wall", 1)):
            keys = set().union(*(p[idx].keys() for p in phases))
            row[f"phase_{kind}_s"] = {k: med([p[idx][k] for p in phases if k in p[idx]])
                                      for k in sorted(keys)}
        if jobs1:
            row["wall_s_jobs1"] = med([run_measured([tool, src, "-o", cubin, "--jobs", "1"])[1]
                                       for _ in range(repeat)])
        return row


def op_source(config, target, variant, d):
    text = open(os.path.join(ROOT, "examples", config + ".mlir")).read()
    attrs = f'target = "{target}"' + (f', variants = ["{variant}"]' if variant else "")
    text = text.replace('target = "sm_100a"', attrs)
    path = os.path.join(d, f"{config}_{target}_{variant or 'family'}.mlir")
    open(path, "w").write(text)
    return path


def kernel_prefix(config):
    m = re.search(r'kernel_name = "(\w+)"', open(os.path.join(ROOT, "examples",
                                                              config + ".mlir")).read())
    return (m.group(1) if m else config) + "_"


def bench(builds, configs, targets, repeat, variants, jobs1):
    results = []
    with tempfile.TemporaryDirectory() as d:
        for target in targets:
            for config in configs:
                family = op_source(config, target, None, d)
                entry = {"config": config.upper(), "target": target, "builds": {}}
                for label, build in builds:
                    tool = os.path.join(build, "bin", "nvfp4-compile")
                    help_text = subprocess.run([tool, "--help"], capture_output=True,
                                               text=True).stdout
                    fam = measure(tool, family, repeat, jobs1 and "--jobs" in help_text)
                    fam["variants"] = {}
                    if variants:
                        prefix = kernel_prefix(config)
                        for k in fam["kernels"]:
                            v = k[len(prefix):] if k.startswith(prefix) else k
                            src = op_source(config, target, v, d)
                            fam["variants"][v] = measure(tool, src, repeat, False)
                    entry["builds"][label] = fam
                    print(f"# measured {config} {target} {label}", file=sys.stderr)
                results.append(entry)
    return results


def fmt(x, scale=1.0, digits=2):
    return "-" if x is None else f"{x * scale:.{digits}f}"


def print_table(results, labels, cores):
    for e in results:
        print(f"\n## {e['config']} {e['target']}")
        print(f"{'':<28}" + "".join(f"{l:>12}" for l in labels))
        rows = [
            ("kernels", lambda b: str(len(b["kernels"]))),
            ("CPU s, ptxas included", lambda b: fmt(b["cpu_s"])),
            ("  least of the runs", lambda b: fmt(b["cpu_s_min"])),
            ("CPU s per kernel", lambda b: fmt(b["cpu_s"] / max(1, len(b["kernels"])))),
            ("ptxas alone, CPU s", lambda b: fmt(b["ptxas_alone_cpu_s"])),
            ("  least of the runs", lambda b: fmt(b["ptxas_alone_cpu_s_min"])),
            ("CPU / ptxas alone", lambda b: fmt(b["cpu_s"] / b["ptxas_alone_cpu_s"]) + "x"),
            (f"wall s ({cores} cores)", lambda b: fmt(b["wall_s"])),
            ("wall s, --jobs 1", lambda b: fmt(b.get("wall_s_jobs1"))),
            ("PTX KB", lambda b: fmt(b["ptx_bytes"], 1 / 1024, 0)),
            ("SASS KB", lambda b: fmt(b["sass_bytes"], 1 / 1024, 0)),
        ]
        for ph in ("startup", "parse", "lower", "llvm", "ptxas"):
            rows.append((f"  {ph}, CPU s", lambda b, ph=ph: fmt(b["phase_cpu_s"].get(ph))))
        for ph in ("parse", "lower", "llvm", "ptxas"):
            rows.append((f"  {ph}, wall s", lambda b, ph=ph: fmt(b["phase_wall_s"].get(ph))))
        for name, f in rows:
            print(f"{name:<28}" + "".join(f"{f(e['builds'][l]):>12}" for l in labels))
        names = list(e["builds"][labels[-1]]["variants"])
        if not names:
            continue
        print(f"\n{'variant':<22}" + "".join(
            f"{l + ' ' + c:>16}" for l in labels for c in ("CPU s", "ptxas s", "SASS KB")))
        for v in names:
            cells = []
            for l in labels:
                b = e["builds"][l]["variants"].get(v)
                cells += [fmt(b and b["cpu_s"]), fmt(b and b["ptxas_alone_cpu_s"]),
                          fmt(b and b["sass_bytes"], 1 / 1024, 0)]
            print(f"{v:<22}" + "".join(f"{c:>16}" for c in cells))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--before", help="an older build directory, measured in the same run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--configs", default="b1")
    ap.add_argument("--targets", default="sm_100a,sm_90a")
    ap.add_argument("--no-variants", action="store_true")
    ap.add_argument("--jobs-1", action="store_true", help="also the wall time of --jobs 1")
    ap.add_argument("--json")
    args = ap.parse_args()
    builds = ([("before", args.before)] if args.before else []) + [("after" if args.before
                                                                   else "build", args.build)]
    results = bench(builds, args.configs.split(","), args.targets.split(","), args.repeat,
                    not args.no_variants, args.jobs_1)
    print_table(results, [l for l, _ in builds], os.cpu_count())
    print(f"\n(median of {args.repeat} runs; CPU = user + system of the process and its ptxas)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"repeat": args.repeat, "cores": os.cpu_count(),
                       "builds": dict(builds), "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
