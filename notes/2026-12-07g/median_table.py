"""One benchmarks/kernels.py Markdown table from several runs of the same command: each row's default/torch (the
10th column) the median over the runs, the other cells from the first run. Feed it to
notes/2026-12-04b/summarize_4m.py for the goals of the runs' medians.

    python notes/2026-12-07g/median_table.py RUN1.md RUN2.md [...] > MEDIAN.md
"""

import statistics
import sys

RATIO = 9  # default/torch


def table(path: str) -> tuple[list[str], dict[tuple[str, ...], list[str]]]:
    with open(path) as f:
        lines = [line for line in f.read().splitlines() if line.startswith("|")]
    body = {}
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        body[tuple(cells[:4])] = cells
    return lines[:2], body


head, first = table(sys.argv[1])
others = [table(p)[1] for p in sys.argv[2:]]
print("\n".join(head))
for key, cells in first.items():
    values = [t[key][RATIO] for t in (first, *others) if key in t and t[key][RATIO] != "-"]
    if values:
        cells = [*cells[:RATIO], f"{statistics.median(float(v) for v in values):.2f}", *cells[RATIO + 1 :]]
    print("| " + " | ".join(cells) + " |")
