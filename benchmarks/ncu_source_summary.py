#!/usr/bin/env python3
"""ncu_source_summary.py — condense an Nsight Compute profile of one kernel into the figures
docs/performance.md quotes: pipe utilisation, the stall reasons, the instruction mix, the
instructions spent polling mbarriers, and the stall samples per code region (warp role).

Input: the two CSV pages of one profiled launch, exported on the GPU machine with
    ncu -i R.ncu-rep --page raw --csv > R.raw.csv
    ncu -i R.ncu-rep --page source --csv --print-source sass | gzip > R.source.csv.gz
(the profile itself: ncu --set full --import-source no -c 1 -k regex:nvfp4 -o R nvfp4-run ...).

    usage: ncu_source_summary.py SOURCE.csv[.gz] [--raw RAW.csv] [--top N]
                                 [--region NAME:START-END]...
START and END are byte offsets from the kernel's first instruction (hexadecimal, 0x...),
read from the SASS (cuobjdump -sass); an instruction belongs to the first region that holds
it, and to "other" when none does.
"""
import argparse
import collections
import csv
import gzip
import re
import sys

PIPE_METRICS = [
    ("issue slots busy (per SMSP)", "smsp__issue_active.avg.pct_of_peak_sustained_active"),
    ("tensor pipe", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"),
    ("ALU pipe (integer, logic)", "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"),
    ("FMA-heavy pipe (IMAD, ...)", "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active"),
    ("FMA pipe", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"),
    ("LSU instructions", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"),
    ("uniform datapath instructions", "sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active"),
    ("shared-memory wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed"),
]


def open_text(path):
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path, newline="")


def fail(msg):
    sys.exit("ncu_source_summary: " + msg)


def read_rows(path, what):
    try:
        with open_text(path) as f:
            return list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        fail(f"cannot read {what} {path}: {e}")


def read_raw(path):
    """The first profiled launch of a `--page raw --csv` export: {metric: value}."""
    rows = read_rows(path, "raw page")
    head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if head is None or len(rows) < head + 3:
        fail(f"{path}: no 'Kernel Name' header with a unit row and a value row")
    names, values = rows[head], rows[head + 2]
    return dict(zip(names, values))


def read_source(path):
    rows = read_rows(path, "source page")
    head = next((i for i, r in enumerate(rows) if "Address" in r and "Source" in r), None)
    if head is None:
        fail(f"{path}: no 'Address', 'Source' header (export with --page source --csv)")
    names = rows[head]
    out = []
    for r in rows[head + 1:]:
        if len(r) < len(names):
            continue
        rec = dict(zip(names, r))
        try:
            rec["addr"] = int(rec["Address"], 16)
        except ValueError:
            continue
        out.append(rec)
    return names, out


def as_int(s):
    try:
        return int(s.replace(",", ""))
    except (ValueError, AttributeError):
        return 0


def opcode(src):
    """`@!P0 BRA 0x...` -> BRA; `LOP3.LUT R5, ...` -> LOP3.LUT."""
    return re.sub(r"^@!?U?P\w+\s+", "", src.strip()).split(" ")[0]


def parse_region(text):
    m = re.fullmatch(r"([^:]+):(0x[0-9a-fA-F]+)-(0x[0-9a-fA-F]+)", text)
    if not m:
        raise argparse.ArgumentTypeError(f"region {text!r}: expected NAME:0xSTART-0xEND")
    return m.group(1), int(m.group(2), 16), int(m.group(3), 16)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source")
    ap.add_argument("--raw")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--region", type=parse_region, action="append", default=[])
    a = ap.parse_args(argv)

    if a.raw:
        raw = read_raw(a.raw)
        print("pipe utilisation (% of peak, active cycles unless noted):")
        for label, key in PIPE_METRICS:
            if key in raw:
                print(f"  {label:34s} {float(raw[key].replace(',', '')):6.1f}")

    names, recs = read_source(a.source)
    if not recs:
        fail("no instructions in " + a.source)
    stalls = [n for n in names if n.startswith("stall_") and "(Not" not in n]
    base = recs[0]["addr"]
    samples = sum(as_int(r["# Samples"]) for r in recs)
    executed = sum(as_int(r["Instructions Executed"]) for r in recs)
    print(f"warp-state samples {samples}, executed warp instructions {executed}")
    samples, executed = max(samples, 1), max(executed, 1)  # percentages of nothing are 0

    reasons = collections.Counter()
    for r in recs:
        for s in stalls:
            reasons[s] += as_int(r[s])
    print("stall reasons (% of samples):")
    for s, v in reasons.most_common(10):
        print(f"  {s[6:]:20s} {100.0 * v / samples:5.1f}")

    mix = collections.Counter()
    for r in recs:
        mix[opcode(r["Source"])] += as_int(r["Instructions Executed"])
    print("instruction mix (% of executed):")
    for op, v in mix.most_common(12):
        print(f"  {op:34s} {100.0 * v / executed:5.1f}")

    # A retry loop of an mbarrier wait: a try-wait followed by a branch back to it.
    polls = 0
    for i, r in enumerate(recs[:-1]):
        nxt = recs[i + 1]
        target = re.search(r"BRA\s+(0x[0-9a-fA-F]+)", nxt["Source"])
        if "TRYWAIT" in r["Source"] and target and int(target.group(1), 16) == r["addr"]:
            polls += as_int(r["Instructions Executed"]) + as_int(nxt["Instructions Executed"])
    print(f"mbarrier retry loops: {polls} executed ({100.0 * polls / executed:.1f} %)")

    if a.region:
        per = collections.defaultdict(collections.Counter)
        for r in recs:
            off = r["addr"] - base
            name = next((n for n, lo, hi in a.region if lo <= off < hi), "other")
            per[name]["samples"] += as_int(r["# Samples"])
            per[name]["executed"] += as_int(r["Instructions Executed"])
            for s in stalls:
                per[name][s] += as_int(r[s])
        print("regions (% of all samples; executed warp instructions; top stalls, % of all samples):")
        for name in [n for n, _, _ in a.region] + ["other"]:
            c = per.get(name)
            if not c:
                continue
            top = sorted(((c[s], s) for s in stalls), reverse=True)[:4]
            print(f"  {name:12s} {100.0 * c['samples'] / samples:5.1f} %  {c['executed']:11d}  " +
                  ", ".join(f"{s[6:]} {100.0 * v / samples:.1f}" for v, s in top))

    print(f"top {a.top} instructions by samples (offset, % of samples, top stall):")
    for r in sorted(recs, key=lambda r: -as_int(r["# Samples"]))[:a.top]:
        n = as_int(r["# Samples"])
        v, s = max((as_int(r[s]), s) for s in stalls)
        print(f"  0x{r['addr'] - base:05x} {100.0 * n / samples:5.1f}  {r['Source'].strip()[:56]:56s} {s[6:]}")


if __name__ == "__main__":
    main(sys.argv[1:])
