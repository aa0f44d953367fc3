"""ns per element of one native32 forward (or backward: NAME given as NAME:backward): the working tree's kernel
against an earlier commit's (or a prototype's) native32.py and torch's op (the backward: none, torch's saves its
output), interleaved in one process: x ~ SCALE N(0, 1) (SCALE=3 unless set), go ~ N(0, 1), one thread, medians of 11 rounds.

Usage: git show HEAD~1:src/nonlin/kernels/native32.py > /tmp/n_old.py
       PYTHONPATH=src python notes/2026-12-05b/near_time.py 4194304 sigmoid /tmp/n_old.py [more.py ...]
       PYTHONPATH=src python notes/2026-12-05b/near_time.py 32768 tanh:backward /tmp/n_old.py"""

import os
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

from nonlin.kernels import native32 as current

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-12-04c"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-12-05a"))
from interleave import interleaved_ns
from plain_bits import load_old

TORCH = {
    "sigmoid": torch.sigmoid,
    "silu": F.silu,
    "gelu": F.gelu,
    "tanh": torch.tanh,
    "quick_gelu": lambda x: x * torch.sigmoid(1.702 * x),  # (the textbook composite: torch has no op)
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "ndtr": torch.special.ndtr,
    "laplace": lambda x: 0.5 * (1.0 + torch.erf((x - 0.707107) / (0.282095 * 1.4142135623730951))),
    "tanhshrink": F.tanhshrink,
    "siren": lambda x: torch.sin(30.0 * x),  # (the textbook composite)
    "sqrtsoftplus": lambda x: torch.sqrt(F.softplus(x)),
}

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from kernels import keep_freed_memory  # noqa: E402

keep_freed_memory()  # (fresh 16 MB outputs had page-faulted in some processes: 3x the time, as benchmarks/kernels.py)
torch.set_num_threads(1)
n, (name, _, which) = int(sys.argv[1]), sys.argv[2].partition(":")
x, go = torch.randn(n) * float(os.environ.get("SCALE", "3")), torch.randn(n)
modules = {"working tree": current, **{path: load_old(path) for path in sys.argv[3:]}}
if which == "backward":
    jobs = {k: (lambda m=m: m.backward(name, go, x)) for k, m in modules.items()}
else:
    jobs = {k: (lambda m=m: m.forward(name, x)) for k, m in modules.items()}
    jobs["torch"] = lambda: TORCH[name](x)
for k, v in interleaved_ns(jobs, n, 11).items():
    print(f"{name} {which or 'forward'} {n}: {k}: {v:.3f}")
