"""Count benchmarks/kernels.py rows against issue 12's goals, per dtype; list the misses.

Usage: python count_kernels.py kernels.md [more.md ...] (a later file's rows replace an earlier one's)."""

import sys
from collections import defaultdict

GOALS = [  # (label, shape class, pass, column, bound)
    ("8M-class forward <= 1", "big", "fwd", "default/torch", 1.0),
    ("8M-class forward+backward <= 1", "big", "fwd+bwd", "default/torch", 1.0),
    ("32K forward+backward <= 1.5", "32K", "fwd+bwd", "default/torch", 1.5),
    ("torch.compile(model) / compile forward <= 1.1", "big", "fwd", "model/compile", 1.1),
    ("torch.compile(model) / compile forward+backward <= 1.1", "big", "fwd+bwd", "model/compile", 1.1),
]

rows: dict[tuple, dict[str, str]] = {}
for path in sys.argv[1:]:
    with open(path) as fh:
        lines = [ln for ln in fh if ln.startswith("| ")]
    head = [c.strip() for c in lines[0].split("|")[1:-1]]
    for ln in lines[1:]:
        cells = [c.strip() for c in ln.split("|")[1:-1]]
        if cells[0] in ("entry", "---") or cells[0].startswith("-"):
            continue
        r = dict(zip(head, cells, strict=False))
        size = "32K" if r["shape"] in ("64x512", "64x1024") else "big"
        rows[(r["entry"], r["dtype"], size, r["pass"])] = r

for label, size, ps, column, bound in GOALS:
    met, missed = defaultdict(int), defaultdict(list)
    for (entry, dtype, sz, p), r in rows.items():
        if sz != size or p != ps:
            continue
        try:
            value = float(r[column])
        except (KeyError, ValueError):
            continue  # no baseline in this run ("-")
        if value <= bound:
            met[dtype] += 1
        else:
            missed[dtype].append((value, entry))
    for dtype in sorted(set(met) | set(missed)):
        total = met[dtype] + len(missed[dtype])
        worst = ", ".join(f"{e} {v:.2f}" for v, e in sorted(missed[dtype], reverse=True))
        print(f"- {label}, {dtype}: {met[dtype]} of {total}; misses: {worst or 'none'}")
