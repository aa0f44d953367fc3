"""silu's or gelu's float32 forward at 4M elements, one thread, prefetch off (as `nonlin tune` chose on this Zen 4), ms
per call, medians of interleaved rounds: nonlin's default call, torch's op, the kernel given its output, torch's op
given its output. Run from a checkout: PYTHONPATH=src python notes/2026-12-07d/fwd_4m.py silu|gelu"""

import statistics
import sys
import time

import torch

import nonlin.functional as F
from nonlin.kernels import native32

torch.set_num_threads(1)
name = sys.argv[1]
n = 1 << 22
x = torch.randn(n, generator=torch.Generator().manual_seed(0))
fn = getattr(F, name)
at = {"silu": torch.nn.functional.silu, "gelu": torch.nn.functional.gelu}[name]
native32.set_prefetch(False)
fn(x)
print("prefetch", native32.prefetching())
y = torch.empty_like(x)
k = native32.kernel(name, "fwd")
cases = {
    "nonlin": lambda: fn(x),
    "aten": lambda: at(x),
    "kernel, out given": lambda: k(x, y, 1, n, n, n, 1),
    "aten out given": lambda: (
        torch.ops.aten.silu.out(x, out=y) if name == "silu" else torch.ops.aten.gelu.out(x, out=y)
    ),
}
ts = {c: [] for c in cases}
for _ in range(21):
    for c, f in cases.items():
        t0 = time.perf_counter()
        for _ in range(5):
            f()
        ts[c].append((time.perf_counter() - t0) / 5 * 1e3)
for c in cases:
    print(f"{c:20s} {statistics.median(ts[c]):.3f} ms")
