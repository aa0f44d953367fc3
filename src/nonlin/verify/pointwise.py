"""Linear bounds and exact ranges of pointwise functions on intervals, generated from a `Curve`.

Default slopes (CROWN's relaxation):
- an interval inside one convex region: the secant above (the optimal upper bound of a convex function)
  and the tangent at the midpoint below (among tangents, the one of least mean gap over the interval:
  d/dt of the area between f and its tangent at t is f''(t)(t - mid)(xu - xl));
- inside one concave region: the mirror image;
- across regions (kinks, inflections): the slope a maximizing a*mid + b(a), with b(a) the exact intercept
  of extremum.py. That value is the convex envelope of f at the midpoint, so the line is the one of least
  mean gap among all sound linear lower bounds; a*mid + b(a) is concave in a, searched on the slopes f'
  takes at 7 points and the secant, then refined by cutting planes (see `_envelope_line`).
Any other slope is sound too: `relax_with_slopes` gives the exact intercepts of given slopes (alpha-CROWN).
"""

from __future__ import annotations

import math

import torch

from nonlin.verify.curve import CONCAVE, CONVEX, Curve
from nonlin.verify.extremum import (
    MARGIN,
    SLOPE_SLACK,
    _overflow_down,
    _tables,
    fast_range,
    intercept,
    lower_intercept,
    margin,
    next_stationary,
)

F64 = torch.float64
_SAMPLES = torch.linspace(0.0, 1.0, 7, dtype=F64)[:, None]
SEARCH_ROUNDS = 5  # rounds of the slope search across regions (each evaluates two slopes)


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
    flags = _tables(curve)[3][k]
    convex_bit = torch.where(sign > 0, CONVEX, CONCAVE)
    concave_bit = torch.where(sign > 0, CONCAVE, CONVEX)
    g_l, g_u, g_mid = sign * curve.f(torch.stack([xl, xu, mid]))
    dg_mid = sign * curve.df(mid)
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
        a, b = a.clone(), b.clone()
        # two regions, convex (for g) then concave or the reverse: a tangent from the far end (closed form)
        two, left_convex = _two_regions(curve, xl, xu, k, sign)
        two &= mixed
        if bool(two.any()):
            at, bt = _tangent_from_end(
                curve,
                xl[two],
                xu[two],
                sign[two],
                k[two],
                left_convex[two],
                g_l[two],
                g_u[two],
                g_mid[two],
                dg_mid[two],
                secant[two],
            )
            a[two], b[two] = at, bt
        rest = mixed & ~two
        if bool(rest.any()):
            ar, br = _envelope_line(curve, xl[rest], xu[rest], sign[rest], secant[rest])
            a[rest], b[rest] = ar, br
    return a, b


def _two_regions(curve: Curve, xl: torch.Tensor, xu: torch.Tensor, k: torch.Tensor, sign: torch.Tensor):
    """[xl, xu] meets exactly regions k and k + 1, one convex for g = sign f and the other concave (either
    order), and f is continuous at their boundary and ends."""
    pts, _, _, flag_table = _tables(curve)
    if not len(pts):
        return torch.zeros(xl.shape, dtype=torch.bool), torch.zeros(xl.shape, dtype=torch.bool)
    n_lt_u = torch.searchsorted(pts, xu, right=False)  # boundaries < xu
    n_le_l = torch.searchsorted(pts, xl, right=True)  # boundaries <= xl
    two = (n_le_l == k) & (n_lt_u == k + 1)
    convex_bit = torch.where(sign > 0, CONVEX, CONCAVE)
    concave_bit = torch.where(sign > 0, CONCAVE, CONVEX)
    left = flag_table[torch.clamp(k, max=len(curve.flags) - 1)]
    right = flag_table[torch.clamp(k + 1, max=len(curve.flags) - 1)]
    cv_left, cc_left = (left & convex_bit) > 0, (left & concave_bit) > 0
    cv_right, cc_right = (right & convex_bit) > 0, (right & concave_bit) > 0
    # which side is the convex one must be unambiguous (a linear side counts as the other kind)
    convex_then_concave = cv_left & cc_right & ~(cc_left & ~cv_left) & ~(cv_right & ~cc_right)
    concave_then_convex = cc_left & cv_right & ~convex_then_concave
    if curve.jumps:
        jumps = torch.tensor(curve.jumps, dtype=F64)
        p = pts[torch.clamp(k, max=len(pts) - 1)]
        at_jump = ((p[..., None] == jumps) | (xl[..., None] == jumps) | (xu[..., None] == jumps)).any(-1)
        two &= ~at_jump
    return two & (convex_then_concave | concave_then_convex), convex_then_concave


