"""native32's kernels built with and without their software prefetch (`ahead`), ns per element of the kernel alone,
one thread, interleaved rounds (medians), x = N(0, 1) * SCALE float32 of N elements, torch's op beside them:
PYTHONPATH=src python notes/2026-12-07b/ahead_ab.py N SCALE PRIMITIVE..."""

import re
import statistics
import sys
import time

import torch
import torch.nn.functional as F

from nonlin.kernels import native32

torch.set_num_threads(1)
n, scale, names = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]
gen = torch.Generator().manual_seed(0)
x = torch.randn(n, generator=gen) * scale
go = torch.randn(n, generator=gen)
y = torch.empty_like(x)
with_ahead = {(p, w): native32.kernel(p, w) for p in names for w in ("fwd", "bwd")}
saved = native32._UNARY, native32._BINARY
native32._UNARY, native32._BINARY = (re.sub(r"\n\s*ahead\([^;]*\);", "", s) for s in saved)
without = {(p, w): native32._compile(p, w) for p in names for w in ("fwd", "bwd")}
native32._UNARY, native32._BINARY = saved
TORCH = {"hardswish": (F.hardswish, torch.ops.aten.hardswish_backward), "silu": (F.silu, torch.ops.aten.silu_backward),
         "sigmoid": (torch.sigmoid, None), "gelu": (F.gelu, None), "tanh": (torch.tanh, None),
         "softplus": (F.softplus, None), "mish": (F.mish, None), "elu": (F.elu, None)}  # fmt: skip
reps = max(3, (1 << 22) // n * 3)
times: dict[tuple, list[float]] = {}


def clock(key, f):
    f()
    t0 = time.perf_counter()
    for _ in range(reps):
        f()
    times.setdefault(key, []).append((time.perf_counter() - t0) / reps / n * 1e9)


for _ in range(11):
    for p in names:
        for which in ("fwd", "bwd"):
            args = (x, y, 1, n, n, n, 1) if which == "fwd" else (go, x, y, 1, n, n, n, n, 1)
            clock((p, which, "ahead"), lambda k=with_ahead[p, which], a=args: k(*a))
            clock((p, which, "none"), lambda k=without[p, which], a=args: k(*a))
        if p in TORCH:
            clock((p, "fwd", "torch"), lambda f=TORCH[p][0]: f(x))
            if TORCH[p][1] is not None:
                clock((p, "bwd", "torch"), lambda b=TORCH[p][1]: b(go, x))
for p in names:
    for which in ("fwd", "bwd"):
        a, b = statistics.median(times[p, which, "ahead"]), statistics.median(times[p, which, "none"])
        t = times.get((p, which, "torch"))
        tt = f", torch {statistics.median(t):.3f}" if t else ""
        print(f"{p} {which} n={n}: with ahead {a:.3f}, without {b:.3f} ns per element ({b / a:.2f}x){tt}")
