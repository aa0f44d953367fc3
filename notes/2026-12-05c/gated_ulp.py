"""Max ULP of native32's gated kernels (forward, d/dv, d/dg) against float64 on 4M g uniform over [-20, 20]
(or [-80, 80] with --wide), v of magnitudes 2^-40..2^30, go ~ N(0, 1), for the working tree and earlier
native32.py files.

Usage: PYTHONPATH=src python notes/2026-12-05c/gated_ulp.py NAME [--wide] [OLD.py ...]   (NAME: geglu, swiglu, glu)"""

import sys
from pathlib import Path

import numpy as np
import scipy.special as sp
import torch

from nonlin.kernels import native32 as current

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-12-04c"))
from plain_bits import load_old

name, args = sys.argv[1], sys.argv[2:]
wide = "--wide" in args
mods = {"working tree": current, **{p: load_old(p) for p in args if p != "--wide"}}
gen = torch.Generator().manual_seed(1)
n = 4_000_000
span = 80.0 if wide else 20.0
g = torch.rand(n, generator=gen) * 2 * span - span
v = torch.randn(n, generator=gen) * torch.exp2(torch.randint(-40, 31, (n,), generator=gen).float())
go = torch.randn(n, generator=gen)
gd, vd, god = (t.double().numpy() for t in (g, v, go))
if name == "geglu":
    gate, slope = gd * sp.ndtr(gd), sp.ndtr(gd) + gd * np.exp(-gd * gd / 2) / np.sqrt(2 * np.pi)
elif name == "swiglu":
    s = sp.expit(gd)
    gate, slope = gd * s, s * (1 + gd * sp.expit(-gd))
else:
    gate, slope = sp.expit(gd), sp.expit(gd) * sp.expit(-gd)


def ulp(y, ref):
    rf = np.abs(ref).astype(np.float32)
    u = np.nextafter(rf, np.float32(np.inf)).astype(np.float64) - rf
    u = np.where(rf < 2.0**-126, 2.0**-149, u)
    return np.nan_to_num(np.abs(y.astype(np.float64) - ref) / u, nan=0, posinf=0)


for k, m in mods.items():
    y = m.gated_forward(name, g, v)
    dg, dv = torch.empty_like(g), torch.empty_like(g)
    m.gated_backward(name, go, g, v, dg, dv)
    ef, ev, eg = ulp(y.numpy(), gate * vd), ulp(dv.numpy(), gate * god), ulp(dg.numpy(), god * vd * slope)
    print(
        f"{name} {k}: forward {ef.max():.3f} at g = {gd[ef.argmax()]:.4f}, d/dv {ev.max():.3f}, "
        f"d/dg {eg.max():.3f} at g = {gd[eg.argmax()]:.4f}"
    )
