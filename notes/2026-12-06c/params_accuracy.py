"""The fused path's float32 results at other parameter values (float64 math, the narrow namespace's expm1)
against the eager path's correctly rounded ones: max ULP and the share equal, on 2^21 float32 values spread over
every binade of [-100, 100] plus a dense [-2, 2] (`PYTHONPATH=src python notes/2026-12-06c/params_accuracy.py`)."""

import numpy as np
import torch

import nonlin
from nonlin.kernels import use

rng = np.random.default_rng(0)
wide = rng.uniform(-1, 1, 1 << 20) * 2.0 ** rng.integers(-40, 7, 1 << 20)
x = torch.from_numpy(np.concatenate([wide, rng.uniform(-2, 2, 1 << 20)])).float()


def ulps(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """|a - b| in ULPs of b (float32), both finite."""
    spacing = (torch.nextafter(b.abs(), torch.tensor(float("inf"))) - b.abs()).double()
    return (a.double() - b.double()).abs() / spacing


for name, params in (("elu", {"alpha": 0.5}), ("celu", {"alpha": 2.0}), ("celu", {"alpha": 0.3}), ("xielu", {})):
    f = nonlin.functional.function(name)
    xs = x.clone().requires_grad_(True)
    out = {}
    for mode in ("fused", "eager"):
        with use(mode):
            y = f(xs, **params)
            (g,) = torch.autograd.grad(y, xs, torch.ones_like(y))
        out[mode] = (y.detach(), g)
    for i, what in enumerate(("forward", "backward")):
        a, b = out["fused"][i], out["eager"][i]
        u = ulps(a, b)
        print(
            f"{name} {params} {what}: max {u.max().item():.3f} ULP of the eager bits, equal {(a == b).double().mean().item():.4%}"
        )
