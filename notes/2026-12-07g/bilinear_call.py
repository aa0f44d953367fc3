"""bilinear on one packed [64, 1024] float32 tensor (32K outputs): nonlin's default against torch's g * v on the
halves, forward without grad; interleaved medians, one thread.

    PYTHONPATH=src python notes/2026-12-07g/bilinear_call.py
"""

import statistics
import time

import torch

import nonlin.functional as NF

torch.set_num_threads(1)
x = torch.randn(64, 1024)


def textbook(x):
    g, v = x.chunk(2, -1)
    return g * v


fns = {"torch": textbook, "nonlin": NF.bilinear}
for f in fns.values():
    for _ in range(100):
        f(x)
t = {k: [] for k in fns}
for _ in range(9):
    for k, f in fns.items():
        t0 = time.perf_counter()
        for _ in range(500):
            f(x)
        t[k].append((time.perf_counter() - t0) / 500 * 1e6)
m = {k: statistics.median(v) for k, v in t.items()}
print(f"bilinear 64x1024: torch {m['torch']:.2f} µs, nonlin {m['nonlin']:.2f} µs, ratio {m['nonlin'] / m['torch']:.2f}")
