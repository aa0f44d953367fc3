"""The accuracy column of `nonlin compare`: max ULP of nonlin's implementation per dtype.

With `nonlin compare --accuracy`, runs nonlin.accuracy.check on the compared entries (forward and backward;
bf16 and fp16 exhaustive, float32 on `--accuracy-size` sampled values, default 65,536 plus edge cases:
`nonlin check` runs the full sample). Off by default: building the references takes seconds per entry
on a cold cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nonlin.accuracy.check import check
from nonlin.accuracy.report import fmt_ulp
from nonlin.report import Section

DTYPES = ("float32", "bfloat16", "float16")


def add_compare_options(parser) -> None:
    parser.add_argument("--accuracy", action="store_true", help="add the max-ULP accuracy column (nonlin.accuracy)")
    parser.add_argument("--accuracy-size", type=int, default=1 << 16, help="float32 sample size for the column")


def compare_section(names: Sequence[str], options: dict[str, Any]) -> Section | None:
    if not options.get("accuracy"):
        return None
    size = int(options.get("accuracy_size") or (1 << 16))
    rows = {}
    for n in names:
        rep = check(n, dtypes=DTYPES, size=size)
        row = {}
        for d in DTYPES:
            outs = rep.outputs(d)
            fwd = outs.get("forward")
            bwd = [s.max_ulp for k, s in outs.items() if k != "forward"]
            row[f"{d} fwd"] = fmt_ulp(fwd.max_ulp) if fwd else "-"
            row[f"{d} bwd"] = fmt_ulp(max(bwd)) if bwd else "-"
        row["goals"] = "met" if not rep.goal_failures() else "NO"
        rows[n] = row
    cols = [f"{d} {w}" for d in DTYPES for w in ("fwd", "bwd")] + ["goals"]
    return Section(
        "Accuracy (max ULP)",
        cols,
        rows,
        note=f"nonlin's implementation vs a correctly rounded reference; bf16/fp16 exhaustive, float32 {size} "
        "sampled values + edge cases (nonlin check NAME for the full report).",
    )
