"""A rigorous checker for 1-D linear bounds: proves f(x) - (a x + b) >= 0 (or <= 0) on whole intervals.

Branch and bound with the interval arithmetic of nonlin.accuracy (rounded outward): a box is proved when
the enclosure of f - line over it is >= 0, using the better of the naive enclosure and the mean-value form
g(m) + g'(X)(X - m) (g' from the declared derivative, evaluated on the box). Boxes are split at the
declared breakpoints first (no kink or jump inside a box), then bisected. A box that cannot be proved is
bisected until a point inside it is a proved counterexample (the bound is wrong) or the budget runs out.

Boxes are float intervals: the reals strictly between a breakpoint and its float neighbours, and inside a
box of two adjacent floats, are covered by the continuity of the piece there: f moves by at most |f'| ulp
across such a gap, 2^22 times less than the margin every bound of nonlin.verify carries.
"""

from __future__ import annotations

import numpy as np

from nonlin.accuracy.interval import Interval, IntervalOps


def _enclose(body, dbody, params, lo, hi, a, b, upper: bool):
    """Lower end of an enclosure of s * (f(x) - a x - b) over [lo, hi] (s = -1 for an upper bound)."""
    sgn = -1.0 if upper else 1.0
    ops = IntervalOps(lo.shape)
    X = Interval(lo, hi, ops)
    with np.errstate(all="ignore"):
        fx = ops._w(body(ops, X, **params))
        line = ops.point(a) * X + ops.point(b)
        naive = (fx - line) if not upper else (line - fx)
        low = np.where(ops.ambiguous | np.isnan(naive.lo), -np.inf, naive.lo)
        if dbody is not None:
            ops2 = IntervalOps(lo.shape)
            X2 = Interval(lo, hi, ops2)
            m = lo + (hi - lo) / 2
            M = ops2.point(m)
            gm = ops2._w(body(ops2, M, **params)) - (ops2.point(a) * M + ops2.point(b))
            d = ops2._w(dbody(ops2, X2, **params)) - ops2.point(a)
            centered = (gm + d * (X2 - M)) * sgn
            c_lo = np.where(ops2.ambiguous | np.isnan(centered.lo), -np.inf, centered.lo)
            low = np.maximum(low, c_lo)
    return low


def _point_value(body, params, x, a, b, upper: bool):
    """Upper end of an enclosure of s * (f(x) - a x - b) at points x: < 0 proves a violation."""
    ops = IntervalOps(x.shape)
    X = ops.point(x)
    with np.errstate(all="ignore"):
        fx = ops._w(body(ops, X, **params))
        line = ops.point(a) * X + ops.point(b)
        g = (fx - line) if not upper else (line - fx)
    return np.where(ops.ambiguous, np.inf, g.hi)


def presplit(lo, hi, idx, breakpoints):
    """Split boxes at breakpoints: [lo, p-], [p, p], [p+, hi]."""
    for p in breakpoints:
        inside = (lo < p) & (hi > p)
        if not inside.any():
            continue
        below, above = np.nextafter(p, -np.inf), np.nextafter(p, np.inf)
        keep = ~inside
        lo = np.concatenate([lo[keep], lo[inside], np.full(inside.sum(), p), np.full(inside.sum(), above)])
        hi = np.concatenate([hi[keep], np.full(inside.sum(), below), np.full(inside.sum(), p), hi[inside]])
        idx = np.concatenate([idx[keep], idx[inside], idx[inside], idx[inside]])
    for p in breakpoints:  # boxes that end on a breakpoint: the point itself is its own box
        touch = ((lo == p) | (hi == p)) & (lo < hi)
        if touch.any():
            at_lo = touch & (lo == p)
            at_hi = touch & (hi == p)
            lo = np.where(at_lo, np.nextafter(p, np.inf), lo)
            hi = np.where(at_hi, np.nextafter(p, -np.inf), hi)
            n = int(touch.sum())
            lo = np.concatenate([lo, np.full(n, p)])
            hi = np.concatenate([hi, np.full(n, p)])
            idx = np.concatenate([idx, idx[touch]])
    ok = lo <= hi
    return lo[ok], hi[ok], idx[ok]


def prove(body, dbody, params, xl, xu, a, b, upper: bool, breakpoints=(), rounds: int = 90, max_boxes: int = 200_000):
    """(violations, unproved): indices of intervals with a proved counterexample, and of intervals not
    proved within the budget. Empty both: the bound holds on every interval, rigorously."""
    # a constant line at +inf (upper) or -inf (lower) holds everywhere: where f overflows (exp on [700, 800]),
    # verify bounds by the exact range's end, which may be infinite
    trivial = (a == 0) & (b == (np.inf if upper else -np.inf))
    idx = np.nonzero(~trivial)[0]
    xl, xu = xl[idx], xu[idx]
    # 0 too: stable forms branch on the sign of x (where(x < 0, ...)) without declaring a breakpoint
    breakpoints = tuple(sorted({0.0, *breakpoints}))
    lo, hi, idx = presplit(xl.astype(np.float64), xu.astype(np.float64), idx, breakpoints)
    violated: set[int] = set()
    open_boxes: list[int] = []
    _branch_and_bound(body, dbody, params, lo, hi, idx, a, b, upper, rounds, max_boxes, violated, open_boxes)
    unproved = set(open_boxes) - violated
    return sorted(violated), sorted(unproved)


def _branch_and_bound(body, dbody, params, lo, hi, idx, a, b, upper, rounds, max_boxes, violated, open_boxes):
    """Bisect the open boxes: proved ones leave, proved violations go to `violated`, what is left when the
    budget ends to `open_boxes` (interval indices)."""
    for _ in range(rounds):
        if len(lo) == 0:
            break
        low = _enclose(body, dbody, params, lo, hi, a[idx], b[idx], upper)
        open_ = ~(low >= 0)
        lo, hi, idx = lo[open_], hi[open_], idx[open_]
        if len(lo) == 0:
            break
        mid = lo + (hi - lo) / 2
        for pts in (lo, mid, hi):
            bad = _point_value(body, params, pts, a[idx], b[idx], upper) < 0
            violated |= set(idx[bad].tolist())
        # a box of adjacent floats that is still open: its float points were checked above, and the reals
        # between them are covered by continuity (see the module docstring)
        splittable = (mid > lo) & (mid < hi)
        lo, hi, idx, mid = lo[splittable], hi[splittable], idx[splittable], mid[splittable]
        lo, hi = np.concatenate([lo, mid]), np.concatenate([mid, hi])
        idx = np.concatenate([idx, idx])
        if len(lo) > max_boxes:
            break
    open_boxes.extend(idx.tolist())


def prove_piecewise_affine(body, params, xl, xu, a, b, upper: bool, breakpoints=()):
    """For f affine between its breakpoints (step, sign, a relu-like forward whose backward is a rule):
    f - line is affine on each piece, so its minimum is at the ends of a piece; checked there (and one ulp
    inside each end, the one-sided limits) with point enclosures. Returns the violating interval indices."""
    pts = [xl, xu, np.nextafter(xl, np.inf), np.nextafter(xu, -np.inf)]
    for p in breakpoints:
        for q in (p, np.nextafter(p, -np.inf), np.nextafter(p, np.inf)):
            pts.append(np.clip(np.full_like(xl, q), xl, xu))
    bad = np.zeros(len(xl), dtype=bool)
    for x in pts:
        x = np.clip(x, xl, xu)
        bad |= _point_value(body, params, x, a, b, upper) < 0
    return sorted(np.nonzero(bad)[0].tolist())
