"""ns per element of hardswish's native32 kernels, an earlier commit's (old) against the working tree's (new),
beside torch's ops and a copy: x ~ 3 N(0, 1), one thread, medians of 9 interleaved rounds.

Usage: git show 8b15e7f:src/nonlin/kernels/native32.py > /tmp/n_old.py
       PYTHONPATH=src python notes/2026-12-05a/hardswish_time.py /tmp/n_old.py 4194304"""

import sys
from pathlib import Path

import torch
import torch.nn.functional as F

from nonlin.kernels import native32 as new

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-12-04c"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from interleave import interleaved_ns
from plain_bits import load_old

torch.set_num_threads(1)
old = load_old(sys.argv[1])
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 22
x = torch.randn(n) * 3
go = torch.randn(n)
jobs = {
    "old fwd": lambda: old.forward("hardswish", x),
    "new fwd": lambda: new.forward("hardswish", x),
    "torch fwd": lambda: F.hardswish(x),
    "old bwd": lambda: old.backward("hardswish", go, x),
    "new bwd": lambda: new.backward("hardswish", go, x),
    "torch bwd": lambda: torch.ops.aten.hardswish_backward(go, x),
    "copy": lambda: x.clone(),
}
medians = interleaved_ns(jobs, n)
print(f"{n} float32 elements, one thread, medians of 9 interleaved rounds (ns per element)")
for k, v in medians.items():
    print(f"{k}: {v:.2f}")
