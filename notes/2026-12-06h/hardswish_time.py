"""ns per element of native32's hardswish kernels alone and of torch's ops (torch.hardswish, aten's
hardswish_backward), float32, one thread, x = 3 N(0, 1), medians of 11 interleaved rounds, 32K (in cache) and 4M. Run
in each checkout, alternating: PYTHONPATH=src python notes/2026-12-06h/hardswish_time.py"""

import statistics
import time

import torch

from nonlin.kernels import native32


def measure(n: int) -> None:
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(n, generator=gen) * 3
    go = torch.randn(n, generator=gen)
    y = torch.empty_like(x)
    fwd, bwd = native32.kernel("hardswish", "fwd"), native32.kernel("hardswish", "bwd")
    calls = {
        "kernel forward": lambda: fwd(x, y, 1, n, n, n, 1),
        "kernel backward": lambda: bwd(go, x, y, 1, n, n, n, n, 1),
        "torch.hardswish": lambda: torch.ops.aten.hardswish.out(x, out=y),
        "aten.hardswish_backward": lambda: torch.ops.aten.hardswish_backward.out(go, x, out=y),
    }
    reps = 400 if n < 1 << 20 else 5
    times: dict[str, list[float]] = {}
    for _ in range(11):
        for name, call in calls.items():
            call()
            t0 = time.perf_counter()
            for _ in range(reps):
                call()
            times.setdefault(name, []).append((time.perf_counter() - t0) / reps / n * 1e9)
    print(f"{n} elements: " + ", ".join(f"{k} {statistics.median(v):.3f}" for k, v in times.items()))


torch.set_num_threads(1)
for numel in (1 << 15, 1 << 22):
    measure(numel)
