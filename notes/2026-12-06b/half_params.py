"""Every bfloat16 value through the CPU fused functions against the eager path (correctly rounded): the largest
distance in bfloat16 ULPs and the share equal, forward and backward, per entry.

    PYTHONPATH=src python notes/2026-12-06b/half_params.py            # learnable entries, parameters 0-5% off
    PYTHONPATH=src python notes/2026-12-06b/half_params.py --defaults # every entry at its defaults, the custom
                                                                      # op's functions uncompiled (backend="python")

A gated entry takes every value as its gate, with value 1; kappa_swiglu's c is 0.
"""

from __future__ import annotations

import sys

import torch

import nonlin
from nonlin.kernels import use

BITS = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(torch.bfloat16)
ALL = BITS[BITS.float().isfinite()]


def ordered(t: torch.Tensor) -> torch.Tensor:
    """bfloat16 bit patterns as integers in the order of their values (so differences count ULPs)."""
    i = t.view(torch.int16).to(torch.int32)
    return torch.where(i < 0, -32768 - i, i)


def measure(fn, gated: bool, extra: bool, fused: dict) -> str:
    x = torch.cat([ALL[:, None], torch.ones_like(ALL)[:, None]], -1) if gated else ALL
    kw = {"c": torch.zeros(x.shape[0], 1, dtype=torch.bfloat16)} if extra else {}
    runs = []
    for setting in (fused, {"mode": "eager"}):
        xr = x.clone().requires_grad_()
        with use(**setting):
            y = fn(xr, **kw)
            (g,) = torch.autograd.grad(y.float().sum(), xr)
        runs.append((y, g))
    (y1, g1), (y0, g0) = runs
    parts, miss = [], False
    for label, a, b in (("fwd", y1, y0), ("bwd", g1, g0)):
        both = a.float().isfinite() & b.float().isfinite()
        d = (ordered(a[both]) - ordered(b[both])).abs()
        nonfinite = int((a.float().isfinite() != b.float().isfinite()).sum())
        equal = float((d == 0).float().mean())
        # nonlin's half goals (accuracy/report.py): forward <= 1 ULP, >= 99.9% correctly rounded; no non-finite
        # mismatch anywhere
        miss |= nonfinite > 0 or (label == "fwd" and (int(d.max()) > 1 or equal < 0.999))
        parts.append(f"{label} max {int(d.max()):5d} equal {equal:.5f} non-finite {nonfinite}")
    return ("MISS " if miss else "ok   ") + "   ".join(parts)


def main() -> None:
    defaults = sys.argv[1:] == ["--defaults"]
    g = torch.Generator().manual_seed(0)
    for name in nonlin.names():
        s = nonlin.spec(name)
        if s.kind.name not in ("POINTWISE", "GATED") or s.stochastic:
            continue
        if defaults:
            fn, fused = getattr(nonlin.functional, name), {"mode": "fused", "backend": "python"}
        elif any(p.learnable for p in s.params):
            fn, fused = nonlin.get(name, learnable=True).to(torch.bfloat16), {"mode": "fused"}
            with torch.no_grad():
                for p in fn.parameters():
                    p.mul_(1 + 0.05 * torch.rand(p.shape, generator=g, dtype=torch.float64).to(torch.bfloat16))
        else:
            continue
        line = measure(fn, s.kind.name == "GATED", bool(s.extra_inputs), fused)
        print(f"{name:22s} {line}", flush=True)


if __name__ == "__main__":
    main()
