"""ns per element of every native32 kernel, an earlier commit's (old) against the working tree's (new), built
in one process and interleaved: x ~ 3 N(0, 1), one thread, medians over rounds; torch's op of the same name
beside them where it has one.

Usage: git show a2bf46c:src/nonlin/kernels/native32.py > /tmp/native32_old.py
       PYTHONPATH=src python notes/2026-12-04c/plain_ab.py /tmp/native32_old.py [numel] [rounds]"""

import importlib.util
import statistics
import sys
import time

import torch
import torch.nn.functional as F

from nonlin.kernels import native32 as new

torch.set_num_threads(1)
spec = importlib.util.spec_from_file_location("native32_old", sys.argv[1])
old = importlib.util.module_from_spec(spec)
spec.loader.exec_module(old)
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 22
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 9
reps = max(1, (1 << 22) // n)
x = torch.randn(n) * 3
go, v = torch.randn(n), torch.randn(n)
dg, dv = torch.empty_like(x), torch.empty_like(x)
TORCH = {"sigmoid": torch.sigmoid, "tanh": torch.tanh, "silu": F.silu, "gelu": F.gelu, "elu": F.elu,
         "selu": F.selu, "hardswish": F.hardswish, "tanhshrink": F.tanhshrink}  # fmt: skip


def jobs_of(m):
    jobs = {}
    for p in m.PRIMITIVES:
        jobs[p + " fwd"] = lambda p=p: m.forward(p, x)
        jobs[p + " bwd"] = lambda p=p: m.backward(p, go, x)
    for p in m.GATED:
        jobs[p + " fwd"] = lambda p=p: m.gated_forward(p, x, v)
        jobs[p + " bwd"] = lambda p=p: m.gated_backward(p, go, x, v, dg, dv)
    return jobs


runs = {"old": jobs_of(old), "new": jobs_of(new), "torch": {p + " fwd": (lambda f=f: f(x)) for p, f in TORCH.items()}}
times: dict[tuple[str, str], list[float]] = {}
for key in runs["new"]:
    for tag in runs:
        if key in runs[tag]:
            runs[tag][key]()
for _ in range(rounds):
    for key in runs["new"]:
        for tag in runs:
            if key in runs[tag]:
                t = time.perf_counter()
                for _ in range(reps):
                    runs[tag][key]()
                times.setdefault((tag, key), []).append((time.perf_counter() - t) / reps / n * 1e9)
print(f"{n} float32 elements, one thread, medians of {rounds} interleaved rounds (ns per element)")
print("| kernel | old | new | new / old | torch's op |")
print("|---|---|---|---|---|")
for key in runs["new"]:
    o, w = (statistics.median(times[(t, key)]) for t in ("old", "new"))
    t = f"{statistics.median(times[('torch', key)]):.2f}" if ("torch", key) in times else "-"
    print(f"| {key} | {o:.2f} | {w:.2f} | {w / o:.2f} | {t} |")
