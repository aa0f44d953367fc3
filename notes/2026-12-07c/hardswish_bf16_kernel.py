"""hardswish bfloat16: native32's kernel alone with its output given, ATen's hardswish.out, a copy, and both with
the output allocated per call; ns per element at 32K and 4M, one thread, medians of interleaved rounds.
PYTHONPATH=src python notes/2026-12-07c/hardswish_bf16_kernel.py"""

import statistics
import time

import torch

import nonlin
from nonlin.kernels import native32, table

torch.set_num_threads(1)
spec = nonlin.spec("hardswish")
values = table.Table(spec, torch.bfloat16, spec.defaults(), True).widened_values()
k = native32.kernel("hardswish", "fwd_bf16")
for n in (1 << 15, 1 << 22):
    x = torch.randn(n).to(torch.bfloat16)
    out, out2 = torch.empty_like(x), torch.empty_like(x)
    calls = {
        "kernel out=": lambda x=x, out=out, n=n: k(x, values, out, 1, n, n, n, 1),
        "aten out=": lambda x=x, out2=out2: torch.ops.aten.hardswish.out(x, out=out2),
        "copy_": lambda x=x, out2=out2: out2.copy_(x),
        "kernel alloc": lambda x=x: native32.half_forward("hardswish", x, values),
        "aten alloc": lambda x=x: torch.nn.functional.hardswish(x),
    }
    reps = 200 if n < 1 << 20 else 5
    times: dict[str, list[float]] = {c: [] for c in calls}
    for _ in range(11):
        for c, f in calls.items():
            f()
            t0 = time.perf_counter()
            for _ in range(reps):
                f()
            times[c].append((time.perf_counter() - t0) / reps / n * 1e9)
    print(n, ", ".join(f"{c} {statistics.median(v):.3f}" for c, v in times.items()))
