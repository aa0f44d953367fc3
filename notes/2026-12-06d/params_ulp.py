"""Max float32 ULP of the parametrized kernels (native32.PARAMETRIZED: elu, softplus) at seven values each, forward
and go f'(x), against the catalog's float64 formula: tests/kernels/test_native32_params.py's sample (every 65521st
float32 bit pattern, dense [-110, 110] and [-1, 1], the reduction's edges) plus 2M dense points over [-20, 2].

    PYTHONPATH=src python notes/2026-12-06d/params_ulp.py"""

import sys

import numpy as np
import torch

sys.path.insert(0, "tests/kernels")
from test_native32 import EDGES, _inputs, _ulp_error
from test_native32_params import VALUES, _name, _reference

from nonlin.kernels import native32

xs = np.concatenate([_inputs(65521), np.float32(EDGES), np.linspace(-20, 2, 2_000_001, dtype=np.float32)])
x = torch.from_numpy(xs)
go = torch.randn(x.shape, generator=torch.Generator().manual_seed(11))
for base, value in [(b, v) for b in sorted(native32.PARAMETRIZED) for v in VALUES]:
    name = _name(base, value)
    ref = _reference(base, value, x, go)
    worst = []
    for y, r in zip((native32.forward(name, x), native32.backward(name, go, x)), ref, strict=True):
        fin = ~np.isnan(r)
        err = _ulp_error(y.numpy()[fin], r[fin])
        worst.append(f"{err.max():.3f} at x = {xs[fin][err.argmax()]!r}")
    print(f"{name} ({value!r}): forward {worst[0]}; backward {worst[1]}")
