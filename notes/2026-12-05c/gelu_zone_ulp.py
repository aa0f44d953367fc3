"""Max ULP of native32's gelu backward (go = 1) on every float32 of [-1.25, -0.25], by the distance from gelu''s
zero x0, for the working tree and earlier native32.py files or prototypes (a copy with the near form's zone
changed, e.g. `zh.abs() < C(0.1f)` in gelu_grad_of_near).

Usage: PYTHONPATH=src python notes/2026-12-05c/gelu_zone_ulp.py [PROTOTYPE.py ...]"""

import sys

import numpy as np
import scipy.special as sp
import torch

sys.path.insert(0, "notes/2026-12-04c")
from plain_bits import load_old

from nonlin.kernels import native32 as cur

mods = {"wt": cur}
for p in sys.argv[1:]:
    mods[p] = load_old(p)
lo = np.float32(-1.25)
hi = np.float32(-0.25)
b0 = np.array([hi], dtype=np.float32).view(np.uint32)[0]
b1 = np.array([lo], dtype=np.float32).view(np.uint32)[0]
bits = np.arange(b0, b1 + 1, dtype=np.uint32)  # negative floats: bits increase with magnitude
x = torch.from_numpy(bits.view(np.float32).copy())
xd = x.double().numpy()
ref = sp.ndtr(xd) + xd * np.exp(-xd * xd / 2) / np.sqrt(2 * np.pi)
go = torch.ones_like(x)
rf = np.abs(ref).astype(np.float32)
u = np.nextafter(rf, np.float32(np.inf)).astype(np.float64) - rf
for k, m in mods.items():
    y = m.backward("gelu", go, x).numpy().astype(np.float64)
    e = np.abs(y - ref) / u
    d = xd + 0.7517915368080139
    for lo_, hi_ in ((0, 0.1), (0.1, 0.15), (0.15, 0.25), (0.25, 0.5)):
        s = (np.abs(d) >= lo_) & (np.abs(d) < hi_)
        print(k, f"|x-x0| in [{lo_},{hi_}): max {e[s].max():.3f}")
