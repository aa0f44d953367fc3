"""The signed-zero fix of scaled_product against an earlier native32, bit for bit: every STEP-th float32 bit
pattern as x (or g), go (and v) normal with specials sprinkled in (zeros of both signs among them), every kernel.
Prints, per kernel, the differing elements split into those where go (or v) is a zero and both results are zeros
(the fix: only the sign may differ there) and any other (must be 0).

Usage: git show fd8beca:src/nonlin/kernels/native32.py > /tmp/native32_old.py
       PYTHONPATH=src python notes/2026-12-04f/zero_sign_bits.py /tmp/native32_old.py 61"""

import importlib.util
import sys

import torch

from nonlin.kernels import native32 as new

torch.set_num_threads(1)
spec = importlib.util.spec_from_file_location("native32_old", sys.argv[1])
old = importlib.util.module_from_spec(spec)
spec.loader.exec_module(old)
STEP = int(sys.argv[2])
gen = torch.Generator().manual_seed(0)
SPECIAL = torch.tensor([0.0, -0.0, 1e-45, -1e-45, 1e-30, 3e38, -3e38, float("inf"), -float("inf"), float("nan")])


def other(n: int) -> torch.Tensor:
    t = torch.randn(n, generator=gen) * 3
    at = torch.randint(0, n, (n // 64,), generator=gen)
    t[at] = SPECIAL[torch.randint(0, len(SPECIAL), (n // 64,), generator=gen)]
    return t


def split(a: torch.Tensor, b: torch.Tensor, zero_input: torch.Tensor) -> tuple[int, int]:
    diff = ~((a.view(torch.int32) == b.view(torch.int32)) | (a.isnan() & b.isnan()))
    sign_only = diff & zero_input & (a == 0) & (b == 0)
    return int(sign_only.sum()), int((diff & ~sign_only).sum())


CHUNK = 1 << 27
for name in [*new.PRIMITIVES, *new.GATED]:
    counts = {"elements": 0, "fwd": 0, "zero_sign": 0, "other": 0}
    for lo in range(0, 1 << 32, CHUNK):
        b = torch.arange(lo, lo + CHUNK, STEP, dtype=torch.int64)
        x = (b - (1 << 32) * (b >= (1 << 31))).to(torch.int32).view(torch.float32)
        o = other(x.numel())
        counts["elements"] += x.numel()
        if name in new.GATED:
            counts["fwd"] += sum(split(old.gated_forward(name, x, o), new.gated_forward(name, x, o), x != x))
            go = other(x.numel())
            grads = []
            for m in (old, new):
                dg, dv = torch.empty_like(x), torch.empty_like(x)
                m.gated_backward(name, go, x, o, dg, dv)
                grads.append((dg, dv))
            for i, zero in ((0, (go == 0) | (o == 0)), (1, go == 0)):
                z, rest = split(grads[0][i], grads[1][i], zero)
                counts["zero_sign"] += z
                counts["other"] += rest
        else:
            counts["fwd"] += sum(split(old.forward(name, x), new.forward(name, x), x != x))
            z, rest = split(old.backward(name, o, x), new.backward(name, o, x), o == 0)
            counts["zero_sign"] += z
            counts["other"] += rest
    print(name, counts, flush=True)
