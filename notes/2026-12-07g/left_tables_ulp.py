"""Max ULP of native32's float32 gelu forward, gelu backward and silu backward against float64 on dense points
of the tables' ranges (every 17th float32 bit pattern in (-4, 4), or (-8, 8) for silu'; go = 1 and go ~ N(0, 1)),
whichever form this checkout's kernels take on this machine's ISA.

    PYTHONPATH=src python notes/2026-12-07g/left_tables_ulp.py
"""

import math

import numpy as np
import torch

from nonlin.kernels import native32

torch.set_num_threads(2)
STEP = 17


def points(limit: float):
    top = int(np.float32(limit).view(np.int32))
    for sign in (0, 1 << 31):
        for start in range(0, top, STEP * (1 << 22)):
            b = torch.arange(start, min(start + STEP * (1 << 22), top), STEP, dtype=torch.int64) + sign
            yield (b - (1 << 32) * (b >= (1 << 31))).to(torch.int32).view(torch.float32).contiguous()


def ulp(got: torch.Tensor, ref: torch.Tensor) -> float:
    r = ref.float().abs()
    spacing = (torch.nextafter(r, torch.tensor(math.inf)) - r).double()
    return ((got.double() - ref).abs() / spacing).max().item()


def gelu64(x):
    return x * torch.special.ndtr(x)


def gelu_grad64(x):
    return torch.special.ndtr(x) + x * torch.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def silu_grad64(x):
    s = torch.sigmoid(x)
    return s * (1 + x * (1 - s))


gen = torch.Generator().manual_seed(0)
worst = {"gelu fwd": 0.0, "gelu bwd go=1": 0.0, "gelu bwd go~N": 0.0, "silu bwd go=1": 0.0, "silu bwd go~N": 0.0}
for x in points(4.0):
    x64 = x.double()
    worst["gelu fwd"] = max(worst["gelu fwd"], ulp(native32.forward("gelu", x), gelu64(x64)))
    g = gelu_grad64(x64)
    worst["gelu bwd go=1"] = max(worst["gelu bwd go=1"], ulp(native32.backward("gelu", torch.ones_like(x), x), g))
    go = torch.randn(x.shape, generator=gen)
    worst["gelu bwd go~N"] = max(worst["gelu bwd go~N"], ulp(native32.backward("gelu", go, x), go.double() * g))
for x in points(8.0):
    g = silu_grad64(x.double())
    worst["silu bwd go=1"] = max(worst["silu bwd go=1"], ulp(native32.backward("silu", torch.ones_like(x), x), g))
    go = torch.randn(x.shape, generator=gen)
    worst["silu bwd go~N"] = max(worst["silu bwd go~N"], ulp(native32.backward("silu", go, x), go.double() * g))
print(torch.backends.cpu.get_cpu_capability(), {k: round(v, 3) for k, v in worst.items()})
