"""The float32 kernels of the entries named against the float64 references of tests/kernels/test_native32.py: the
worst ULP forward and backward on every 1021st float32 bit pattern and dense points, and on 4M dense points over each
table's range (tests' TABLES). Run: PYTHONPATH=src:tests/kernels python notes/2026-12-06f/tables_ulp.py NAME..."""

import sys

import numpy as np
import torch
from test_native32 import REFERENCE, TABLES, _inputs, _ulp_error

from nonlin.kernels import native32

np.seterr(all="ignore")  # (the references take each branch's values where another is used)


def dense(edge: float) -> np.ndarray:
    return np.linspace(-edge, edge, 4_000_001, dtype=np.float32)[:-1]


for name in sys.argv[1:]:
    value, derivative = REFERENCE[name]
    backward_edge, _, forward_edge = TABLES[name]
    samples = [("every 1021st float32 and dense points", _inputs(1021), True, True)]
    if forward_edge is not None:
        samples.append(
            (f"4M dense points over [-{forward_edge:g}, {forward_edge:g})", dense(forward_edge), True, False)
        )
    if backward_edge is not None:
        samples.append(
            (f"4M dense points over [-{backward_edge:g}, {backward_edge:g})", dense(backward_edge), False, True)
        )
    for label, xs, fwd, bwd in samples:
        x = torch.from_numpy(xs)
        xd = xs.astype(np.float64)
        parts = []
        if fwd:
            e = _ulp_error(native32.forward(name, x).numpy(), value(xd))
            parts.append(f"forward {e.max():.3f} ULP at x = {xs[e.argmax()]:.7g}")
        if bwd:
            go = torch.randn(x.shape, generator=torch.Generator().manual_seed(1))
            e = _ulp_error(native32.backward(name, go, x).numpy(), go.double().numpy() * derivative(xd))
            parts.append(f"backward {e.max():.3f} ULP at x = {xs[e.argmax()]:.7g}")
        print(f"{name}, {label}: {', '.join(parts)}")
