"""hardswish's native32 kernels of an earlier commit (old) against the working tree's (new) on every STEP-th
float32 bit pattern as x (go ~ 3 N(0, 1) with specials for the backward): where the two differ, which one is
correctly rounded, by exact rational arithmetic (x (x + 3) / 6 and go (2x + 3) / 6 on [-3, 3]).

Usage: git show 8b15e7f:src/nonlin/kernels/native32.py > /tmp/n_old.py
       PYTHONPATH=src python notes/2026-12-05a/hardswish_exact.py /tmp/n_old.py 61"""

import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import torch

from nonlin.kernels import native32 as new

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-12-04c"))
from plain_bits import chunks, load_old, other

old = load_old(sys.argv[1])
step = int(sys.argv[2]) if len(sys.argv) > 2 else 61


def ulp_error(y: float, exact: Fraction) -> float:
    """|y - exact| in units of the float32 spacing at exact (2^-149 in the subnormal range)."""
    if exact == 0:
        return 0.0 if y == 0 else float("inf")
    e = max(int(np.floor(np.log2(abs(float(exact))))) if float(exact) != 0 else -149, -126)
    return float(abs(Fraction(y) - exact) / Fraction(2) ** (e - 23))


def exact_fwd(x: float) -> Fraction:
    if x >= 3:
        return Fraction(x)
    if x <= -3:
        return Fraction(0)
    f = Fraction(x)
    return f * (f + 3) / 6


def exact_bwd(go: float, x: float) -> Fraction:
    if x > 3:
        return Fraction(go)
    if x < -3:
        return Fraction(0)
    return Fraction(go) * (2 * Fraction(x) + 3) / 6


worst = {"fwd": {"old": 0.0, "new": 0.0}, "bwd": {"old": 0.0, "new": 0.0}}
counts = {"fwd": [0, 0, 0], "bwd": [0, 0, 0]}  # differing, old correctly rounded, new correctly rounded
for x in chunks(step):
    go = other(x.numel())
    pairs = {
        "fwd": (old.forward("hardswish", x), new.forward("hardswish", x), lambda i, x=x: exact_fwd(float(x[i]))),
        "bwd": (
            old.backward("hardswish", go, x),
            new.backward("hardswish", go, x),
            lambda i, x=x, go=go: exact_bwd(float(go[i]), float(x[i])),
        ),
    }
    for p, (a, b, exact) in pairs.items():
        both_nan = torch.isnan(a) & torch.isnan(b)
        diff = ((a.view(torch.int32) != b.view(torch.int32)) & ~both_nan).nonzero().flatten()
        counts[p][0] += diff.numel()
        for i in diff.tolist():
            if not (torch.isfinite(x[i]) and (p == "fwd" or torch.isfinite(go[i]))):
                print(p, "non-finite input differs:", float(x[i]), float(go[i]), float(a[i]), float(b[i]))
                continue
            ex = exact(i)
            eo, en = ulp_error(float(a[i]), ex), ulp_error(float(b[i]), ex)
            worst[p]["old"] = max(worst[p]["old"], eo)
            worst[p]["new"] = max(worst[p]["new"], en)
            counts[p][1] += eo <= 0.5
            counts[p][2] += en <= 0.5
for p in counts:
    n, o, w = counts[p]
    print(
        f"{p}: {n} differing elements; correctly rounded there: old {o}, new {w}; "
        f"worst ULP there: old {worst[p]['old']:.4f}, new {worst[p]['new']:.4f}"
    )
