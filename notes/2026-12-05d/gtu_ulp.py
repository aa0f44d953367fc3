"""Max ULP error of native32's gtu kernels (forward, d/dg, d/dv) against float64 (scipy's expit and numpy's tanh,
~1e-16 relative), on 4M samples: g over [-W, W] (W = 20, or 80 with --wide), v of ~3 N(0, 1) times 2^[-40, 8] with
--wide, go ~ N(0, 1); and the time (ns per element, one thread) of each kernel against torch's composite
torch.sigmoid(g) * torch.tanh(v) (its forward), interleaved.

Usage: PYTHONPATH=src python notes/2026-12-05d/gtu_ulp.py [--wide]"""

import sys
from pathlib import Path

import numpy as np
import scipy.special as sp
import torch

from nonlin.kernels import native32

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-12-05a"))
from interleave import interleaved_ns

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from kernels import keep_freed_memory

keep_freed_memory()  # (fresh outputs page-fault in some processes, as benchmarks/kernels.py notes)


def ulp_error(y: torch.Tensor, ref: np.ndarray) -> np.ndarray:
    rf = np.abs(ref).astype(np.float32)
    ulp = (np.nextafter(rf, np.float32(np.inf)) - rf).astype(np.float64)
    ulp = np.where(rf < 2.0**-126, 2.0**-149, ulp)
    return np.abs(y.numpy().astype(np.float64) - ref) / ulp


wide = "--wide" in sys.argv
gen = torch.Generator().manual_seed(0)
n = 1 << 22
width = 80.0 if wide else 20.0
g = (torch.rand(n, generator=gen) * 2 - 1) * width
v = torch.randn(n, generator=gen) * 3
if wide:
    v = v * torch.exp2(torch.randint(-40, 9, (n,), generator=gen).float())
go = torch.randn(n, generator=gen)
gd, vd, god = (t.double().numpy() for t in (g, v, go))
s = sp.expit(gd)
y = native32.gated_forward("gtu", g, v)
dg, dv = torch.empty_like(g), torch.empty_like(g)
assert native32.gated_backward("gtu", go, g, v, dg, dv)
for label, got, ref in (
    ("forward", y, s * np.tanh(vd)),
    ("d/dg", dg, god * s * sp.expit(-gd) * np.tanh(vd)),
    ("d/dv", dv, god * s / np.cosh(vd) ** 2),
):
    e = ulp_error(got, ref)
    i = int(e.argmax())
    print(
        f"gtu {label} ({'wide' if wide else 'g in [-20, 20]'}): max {e[i]:.3f} ULP at g={g[i].item()!r}, v={v[i].item()!r}"
    )
torch.set_num_threads(1)
jobs = {
    "nonlin forward": lambda: native32.gated_forward("gtu", g, v),
    "torch sigmoid(g) * tanh(v)": lambda: torch.sigmoid(g) * torch.tanh(v),
    "nonlin gradients": lambda: native32.gated_backward("gtu", go, g, v, dg, dv),
}
for k, t in interleaved_ns(jobs, n, 7).items():
    print(f"{k}: {t:.2f} ns per element")