TANGENT_GRID, TANGENT_ROUNDS = 31, 3  # the tangent point from the far end: rounds of a grid search
_GRID = torch.arange(1, TANGENT_GRID + 1, dtype=F64)[:, None] / (TANGENT_GRID + 1)


def _tangent_from_end(curve: Curve, xl, xu, sign, k, left_convex, g_l, g_u, g_mid, dg_mid, secant):
    """The least-mean-gap lower line of g on [xl, xu] spanning regions k (left) and k + 1 (right), one convex
    for g and the other concave; closed form up to locating one tangent point.

    Convex then concave: g's convex envelope is g up to the point t whose tangent passes through (xu, g(xu)),
    then that line (the secant if no tangent from xu touches the convex part). The line of least mean gap is
    the envelope's support line at the midpoint: the tangent at mid if mid <= t, else the line through t and
    xu. Concave then convex is the mirror image (the tangent from xl). t solves F(t) = g(t) + g'(t)(e - t)
    - g(e) = 0, e the far end: F is monotone on the convex part (F' = g''(t)(e - t)), so a grid search
    (with a false-position point) keeps a bracket of it.

    The intercept is the exact minimum of h = g - a x (as extremum.lower_intercept, without its search): on
    the convex part h lies above its tangent at the touch point t, h(t) + h'(t)(x - t), lowest at an end of
    the part; on the concave part h is lowest at an end (the boundary or e)."""
    p = _tables(curve)[0][k]  # left_convex: else the right region is the convex one for g
    mid = xl + (xu - xl) / 2
    e = torch.where(left_convex, xu, xl)  # the far end
    g_e = torch.where(left_convex, g_u, g_l)
    near = torch.where(left_convex, xl, xu)  # the end inside the convex part
    # the bracket of t runs from the near end to the boundary or mid, whichever is nearer the near end
    cut = torch.where(left_convex, torch.minimum(p, mid), torch.maximum(p, mid))
    F_mid = g_mid + dg_mid * (e - mid) - g_e
    tangent_at_mid = torch.where(left_convex, mid < p, mid > p) & (F_mid <= 0)  # mid before the touch point
    gv, dv = sign * curve.f(torch.stack([near, cut, p])), sign * curve.df(torch.stack([near, cut]))
    g_p = gv[2]
    Fv = gv[:2] + dv * (e - torch.stack([near, cut])) - g_e
    # F < 0 at the near end (else no tangent: the secant), F >= 0 at the boundary (g lies below its tangent on
    # the concave part) and so at cut unless the tangent at mid supports
    has_tangent = (Fv[0] < 0) & (Fv[1] >= 0) & ~tangent_at_mid
    t0, t1, f0, f1, g0, d0 = near, cut, Fv[0], Fv[1], gv[0], dv[0]
    if bool(has_tangent.any()):
        for _ in range(TANGENT_ROUNDS):
            # F on a grid of the bracket and at its false-position point, in one evaluation: the bracket
            # shrinks TANGENT_GRID + 1 fold per round at least, and superlinearly where F is smooth
            fp = (f0 / (f0 - f1)).nan_to_num(0.5).clamp(0.0, 1.0)
            u = torch.cat([_GRID.expand(-1, len(t0)), fp[None]]).sort(0).values
            t = t0 + (t1 - t0) * u  # [K + 1, m]
            gt, dt = sign * curve.f(t), sign * curve.df(t)
            Ft = gt + dt * (e - t) - g_e
            c = (Ft < 0).sum(0, keepdim=True)  # F rises along u: the bracket is [c - 1, c] of the padded points
            T = torch.cat([t0[None], t, t1[None]])
            FF, GG, DD = torch.cat([f0[None], Ft, f1[None]]), torch.cat([g0[None], gt]), torch.cat([d0[None], dt])
            t0, f0, g0, d0 = T.gather(0, c)[0], FF.gather(0, c)[0], GG.gather(0, c)[0], DD.gather(0, c)[0]
            t1, f1 = T.gather(0, c + 1)[0], FF.gather(0, c + 1)[0]
    # the root by linear interpolation in the final bracket (and the bracket's F < 0 end, whose tangent passes
    # below the far end): two candidate lines through touch points, the better kept
    root = (t0 + f0 * (t1 - t0) / (f0 - f1)).nan_to_num(0.0)
    root = torch.where((root - t0) * (root - t1) <= 0, root, t0)
    g_root, d_root = sign * curve.f(root), sign * curve.df(root)
    run = torch.where(e != root, e - root, 1.0)
    through = torch.where(e != root, (g_e - g_root) / run, secant)
    g_near = torch.where(left_convex, g_l, g_u)

    def pick(at_mid, tangent, chord):
        return torch.where(tangent_at_mid, at_mid, torch.where(has_tangent, tangent, chord))

    a = torch.stack([pick(dg_mid, through, secant), pick(dg_mid, d0, secant)])  # [2, m]
    # the secant touches at the near end
    t = torch.stack([pick(mid, root, near), pick(mid, t0, near)])
    g_t = torch.stack([pick(g_mid, g_root, g_near), pick(g_mid, g0, g_near)])
    dg_t = torch.stack([pick(dg_mid, d_root, dv[0]), pick(dg_mid, d0, dv[0])])
    a = a.nan_to_num(nan=0.0, posinf=0.0, neginf=0.0)
    lo_c = torch.where(left_convex, xl, p)  # the convex part
    hi_c = torch.where(left_convex, p, xu)
    dh = dg_t - a
    reach = torch.minimum(dh * (lo_c - t), dh * (hi_c - t))
    g_t, g_p, g_e = _overflow_down(g_t), _overflow_down(g_p), _overflow_down(g_e)  # an overflow may be -inf
    h = torch.stack([g_t - a * t + reach - SLOPE_SLACK * reach.abs(), g_p - a * p, g_e - a * e])  # [3, 2, m]
    h = h.nan_to_num(nan=-math.inf, posinf=math.inf, neginf=-math.inf)
    g_abs = torch.stack([g_t, g_p.expand_as(g_t), g_e.expand_as(g_t)]).abs()
    best = h.amin(0)
    # a candidate's rounding counts only where it could undercut the best (as in lower_intercept)
    above = (h - best).nan_to_num(nan=0.0, posinf=math.inf, neginf=0.0)
    fmax = torch.clamp(g_abs.nan_to_num(nan=0.0, posinf=0.0) - above / MARGIN, min=0.0).nan_to_num(nan=0.0).amax(0)
    b = best - margin(fmax, a, torch.maximum(xl.abs(), xu.abs()))
    choice = (a * mid + b).argmax(0, keepdim=True)
    return a.gather(0, choice)[0], b.gather(0, choice)[0]


