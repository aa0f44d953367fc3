"""Max ULP error of native32 kernels against float64 (torch's float64 ops; 1e-16 relative, far below the float32
ULP measured) on every STEP-th float32 bit pattern (finite), the working tree's and an earlier native32.py's
side by side, with the count of elements whose bits differ. Backward: go ~ N(0, 1) (seeded).
ULP: the spacing above the float64 value's float32 rounding (the subnormal grid below 2^-126).

Usage: git show HEAD~1:src/nonlin/kernels/native32.py > /tmp/n_old.py
       PYTHONPATH=src python notes/2026-12-05b/near_ulp.py 7 sigmoid forward /tmp/n_old.py"""

import sys
from pathlib import Path

import scipy.special
import torch

from nonlin.kernels import native32 as current

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-12-04c"))
from plain_bits import chunks, load_old


def _ndtr(t):
    """Phi in float64 by scipy (torch's float64 ndtr is 1 + erf: 0 below -8)."""
    return torch.from_numpy(scipy.special.ndtr(t.numpy()))


_GT_2C, _GT_A = 2 * (2 / torch.pi) ** 0.5, 0.044715  # gelu_tanh: x sigma(2c (x + a x^3))


def _z(t):
    return _GT_2C * (t + _GT_A * t**3)


VALUE = {
    "sigmoid": torch.sigmoid,
    "silu": lambda t: t * torch.sigmoid(t),
    "tanh": torch.tanh,
    "gelu": lambda t: t * _ndtr(t),
    "quick_gelu": lambda t: t * torch.sigmoid(1.702 * t),
    "gelu_tanh": lambda t: t * torch.sigmoid(_GT_2C * (t + _GT_A * t**3)),
    "ndtr": _ndtr,
    "laplace": lambda t: _ndtr((t - 0.707107) / 0.282095),
    "tanhshrink": lambda t: t - torch.tanh(t),
}
SLOPE = {
    "sigmoid": lambda t: torch.sigmoid(t) * torch.sigmoid(-t),
    "tanh": lambda t: 1 / torch.cosh(t) ** 2,
    "silu": lambda t: torch.sigmoid(t) * (1 + t * torch.sigmoid(-t)),
    "gelu": lambda t: _ndtr(t) + t * torch.exp(-t * t / 2) / (2 * torch.pi) ** 0.5,
    "quick_gelu": lambda t: torch.sigmoid(1.702 * t) * (1 + 1.702 * t * torch.sigmoid(-1.702 * t)),
    "gelu_tanh": lambda t: torch.sigmoid(_z(t)) * (1 + _GT_2C * t * (1 + 3 * _GT_A * t * t) * torch.sigmoid(-_z(t))),
    "ndtr": lambda t: torch.exp(-t * t / 2) / (2 * torch.pi) ** 0.5,
    "laplace": lambda t: torch.exp(-(((t - 0.707107) / 0.282095) ** 2) / 2) / (0.282095 * (2 * torch.pi) ** 0.5),
    "tanhshrink": lambda t: torch.tanh(t) ** 2,
}

torch.set_num_threads(2)
step, name, which = int(sys.argv[1]), sys.argv[2], sys.argv[3]
mods = {"working tree": current, **{p: load_old(p) for p in sys.argv[4:]}}
gen = torch.Generator().manual_seed(0)
worst = dict.fromkeys(mods, 0.0)
at: dict[str, tuple] = {}
differ = dict.fromkeys(mods, 0)
for x in chunks(step):
    x = x[torch.isfinite(x)]
    if which == "forward":
        ref = VALUE[name](x.double())
        outs = {k: m.forward(name, x) for k, m in mods.items()}
        go = None
    else:
        go = torch.randn(x.shape, generator=gen)
        ref = go.double() * SLOPE[name](x.double())
        outs = {k: m.backward(name, go, x) for k, m in mods.items()}
    rf = ref.float().abs()
    ulp = (torch.nextafter(rf, torch.tensor(float("inf"))) - rf).double()
    ulp = torch.where(rf < 2.0**-126, torch.tensor(2.0**-149, dtype=torch.float64), ulp)
    base = outs["working tree"]
    for k, y in outs.items():
        differ[k] += int((y.view(torch.int32) != base.view(torch.int32)).sum())
        e = torch.nan_to_num((y.double() - ref).abs() / ulp, nan=0.0, posinf=0.0)
        i = int(e.argmax())
        if float(e[i]) > worst[k]:
            worst[k] = float(e[i])
            at[k] = (float(x[i]), None if go is None else float(go[i]))
for k in mods:
    print(
        f"{name} {which}, one float32 bit pattern in {step}: {k}: max {worst[k]:.3f} ULP at (x, go) = {at.get(k)};"
        f" {differ[k]} elements differ from the working tree"
    )
