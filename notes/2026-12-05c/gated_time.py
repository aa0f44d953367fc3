"""ns per element of one native32 gated kernel (forward: gate(g) v; backward: both gradients), the working
tree's against earlier native32.py files (or prototypes), and the textbook composite in torch ops (forward
only), interleaved in one process: g ~ 3 N(0, 1), v, go ~ N(0, 1), one thread, medians of 11 rounds.

Usage: git show HEAD:src/nonlin/kernels/native32.py > /tmp/n_head.py
       PYTHONPATH=src python notes/2026-12-05c/gated_time.py 4194304 geglu /tmp/n_head.py
       PYTHONPATH=src python notes/2026-12-05c/gated_time.py 4194304 geglu:backward /tmp/n_head.py"""

import sys
from pathlib import Path

import torch
import torch.nn.functional as F

from nonlin.kernels import native32 as current

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-12-04c"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-12-05a"))
from interleave import interleaved_ns
from plain_bits import load_old

TEXTBOOK = {
    "geglu": lambda g, v: F.gelu(g) * v,
    "swiglu": lambda g, v: F.silu(g) * v,
    "glu": lambda g, v: torch.sigmoid(g) * v,
}

torch.set_num_threads(1)
n, (name, _, which) = int(sys.argv[1]), sys.argv[2].partition(":")
g, v, go = torch.randn(n) * 3, torch.randn(n), torch.randn(n)
dg, dv = torch.empty(n), torch.empty(n)
modules = {"working tree": current, **{path: load_old(path) for path in sys.argv[3:]}}
if which == "backward":
    jobs = {k: (lambda m=m: m.gated_backward(name, go, g, v, dg, dv)) for k, m in modules.items()}
else:
    jobs = {k: (lambda m=m: m.gated_forward(name, g, v)) for k, m in modules.items()}
    jobs["torch textbook"] = lambda: TEXTBOOK[name](g, v)
for k, t in interleaved_ns(jobs, n, 11).items():
    print(f"{name} {which or 'forward'} {n}: {k}: {t:.3f}")
