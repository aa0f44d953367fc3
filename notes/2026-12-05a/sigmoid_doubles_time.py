"""ns per element of the sigmoid and silu forwards computed in doubles (a prototype: the working tree's
native32.py with sigmoid_doubles_v1.diff or _v2.diff applied, saved elsewhere) against the working tree's
float32 kernels and torch's ops: x ~ 3 N(0, 1), one thread, medians of 9 interleaved rounds.

Usage: cp src/nonlin/kernels/native32.py /tmp/n_exp.py && patch /tmp/n_exp.py notes/2026-12-05a/sigmoid_doubles_v1.diff
       PYTHONPATH=src python notes/2026-12-05a/sigmoid_doubles_time.py 4194304 /tmp/n_exp.py"""

import sys
from pathlib import Path

import torch
import torch.nn.functional as F

from nonlin.kernels import native32 as current

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-12-04c"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from interleave import interleaved_ns
from plain_bits import load_old

torch.set_num_threads(1)
n = int(sys.argv[1])
doubles = load_old(sys.argv[2])
x = torch.randn(n) * 3
jobs = {}
for name, op in (("sigmoid", torch.sigmoid), ("silu", F.silu)):
    jobs[name + " float32 kernel"] = lambda name=name: current.forward(name, x)
    jobs[name + " doubles"] = lambda name=name: doubles.forward(name, x)
    jobs[name + " torch"] = lambda op=op: op(x)
medians = interleaved_ns(jobs, n)
for k, v in medians.items():
    print(f"{k}: {v:.2f}")
