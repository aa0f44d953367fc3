"""The compiled-model column of a benchmarks/kernels.py markdown table summed up: rows within the issue's 1.1
goal (compiled model / torch.compile of the textbook formula), the median, and the worst rows with their route.

    python notes/2026-12-05h/compiled_summary.py OUT.md [N_WORST]"""

import statistics
import sys

with open(sys.argv[1]) as f:
    lines = [line for line in f if line.startswith("|")]
head = [c.strip() for c in lines[0].strip().strip("|").split("|")]
rows = []
for line in lines[2:]:
    cells = dict(zip(head, (c.strip() for c in line.strip().strip("|").split("|")), strict=True))
    try:
        rows.append((float(cells["model/compile"]), cells["entry"], cells["pass"], cells["route"]))
    except ValueError:
        continue
within = sum(r[0] <= 1.1 for r in rows)
print(f"{within} of {len(rows)} rows within 1.1 (median {statistics.median(r[0] for r in rows):.2f})")
for passes in ("fwd", "fwd+bwd"):
    sub = [r for r in rows if r[2] == passes]
    print(f"  {passes}: {sum(r[0] <= 1.1 for r in sub)} of {len(sub)} within 1.1")
for ratio, entry, passes, route in sorted(rows, reverse=True)[: int(sys.argv[2]) if len(sys.argv) > 2 else 30]:
    print(f"  {entry:22s} {passes:8s} {route:6s} {ratio:.2f}")
