"""nonlin.autograd.round_to: float64 to bfloat16 and float16 correctly rounded (nearest, ties to even), eagerly
(through float32 rounded to odd) and inside torch.compile (the midpoint test inductor vectorises), against a
reference computed from the float64 values and the half types' grids, every class of value."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from nonlin.autograd import round_to

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning")]

HALVES = [torch.bfloat16, torch.float16]


def _inputs(dtype: torch.dtype) -> torch.Tensor:
    """float64 values: random bit patterns; the midpoints of `dtype` (normal and subnormal, every binade) with
    neighbours closer than a float32 ULP on each side (where float64 -> float32 -> half misrounds) and about one
    ULP away; overflow and underflow boundaries, zeros, infinities, NaN."""
    g = torch.Generator().manual_seed(0)
    bits = torch.randint(-(2**63), 2**63 - 1, (1 << 16,), generator=g, dtype=torch.int64).view(torch.float64)
    fi = torch.finfo(dtype)
    top = 2.0 ** math.frexp(fi.max)[1]  # where the grid would go on past its largest value
    below = torch.randint(0, int(torch.tensor(fi.max, dtype=dtype).view(torch.int16)), (1 << 15,), generator=g)
    lo = below.to(torch.int16).view(dtype).double()  # every binade, subnormals too
    hi = (below + 1).to(torch.int16).view(dtype).double()
    midpoints = torch.cat([(lo + hi) / 2, torch.tensor([(fi.max + top) / 2])])
    near = [midpoints]
    # within half a float32 ULP (float32 rounds onto the midpoint), and about one ULP away (onto its neighbours)
    for offset in (2.0**-30, 2.0**-40, 2.0**-52, 1.5 * 2.0**-24, 3 * 2.0**-24, 2.5 * 2.0**-23):
        near += [midpoints * (1 + offset), midpoints * (1 - offset)]
    edges = torch.tensor(
        [0.0, math.inf, math.nan, fi.max, fi.smallest_normal, fi.tiny, 2.0**-149, 2.0**-150, 3 * 2.0**-151, 5e-324,
         1e-310, 3.4028235e38, 3.5e38, 1e300, 65504.0, 65519.99, 65520.0, 65520.0001, 70000.0, 2.0**-24, 2.0**-25]
    )  # fmt: skip
    x = torch.cat([bits, *near, edges])
    return torch.cat([x, -x])


def _reference(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Correct rounding from the two `dtype` values around |t| (float32 bit patterns of the grid, the difference
    to each exact in float64), ties to the even one."""
    fi = torch.finfo(dtype)
    a = np.abs(t.numpy())
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype == torch.float16:
            grid = np.arange(0, 0x7C01, dtype=np.uint16).view(np.float16).astype(np.float64)  # 0 ... inf
        else:
            grid = (np.arange(0, 0x7F81, dtype=np.uint32) << 16).view(np.float32).astype(np.float64)
        i = np.clip(np.searchsorted(grid, a, side="right") - 1, 0, len(grid) - 2)  # grid[i] <= a < grid[i + 1]
        lo, hi = grid[i], grid[i + 1]
        hi = np.where(hi == np.inf, 2.0 ** math.frexp(fi.max)[1], hi)  # the grid's next value: inf from its midpoint
        d_lo, d_hi = a - lo, hi - a
        up = (d_hi < d_lo) | ((d_hi == d_lo) & (i % 2 == 1))
        out = np.where(up, grid[i + 1], lo)
        out = np.where(a >= grid[-1], np.inf, out)
        out = np.where(np.isnan(a), np.nan, out)
    return torch.from_numpy(np.copysign(out, t.numpy())).to(dtype)  # exact: every value is on the grid


def _same(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a.view(torch.int16) == b.view(torch.int16)) | (a.isnan() & b.isnan())


@pytest.mark.parametrize("dtype", HALVES, ids=str)
@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_round_to_is_the_correct_rounding(dtype, compiled):
    t = _inputs(dtype)
    f = torch.compile(lambda x: round_to(x, dtype), dynamic=False) if compiled else (lambda x: round_to(x, dtype))
    got, want = f(t), _reference(t, dtype)
    bad = ~_same(got, want)
    assert not bad.any(), [
        (v, g, w) for v, g, w in zip(t[bad][:5].tolist(), got[bad][:5].tolist(), want[bad][:5].tolist(), strict=True)
    ]
    # the inputs reach the hard cases: float32 then the half type misrounds
    assert (~_same(t.float().to(dtype), want)).sum() > 1000


def test_round_to_passes_the_gradient_through():
    t = _inputs(torch.bfloat16)[:2000].clamp(-1e30, 1e30).nan_to_num(0.0).requires_grad_()
    compiled = torch.compile(lambda x: round_to(x, torch.bfloat16).float().sum(), dynamic=False)
    (grad,) = torch.autograd.grad(compiled(t), t)
    assert torch.equal(grad, torch.ones_like(t))
