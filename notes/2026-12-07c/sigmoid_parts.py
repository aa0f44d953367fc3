"""sigmoid at 32K float32, one thread: each part of a training call timed alone (median µs of interleaved rounds).
PYTHONPATH=src python notes/2026-12-07c/sigmoid_parts.py [NUMEL]"""

import statistics
import sys
import time

import torch

import nonlin.functional as nf
from nonlin.kernels import native32

torch.set_num_threads(1)
n = int(sys.argv[1]) if len(sys.argv) > 1 else 32768
x = torch.randn(n)
xg = x.clone().requires_grad_(True)
go = torch.randn(n)
y = torch.sigmoid(x)
out = torch.empty_like(x)
nf.sigmoid(xg)
kf = native32.kernel("sigmoid", "fwd")
kb = native32.kernel("sigmoid", "bwd")
calls = {
    "torch.sigmoid": lambda: torch.sigmoid(x),
    "aten sigmoid_backward": lambda: torch.ops.aten.sigmoid_backward(go, y),
    "empty_like": lambda: torch.empty_like(x),
    "kernel fwd (out given)": lambda: kf(x, out, 1, n, n, n, 1),
    "native32.forward": lambda: native32.forward("sigmoid", x),
    "kernel bwd (out given)": lambda: kb(go, x, out, 1, n, n, n, n, 1),
    "native32.backward": lambda: native32.backward("sigmoid", go, x),
    "torch fwd+bwd": lambda: torch.autograd.grad(torch.sigmoid(xg), xg, go),
    "nonlin fwd+bwd": lambda: torch.autograd.grad(nf.sigmoid(xg), xg, go),
    "nonlin fwd no grad": lambda: nf.sigmoid(x),
}
times = {k: [] for k in calls}
for _ in range(15):
    for k, f in calls.items():
        f()
        t0 = time.perf_counter()
        for _ in range(200):
            f()
        times[k].append((time.perf_counter() - t0) / 200 * 1e6)
for k, v in times.items():
    print(f"{k:28s} {statistics.median(v):7.2f} us")
