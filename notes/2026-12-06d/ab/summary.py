"""An A/B of ab.sh side by side: per call, shape and pass, default / torch and compiled model / compiled
textbook, base runs -> new runs (a folder of the runs' Markdown tables; default: this one).

    python notes/2026-12-06d/ab/summary.py [FOLDER]"""

import glob
import os
import re
import sys

HERE = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def rows(path):
    """(shape, pass) -> (default / torch, compiled model / compiled textbook) of one run's table (columns by name:
    a run that skipped columns has fewer)."""
    with open(path) as f:
        lines = [ln.strip().strip("|").split("|") for ln in f if ln.startswith("| ") and "---" not in ln]
    header = [c.strip() for c in lines[0]]
    at = {name: header.index(name) for name in ("shape", "pass", "default/torch", "model/compile")}
    for cells in lines[1:]:
        cells = [c.strip() for c in cells]
        yield (cells[at["shape"]], cells[at["pass"]]), (cells[at["default/torch"]], cells[at["model/compile"]])


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
