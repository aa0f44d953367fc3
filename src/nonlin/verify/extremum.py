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
from functools import lru_cache

import numpy as np
import torch

from nonlin.verify.curve import CONCAVE, CONVEX, TAIL_END, Curve

MARGIN = 2.0**-30
TINY = 2.0**-1000
SLOPE_FLOOR = 2.0**-12  # slope-error term in the margin: f' is accurate to ~2^-52 absolute at order-1 sizes
SLOPE_SLACK = 2.0**-40  # relative rounding allowed to a computed h' = f' - a times a distance
BRACKET_STEPS = 10  # f' evaluations that shrink the bracket of an interior minimum
F64 = torch.float64


def margin(fmax: torch.Tensor, a: torch.Tensor, xmax: torch.Tensor) -> torch.Tensor:
    return MARGIN * (fmax + (a.abs() + SLOPE_FLOOR) * xmax) + TINY


@torch.no_grad()
def _overflow_down(y: torch.Tensor) -> torch.Tensor:
    """Values of g at or beyond -2^1023 may be an overflow clamped to the largest float (exp(1000)): the
    minimum of g is then taken as -inf, the only sound answer (an overflow rounds outward)."""
    return torch.where(y <= -(2.0**1023), -math.inf, y)


@lru_cache(maxsize=512)
def _tables(curve: Curve):
    """The curve's region tables as tensors (built once per curve, not per call)."""
    pts = torch.tensor(curve.points, dtype=F64)
    inf = torch.tensor([math.inf], dtype=F64)
    return pts, torch.cat([-inf, pts]), torch.cat([pts, inf]), torch.tensor(curve.flags, dtype=torch.long)


@lru_cache(maxsize=512)
def _stationary(curve: Curve) -> tuple[tuple[torch.Tensor, torch.Tensor, torch.Tensor], ...]:
    """Per kind (minima in convex regions, maxima in concave ones): (a, b, bound) with a < b adjacent floats
    where g' = sign f' goes from < 0 to >= 0 (bisection to the last bit), and a rigorous lower bound of g on
    the whole region: the value where the tangents of g at a and b cross (g lies above both; exact at a kink)."""
    _, lo_e, hi_e, flags = _tables(curve)
    lo_e = lo_e.clamp(min=-TAIL_END)
    hi_e = hi_e.clamp(max=TAIL_END)
    lo_in = torch.nextafter(lo_e, hi_e)
    hi_in = torch.nextafter(hi_e, lo_e)
    out = []
    for bit in (CONVEX, CONCAVE):
        s = 1.0 if bit == CONVEX else -1.0
        ok = ((flags & bit) > 0) & (flags != (CONVEX | CONCAVE)) & (lo_in < hi_in)
        a, b = lo_in[ok], hi_in[ok]
        with torch.no_grad():
            da, db = s * curve.df(a), s * curve.df(b)
            sign_change = (da < 0) & (db > 0)
            a, b = a[sign_change], b[sign_change]
            for _ in range(2100):  # bisection to adjacent floats (2^11 exponents * 52 bits is a loose cap)
                m = a + (b - a) / 2
                if not bool(((m > a) & (m < b)).any()):
                    break
                neg = s * curve.df(m) < 0
                a, b = torch.where(neg, m, a), torch.where(neg, b, m)
            order = torch.argsort(a)
            a, b = a[order], b[order]
            ga, gb = s * curve.f(a), s * curve.f(b)
            fa, fb = s * curve.df(a), s * curve.df(b)
            cross = (gb - ga + fa * a - fb * b) / (fa - fb)
            meet = ga + fa * (torch.clamp(cross, a, b) - a) * (1 + SLOPE_SLACK)
            bound = torch.minimum(torch.minimum(ga, gb), meet.nan_to_num(nan=-math.inf))
            bound = torch.where((fa < 0) & (fb >= 0), bound, -math.inf)
        out.append((a, b, bound))
    return tuple(out)


def stationary_points(curve: Curve) -> tuple[torch.Tensor, torch.Tensor]:
    """(minima, maxima): the points inside convex (concave) regions where f' = 0, sorted; found once per
    curve by bisection to the last bit. They are only hints (`lower_intercept(touch=...)` is sound for any
    point), so a slope range of f (the exact range: slope 0) needs no search."""
    (mins, _, _), (maxs, _, _) = _stationary(curve)
    return mins, maxs


