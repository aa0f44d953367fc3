"""ns per element of native32's kernels alone (forward, backward), 32K float32 in cache (x = SCALE N(0, 1)), one
thread: medians of interleaved rounds. Run from a checkout: PYTHONPATH=src python notes/2026-12-06f/kernel_speed.py
SCALE PRIMITIVE..."""

import statistics
import sys
import time

import torch

from nonlin.kernels import native32

torch.set_num_threads(1)
n = 1 << 15
gen = torch.Generator().manual_seed(0)
x = torch.randn(n, generator=gen) * float(sys.argv[1])
go = torch.randn(n, generator=gen)
y = torch.empty_like(x)
times: dict[tuple[str, str], list[float]] = {}
for _ in range(15):
    for name in sys.argv[2:]:
        for which in ("fwd", "bwd"):
            k = native32.kernel(name, which)
            args = (
                (x, y, 1, n, n, n, 1) if which == "fwd" else (go, x, y, 1, n, n, n, n, 1)
            )  # (rows, width, strides, threads)
            k(*args)
            t0 = time.perf_counter()
            for _ in range(200):
                k(*args)
            times.setdefault((name, which), []).append((time.perf_counter() - t0) / 200 / n * 1e9)
for name in sys.argv[2:]:
    f, b = (statistics.median(times[(name, w)]) for w in ("fwd", "bwd"))
    print(f"{name}: forward {f:.3f} ns per element, backward {b:.3f}")
