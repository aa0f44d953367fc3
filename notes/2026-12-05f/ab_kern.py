"""ns per element of every native32 kernel, forward and backward, against an earlier native32.py, interleaved
(4M float32, x ~ SCALE N(0, 1), SCALE=1 unless set; one thread).

    PYTHONPATH=src python notes/2026-12-05f/ab_kern.py OLD_native32.py"""

import os
import sys

import torch

sys.path.insert(0, "/work/main/notes/2026-12-04c")
sys.path.insert(0, "/work/main/notes/2026-12-05a")
sys.path.insert(0, "/work/main/benchmarks")
from interleave import interleaved_ns
from kernels import keep_freed_memory
from plain_bits import load_old

from nonlin.kernels import native32 as new

old = load_old(sys.argv[1])
keep_freed_memory()
torch.set_num_threads(1)
n = 1 << 22
x, go = torch.randn(n) * float(os.environ.get("SCALE", "1")), torch.randn(n)
v = torch.randn(n)
d = [torch.empty(n) for _ in range(2)]
jobs = {}
for tag, m in (("before", old), ("after", new)):
    for k in new.PRIMITIVES:
        jobs[f"{k} fwd {tag}"] = lambda k=k, m=m: m.forward(k, x)
        jobs[f"{k} bwd {tag}"] = lambda k=k, m=m: m.backward(k, go, x)
    for k in new.GATED:
        jobs[f"{k} fwd {tag}"] = lambda k=k, m=m: m.gated_forward(k, x, v)
        jobs[f"{k} bwd {tag}"] = lambda k=k, m=m: m.gated_backward(k, go, x, v, d[0], d[1])
r = interleaved_ns(jobs, n, 5)
for k in new.PRIMITIVES | new.GATED:
    print(
        f"{k:14s} fwd {r[k + ' fwd before']:.3f} -> {r[k + ' fwd after']:.3f}   bwd {r[k + ' bwd before']:.3f} -> {r[k + ' bwd after']:.3f}"
    )
