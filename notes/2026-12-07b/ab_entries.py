"""Per entry, shape and pass: default / torch in each run of an A/B folder whose tables hold several entries (base
runs -> new runs): python notes/2026-12-07b/ab_entries.py FOLDER."""

import glob
import os
import re
import sys

runs: dict[tuple, dict[str, list[str]]] = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*_*_*.md"))):
    tag = re.match(r"(base|new)_", os.path.basename(path)).group(1)
    with open(path) as f:
        lines = [ln.strip().strip("|").split("|") for ln in f if ln.startswith("| ") and "---" not in ln]
    header = [c.strip() for c in lines[0]]
    at = {name: header.index(name) for name in ("entry", "dtype", "shape", "pass", "default/torch")}
    for cells in lines[1:]:
        cells = [c.strip() for c in cells]
        key = tuple(cells[at[k]] for k in ("entry", "dtype", "shape", "pass"))
        runs.setdefault(key, {}).setdefault(tag, []).append(cells[at["default/torch"]])
print("entry | dtype | shape | pass | default / torch: base -> new")
for key, tags in runs.items():
    print(" | ".join(key), "|", " / ".join(tags.get("base", [])), "->", " / ".join(tags.get("new", [])))
