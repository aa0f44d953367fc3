"""The native32 kernels of an earlier commit against the working tree's, bit for bit: every STEP-th float32 bit
pattern as x (or g), the other input normal with specials sprinkled in, forward and backward, every kernel.

Usage: git show a2bf46c:src/nonlin/kernels/native32.py > /tmp/native32_old.py
       PYTHONPATH=src python notes/2026-12-04c/plain_bits.py /tmp/native32_old.py 7 [name,name,...]"""

import importlib.util
import sys

import torch

from nonlin.kernels import native32 as new

torch.set_num_threads(1)
spec = importlib.util.spec_from_file_location("native32_old", sys.argv[1])
old = importlib.util.module_from_spec(spec)
spec.loader.exec_module(old)
STEP = int(sys.argv[2])
names = sys.argv[3].split(",") if len(sys.argv) > 3 else [*new.PRIMITIVES, *new.GATED]
gen = torch.Generator().manual_seed(0)
SPECIAL = torch.tensor([0.0, -0.0, 1e-45, -1e-45, 1e-30, 3e38, -3e38, float("inf"), -float("inf"), float("nan")])


def differing(a: torch.Tensor, b: torch.Tensor) -> int:
    return int((~((a.view(torch.int32) == b.view(torch.int32)) | (a.isnan() & b.isnan()))).sum())


def other(n: int) -> torch.Tensor:
    t = torch.randn(n, generator=gen) * 3
    at = torch.randint(0, n, (n // 64,), generator=gen)
    t[at] = SPECIAL[torch.randint(0, len(SPECIAL), (n // 64,), generator=gen)]
    return t


CHUNK = 1 << 27
for name in names:
    counts = {"elements": 0, "fwd": 0, "bwd": 0}
    for lo in range(0, 1 << 32, CHUNK):
        b = torch.arange(lo, lo + CHUNK, STEP, dtype=torch.int64)
        x = (b - (1 << 32) * (b >= (1 << 31))).to(torch.int32).view(torch.float32)
        o = other(x.numel())
        counts["elements"] += x.numel()
        if name in new.GATED:
            counts["fwd"] += differing(old.gated_forward(name, x, o), new.gated_forward(name, x, o))
            go = other(x.numel())
            grads = []
            for m in (old, new):
                dg, dv = torch.empty_like(x), torch.empty_like(x)
                m.gated_backward(name, go, x, o, dg, dv)
                grads.append((dg, dv))
            counts["bwd"] += differing(grads[0][0], grads[1][0]) + differing(grads[0][1], grads[1][1])
        else:
            counts["fwd"] += differing(old.forward(name, x), new.forward(name, x))
            counts["bwd"] += differing(old.backward(name, o, x), new.backward(name, o, x))
    print(name, counts, flush=True)
