"""float64 silu inside a caller's torch.compile, 1024x4096, one core: nonlin's (the fused plan traced into the
graph) against torch's op compiled the same way, median of nine calls. Run once per source tree:

    for src in /tmp/wt_base/src src; do PYTHONPATH=$src python notes/2026-12-06d/compiled_silu_float64.py; done"""

import statistics
import time

import torch

import nonlin.functional as NF

torch.set_num_threads(1)
x = torch.randn(1024, 4096, dtype=torch.float64)
f = torch.compile(lambda t: NF.silu(t) * 1.0)
g = torch.compile(lambda t: torch.nn.functional.silu(t) * 1.0)
for _ in range(3):
    f(x)
    g(x)
times = {"nonlin": [], "torch": []}
for _ in range(9):
    for name, fn in (("nonlin", f), ("torch", g)):
        t0 = time.perf_counter()
        fn(x)
        times[name].append(time.perf_counter() - t0)
print({k: round(statistics.median(v) * 1e3, 2) for k, v in times.items()}, "ms")
