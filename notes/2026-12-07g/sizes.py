"""nonlin's default forward against torch's op across sizes (16 elements to 4M), one thread, interleaved medians,
after warming the route (the small class compiles after its warm-up calls).

    PYTHONPATH=src python notes/2026-12-07g/sizes.py hardswish silu
"""

import statistics
import sys
import time

import torch
import torch.nn.functional as TF

import nonlin.functional as NF

torch.set_num_threads(1)
TORCH = {
    "hardswish": TF.hardswish,
    "silu": TF.silu,
    "gelu": TF.gelu,
    "sigmoid": torch.sigmoid,
    "relu": TF.relu,
    "leaky_relu": TF.leaky_relu,
    "hardsigmoid": TF.hardsigmoid,
    "mish": TF.mish,
    "elu": TF.elu,
}

for name in sys.argv[1:]:
    for n in (16, 4096, 32768, 262144, 4 << 20):
        x = torch.randn(n)
        fns = {"torch": TORCH[name], "nonlin": getattr(NF, name)}
        reps = max(20, min(3000, (1 << 22) // n))
        for _ in range(10000 if n <= 4096 else 60):  # past the small class's warm-up
            fns["nonlin"](x)
        t = {k: [] for k in fns}
        for _ in range(7):
            for k, f in fns.items():
                t0 = time.perf_counter()
                for _ in range(reps):
                    f(x)
                t[k].append((time.perf_counter() - t0) / reps * 1e6)
        m = {k: statistics.median(v) for k, v in t.items()}
        print(
            f"{name:12s} n={n:8d} torch {m['torch']:9.2f} µs  nonlin {m['nonlin']:9.2f} µs  ratio "
            f"{m['nonlin'] / m['torch']:5.2f}  ns/elt torch {m['torch'] * 1e3 / n:6.2f} nonlin {m['nonlin'] * 1e3 / n:6.2f}"
        )
