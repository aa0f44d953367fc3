"""One column of benchmark tables side by side (default: default/torch): the median of each side's runs per row.

python notes/2026-12-07g/compare_column.py [--column NAME] BASE.md [BASE2.md ...] -- NEW.md [NEW2.md ...]
"""

import statistics
import sys


def rows(path: str, column: str) -> dict[tuple[str, str, str], float]:
    with open(path) as f:
        lines = [line.strip().strip("|").split("|") for line in f if line.startswith("|")]
    header = [h.strip() for h in lines[0]]
    at = header.index(column)
    out = {}
    for cells in lines[2:]:
        c = [x.strip() for x in cells]
        if c[at] != "-":
            out[(c[0], c[2], c[3])] = float(c[at])
    return out


args = sys.argv[1:]
column = "default/torch"
if args[0] == "--column":
    column, args = args[1], args[2:]
cut = args.index("--")
sides = [[rows(p, column) for p in args[:cut]], [rows(p, column) for p in args[cut + 1 :]]]
print(f"{column}, median of each side's runs\n\n| entry | shape | pass | before | after |\n|---|---|---|---|---|")
for key in sides[0][0]:
    values = [statistics.median(t[key] for t in side if key in t) for side in sides]
    print(f"| {key[0]} | {key[1]} | {key[2]} | {values[0]:.2f} | {values[1]:.2f} |")
