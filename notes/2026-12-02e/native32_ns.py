"""ns per element of every native32 kernel on 4M float32 (x ~ 3 N(0, 1)), one thread, medians of 7 interleaved
calls, with torch.tanh and torch.sigmoid in the same loop.

Usage: PYTHONPATH=src python notes/2026-12-02e/native32_ns.py"""

import statistics
import time

import torch

from nonlin.kernels import native32

torch.set_num_threads(1)
n = 1 << 22
x = torch.randn(n) * 3
go, v = torch.randn(n), torch.randn(n)
dg, dv = torch.empty_like(x), torch.empty_like(x)
jobs = {}
for p in native32.PRIMITIVES:
    jobs[p + ".fwd"] = lambda p=p: native32.forward(p, x)
    jobs[p + ".bwd"] = lambda p=p: native32.backward(p, go, x)
for p in native32.GATED:
    jobs[p + ".fwd"] = lambda p=p: native32.gated_forward(p, x, v)
    jobs[p + ".bwd"] = lambda p=p: native32.gated_backward(p, go, x, v, dg, dv)
jobs["torch.tanh"] = lambda: torch.tanh(x)
jobs["torch.sigmoid"] = lambda: torch.sigmoid(x)
for f in jobs.values():
    f()
times: dict[str, list[float]] = {k: [] for k in jobs}
for _ in range(7):
    for k, f in jobs.items():
        t = time.perf_counter()
        f()
        times[k].append((time.perf_counter() - t) / n * 1e9)
for k, ts in times.items():
    print(f"{k:16s} {statistics.median(ts):.2f}")
