"""model/compile (compiled_model / torch.compile of the textbook formula) of benchmark tables side by side:
PYTHONPATH=src python notes/2026-12-07f/compare_model.py BASE.md [BASE2.md ...] -- NEW.md [NEW2.md ...]
(the median of each side's runs per row)."""

import statistics
import sys


def rows(path: str) -> dict[tuple[str, str, str], float]:
    with open(path) as f:
        lines = [line.strip().strip("|").split("|") for line in f if line.startswith("|")]
    header = [h.strip() for h in lines[0]]
    at = header.index("model/compile")
    out = {}
    for cells in lines[2:]:
        c = [x.strip() for x in cells]
        if c[at] != "-":
            out[(c[0], c[2], c[3])] = float(c[at])
    return out


args = sys.argv[1:]
cut = args.index("--")
sides = [[rows(p) for p in args[:cut]], [rows(p) for p in args[cut + 1 :]]]
print("| entry | shape | pass | before | after |\n|---|---|---|---|---|")
for key in sides[0][0]:
    values = [statistics.median(t[key] for t in side if key in t) for side in sides]
    print(f"| {key[0]} | {key[1]} | {key[2]} | {values[0]:.2f} | {values[1]:.2f} |")
