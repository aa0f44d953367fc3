"""What a 32K float32 silu costs inside a user's torch.compile (one thread, no grad, µs per call, medians of
interleaved rounds): nonlin's silu in a compiled function (its kernel as a custom op in the graph), torch.compile of
F.silu (inductor's own kernel), and nonlin's eager call; then cProfile of the compiled call, by own time. Run from a
checkout: PYTHONPATH=src python notes/2026-12-07d/compiled_call_cost.py"""

import cProfile
import pstats
import statistics
import time

import torch

import nonlin.functional as F

torch.set_num_threads(1)
x = torch.randn(64, 512)
model = torch.compile(lambda t: F.silu(t))
comp = torch.compile(lambda t: torch.nn.functional.silu(t))
with torch.no_grad():
    for _ in range(3):
        model(x)
        comp(x)
    times: dict[str, list[float]] = {"compiled nonlin": [], "compiled F.silu": [], "nonlin eager call": []}
    for _ in range(20):
        for name, fn in zip(times, (model, comp, F.silu), strict=True):
            t0 = time.perf_counter()
            for _ in range(200):
                fn(x)
            times[name].append((time.perf_counter() - t0) / 200 * 1e6)
    print({k: round(statistics.median(v), 1) for k, v in times.items()})
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(2000):
        model(x)
    profile.disable()
    pstats.Stats(profile).sort_stats("tottime").print_stats(14)
