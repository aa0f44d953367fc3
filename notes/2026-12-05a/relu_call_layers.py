"""µs per call of relu at 64x512 float32, layer by layer: torch's op, the catalog's torch_equivalent, the settled
route's lookup (`nonlin.route.settled`) and the functional form users call; minimum of 21 interleaved rounds of
200 calls, one thread. (benchmarks/call_overhead.py takes the fused path apart the same way.)

    PYTHONPATH=src python notes/2026-12-05a/relu_call_layers.py
"""

import time

import torch
import torch.nn.functional as F

import nonlin.functional as NF
from nonlin import route
from nonlin.registry import spec

torch.set_num_threads(1)
x = torch.randn(64, 512)
s = spec("relu")
for _ in range(50):
    NF.relu(x)
equivalent = s.torch_equivalent
jobs = {
    "torch.relu": lambda: torch.relu(x),
    "F.relu": lambda: F.relu(x),
    "torch_equivalent": lambda: equivalent(x),
    "route.settled": lambda: route.settled(s, x),
    "nonlin.functional.relu": lambda: NF.relu(x),
}
times: dict[str, list[float]] = {k: [] for k in jobs}
for _ in range(21):
    for k, job in jobs.items():
        t = time.perf_counter()
        for _ in range(200):
            job()
        times[k].append((time.perf_counter() - t) / 200 * 1e6)
for k, v in times.items():
    print(f"{k}: {min(v):.2f} µs")
