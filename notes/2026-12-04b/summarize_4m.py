"""Issue 12's goals over a benchmarks/kernels.py Markdown table: entries torch has as one op (spec.torch_equivalent)
need default/torch <= 1.0, the rest (textbook composites in torch ops) <= 0.67. Prints the counts and the misses.

    PYTHONPATH=src python notes/2026-12-04b/summarize_4m.py notes/2026-12-04b/kernels_all_4m.md
"""

import statistics
import sys

import nonlin


def rows(path):
    with open(path) as f:
        lines = f.read().splitlines()
    for line in lines:
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) > 10 and c[0] not in ("entry",) and not c[0].startswith("-"):
            yield c[0], c[1], c[3], c[4], None if c[9] == "-" else float(c[9])


native, composite, no_baseline = [], [], []
for entry, dtype, pas, route, ratio in rows(sys.argv[1]):
    if ratio is None:  # torch has no op for this dtype (log_ndtr of bfloat16)
        no_baseline.append(f"{entry} {dtype} {pas}")
        continue
    has_op = nonlin.spec(entry).torch_equivalent is not None
    (native if has_op else composite).append((entry, dtype, pas, route, ratio))
for label, group, goal in (("torch's own op", native, 1.0), ("textbook composite", composite, 0.67)):
    met = [r for r in group if r[4] <= goal]
    print(
        f"{label}: {len(met)} of {len(group)} rows at or below {goal} (median ratio "
        f"{statistics.median(r[4] for r in group):.2f}); within 1.1: {sum(r[4] <= 1.1 for r in group)}"
    )
    for r in sorted(group, key=lambda r: -r[4]):
        if r[4] > goal:
            print(f"  {r[0]:22s} {r[1]:9s} {r[2]:8s} {r[3]:6s} {r[4]:.2f}")
print("no torch baseline:", ", ".join(no_baseline) or "none")
