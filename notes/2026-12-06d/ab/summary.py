"""The A/B of ab.sh side by side: per call, shape and pass, default / torch and compiled model / compiled
textbook, base runs -> new runs.

    python notes/2026-12-06d/ab/summary.py"""

import glob
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))


def rows(path):
    with open(path) as f:
        lines = [ln for ln in f if ln.startswith("| ") and not ln.startswith("| entry") and "---" not in ln]
    for ln in lines:
        cells = [c.strip() for c in ln.strip().strip("|").split("|")]
        yield (cells[2], cells[3]), (cells[11], cells[14])


runs = {}
for path in sorted(glob.glob(os.path.join(HERE, "*_*_*.md"))):
    tag, i, call = re.match(r"(base|new)_(\d)_(.*)\.md", os.path.basename(path)).groups()
    for key, ratios in rows(path):
        runs.setdefault((call, *key), {}).setdefault(tag, []).append(ratios)
print("call | shape | pass | default / torch: base -> new | compiled model / compiled textbook: base -> new")
for (call, shape, p), by in sorted(runs.items()):
    direct = " / ".join(r[0] for r in by["base"]) + " -> " + " / ".join(r[0] for r in by["new"])
    model = " / ".join(r[1] for r in by["base"]) + " -> " + " / ".join(r[1] for r in by["new"])
    print(f"{call.replace('_', ' ').strip()} | {shape} | {p} | {direct} | {model}")