def _envelope_line(curve: Curve, xl: torch.Tensor, xu: torch.Tensor, sign: torch.Tensor, secant: torch.Tensor):
    """The slope maximizing phi(a) = a*mid + b(a), and its exact intercept (any number of regions).

    phi is concave with supergradient mid - argmin(a) (argmin is non-decreasing in a). It is evaluated at
    the slopes f' takes at 7 points and the secant; the two neighbours around the sign change of the
    supergradient bracket the optimum, and each round evaluates the point where the two supporting lines
    of phi at the bracket ends cross (exact where phi is piecewise linear, superlinear where it is smooth)
    together with the bracket's midpoint (so the bracket at least halves). The best slope seen is kept."""
    mid = xl + (xu - xl) / 2
    ts = xl + (xu - xl) * _SAMPLES  # [7, n]
    slopes = sign * curve.df(ts)
    cands = torch.nan_to_num(torch.cat([slopes, secant[None]]), nan=0.0, posinf=0.0, neginf=0.0)
    cands, _ = cands.sort(0)  # [8, n]
    b, arg = lower_intercept(curve, xl[None], xu[None], cands, sign[None])
    phi = cands * mid + b
    sup = mid - arg  # supergradient of phi at each candidate
    j = phi.argmax(0, keepdim=True)
    a_best, b_best, phi_best = cands.gather(0, j)[0], b.gather(0, j)[0], phi.gather(0, j)[0]
    # the bracket: the last candidate with sup >= 0 and the first with sup <= 0 (none: no bracket)
    count = cands.shape[0]
    idx = torch.arange(count)[:, None]
    i_lo = torch.where(sup >= 0, idx, -1).amax(0)
    i_hi = torch.where(sup <= 0, idx, count).amin(0)
    active = (i_lo >= 0) & (i_hi < count) & (i_lo < i_hi)

    def at(t, i):
        return t.gather(0, i.clamp(0, count - 1)[None])[0]

    a_lo, p_lo, s_lo = at(cands, i_lo), at(phi, i_lo), at(sup, i_lo)
    a_hi, p_hi, s_hi = at(cands, i_hi), at(phi, i_hi), at(sup, i_hi)
    for _ in range(SEARCH_ROUNDS):
        if not bool(active.any()):
            break
        cut = (p_hi - p_lo + s_lo * a_lo - s_hi * a_hi) / (s_lo - s_hi)
        half = a_lo + (a_hi - a_lo) / 2
        cut = torch.where((cut > a_lo) & (cut < a_hi), cut, half)
        trial = torch.stack([cut, half])  # [2, n]
        bt, argt = lower_intercept(curve, xl[None], xu[None], trial, sign[None])
        pt, st = trial * mid + bt, mid - argt
        for i in (0, 1):
            better = active & (pt[i] > phi_best)
            a_best = torch.where(better, trial[i], a_best)
            b_best = torch.where(better, bt[i], b_best)
            phi_best = torch.where(better, pt[i], phi_best)
            inner = active & (trial[i] > a_lo) & (trial[i] < a_hi)
            up, down = inner & (st[i] >= 0), inner & (st[i] < 0)
            a_lo, p_lo, s_lo = (torch.where(up, v, w) for v, w in ((trial[i], a_lo), (pt[i], p_lo), (st[i], s_lo)))
            a_hi, p_hi, s_hi = (torch.where(down, v, w) for v, w in ((trial[i], a_hi), (pt[i], p_hi), (st[i], s_hi)))
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
    al, bl, au, bu = a[:n], b[:n], -a[n:], -b[n:]
    # where f overflows (exp on [700, 800]) a line may have an infinite slope or intercept, and a x + b is then
    # NaN somewhere: the constant at the exact range's end is the sound bound there (0 x + inf is inf, not NaN)
    bad_l, bad_u = ~(torch.isfinite(al) & torch.isfinite(bl)), ~(torch.isfinite(au) & torch.isfinite(bu))
    if bool(bad_l.any() | bad_u.any()):
        lo, hi = exact_range(curve, lf, uf)
        al, bl = torch.where(bad_l, 0.0, al), torch.where(bad_l, lo, bl)
        au, bu = torch.where(bad_u, 0.0, au), torch.where(bad_u, hi, bu)
    return al.reshape(shape), bl.reshape(shape), au.reshape(shape), bu.reshape(shape)


def lines_with_slopes(curve: Curve, xl, xu, lower_slope, upper_slope):
    """Exact sound intercepts for given slopes (differentiable in the slopes)."""
    bl = intercept(curve, xl, xu, lower_slope, 1.0)
    bu = -intercept(curve, xl, xu, -upper_slope, -1.0)
    return bl, bu


def exact_range(curve: Curve, xl: torch.Tensor, xu: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """[min f, max f] over each [xl, xu], rounded outward (slope 0 in extremum.py)."""
    fast = fast_range(curve, xl, xu)
    if fast is not None:
        return fast
    zero = torch.zeros_like(xl)
    # both ends in one call (sign +-1), each with f's next minimum (maximum) as the touch hint (no search)
    sign = torch.tensor([1.0, -1.0], dtype=F64).reshape(2, *([1] * xl.dim()))
    touch = torch.stack([next_stationary(curve, xl, True), next_stationary(curve, xl, False)])
    b = lower_intercept(curve, xl[None], xu[None], zero[None], sign, touch=touch)[0]
    return b[0], -b[1]
