"""Bits of every native32 kernel, forward and backward, against an earlier native32.py: every 251st float32
pattern, the tests' edges and 1M N(0, 25); go with NaN, infinities, zeros and 3e38.

    PYTHONPATH=src python notes/2026-12-05f/bits_cmp.py OLD_native32.py"""

import sys

import torch

sys.path.insert(0, "/work/main/notes/2026-12-04c")
sys.path.insert(0, "/work/main/tests/kernels")
from plain_bits import load_old

from nonlin.kernels import native32 as new

old = load_old(sys.argv[1])
from test_native32 import EDGES, _inputs  # noqa: E402

x = torch.cat([torch.from_numpy(_inputs(251)), torch.tensor(EDGES, dtype=torch.float32), torch.randn(1 << 20) * 5])
go = torch.randn(x.shape, generator=torch.Generator().manual_seed(3))
go[::97] = float("inf")
go[::89] = 0.0
go[::83] = float("nan")
go[::79] = 3e38


def same(a, b):
    return torch.equal(a.view(torch.int32)[~a.isnan()], b.view(torch.int32)[~a.isnan()]) and torch.equal(
        a.isnan(), b.isnan()
    )


bad = []
for k in new.PRIMITIVES:
    if not same(new.forward(k, x), old.forward(k, x)):
        bad.append(k + " fwd")
    if not same(new.backward(k, go, x), old.backward(k, go, x)):
        bad.append(k + " bwd")
v = x.flip(0)
for k in new.GATED:
    if k not in old.GATED:
        continue
    if not same(new.gated_forward(k, x, v), old.gated_forward(k, x, v)):
        bad.append(k + " fwd")
    d = [torch.empty_like(x) for _ in range(4)]
    new.gated_backward(k, go, x, v, d[0], d[1])
    old.gated_backward(k, go, x, v, d[2], d[3])
    if not (same(d[0], d[2]) and same(d[1], d[3])):
        bad.append(k + " bwd")
print("differing:", bad, "of", len(x), "inputs")
