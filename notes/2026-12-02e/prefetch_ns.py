"""ns per element of nonlin's own inductor kernels (cpu.Direct) in L2 (256K float32) and beyond it (4M), forward and
backward, with the prefetches (default) or without (PF=0), one thread, medians of 7.

Usage: PYTHONPATH=src [PF=0] python notes/2026-12-02e/prefetch_ns.py cosine,softcap [float64|float32]
(the second argument: the compute precision of the float32 kernels, float64 by default)"""

import os
import statistics
import sys
import time

import torch

import nonlin
from nonlin.kernels import cpu, prefetch
from nonlin.kernels.codegen import plan

if os.environ.get("PF") == "0":
    prefetch.with_prefetch = lambda source: source
torch.set_num_threads(1)
N = 1 << 22
X, GO = torch.randn(N), torch.randn(N)
compute = sys.argv[2] if len(sys.argv) > 2 else "float64"


def build(name: str, which: str, like: tuple[torch.Tensor, ...]):
    s = nonlin.spec(name)
    p = plan(s, "plain", tuple(sorted(s.defaults().items())), (), ())
    return cpu.Direct(cpu.functions(p, compute, False)[which], cpu._examples(like), name).call


for name in sys.argv[1].split(","):
    row = [name]
    for which in ("fwd", "bwd"):
        for m in (1 << 18, N):
            like = (X[:m],) if which == "fwd" else (GO[:m], X[:m])
            f = build(name, which, like)
            f(*like)
            ts = []
            for _ in range(7):
                reps = N // m
                t = time.perf_counter()
                for _ in range(reps):
                    f(*like)
                ts.append((time.perf_counter() - t) / reps / m * 1e9)
            row.append(f"{which}@{m}={statistics.median(ts):.2f}")
    print(*row, flush=True)