def next_stationary(curve: Curve, xl: torch.Tensor, minimum: bool) -> torch.Tensor:
    """The first minimum (maximum) of f at or after xl, or xl where there is none (a touch hint)."""
    s = stationary_points(curve)[0 if minimum else 1]
    if not len(s):
        return xl
    k = torch.searchsorted(s, xl).clamp(max=len(s) - 1)
    t = s[k]
    return torch.where(t >= xl, t, xl)


@lru_cache(maxsize=512)
def _range_candidates(curve: Curve):
    """For `fast_range`: the region boundaries, and the stationary points with f and |f'| there, or None when
    the curve has jumps, unknown regions or too many points (then lower_intercept does it)."""
    (a_min, b_min, f_min), (a_max, b_max, g_max) = _stationary(curve)
    if curve.jumps or 0 in curve.flags or len(curve.points) + len(a_min) + len(a_max) > FAST_RANGE_POINTS:
        return None
    return torch.tensor(curve.points, dtype=F64), a_min, b_min, f_min, a_max, b_max, -g_max


FAST_RANGE_POINTS = 16


def fast_range(curve: Curve, xl: torch.Tensor, xu: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor] | None:
    """[min f, max f] over each [xl, xu] without a search, or None where the curve does not allow it.

    f is continuous (no jumps), and in each convex (concave) region f' is monotone, so f changes direction
    only at the stationary points found once per curve: the range is reached at xl, xu, a region boundary
    inside, or a stationary point inside, where the region's rigorous bound from `_stationary` (the crossing
    of the tangents at the two floats around it) is taken. The margin is extremum.margin's, counted as in
    lower_intercept."""
    tables = _range_candidates(curve)
    if tables is None or not bool((xl.abs() <= TAIL_END).all() & (xu.abs() <= TAIL_END).all()):
        return None
    pts, a_min, b_min, f_min, a_max, b_max, f_max = tables
    shape = xl.shape
    xl, xu = xl.reshape(-1), xu.reshape(-1)
    xs = torch.cat([xl[None], xu[None], torch.minimum(torch.maximum(pts[:, None], xl), xu)])  # [2 + P, n]
    fx = curve.f(xs)
    lo_c, hi_c = [fx], [fx]
    # a stationary point's bracket [a, b] inside [xl, xu]: the region's bound there (else f is monotone)
    if len(a_min):
        inside = (xl <= a_min[:, None]) & (xu >= b_min[:, None])
        lo_c.append(torch.where(inside, f_min[:, None], math.inf))
    if len(a_max):
        inside = (xl <= a_max[:, None]) & (xu >= b_max[:, None])
        hi_c.append(torch.where(inside, f_max[:, None], -math.inf))
    lo_all, hi_all = torch.cat(lo_c), torch.cat(hi_c)
    lo_all = _overflow_down(lo_all.nan_to_num(nan=-math.inf))
    hi_all = -_overflow_down(-hi_all.nan_to_num(nan=math.inf))
    lo, hi = lo_all.amin(0), hi_all.amax(0)
    xmax = torch.maximum(xl.abs(), xu.abs())
    zero = torch.zeros_like(xl)
    out = []
    for vals, best, sgn in ((lo_all, lo, 1.0), (hi_all, hi, -1.0)):
        # a candidate's rounding counts only where it could undercut the best (as in lower_intercept)
        above = (sgn * (vals - best)).nan_to_num(nan=0.0, posinf=math.inf, neginf=0.0)
        fm = torch.clamp(vals.abs().nan_to_num(nan=0.0, posinf=0.0) - above / MARGIN, min=0.0).nan_to_num(nan=0.0)
        out.append(best - sgn * margin(fm.amax(0), zero, xmax))
    return out[0].reshape(shape), out[1].reshape(shape)


