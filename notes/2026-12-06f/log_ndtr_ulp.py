"""log_ndtr's float32 kernel against the float64 references of tests/kernels/test_native32.py: the worst ULP forward
and backward on every 1021st float32 bit pattern and dense points, and on 4M dense points over its table's range.
Run: PYTHONPATH=src:tests/kernels python notes/log_ndtr_ulp.py"""

import numpy as np
import torch
from test_native32 import REFERENCE, _inputs, _ulp_error

from nonlin.kernels import native32

np.seterr(all="ignore")  # (the references take each branch's values where another is used)

value, derivative = REFERENCE["log_ndtr"]
for label, xs in (
    ("every 1021st float32 and dense points", _inputs(1021)),
    ("4M dense points over [-4, 4)", np.linspace(-4, 4, 4_000_001, dtype=np.float32)[:-1]),
):
    x = torch.from_numpy(xs)
    go = torch.randn(x.shape, generator=torch.Generator().manual_seed(1))
    xd = xs.astype(np.float64)
    fwd = _ulp_error(native32.forward("log_ndtr", x).numpy(), value(xd))
    bwd = _ulp_error(native32.backward("log_ndtr", go, x).numpy(), go.double().numpy() * derivative(xd))
    print(
        f"{label}: forward {fwd.max():.3f} ULP at x = {xs[fwd.argmax()]:.7g}, backward {bwd.max():.3f} at {xs[bwd.argmax()]:.7g}"
    )
