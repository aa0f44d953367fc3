"""Interleaved A/B in one process: nonlin's own inductor kernels (cpu.Direct) built with the prefetches and without,
called in turn on the same 4M float32 input, 15 rounds; medians and the ratio per kernel and pass.

Usage: PYTHONPATH=src python notes/2026-12-02e/prefetch_ab.py cosine,softcap,hardswish [float64|float32]"""

import statistics
import sys
import time

import torch

import nonlin
from nonlin.kernels import cpu, prefetch
from nonlin.kernels.codegen import plan

torch.set_num_threads(1)
N = 1 << 22
X, GO = torch.randn(N), torch.randn(N)
compute = sys.argv[2] if len(sys.argv) > 2 else "float64"
real = prefetch.with_prefetch


def build(name: str, which: str, like: tuple[torch.Tensor, ...], prefetched: bool):
    prefetch.with_prefetch = real if prefetched else (lambda source: source)
    try:
        s = nonlin.spec(name)
        p = plan(s, "plain", tuple(sorted(s.defaults().items())), (), ())
        return cpu.Direct(cpu.functions(p, compute, False)[which], cpu._examples(like), name).call
    finally:
        prefetch.with_prefetch = real


for name in sys.argv[1].split(","):
    for which in ("fwd", "bwd"):
        like = (X,) if which == "fwd" else (GO, X)
        kernels = {"with": build(name, which, like, True), "without": build(name, which, like, False)}
        times: dict[str, list[float]] = {k: [] for k in kernels}
        for f in kernels.values():
            f(*like)
        for _ in range(15):
            for k, f in kernels.items():
                t = time.perf_counter()
                f(*like)
                times[k].append((time.perf_counter() - t) / N * 1e9)
        w, wo = (statistics.median(times[k]) for k in ("with", "without"))
        print(f"{name} {which}: with {w:.2f} ns, without {wo:.2f} ns per element, ratio {w / wo:.2f}", flush=True)
