"""Per-call cost of nonlin's default eager path against torch's own op, at 16 elements (the cost of the call alone)
and 32K (64x512), forward without grad: interleaved rounds, medians, one thread.

    PYTHONPATH=src python notes/2026-12-07g/per_call.py [names...]
"""

import statistics
import sys
import time

import torch
import torch.nn.functional as TF

import nonlin.functional as NF

torch.set_num_threads(1)
TORCH = {
    "relu": TF.relu,
    "leaky_relu": TF.leaky_relu,
    "hardswish": TF.hardswish,
    "hardsigmoid": TF.hardsigmoid,
    "hardshrink": TF.hardshrink,
    "identity": lambda x: x,
    "silu": TF.silu,
    "gelu": TF.gelu,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
}
names = sys.argv[1:] or list(TORCH)


def timed(fn, x, reps):
    t0 = time.perf_counter()
    for _ in range(reps):
        fn(x)
    return (time.perf_counter() - t0) / reps * 1e6


for n in (16, 64 * 512):
    x = torch.randn(n)
    for name in names:
        fns = {"torch": TORCH[name], "nonlin": getattr(NF, name)}
        for f in fns.values():
            for _ in range(50):
                f(x)
        t = {k: [] for k in fns}
        reps = 2000 if n == 16 else 300
        for _ in range(9):
            for k, f in fns.items():
                t[k].append(timed(f, x, reps))
        m = {k: statistics.median(v) for k, v in t.items()}
        print(
            f"{name:12s} n={n:6d} torch {m['torch']:7.2f} µs  nonlin {m['nonlin']:7.2f} µs  "
            f"ratio {m['nonlin'] / m['torch']:5.2f}  +{m['nonlin'] - m['torch']:5.2f} µs"
        )
