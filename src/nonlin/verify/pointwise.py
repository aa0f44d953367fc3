"""Linear bounds and exact ranges of pointwise functions on intervals, generated from a `Curve`.

Default slopes (CROWN's relaxation):
- an interval inside one convex region: the secant above (the optimal upper bound of a convex function)
  and the tangent at the midpoint below (among tangents, the one of least mean gap over the interval:
  d/dt of the area between f and its tangent at t is f''(t)(t - mid)(xu - xl));
- inside one concave region: the mirror image;
- across regions (kinks, inflections): the slope a maximizing a*mid + b(a), with b(a) the exact intercept
  of extremum.py. That value is the convex envelope of f at the midpoint, so the line is the one of least
  mean gap among all sound linear lower bounds; a*mid + b(a) is concave in a, searched on the slopes f'
  takes at 7 points and the secant, then refined in a bracket that
  shrinks threefold per round.
Any other slope is sound too: `relax_with_slopes` gives the exact intercepts of given slopes (alpha-CROWN).
"""

from __future__ import annotations

import math

import torch

from nonlin.verify.curve import CONCAVE, CONVEX, Curve
from nonlin.verify.extremum import intercept, lower_intercept, margin

F64 = torch.float64
_SAMPLES = torch.linspace(0.0, 1.0, 7, dtype=F64)[:, None]
SEARCH_POINTS, SEARCH_ROUNDS = 5, 6  # the bracket of the best slope shrinks 3x per round


