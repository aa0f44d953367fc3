"""The bfloat16 product kernel (`gather._GRAD`, the far path on) as shipped and with a test for float32 products below
float32's normal range sending them to the float64 path (tried this stop, not kept), ns per element, one thread,
interleaved rounds (medians): 4M and 32K, forward form (gate[g] * v) and gradient form (go * v * slope[g]).
PYTHONPATH=src python notes/2026-12-07b/gather_ab.py"""

import statistics
import time

import torch

from nonlin.kernels import gather

torch.set_num_threads(1)
old = gather._GRAD
new = old.replace(
    "at::vec::convert<Half>(s * f).store(o + i, V);\n      if (WIDE) {\n        auto bad = s != s;",
    "const auto p = s * f;\n      at::vec::convert<Half>(p).store(o + i, V);\n      if (WIDE) {\n"
    "        const auto pa = p.abs();\n"
    "        auto bad = (s != s) | ((pa < Vectorized<float>(float(TINY))) & (pa != Vectorized<float>(0.0f)));",
)
assert old != new
kernels = {}
for tag, src in (("new", new), ("old", old)):
    gather._GRAD = src
    for has_v in (False, True):
        kernels[tag, has_v] = gather._compile("grad", torch.bfloat16, has_v, True)
gather._GRAD = old
gen = torch.Generator().manual_seed(0)
slopes = torch.rand(1 << 16, generator=gen)
wide = slopes.double()
for n in (1 << 22, 1 << 15):
    go = torch.randn(n, generator=gen).to(torch.bfloat16)
    v = torch.randn(n, generator=gen).to(torch.bfloat16)
    bits = torch.randn(n, generator=gen).to(torch.bfloat16).view(torch.int16)
    out = torch.empty(n, dtype=torch.bfloat16)
    reps = max(3, (1 << 23) // n)
    times: dict[tuple, list[float]] = {}
    for _ in range(15):
        for (tag, has_v), k in kernels.items():
            args = (go, v if has_v else go, bits, slopes, wide, out, 1, n, n, n, n, n, 1)
            k(*args)
            t0 = time.perf_counter()
            for _ in range(reps):
                k(*args)
            times.setdefault((tag, has_v), []).append((time.perf_counter() - t0) / reps / n * 1e9)
    for has_v in (False, True):
        a, b = (statistics.median(times[t, has_v]) for t in ("old", "new"))
        print(
            f"n={n} {'go * v * slope' if has_v else 'v * gate'}: as shipped {a:.3f}, with the test {b:.3f} ns per element"
        )
