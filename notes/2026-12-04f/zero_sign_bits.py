"""The signed-zero fix of scaled_product against an earlier native32, bit for bit: every STEP-th float32 bit
pattern as x (or g), go (and v) normal with specials sprinkled in (zeros of both signs among them), every kernel
(the inputs of notes/2026-12-04c/plain_bits.py). Prints, per kernel, the differing elements split into those
where go (or v) is a zero and both results are zeros (the fix: only the sign may differ there) and any other.

Usage: git show fd8beca:src/nonlin/kernels/native32.py > /tmp/native32_old.py
       PYTHONPATH=src python notes/2026-12-04f/zero_sign_bits.py /tmp/native32_old.py 61"""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "2026-12-04c"))
from plain_bits import chunks, gated_grads, load_old, new, other


def split(a: torch.Tensor, b: torch.Tensor, zero_input: torch.Tensor) -> tuple[int, int]:
    diff = ~((a.view(torch.int32) == b.view(torch.int32)) | (a.isnan() & b.isnan()))
    sign_only = diff & zero_input & (a == 0) & (b == 0)
    return int(sign_only.sum()), int((diff & ~sign_only).sum())


torch.set_num_threads(1)
old = load_old(sys.argv[1])
for name in [*new.PRIMITIVES, *new.GATED]:
    counts = {"elements": 0, "fwd": 0, "zero_sign": 0, "other": 0}
    for x in chunks(int(sys.argv[2])):
        o = other(x.numel())
        counts["elements"] += x.numel()
        if name in new.GATED:
            counts["fwd"] += sum(split(old.gated_forward(name, x, o), new.gated_forward(name, x, o), x != x))
            go = other(x.numel())
            (a, b), (c, d) = (gated_grads(m, name, go, x, o) for m in (old, new))
            for got_old, got_new, zero in ((a, c, (go == 0) | (o == 0)), (b, d, go == 0)):
                z, rest = split(got_old, got_new, zero)
                counts["zero_sign"] += z
                counts["other"] += rest
        else:
            counts["fwd"] += sum(split(old.forward(name, x), new.forward(name, x), x != x))
            z, rest = split(old.backward(name, o, x), new.backward(name, o, x), o == 0)
            counts["zero_sign"] += z
            counts["other"] += rest
    print(name, counts, flush=True)
