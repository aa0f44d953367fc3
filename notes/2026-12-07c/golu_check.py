"""golu (native32) against float64 numpy on 600K points over [-8, 30] and the edges, go ~ N(0, 1) scaled by 1
and 2^+-40: max ULP. PYTHONPATH=src python notes/2026-12-07c/golu_check.py"""

import numpy as np
import torch

from nonlin.kernels import native32


def ref(x):
    with np.errstate(all="ignore"):
        w = np.exp(-x)
        f = np.exp(-w)
        y = np.where(np.isneginf(x), -0.0, x * f)
        d = f * (1 + np.where(np.isinf(x), 0.0, x) * w)
        d = np.where(np.isneginf(x) | (x < -6.5), -0.0, np.where(np.isposinf(x), 1.0, d))
        y = np.where(x < -6.5, -0.0, y)
    return y, d


x = torch.cat(
    [
        torch.linspace(-8, 30, 600001),
        torch.tensor(
            [
                0.0,
                -0.0,
                1.9999999,
                -2.0,
                2.0,
                -4.6,
                -6.49,
                -6.51,
                1e30,
                -1e30,
                float("inf"),
                float("-inf"),
                float("nan"),
            ]
        ),
    ]
)
y = native32.forward("golu", x)
ry, rd = ref(x.double().numpy())
spc = np.spacing(np.abs(ry).astype(np.float32)).astype(np.float64)
fin = np.isfinite(ry)
e = np.abs(y.numpy().astype(np.float64) - ry)[fin] / spc[fin]
print("fwd", e.max(), x[fin][e.argmax()].item())
for scale in (1.0, 2.0**-40, 2.0**40):
    go = torch.randn(x.shape, generator=torch.Generator().manual_seed(0)) * scale
    g = native32.backward("golu", go, x)
    rg = go.double().numpy() * rd
    spc = np.spacing(np.abs(rg).astype(np.float32)).astype(np.float64)
    fin = np.isfinite(rg)
    e = np.abs(g.numpy().astype(np.float64) - rg)[fin] / spc[fin]
    print("bwd", scale, e.max(), x[fin][e.argmax()].item())
print(y[-13:].tolist())
print(native32.backward("golu", torch.ones(13), x[-13:]).tolist())
