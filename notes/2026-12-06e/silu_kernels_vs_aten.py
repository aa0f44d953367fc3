"""silu's hand-written kernels (native32: the forward's near form, the backward's interval table) against ATen's
silu and its backward, 32K float32 in cache, one thread: ns per element, medians of 5 interleaved rounds.

    PYTHONPATH=src python notes/2026-12-06e/silu_kernels_vs_aten.py
"""

import statistics
import timeit

import torch

from nonlin.kernels import native32

torch.set_num_threads(1)
n = 1 << 15
x, go = torch.randn(n), torch.randn(n)
calls = {
    "native32 silu forward": lambda: native32.forward("silu", x),
    "ATen silu forward": lambda: torch.nn.functional.silu(x),
    "native32 silu backward": lambda: native32.backward("silu", go, x),
    "ATen silu backward": lambda: torch.ops.aten.silu_backward(go, x),
}
for f in calls.values():
    f()
times: dict[str, list[float]] = {k: [] for k in calls}
for _ in range(5):
    for k, f in calls.items():
        times[k].append(min(timeit.repeat(f, number=300, repeat=1)) / 300 * 1e9 / n)
for k, v in times.items():
    print(f"{k:24s} {statistics.median(v):.3f} ns per element")
