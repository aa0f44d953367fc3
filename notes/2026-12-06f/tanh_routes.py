"""tanh's forward on this CPU: torch.tanh (its route) against nonlin's kernel (mode "fused"), float32, one thread,
4M and 32K elements: medians of interleaved rounds. Run: PYTHONPATH=src python notes/2026-12-06f/tanh_routes.py"""

import statistics
import time

import torch

import nonlin
import nonlin.functional as F

torch.set_num_threads(1)
for shape in ((1024, 4096), (64, 512)):
    x = torch.randn(shape, generator=torch.Generator().manual_seed(0))
    reps = 5 if shape[0] > 64 else 500

    def fused(x=x):
        with nonlin.use("fused"):
            return F.tanh(x)

    calls = {"torch.tanh": lambda x=x: torch.tanh(x), "nonlin fused": fused}
    times = {k: [] for k in calls}
    for _ in range(9):
        for k, f in calls.items():
            f()
            t0 = time.perf_counter()
            for _ in range(reps):
                f()
            times[k].append((time.perf_counter() - t0) / reps)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(
        f"{shape[0]}x{shape[1]}: torch.tanh {med['torch.tanh'] * 1e3:.3f} ms, nonlin fused "
        f"{med['nonlin fused'] * 1e3:.3f} ms, ratio {med['nonlin fused'] / med['torch.tanh']:.2f}"
    )
