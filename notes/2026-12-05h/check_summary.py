"""A `nonlin check --out DIR` JSON summed up: goal failures, non-finite mismatches, and per (dtype, output) the
largest max ULP with its entry and route, plus the five worst entries.

    python notes/2026-12-05h/check_summary.py DIR/accuracy-all-nonlin.json"""

import json
import sys
from collections import defaultdict

with open(sys.argv[1]) as f:
    data = json.load(f)
worst: dict[tuple[str, str], list[tuple[float, str, str]]] = defaultdict(list)
failures, nonfinite = [], []
for report in data["reports"]:
    failures += [(report["name"], g) for g in report["goal_failures"]]
    for dtype, outputs in report["results"].items():
        for output, r in outputs.items():
            if "max_ulp" not in r:  # (a note: normalizers' backward is not measured this way)
                continue
            routes = report["routes"].get(dtype, {})
            route = routes.get(output, routes.get(output.replace("_train", ""), "?"))
            worst[dtype, output].append((r["max_ulp"], report["name"], route))
            if any(r["nonfinite"].values()):
                nonfinite.append((report["name"], dtype, output, r["nonfinite"]))
print(f"{len(data['reports'])} entries, errors: {data['errors'] or 'none'}")
print(f"goal failures: {failures or 'none'}; non-finite mismatches: {nonfinite or 'none'}")
for (dtype, output), rows in sorted(worst.items()):
    rows.sort(reverse=True)
    top = ", ".join(f"{n} {u:.3g} ({r})" for u, n, r in rows[:5])
    print(f"{dtype:9s} {output:14s} {len(rows):4d} outputs; worst: {top}")
