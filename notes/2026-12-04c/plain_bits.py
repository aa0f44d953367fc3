"""The native32 kernels of an earlier commit against the working tree's, bit for bit: every STEP-th float32 bit
pattern as x (or g), the other input normal with specials sprinkled in, forward and backward, every kernel.
Its pieces (`load_old`, `chunks`, `other`, `gated_grads`) serve notes/2026-12-04f/zero_sign_bits.py too.

Usage: git show a2bf46c:src/nonlin/kernels/native32.py > /tmp/native32_old.py
       PYTHONPATH=src python notes/2026-12-04c/plain_bits.py /tmp/native32_old.py 7 [name,name,...]"""

import importlib.util
import sys
from collections.abc import Iterator

import torch

from nonlin.kernels import native32 as new

SPECIAL = torch.tensor([0.0, -0.0, 1e-45, -1e-45, 1e-30, 3e38, -3e38, float("inf"), -float("inf"), float("nan")])
CHUNK = 1 << 27
gen = torch.Generator().manual_seed(0)


def load_old(path: str):
    """The native32 module saved at `path` (an earlier commit's), imported beside the working tree's."""
    spec = importlib.util.spec_from_file_location("native32_old", path)
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    return old


def chunks(step: int) -> Iterator[torch.Tensor]:
    """Every step-th float32 bit pattern, in chunks of CHUNK patterns."""
    for lo in range(0, 1 << 32, CHUNK):
        b = torch.arange(lo, lo + CHUNK, step, dtype=torch.int64)
        yield (b - (1 << 32) * (b >= (1 << 31))).to(torch.int32).view(torch.float32)


def other(n: int) -> torch.Tensor:
    """A second input: 3 N(0, 1) with SPECIAL values at one element in 64."""
    t = torch.randn(n, generator=gen) * 3
    at = torch.randint(0, n, (n // 64,), generator=gen)
    t[at] = SPECIAL[torch.randint(0, len(SPECIAL), (n // 64,), generator=gen)]
    return t


def gated_grads(m, name: str, go: torch.Tensor, g: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(d/dg, d/dv) of module m's gated kernel."""
    dg, dv = torch.empty_like(g), torch.empty_like(g)
    m.gated_backward(name, go, g, v, dg, dv)
    return dg, dv


def differing(a: torch.Tensor, b: torch.Tensor) -> int:
    return int((~((a.view(torch.int32) == b.view(torch.int32)) | (a.isnan() & b.isnan()))).sum())


if __name__ == "__main__":
    torch.set_num_threads(1)
    old = load_old(sys.argv[1])
    STEP = int(sys.argv[2])
    names = sys.argv[3].split(",") if len(sys.argv) > 3 else [*new.PRIMITIVES, *new.GATED]
    for name in names:
        counts = {"elements": 0, "fwd": 0, "bwd": 0}
        for x in chunks(STEP):
            o = other(x.numel())
            counts["elements"] += x.numel()
            if name in new.GATED:
                counts["fwd"] += differing(old.gated_forward(name, x, o), new.gated_forward(name, x, o))
                go = other(x.numel())
                (a, b), (c, d) = (gated_grads(m, name, go, x, o) for m in (old, new))
                counts["bwd"] += differing(a, c) + differing(b, d)
            else:
                counts["fwd"] += differing(old.forward(name, x), new.forward(name, x))
                counts["bwd"] += differing(old.backward(name, o, x), new.backward(name, o, x))
        print(name, counts, flush=True)
