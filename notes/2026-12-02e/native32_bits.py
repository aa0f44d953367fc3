"""Every native32 kernel's outputs on 3.1M float32 inputs (random bit patterns, a dense [-30, 30], the edges),
saved to compare two versions or two ISAs bit for bit.

Usage: PYTHONPATH=src python notes/2026-12-02e/native32_bits.py OUT.pt [OTHER.pt]  (with OTHER: the differing
elements per output)"""

import sys

import torch

from nonlin.kernels import native32

torch.set_num_threads(1)
g = torch.Generator().manual_seed(0)
bits = torch.randint(-(2**31), 2**31 - 1, (1 << 21,), generator=g, dtype=torch.int32).view(torch.float32)
edges = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan")])
x = torch.cat([bits, torch.linspace(-30, 30, 1 << 20), edges])
go = torch.randn(x.numel(), generator=g) * torch.exp2(torch.randint(-60, 60, (x.numel(),), generator=g).float())
v = torch.randn(x.numel(), generator=g) * torch.exp2(torch.randint(-60, 60, (x.numel(),), generator=g).float())
out = {}
for p in native32.PRIMITIVES:
    out[p + ".fwd"] = native32.forward(p, x)
    out[p + ".bwd"] = native32.backward(p, go, x)
for p in native32.GATED:
    out[p + ".fwd"] = native32.gated_forward(p, x, v)
    dg, dv = torch.empty_like(x), torch.empty_like(x)
    native32.gated_backward(p, go, x, v, dg, dv)
    out[p + ".dg"], out[p + ".dv"] = dg, dv
torch.save(out, sys.argv[1])
if len(sys.argv) > 2:
    other = torch.load(sys.argv[2])
    for k, y in out.items():
        if k in other:
            print(k, int((y.view(torch.int32) != other[k].view(torch.int32)).sum()))