def _convex_minimum(curve: Curve, xa, xb, fa, fb, a, sign):
    """A lower bound of min over [xa, xb] of h(x) = g(x) - a x, g = sign * f convex there, h'(xa) = fa < 0 < fb.

    The bracket is shrunk by false position and bisection on h' together, BRACKET_STEPS evaluations of
    f' in all. The bound is the best of h(xa) + h'(xa)(xb - xa),
    h(xb) - h'(xb)(xb - xa) and the value where the tangents of h at the two ends cross (h lies above both;
    for h = c (x - x*)^2 it is short of the minimum by c d_a d_b, d the distances of the ends to x*), each
    counted with the rounding of the values it uses. Returns (bound, where the minimum is estimated,
    the |g| whose rounding the bound carries, for the margin)."""
    for _ in range(BRACKET_STEPS):
        # the false-position point and the midpoint, in one evaluation of f': the bracket at least halves
        # each step, and shrinks superlinearly where h' is smooth
        fp = (xa * fb - xb * fa) / (fb - fa)
        half = xa + (xb - xa) / 2
        fp = torch.where((fp > xa) & (fp < xb), fp, half)
        t = torch.stack([fp, half])
        dt = sign * curve.df(t) - a
        for i in (0, 1):
            left = (dt[i] < 0) & (t[i] > xa)  # the root is right of t: t becomes the new xa
            right = ~(dt[i] < 0) & (t[i] < xb)
            xa, fa = torch.where(left, t[i], xa), torch.where(left, dt[i], fa)
            xb, fb = torch.where(right, t[i], xb), torch.where(right, dt[i], fb)
    gab = _overflow_down(sign * curve.f(torch.stack([xa, xb])))
    ga, gb = gab[0], gab[1]
    ha, hb = ga - a * xa, gb - a * xb
    mag_a, mag_b = ga.abs(), gb.abs()
    # h lies above its tangent at each end: bounds from one end (their rounding is that end's)...
    from_a = ha + torch.clamp(fa, max=0.0) * (xb - xa) * (1 + SLOPE_SLACK)  # with the rounding of h'
    from_b = hb - torch.clamp(fb, min=0.0) * (xb - xa) * (1 + SLOPE_SLACK)
    # ...and, tighter and exact at a kink inside the bracket (|x| at 0), the value where the two tangents cross
    # (h' < 0 at xa and >= 0 at xb: h >= the max of the two tangents >= their value where they cross)
    cross = (hb - ha + fa * xa - fb * xb) / (fa - fb)
    meet = ha + fa * (cross - xa)
    usable = (fa < 0) & (fb >= 0) & torch.isfinite(meet) & (cross >= xa) & (cross <= xb)
    meet = torch.where(usable, meet, -math.inf)
    mag_m = torch.maximum(mag_a, mag_b)
    cands = torch.stack([from_a, from_b, meet]).nan_to_num(nan=-math.inf, posinf=math.inf, neginf=-math.inf)
    mags = torch.stack([mag_a, mag_b, mag_m]).nan_to_num(0.0, 0.0, 0.0)
    pick = (cands - MARGIN * mags).argmax(0, keepdim=True)
    bound, mag = cands.gather(0, pick)[0], mags.gather(0, pick)[0]
    at = torch.where(usable, cross, torch.where(-fa < fb, xa, xb))
    return bound, at, mag


