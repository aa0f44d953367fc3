"""Summarise benchmarks/kernels.py's Markdown table: one row per entry, ratios default/torch per dtype, shape and
pass, and model/compile; prints Markdown. Usage: python summarize_kernels.py kernels_all.md"""

import sys
from collections import defaultdict

with open(sys.argv[1]) as fh:
    lines = fh.readlines()
rows = [line.split("|")[1:-1] for line in lines if line.startswith("| ") and not line.startswith("| entry")]
head = [c.strip() for c in lines[0].split("|")[1:-1]]
col = {n: i for i, n in enumerate(head)}
by = defaultdict(dict)
route = {}
for r in rows:
    r = [c.strip() for c in r]
    e, dt, shape, ps = r[col["entry"]], r[col["dtype"]], r[col["shape"]], r[col["pass"]]
    big = "big" if shape != "64x512" and shape != "64x1024" else "32K"
    by[e][(dt, big, ps, "t")] = r[col["default/torch"]]
    by[e][(dt, big, ps, "m")] = r[col["model/compile"]]
    if ps == "fwd+bwd" and dt == "float32":
        route[e] = r[col["route"]]
cols = [
    ("float32", "big", "fwd", "t"),
    ("float32", "big", "fwd+bwd", "t"),
    ("bfloat16", "big", "fwd", "t"),
    ("bfloat16", "big", "fwd+bwd", "t"),
    ("float32", "32K", "fwd+bwd", "t"),
    ("bfloat16", "32K", "fwd+bwd", "t"),
    ("float32", "big", "fwd", "m"),
    ("bfloat16", "big", "fwd", "m"),
]
print(
    "| entry | route | f32 fwd | f32 fwd+bwd | bf16 fwd | bf16 fwd+bwd | 32K f32 fwd+bwd | 32K bf16 fwd+bwd | model/compile f32 fwd | model/compile bf16 fwd |"
)
print("|---|---|" + "---|" * len(cols))
for e, d in by.items():
    print(f"| {e} | {route.get(e, '-')} | " + " | ".join(d.get(c, "-") for c in cols) + " |")


def count(dt, big, ps, kind, limit):
    vals = [float(d[(dt, big, ps, kind)]) for d in by.values() if d.get((dt, big, ps, kind), "-") not in ("-", "")]
    return sum(v <= limit for v in vals), len(vals)


print()
for c in cols:
    lim = 1.1 if c[3] == "m" else (1.5 if c[1] == "32K" else 1.0)
    ok, n = count(*c, lim)
    print(f"- {c[0]} {c[1]} {c[2]} {'model/compile' if c[3] == 'm' else 'default/torch'} <= {lim}: {ok} of {n} entries")
