"""The fixed cost nonlin's default adds to torch's op per call, on 16 float32 elements: the minimum over 15
interleaved rounds of each (rounds of 5000 calls; the minimum estimates a layer's own cost on a loaded host), µs.

    PYTHONPATH=src python notes/2026-12-07g/overhead_min.py
"""

import timeit

import torch
import torch.nn.functional as TF

import nonlin.functional as NF

torch.set_num_threads(1)
x = torch.randn(16)
g = torch.randn(4, 8)
cases = {
    "relu": (lambda: TF.relu(x), lambda: NF.relu(x)),
    "leaky_relu(x, 0.2)": (lambda: TF.leaky_relu(x, 0.2), lambda: NF.leaky_relu(x, 0.2)),
    "hardsigmoid": (lambda: TF.hardsigmoid(x), lambda: NF.hardsigmoid(x)),
    "identity": (lambda: x, lambda: NF.identity(x)),
    "bilinear (packed)": (lambda: torch.mul(*g.chunk(2, -1)), lambda: NF.bilinear(g)),
}
for t, n in cases.values():
    for _ in range(3000):
        t()
        n()
best = {k: [float("inf"), float("inf")] for k in cases}
for _ in range(15):
    for k, (t, n) in cases.items():
        best[k][0] = min(best[k][0], timeit.timeit(t, number=5000) / 5000 * 1e6)
        best[k][1] = min(best[k][1], timeit.timeit(n, number=5000) / 5000 * 1e6)
for k, (t, n) in best.items():
    print(f"{k:20s} torch {t:6.2f} µs  nonlin {n:6.2f} µs  +{n - t:5.2f} µs")
