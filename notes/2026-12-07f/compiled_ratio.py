"""A user's compiled function calling nonlin's silu or swiglu against the same function calling torch's silu
(swiglu: silu(g) * v), forward under no_grad and forward + backward, µs per call, medians of interleaved rounds.
PYTHONPATH=src python notes/2026-12-07f/compiled_ratio.py [ROWSxWIDTH] (default 64x512)"""

import statistics
import sys
import time

import torch

import nonlin.functional as F

torch.set_num_threads(1)
rows, width = (64, 512) if len(sys.argv) < 2 else map(int, sys.argv[1].split("x"))
x, packed = torch.randn(rows, width), torch.randn(rows, 2 * width)


def textbook_swiglu(t):
    g, v = t.chunk(2, -1)
    return torch.nn.functional.silu(g) * v


cases = {}
for train in (False, True):
    mark = " train" if train else ""
    xi, pi = x.clone().requires_grad_(train), packed.clone().requires_grad_(train)
    cases[f"silu{mark} nonlin"] = (torch.compile(lambda t: F.silu(t)), xi, train)
    cases[f"silu{mark} torch"] = (torch.compile(lambda t: torch.nn.functional.silu(t)), xi, train)
    cases[f"swiglu{mark} nonlin"] = (torch.compile(lambda t: F.swiglu(t)), pi, train)
    cases[f"swiglu{mark} torch"] = (torch.compile(textbook_swiglu), pi, train)


def run(f, t, train):
    if train:
        f(t).sum().backward()
    else:
        with torch.no_grad():
            f(t)


for f, t, train in cases.values():
    for _ in range(5):
        run(f, t, train)
times: dict[str, list[float]] = {k: [] for k in cases}
for _ in range(11):
    for k, (f, t, train) in cases.items():
        t0 = time.perf_counter()
        for _ in range(300):
            run(f, t, train)
        times[k].append((time.perf_counter() - t0) / 300 * 1e6)
m = {k: statistics.median(v) for k, v in times.items()}
for k, v in m.items():
    if k.endswith("nonlin"):
        base = m[k.replace("nonlin", "torch")]
        print(f"{k:22s} {v:7.1f}  torch {base:7.1f}  ratio {v / base:.2f}")
