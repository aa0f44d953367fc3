"""Issue 12's 32K goal over a benchmarks/kernels.py Markdown table: every row within 1.5x of its baseline
(torch's op or the textbook composite). Prints the count and the rows above.

    python notes/2026-12-05a/summarize_32k.py notes/2026-12-05a/kernels_all_f32_32k.md
"""

import statistics
import sys

rows = []
with open(sys.argv[1]) as f:
    for line in f:
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) > 10 and c[0] != "entry" and not c[0].startswith("-") and c[9] != "-":
            rows.append((c[0], c[3], c[4], float(c[9])))
within = [r for r in rows if r[3] <= 1.5]
median = statistics.median(r[3] for r in rows)
print(
    f"{len(within)} of {len(rows)} rows within 1.5x (median {median:.2f}); at or below 1.0: {sum(r[3] <= 1.0 for r in rows)}"
)
for entry, pass_, route, ratio in sorted(rows, key=lambda r: -r[3]):
    if ratio > 1.5:
        print(f"  {entry:22s} {pass_:8s} {route:6s} {ratio:.2f}")
