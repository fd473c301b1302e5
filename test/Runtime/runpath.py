#!/usr/bin/env python3
"""runpath.py ELF... — prints "runpath ok" for each ELF file whose DT_RUNPATH / DT_RPATH has
no empty entry (the dynamic loader reads one as the current directory), else the entries."""
import os
import subprocess
import sys

for path in sys.argv[1:]:
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    entries = []
    for line in out.splitlines():
        if "(RUNPATH)" in line or "(RPATH)" in line:
            entries += line.split("[", 1)[1].rsplit("]", 1)[0].split(":")
    if "" in entries:
        print(f"{os.path.basename(path)}: an empty RUNPATH entry (the current directory): {entries}")
    else:
        print("runpath ok")
