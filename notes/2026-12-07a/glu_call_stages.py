"""torch's glu at 32K float32 (a [64, 1024] packed [value | gate] input), µs per call without autograd, one thread,
medians of interleaved rounds: nonlin's call as users make it, its settled lookup alone, and F.glu. Run in each
checkout (the base and this stop's): PYTHONPATH=src python notes/2026-12-07a/glu_call_stages.py"""

import statistics
import time

import torch
import torch.nn.functional as F

import nonlin
import nonlin.functional as nf
from nonlin import route

torch.set_num_threads(1)
x = torch.randn(64, 1024)
for _ in range(200):
    nf.glu(x)
spec = nonlin.spec("glu")
calls = {
    "nonlin.functional.glu": lambda: nf.glu(x),
    "route.settled_packed": lambda: route.settled_packed(spec, x, True),
    "F.glu": lambda: F.glu(x),
}
times: dict[str, list[float]] = {k: [] for k in calls}
with torch.no_grad():
    for _ in range(11):
        for k, f in calls.items():
            f()
            t0 = time.perf_counter()
            for _ in range(300):
                f()
            times[k].append((time.perf_counter() - t0) / 300 * 1e6)
for k, v in times.items():
    print(f"{k}: {statistics.median(v):.1f} us")