def lower_intercept(
    curve: Curve, xl: torch.Tensor, xu: torch.Tensor, a: torch.Tensor, sign=1.0, *, touch: torch.Tensor | None = None
):
    """(b, argmin): b <= min over [xl, xu] of g(x) - a x with g = sign * f; same shapes as xl (broadcast).

    Works on float64 tensors; `sign` is +-1, a number or a tensor (lower and upper bounds in one call);
    `argmin` is where the minimum is (for the envelope-theorem gradient db/da). `touch` (optional) is a
    point where the line is known to (nearly) touch g, as for a tangent at `touch`: in the convex region
    that holds it, the bound there is g's tangent at `touch`, h(t) + h'(t)(x - t), taken at the region's
    ends (sound for any touch point; tight when h'(t) is ~0), instead of a search for the minimum."""
    sign = torch.as_tensor(sign, dtype=F64)
    shape = torch.broadcast_shapes(xl.shape, xu.shape, a.shape, sign.shape)
    if touch is not None:
        shape = torch.broadcast_shapes(shape, touch.shape)
        touch = touch.expand(shape).reshape(-1)
    xl, xu, a, sign = (t.expand(shape).reshape(-1) for t in (xl, xu, a, sign))
    n = xl.numel()
    pts, lo_edges, hi_edges, flag_table = _tables(curve)
    n_regions = len(curve.flags)
    # Only the regions [xl, xu] meets: slot j of element i is region k_lo[i] + j.
    if len(pts):
        k_lo, k_hi = torch.searchsorted(pts, xl), torch.searchsorted(pts, xu)
        slots = int((k_hi - k_lo).max()) + 1 if n else 1
    else:
        k_lo = k_hi = torch.zeros(n, dtype=torch.long)
        slots = 1
    if slots == 1:
        ks, valid = k_lo[None], torch.ones(1, n, dtype=torch.bool)
        lk, uk = xl[None], xu[None]
    else:
        ks = k_lo[None] + torch.arange(slots)[:, None]  # [M, n]
        valid = ks <= k_hi[None]
        ks = torch.clamp(ks, max=n_regions - 1)
        lk = torch.maximum(xl[None], lo_edges[ks])  # [M, n]
        uk = torch.minimum(xu[None], hi_edges[ks])
        valid &= lk <= uk
        lk = torch.where(valid, lk, xl[None])
        uk = torch.where(valid, uk, xl[None])
    flags = flag_table[ks]
    lk_in = torch.minimum(torch.nextafter(lk, uk), uk)  # one ulp inside (one-sided limits at jumps)
    uk_in = torch.maximum(torch.nextafter(uk, lk), lk)

    cand = torch.stack([lk, uk, lk_in, uk_in])  # [4, M, n]
    gv = _overflow_down(sign * curve.f(cand))
    hv = gv - a * cand
    if slots > 1:
        hv = torch.where(valid[None], hv, math.inf)
    hv = torch.nan_to_num(hv, nan=-math.inf, posinf=math.inf, neginf=-math.inf)  # an undefined value gives no bound
    best, where_best = hv.reshape(-1, n).min(0)
    # the margin needs a candidate's rounding (MARGIN |g_c|) only where it could bring h_c below the best:
    # MARGIN * fmax >= MARGIN |g_c| - (h_c - best) for every candidate c (exp on [-60, 60]: e^60 is far above)
    gabs = gv.abs() if slots == 1 else torch.where(valid[None], gv.abs(), 0.0)
    gabs = gabs.nan_to_num(nan=0.0, posinf=0.0)
    above = (hv - best).nan_to_num(nan=0.0, posinf=math.inf, neginf=0.0)
    fmax = torch.clamp(gabs - above / MARGIN, min=0.0).nan_to_num(nan=0.0).reshape(-1, n).amax(0)
    arg = cand.reshape(-1, n).gather(0, where_best[None])[0]

    convex_bit = torch.where(sign > 0, CONVEX, CONCAVE)
    is_conv = valid & ((flags & convex_bit[None]) > 0) & (flags != (CONVEX | CONCAVE))
    if bool(is_conv.any()):
        # where the minimum is inside a convex region: h' < 0 just inside its left end and > 0 inside its right
        rows, cols = torch.nonzero(is_conv, as_tuple=True)
        ca, cb, ai, si = lk_in[rows, cols], uk_in[rows, cols], a[cols], sign[cols]
        d = si.repeat(2) * curve.df(torch.cat([ca, cb])) - ai.repeat(2)
        da, db_ = d[: len(ca)], d[len(ca) :]
        inside = (da < 0) & (db_ > 0)
        if touch is not None:
            t = touch[cols]
            hinted = inside & (t >= ca) & (t <= cb)
            if bool(hinted.any()):
                r, c, th = rows[hinted], cols[hinted], t[hinted]
                ah, sh, lo_end, hi_end = ai[hinted], si[hinted], ca[hinted], cb[hinted]
                gt = _overflow_down(sh * curve.f(th))
                dht = sh * curve.df(th) - ah
                reach = torch.minimum(dht * (lo_end - th), dht * (hi_end - th))
                # f' is accurate to far better than 2^-40 relative: its rounding times the reach
                bound = gt - ah * th + reach - SLOPE_SLACK * reach.abs()
                bound = torch.nan_to_num(bound, nan=-math.inf, posinf=math.inf, neginf=-math.inf)
                full = torch.full((slots, n), math.inf, dtype=F64)
                full[r, c] = bound
                gfull = torch.zeros((slots, n), dtype=F64)
                gfull[r, c] = gt.abs().nan_to_num(0.0, 0.0, 0.0)
                where = torch.zeros((slots, n), dtype=F64)
                where[r, c] = th
                fmax = torch.maximum(fmax, gfull.amax(0))
                cb_best, cw = full.min(0)
                take = cb_best < best
                arg = torch.where(take, where.gather(0, cw[None])[0], arg)
                best = torch.where(take, cb_best, best)
                inside = inside & ~hinted
        if bool(inside.any()):
            rows, cols = rows[inside], cols[inside]
            bound, at, g_abs = _convex_minimum(
                curve, ca[inside], cb[inside], da[inside], db_[inside], ai[inside], si[inside]
            )
            full = torch.full((slots, n), math.inf, dtype=F64)
            full[rows, cols] = bound
            where = torch.zeros((slots, n), dtype=F64)
            where[rows, cols] = at
            gfull = torch.zeros((slots, n), dtype=F64)
            gfull[rows, cols] = g_abs
            fmax = torch.maximum(fmax, gfull.amax(0))
            cb_best, cw = full.min(0)
            take = cb_best < best
            arg = torch.where(take, where.gather(0, cw[None])[0], arg)
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
