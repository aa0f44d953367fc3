"""hardswish on bfloat16, ns per element (one thread, x ~ N(0, 1), the output allocated per call as the calls do):
native32's float32 forms around bfloat16 loads and stores, the table's lookup and torch's op, forward and backward,
32K and 4M elements, medians of interleaved rounds. Run from a checkout:
PYTHONPATH=src python notes/2026-12-07a/hardswish_bf16_time.py"""

import statistics
import time

import torch

import nonlin
from nonlin.kernels import native32, table

torch.set_num_threads(1)
spec = nonlin.spec("hardswish")
lookup = table.Table(spec, torch.bfloat16, spec.defaults(), True)
values = lookup.widened_values()
for n in (1 << 15, 1 << 22):
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(n, generator=gen).to(torch.bfloat16)
    go = torch.randn(n, generator=gen).to(torch.bfloat16)
    calls = {
        "forms forward": lambda x=x: native32.half_forward("hardswish", x, values),
        "lookup forward": lambda x=x: lookup.forward(x),
        "torch forward": lambda x=x: torch.nn.functional.hardswish(x),
        "forms backward": lambda x=x, go=go: native32.half_backward("hardswish", go, x),
        "lookup backward": lambda x=x, go=go: lookup.backward(go, x),
        "aten backward": lambda x=x, go=go: torch.ops.aten.hardswish_backward(go, x),
    }
    reps = 200 if n < 1 << 20 else 3
    times: dict[str, list[float]] = {k: [] for k in calls}
    for _ in range(9):
        for k, f in calls.items():
            f()
            t0 = time.perf_counter()
            for _ in range(reps):
                f()
            times[k].append((time.perf_counter() - t0) / reps / n * 1e9)
    print(n, ", ".join(f"{k} {statistics.median(v):.3f}" for k, v in times.items()))
