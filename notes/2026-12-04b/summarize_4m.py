"""Issue 12's goals over a benchmarks/kernels.py Markdown table: at the large shapes (1024x4096, gated 1024x8192)
entries torch has as one op (spec.torch_equivalent) need default/torch <= 1.0 and the rest (textbook composites in
torch ops) <= 0.67; at 64x512 (gated 64x1024, 32K elements) every row needs <= 1.5. Prints the counts, the medians
and every row above its goal, per group.

    PYTHONPATH=src python notes/2026-12-04b/summarize_4m.py notes/2026-12-04b/kernels_all_4m.md
"""

import statistics
import sys

import nonlin

SMALL = ("64x512", "64x1024")


def rows(path):
    with open(path) as f:
        for line in f.read().splitlines():
            c = [x.strip() for x in line.strip().strip("|").split("|")]
            if len(c) > 10 and c[0] != "entry" and not c[0].startswith("-"):
                yield c[0], c[1], c[2], c[3], c[4], None if c[9] == "-" else float(c[9])


groups: dict[tuple[str, float], list] = {}
no_baseline = []
for entry, dtype, shape, pas, route, ratio in rows(sys.argv[1]):
    if ratio is None:  # torch has no op for this dtype (log_ndtr of bfloat16)
        no_baseline.append(f"{entry} {dtype} {shape} {pas}")
        continue
    if shape in SMALL:
        key = ("32K elements, every row", 1.5)
    elif nonlin.spec(entry).torch_equivalent is not None:
        key = ("torch's own op", 1.0)
    else:
        key = ("textbook composite", 0.67)
    groups.setdefault(key, []).append((entry, dtype, shape, pas, route, ratio))
for (label, goal), group in groups.items():
    met = [r for r in group if r[5] <= goal]
    print(
        f"{label}: {len(met)} of {len(group)} rows at or below {goal} (median ratio "
        f"{statistics.median(r[5] for r in group):.2f}); within 1.1: {sum(r[5] <= 1.1 for r in group)}"
    )
    for r in sorted(group, key=lambda r: -r[5]):
        if r[5] > goal:
            print(f"  {r[0]:22s} {r[1]:9s} {r[2]:10s} {r[3]:8s} {r[4]:6s} {r[5]:.2f}")
print("no torch baseline:", ", ".join(no_baseline) or "none")
