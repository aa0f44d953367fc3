"""The hand-written kernels' outputs on fixed inputs (x over many binades, with NaN, infinities, signed zeros; go
scaled by 2^[-60, 60]), saved to compare two checkouts bit for bit (AVX2's interval lookups by `interval_rows` against
`lookup32`). Run from each checkout: PYTHONPATH=src python notes/2026-12-07e/table_bits.py OUT.pt; then compare the
two files with --compare A.pt B.pt"""

import sys

import torch

from nonlin.kernels import native32

if sys.argv[1] == "--compare":
    a, b = torch.load(sys.argv[2]), torch.load(sys.argv[3])
    bad = [k for k in a if not torch.equal(a[k].view(torch.int32), b[k].view(torch.int32))]
    print(f"{len(a)} outputs compared, {len(bad)} differ: {bad}")
    sys.exit(1 if bad or set(a) != set(b) else 0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(7)
n = 1 << 19
x = torch.randn(n, generator=g) * torch.exp2(torch.randint(-30, 8, (n,), generator=g).float())
x[:64] = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0] * 12 + [1e-45, -1e-45, 3.4e38, -3.4e38])
x[64 : 64 + 4096] = torch.linspace(-20, 20, 4096)
go = torch.randn(n, generator=g) * torch.exp2(torch.randint(-60, 60, (n,), generator=g).float())
v = torch.randn(n, generator=g) * 4
out = {}
for name in native32.PRIMITIVES:
    out[name + ".fwd"] = native32.forward(name, x)
    out[name + ".bwd"] = native32.backward(name, go, x)
for name in native32.GATED:
    out[name + ".fwd"] = native32.gated_forward(name, x, v)
    dg, dv = torch.empty_like(x), torch.empty_like(x)
    native32.gated_backward(name, go, x, v, dg, dv)
    out[name + ".dg"], out[name + ".dv"] = dg, dv
torch.save(out, sys.argv[1])
print(len(out), "outputs saved")
