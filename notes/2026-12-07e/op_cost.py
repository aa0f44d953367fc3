"""Where a 32K float32 silu's time goes inside a compiled graph (one thread, no grad, µs per call, medians of
interleaved rounds): the kernel given its output, native32.forward, the custom op through the dispatcher, torch's
eager F.silu, and both compiled. Run from a checkout: PYTHONPATH=src python notes/2026-12-07e/op_cost.py"""

import statistics
import time

import torch

import nonlin.functional as F
from nonlin.kernels import native32

torch.set_num_threads(1)
x = torch.randn(64, 512)
n = x.numel()
out = torch.empty_like(x)
k = native32.kernel("silu", "fwd")
op = torch.ops.nonlin.native32.default
calls = {
    "kernel(x, out)": lambda: k(x, out, 1, n, n, n, 1),
    "native32.forward": lambda: native32.forward("silu", x),
    "torch.ops.nonlin.native32": lambda: op(x, "silu"),
    "torch F.silu": lambda: torch.nn.functional.silu(x),
    "torch.empty_like": lambda: torch.empty_like(x),
}
compiled_nonlin = torch.compile(lambda t: F.silu(t))
compiled_torch = torch.compile(lambda t: torch.nn.functional.silu(t))
compiled_identity = torch.compile(lambda t: t + 1)
calls["compiled nonlin silu"] = lambda: compiled_nonlin(x)
calls["compiled F.silu"] = lambda: compiled_torch(x)
calls["compiled x + 1"] = lambda: compiled_identity(x)
with torch.no_grad():
    for fn in calls.values():
        for _ in range(3):
            fn()
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(15):
        for name, fn in calls.items():
            t0 = time.perf_counter()
            for _ in range(300):
                fn()
            times[name].append((time.perf_counter() - t0) / 300 * 1e6)
for name, ts in times.items():
    print(f"{name:28s} {statistics.median(ts):7.2f} µs")
