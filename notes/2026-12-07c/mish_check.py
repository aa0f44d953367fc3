"""mish and mila (native32) against float64 numpy on 600K points over [-30, 30], 10K over [-120, -80] and the
edges, go ~ N(0, 1) scaled by 1 and 2^+-40: max ULP. PYTHONPATH=src python notes/2026-12-07c/mish_check.py"""

import numpy as np
import scipy.special as sp
import torch

from nonlin.kernels import native32


def ref(x, shift):
    z = x + shift
    s = np.logaddexp(0.0, z)
    y = np.where(np.isneginf(x), -0.0, x * np.tanh(s))
    with np.errstate(all="ignore"):
        d = np.tanh(s) + np.where(np.isinf(x), 0.0, x) / np.cosh(np.minimum(s, 355.0)) ** 2 * sp.expit(z)
    d = np.where(np.isneginf(x), -0.0, np.where(np.isposinf(x), 1.0, d))
    return y, d


for name, shift in (("mish", 0.0), ("mila", -0.25)):
    x = torch.cat(
        [
            torch.linspace(-30, 30, 600001),
            torch.linspace(-120, -80, 10001),
            torch.tensor([0.0, -0.0, 7.9999995, -8.0, 8.0, 1e30, -1e30, float("inf"), float("-inf"), float("nan")]),
        ]
    )
    y = native32.forward(name, x)
    ry, rd = ref(x.double().numpy(), shift)
    spc = np.spacing(np.abs(ry).astype(np.float32)).astype(np.float64)
    fin = np.isfinite(ry)
    e = np.abs(y.numpy().astype(np.float64) - ry)[fin] / spc[fin]
    print(name, "fwd", e.max(), x[fin][e.argmax()].item())
    for scale in (1.0, 2.0**-40, 2.0**40):
        go = torch.randn(x.shape, generator=torch.Generator().manual_seed(0)) * scale
        g = native32.backward(name, go, x)
        rg = go.double().numpy() * rd
        spc = np.spacing(np.abs(rg).astype(np.float32)).astype(np.float64)
        fin = np.isfinite(rg)
        e = np.abs(g.numpy().astype(np.float64) - rg)[fin] / spc[fin]
        print(name, "bwd", scale, e.max(), x[fin][e.argmax()].item())
    print(y[-10:].tolist())
    print(native32.backward(name, torch.ones(10), x[-10:]).tolist())
