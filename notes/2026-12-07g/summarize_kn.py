"""Medians over runs of kernel_ns.py's ratios, per checkout (the lines after '== PATH').

python notes/2026-12-07g/summarize_kn.py FILE
"""

import collections
import re
import statistics
import sys

tree, d = None, collections.defaultdict(list)
with open(sys.argv[1]) as f:
    lines = f.readlines()
for line in lines:
    if line.startswith("=="):
        tree = line.split()[1]
        continue
    m = re.match(r"(\S+)\s+n=\s*(\d+) .*ratio fwd ([\d.]+) bwd ([\d.]+)", line)
    if m:
        d[(m[1], int(m[2]), tree)].append((float(m[3]), float(m[4])))
for (name, n, tree), v in sorted(d.items()):
    fwd = statistics.median(a for a, _ in v)
    bwd = statistics.median(b for _, b in v)
    print(f"{name:10s} n={n:8d} {tree:12s} fwd/torch {fwd:5.2f}  bwd/torch {bwd:5.2f}  ({len(v)} runs)")
