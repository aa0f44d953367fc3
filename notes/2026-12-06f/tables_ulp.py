"""The float32 kernels of the entries named against the float64 references of tests/kernels/test_native32.py: the
worst ULP forward and backward on every 1021st float32 bit pattern and dense points, and on 4M dense points over the
table's range. Run: PYTHONPATH=src:tests/kernels python notes/2026-12-06f/tables_ulp.py log_ndtr lecun_tanh"""

import sys

import numpy as np
import torch
from test_native32 import REFERENCE, TABLES, _inputs, _ulp_error

from nonlin.kernels import native32

np.seterr(all="ignore")  # (the references take each branch's values where another is used)

for name in sys.argv[1:]:
    value, derivative = REFERENCE[name]
    edge = TABLES[name][0]
    for label, xs in (
        ("every 1021st float32 and dense points", _inputs(1021)),
        (f"4M dense points over [-{edge:g}, {edge:g})", np.linspace(-edge, edge, 4_000_001, dtype=np.float32)[:-1]),
    ):
        x = torch.from_numpy(xs)
        go = torch.randn(x.shape, generator=torch.Generator().manual_seed(1))
        xd = xs.astype(np.float64)
        fwd = _ulp_error(native32.forward(name, x).numpy(), value(xd))
        bwd = _ulp_error(native32.backward(name, go, x).numpy(), go.double().numpy() * derivative(xd))
        print(
            f"{name}, {label}: forward {fwd.max():.3f} ULP at x = {xs[fwd.argmax()]:.7g}, "
            f"backward {bwd.max():.3f} at {xs[bwd.argmax()]:.7g}"
        )
