"""Default / torch per row from alternating benchmark runs of two versions: the median over each version's runs,
side by side.

Usage: python notes/2026-12-04c/ab_summary.py BASE_1.md BASE_2.md ... -- NEW_1.md NEW_2.md ..."""

import statistics
import sys


def rows(path: str) -> dict[tuple[str, ...], tuple[float, float]]:
    out = {}
    with open(path) as f:
        lines = f.readlines()
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 10 or cells[0] in ("entry", "---"):
            continue
        try:
            out[tuple(cells[:4])] = (float(cells[5]), float(cells[6]))
        except ValueError:
            continue
    return out


cut = sys.argv.index("--")
base, new = [rows(p) for p in sys.argv[1:cut]], [rows(p) for p in sys.argv[cut + 1 :]]
print("| entry | dtype | shape | pass | torch ms | base ms | new ms | base / torch | new / torch | new / base |")
print("|---|---|---|---|---|---|---|---|---|---|")
for key in base[0]:
    t = statistics.median([r[key][0] for r in base + new if key in r])
    b = statistics.median([r[key][1] for r in base if key in r])
    n = statistics.median([r[key][1] for r in new if key in r])
    print(f"| {' | '.join(key)} | {t:.3f} | {b:.3f} | {n:.3f} | {b / t:.2f} | {n / t:.2f} | {n / b:.2f} |")
