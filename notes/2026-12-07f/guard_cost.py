"""The time dynamo's guards take per call of a compiled function (its guard manager's check alone, µs, medians of
7 rounds of 3000): nonlin's F.silu against torch's F.silu, the op alone, and nonlin's base silu.
PYTHONPATH=src python notes/2026-12-07f/guard_cost.py"""

import statistics
import time

import torch
from torch._dynamo.eval_frame import _debug_get_cache_entry_list

import nonlin
import nonlin.functional as F

torch.set_num_threads(1)
x = torch.randn(64, 512)
F.silu(x)
op = torch.ops.nonlin.native32.default
functions = {
    "nonlin F.silu (torch's name)": lambda t: F.silu(t),
    "nonlin.functional.swish": lambda t: nonlin.functional.swish(t),
    "torch F.silu": lambda t: torch.nn.functional.silu(t),
    "nonlin::native32 alone": lambda t: op(t, "silu"),
}
with torch.no_grad():
    for name, fn in functions.items():
        compiled = torch.compile(fn)
        for _ in range(3):
            compiled(x)
        entries = _debug_get_cache_entry_list(fn.__code__)
        guards = entries[0].guard_manager
        times = []
        for _ in range(7):
            t0 = time.perf_counter()
            for _ in range(3000):
                guards.check({"t": x})
            times.append((time.perf_counter() - t0) / 3000 * 1e6)
        print(f"{name:30s} {len(entries)} cache entry, guards {statistics.median(times):.2f} µs")
