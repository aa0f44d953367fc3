"""gelu's and geglu's interval tables (native32, -4 < g < 4) against float64: the worst errors in float32 ULP on
every 1021st float32 bit pattern (gelu: the whole line, tables and the forms beyond), 4M dense points over [-4, 4],
the 400K float32s nearest the derivative's zero; geglu on 4M dense g over [-4, 4] with v ~ 3 N(0, 1), go ~ N(0, 1).

    PYTHONPATH=src:tests/kernels python notes/2026-12-06e/gelu_tables_ulp.py
"""

import numpy as np
import scipy.special as sp
import torch
from test_native32 import _gelu_grad, _inputs, _ulp_error

from nonlin.kernels import native32

gen = torch.Generator().manual_seed(1)
x0 = np.float32(-0.7517915368080139)
sets = {
    "every 1021st float32 (the whole line)": _inputs(1021),
    "4M dense over [-4, 4]": np.linspace(-4, 4, 4_000_001, dtype=np.float32),
    "400K float32s nearest x0": (x0 + np.arange(-200000, 200001, dtype=np.float32) * np.spacing(x0)).astype(np.float32),
}
for label, xs in sets.items():
    x = torch.from_numpy(xs)
    xd = xs.astype(np.float64)
    go = torch.randn(x.shape, generator=gen)
    f = _ulp_error(native32.forward("gelu", x).numpy(), np.maximum(xd, -1e4) * sp.ndtr(xd))
    b = _ulp_error(native32.backward("gelu", go, x).numpy(), go.double().numpy() * _gelu_grad(xd))
    print(
        f"gelu, {label}: forward {f.max():.4f} ULP at {xd[f.argmax()]:.7g}, backward {b.max():.4f} at {xd[b.argmax()]:.7g}"
    )
g = torch.from_numpy(sets["4M dense over [-4, 4]"])
v, go = torch.randn(g.shape, generator=gen) * 3, torch.randn(g.shape, generator=gen)
gd, vd, god = (t.double().numpy() for t in (g, v, go))
dg, dv = torch.empty_like(g), torch.empty_like(g)
native32.gated_backward("geglu", go, g, v, dg, dv)
f = _ulp_error(native32.gated_forward("geglu", g, v).numpy(), gd * sp.ndtr(gd) * vd)
a = _ulp_error(dg.numpy(), god * vd * _gelu_grad(gd))
c = _ulp_error(dv.numpy(), god * gd * sp.ndtr(gd))
print(f"geglu, 4M dense g over [-4, 4]: forward {f.max():.4f} ULP, d/dg {a.max():.4f}, d/dv {c.max():.4f}")
