"""Where a 32K float32 silu's time goes (one thread, no grad, µs per call, medians of interleaved rounds): the
kernel given its output, the C++ twin and the Python op through the dispatcher, torch's eager F.silu, and, inside
torch.compile, the twin alone, F.silu and nonlin's silu. Run from a checkout:
PYTHONPATH=src python notes/2026-12-07f/op_cost.py"""

import statistics
import time

import torch

import nonlin.functional as F
from nonlin.kernels import cpp_ops, native32

torch.set_num_threads(1)
x = torch.randn(64, 512)
n = x.numel()
out = torch.empty_like(x)
k = native32.kernel("silu", "fwd")
twin = cpp_ops.graph_op("native32")
python_op = torch.ops.nonlin.native32.default
calls = {
    "kernel(x, out)": lambda: k(x, out, 1, n, n, n, 1),
    "op, C++ twin": lambda: twin(x, "silu"),
    "op, Python": lambda: python_op(x, "silu"),
    "torch F.silu": lambda: torch.nn.functional.silu(x),
    "torch.empty_like": lambda: torch.empty_like(x),
    "compiled C++ twin": torch.compile(lambda: twin(x, "silu")),
    "compiled F.silu": torch.compile(lambda: torch.nn.functional.silu(x)),
    "compiled nonlin silu": torch.compile(lambda: F.silu(x)),
}
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
    print(f"{name:22s} {statistics.median(ts):7.2f} µs")
