"""Sound extrema of f(x) - a x over intervals: the one computation every bound in nonlin.verify rests on.

For any slope a, b = min over [xl, xu] of f(x) - a x makes a x + b a sound lower bound of f on [xl, xu]
(and the max makes an upper bound). The minimum is found exactly, region by region (see curve.py):
- at the ends of each region met by [xl, xu] (and one ulp inside them, for the one-sided limits at jumps);
- inside a convex region, where f'(x) = a: bisection keeps a bracket [x_a, x_b] with f'(x_a) < a, and
  f(x_a) - a x_a + (f'(x_a) - a)(x_b - x_a) is below the minimum (f lies above its tangent at x_a);
- in an `unknown` region (oscillating tails), with the interval arithmetic of nonlin.accuracy.
Then a margin of MARGIN times the size of the terms (and an absolute TINY) is taken off: it covers the
rounding of f, f' and the products in float64 (a few ulps of 2^-52 each, against a margin of 2^-30; the interval
arithmetic the tests prove bounds with assumes erf within 2^-34).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from nonlin.verify.curve import CONCAVE, CONVEX, Curve

MARGIN = 2.0**-30
TINY = 2.0**-1000
SLOPE_FLOOR = 2.0**-12  # slope-error term in the margin: f' is accurate to ~2^-52 absolute at order-1 sizes
BISECTIONS = 20
F64 = torch.float64


def margin(fmax: torch.Tensor, a: torch.Tensor, xmax: torch.Tensor) -> torch.Tensor:
    return MARGIN * (fmax + (a.abs() + SLOPE_FLOOR) * xmax) + TINY


def _inward(x: torch.Tensor, toward: torch.Tensor) -> torch.Tensor:
    return torch.nextafter(x, toward)


@torch.no_grad()
def _overflow_down(y: torch.Tensor) -> torch.Tensor:
    """Values of g at or beyond -2^1023 may be an overflow clamped to the largest float (exp(1000)): the
    minimum of g is then taken as -inf, the only sound answer (an overflow rounds outward)."""
    return torch.where(y <= -(2.0**1023), -math.inf, y)


def lower_intercept(curve: Curve, xl: torch.Tensor, xu: torch.Tensor, a: torch.Tensor, sign=1.0):
    """(b, argmin): b <= min over [xl, xu] of g(x) - a x with g = sign * f; same shapes as xl (broadcast).

    Works on float64 tensors; `sign` is +-1, a number or a tensor (lower and upper bounds in one call);
    `argmin` is where the minimum is (for the envelope-theorem gradient db/da)."""
    sign = torch.as_tensor(sign, dtype=F64)
    shape = torch.broadcast_shapes(xl.shape, xu.shape, a.shape, sign.shape)
    xl, xu, a, sign = (t.expand(shape).reshape(-1).contiguous() for t in (xl, xu, a, sign))
    n = xl.numel()
    pts = torch.tensor(curve.points, dtype=F64)
    n_regions = len(curve.flags)
    lo_edges = torch.cat([torch.tensor([-math.inf], dtype=F64), pts])
    hi_edges = torch.cat([pts, torch.tensor([math.inf], dtype=F64)])
    # Only the regions [xl, xu] meets: slot j of element i is region k_lo[i] + j.
    k_lo = torch.searchsorted(pts, xl, right=False) if len(pts) else torch.zeros(n, dtype=torch.long)
    k_hi = torch.searchsorted(pts, xu, right=False) if len(pts) else torch.zeros(n, dtype=torch.long)
    slots = int((k_hi - k_lo).max()) + 1 if n else 1
    ks = k_lo[None] + torch.arange(slots)[:, None]  # [M, n]
    valid = ks <= k_hi[None]
    ks = torch.clamp(ks, max=n_regions - 1)
    flags = torch.tensor(curve.flags, dtype=torch.long)[ks]
    lk = torch.maximum(xl[None], lo_edges[ks])  # [M, n]
    uk = torch.minimum(xu[None], hi_edges[ks])
    valid &= lk <= uk
    lk = torch.where(valid, lk, xl[None])
    uk = torch.where(valid, uk, xl[None])
    lk_in = torch.minimum(_inward(lk, torch.full_like(lk, math.inf)), uk)
    uk_in = torch.maximum(_inward(uk, torch.full_like(uk, -math.inf)), lk)

    def g(x):
        return _overflow_down(sign * curve.f(x))

    def dg(x):
        return sign * curve.df(x)

    cand = torch.stack([lk, uk, lk_in, uk_in])  # [4, K, n]
    gv = g(cand)
    hv = gv - a * cand
    hv = torch.where(valid[None], hv, math.inf)
    hv = torch.nan_to_num(hv, nan=-math.inf, posinf=math.inf, neginf=-math.inf)  # an undefined value gives no bound
    best, where_best = hv.reshape(-1, n).min(0)
    # the margin needs a candidate's rounding (MARGIN |g_c|) only where it could bring h_c below the best:
    # MARGIN * fmax >= MARGIN |g_c| - (h_c - best) for every candidate c (exp on [-60, 60]: e^60 is far above)
    gabs = torch.where(valid[None], gv.abs(), 0.0).nan_to_num(nan=0.0, posinf=0.0)
    above = (hv - best).nan_to_num(nan=0.0, posinf=math.inf, neginf=0.0)
    fmax = torch.clamp(gabs - above / MARGIN, min=0.0).nan_to_num(nan=0.0).amax(dim=(0, 1))
    arg = cand.reshape(-1, n).gather(0, where_best[None])[0]

    convex_bit = torch.where(sign > 0, CONVEX, CONCAVE)
    is_conv = valid & ((flags & convex_bit[None]) > 0) & (flags != (CONVEX | CONCAVE))
    if bool(is_conv.any()):
        ca, cb, cv = lk_in, uk_in, is_conv  # [M, n]
        da, db_ = dg(ca) - a, dg(cb) - a
        inside = cv & (da < 0) & (db_ > 0)
        if bool(inside.any()):
            # bisection only where the minimum is inside a convex region
            rows, cols = torch.nonzero(inside, as_tuple=True)
            xa, xb, ai, si = ca[rows, cols], cb[rows, cols], a[cols], sign[cols]
            for _ in range(BISECTIONS):
                mid = xa + (xb - xa) / 2
                below = (si * curve.df(mid) - ai) < 0
                xa = torch.where(below, mid, xa)
                xb = torch.where(below, xb, mid)
            ga, dga = _overflow_down(si * curve.f(xa)), si * curve.df(xa) - ai
            bound = ga - ai * xa + torch.clamp(dga, max=0.0) * (xb - xa)
            # tighter, and exact at a kink inside the bracket (|x| at 0): h = g - a x is convex with h' < 0 at xa
            # and >= 0 at xb, so h >= max of its two end tangents >= their value where they cross
            gb, dgb = _overflow_down(si * curve.f(xb)), si * curve.df(xb) - ai
            ha, hb = ga - ai * xa, gb - ai * xb
            cross = (hb - ha + dga * xa - dgb * xb) / (dga - dgb)
            meet = ha + dga * (cross - xa)
            usable = (dga < 0) & (dgb >= 0) & torch.isfinite(meet) & (cross >= xa) & (cross <= xb)
            bound = torch.where(usable, torch.maximum(bound, meet), bound)
            bound = torch.nan_to_num(bound, nan=-math.inf, posinf=math.inf, neginf=-math.inf)
            full = torch.full_like(ca, math.inf)
            full[rows, cols] = bound
            at = torch.zeros_like(ca)
            at[rows, cols] = xa
            gabs = torch.zeros_like(ca)
            gabs[rows, cols] = ga.abs().nan_to_num(0.0, 0.0, 0.0)
            fmax = torch.maximum(fmax, gabs.amax(0))
            cb_best, cw = full.min(0)
            take = cb_best < best
            arg = torch.where(take, at.gather(0, cw[None])[0], arg)
            best = torch.where(take, cb_best, best)

    uv = valid & (flags == 0)
    if bool(uv.any()):
        ul, uu = lk, uk
        if curve.interval_f is not None:
            flo, fhi = curve.interval_f(ul.numpy().astype(np.float64), uu.numpy().astype(np.float64))
            glo = torch.where(sign > 0, torch.from_numpy(np.asarray(flo)), -torch.from_numpy(np.asarray(fhi)))
            lin_max = torch.maximum(a * ul, a * uu)
            bound = torch.where(uv, glo - lin_max, math.inf)
            ub, uw = bound.min(0)
            take = ub < best
            arg = torch.where(take, ul.gather(0, uw[None])[0], arg)
            best = torch.where(take, ub, best)
        else:
            best = torch.where(uv.any(0), -math.inf, best)
    xmax = torch.maximum(xl.abs(), xu.abs())
    best = best - margin(fmax, a, xmax)
    return best.reshape(shape), arg.reshape(shape)


class _Intercept(torch.autograd.Function):
    """b(a) = min_x g(x) - a x with the envelope-theorem gradient db/da = -argmin (alpha-CROWN)."""

    @staticmethod
    def forward(ctx, a, curve, xl, xu, sign):
        b, arg = lower_intercept(curve, xl, xu, a.detach(), sign)
        ctx.save_for_backward(arg)
        return b

    @staticmethod
    def backward(ctx, grad):
        (arg,) = ctx.saved_tensors
        return -grad * arg, None, None, None, None


def intercept(curve: Curve, xl: torch.Tensor, xu: torch.Tensor, a: torch.Tensor, sign: float = 1.0) -> torch.Tensor:
    """Differentiable in `a` (for optimizing slopes); sound for every a."""
    if a.requires_grad:
        return _Intercept.apply(a, curve, xl, xu, sign)
    return lower_intercept(curve, xl, xu, a, sign)[0]