def _region(curve: Curve, xl: torch.Tensor, xu: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(index of the region holding [xl, xu], whether one region holds it)."""
    pts = torch.tensor(curve.points, dtype=F64)
    if not len(pts):
        z = torch.zeros(xl.shape, dtype=torch.long)
        return z, torch.ones(xl.shape, dtype=torch.bool)
    n_le_l = (pts <= xl[..., None]).sum(-1)
    n_lt_u = (pts < xu[..., None]).sum(-1)
    one = n_lt_u <= n_le_l  # no region boundary strictly inside (xl, xu)
    if curve.jumps:  # f at a jump belongs to one side only: an interval ending there spans two pieces
        jumps = torch.tensor(curve.jumps, dtype=F64)
        one &= ~((xl[..., None] == jumps) | (xu[..., None] == jumps)).any(-1)
    k = torch.where(xl == xu, n_le_l, torch.minimum(n_le_l, n_lt_u))
    return k, one


@torch.no_grad()
def _lower_line(curve: Curve, xl: torch.Tensor, xu: torch.Tensor, sign: torch.Tensor):
    """Slope and intercept of a sound lower bound of g = sign * f on [xl, xu] (flat float64 tensors; sign
    +-1 per element, so lower and upper bounds are found in one pass)."""
    mid = xl + (xu - xl) / 2
    xmax = torch.maximum(xl.abs(), xu.abs())
    k, one = _region(curve, xl, xu)
    flags = torch.tensor(curve.flags, dtype=torch.long)[k]
    convex_bit = torch.where(sign > 0, CONVEX, CONCAVE)
    concave_bit = torch.where(sign > 0, CONCAVE, CONVEX)
    g_mid, dg_mid = sign * curve.f(mid), sign * curve.df(mid)
    g_l, g_u = sign * curve.f(xl), sign * curve.f(xu)
    width = xu - xl
    secant = torch.where(width > 0, (g_u - g_l) / torch.where(width > 0, width, 1.0), dg_mid)
    secant = torch.nan_to_num(secant, nan=0.0)
    # tangent at the midpoint (convex), secant (concave)
    tan_b = g_mid - dg_mid * mid - margin(g_mid.abs(), dg_mid, xmax)
    sec_b = torch.minimum(g_l - secant * xl, g_u - secant * xu) - margin(
        torch.maximum(g_l.abs(), g_u.abs()), secant, xmax
    )
    is_convex = one & ((flags & convex_bit) > 0)
    is_concave = one & ~is_convex & ((flags & concave_bit) > 0)
    a = torch.where(is_convex, dg_mid, secant)
    b = torch.where(is_convex, tan_b, sec_b)
    b = torch.nan_to_num(b, nan=-math.inf, posinf=math.inf, neginf=-math.inf)
    mixed = ~(is_convex | is_concave)
    if bool(mixed.any()):
        am, bm = _envelope_line(curve, xl[mixed], xu[mixed], sign[mixed])
        a = a.clone()
        b = b.clone()
        a[mixed], b[mixed] = am, bm
    return a, b


def _envelope_line(curve: Curve, xl: torch.Tensor, xu: torch.Tensor, sign: torch.Tensor):
    """The slope maximizing a*mid + b(a) (concave in a), and its exact intercept."""
    mid = xl + (xu - xl) / 2
    ts = xl + (xu - xl) * _SAMPLES  # [9, n]
    slopes = sign * curve.df(ts)
    g_l, g_u = sign * curve.f(xl), sign * curve.f(xu)
    width = torch.where(xu > xl, xu - xl, 1.0)
    secant = torch.where(xu > xl, (g_u - g_l) / width, slopes[3])
    cands = torch.nan_to_num(torch.cat([slopes, secant[None]]), nan=0.0, posinf=0.0, neginf=0.0)
    cands, _ = cands.sort(0)  # [10, n]
    b = lower_intercept(curve, xl[None], xu[None], cands, sign[None])[0]
    phi = cands * mid + b
    best = phi.argmax(0)
    lo_i = torch.clamp(best - 1, min=0)
    hi_i = torch.clamp(best + 1, max=cands.shape[0] - 1)
    a_lo = cands.gather(0, lo_i[None])[0]
    a_hi = cands.gather(0, hi_i[None])[0]
    a_best = cands.gather(0, best[None])[0]
    b_best = b.gather(0, best[None])[0]
    phi_best = phi.gather(0, best[None])[0]
    for _ in range(SEARCH_ROUNDS):
        # k interior slopes at once; concavity keeps the optimum within the neighbours of the best one
        frac = torch.arange(SEARCH_POINTS + 2, dtype=F64)[:, None] / (SEARCH_POINTS + 1)
        grid = a_lo[None] + (a_hi - a_lo)[None] * frac  # [k + 2, n]
        inner = grid[1:-1]
        bp = lower_intercept(curve, xl[None], xu[None], inner, sign[None])[0]
        ph = inner * mid + bp
        j = ph.argmax(0)
        take = ph.gather(0, j[None])[0] > phi_best
        a_best = torch.where(take, inner.gather(0, j[None])[0], a_best)
        b_best = torch.where(take, bp.gather(0, j[None])[0], b_best)
        phi_best = torch.where(take, ph.gather(0, j[None])[0], phi_best)
        a_lo, a_hi = grid.gather(0, j[None])[0], grid.gather(0, (j + 2)[None])[0]
    return a_best, b_best


def _check_ends(lower: torch.Tensor, upper: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    for arg, t in (("lower", lower), ("upper", upper)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{arg} must be a torch.Tensor, got {type(t).__name__}")
        if not t.is_floating_point():
            raise TypeError(f"{arg} has dtype {t.dtype}; expected a floating dtype")
    try:
        shape = torch.broadcast_shapes(lower.shape, upper.shape)
    except RuntimeError:
        raise ValueError(
            f"lower of shape {tuple(lower.shape)} and upper of shape {tuple(upper.shape)} do not broadcast"
        ) from None
    l64, u64 = lower.detach().to(F64).expand(shape), upper.detach().to(F64).expand(shape)
    if not bool(torch.isfinite(l64).all() & torch.isfinite(u64).all()):
        raise ValueError("lower and upper must be finite (an interval end is inf or NaN)")
    if bool((l64 > u64).any()):
        i = int(torch.nonzero((l64 > u64).reshape(-1))[0])
        raise ValueError(
            f"lower must be <= upper elementwise; got lower={l64.reshape(-1)[i].item()!r} > "
            f"upper={u64.reshape(-1)[i].item()!r}"
        )
    return l64, u64


def round_line(a: torch.Tensor, b: torch.Tensor, xl: torch.Tensor, xu: torch.Tensor, dtype: torch.dtype, lower: bool):
    """A line of `dtype` that is still a sound lower (upper) bound on [xl, xu]: the slope rounded to nearest,
    the intercept moved by the slope's rounding error times the reach |x - mid| and rounded outward."""
    if dtype == F64:
        return a, b
    a_r = a.to(dtype)
    delta = a_r.to(F64) - a
    mid = xl + (xu - xl) / 2
    reach = torch.maximum(mid - xl, xu - mid) * (1 + 2.0**-40)
    shift = -delta * mid
    slack = delta.abs() * reach + 2.0**-50 * (b.abs() + shift.abs()) + 2.0**-1000
    b2 = b + shift - slack if lower else b + shift + slack
    b_r = b2.to(dtype)
    back = b_r.to(F64)
    toward = torch.full_like(b_r, -math.inf if lower else math.inf)
    fix = (back > b2) if lower else (back < b2)
    b_r = torch.where(fix, torch.nextafter(b_r, toward), b_r)
    return a_r, b_r


def lines(curve: Curve, xl: torch.Tensor, xu: torch.Tensor):
    """(lower slope, lower intercept, upper slope, upper intercept) in float64, shapes of xl."""
    shape = xl.shape
    lf, uf = xl.reshape(-1), xu.reshape(-1)
    n = lf.numel()
    sign = torch.cat([torch.ones(n, dtype=F64), -torch.ones(n, dtype=F64)])
    a, b = _lower_line(curve, torch.cat([lf, lf]), torch.cat([uf, uf]), sign)
    return a[:n].reshape(shape), b[:n].reshape(shape), (-a[n:]).reshape(shape), (-b[n:]).reshape(shape)


def lines_with_slopes(curve: Curve, xl, xu, lower_slope, upper_slope):
    """Exact sound intercepts for given slopes (differentiable in the slopes)."""
    bl = intercept(curve, xl, xu, lower_slope, 1.0)
    bu = -intercept(curve, xl, xu, -upper_slope, -1.0)
    return bl, bu


def exact_range(curve: Curve, xl: torch.Tensor, xu: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """[min f, max f] over each [xl, xu], rounded outward (slope 0 in extremum.py)."""
    zero = torch.zeros_like(xl)
    lo = lower_intercept(curve, xl, xu, zero, 1.0)[0]
    hi = -lower_intercept(curve, xl, xu, zero, -1.0)[0]
    return lo, hi
