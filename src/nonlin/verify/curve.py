"""A function of one variable as verification sees it: f, f', and where f is convex or concave.

Everything here is generated from a catalog declaration: the forward and declared derivative run on the
torch backend in float64, and the convexity regions are found from the derivative (the sign of f'',
autograd of the declared derivative, sampled on a fine grid over [-64, 64] and a geometric grid out to
1e15 on each side, each sign change refined by bisection), merged across kinks whose jump of f' has the
matching sign (a convex kink such as relu's joins two linear pieces into one convex region).

A region is `convex`, `concave`, both (linear), or `unknown` (beyond 64 for an entry whose f'' keeps
changing sign in the tails: sin, snake, gcu); unknown regions are bounded with the rigorous interval
arithmetic of nonlin.accuracy instead of by tangents.

What this rests on (and what the tests check with interval arithmetic): a sign change of f'' between two
grid points (2^-7 apart inside [-64, 64], finer where the grid was refined) or between consecutive points
of the geometric tail grid would go unseen. Where f'' times the local step is large against f' (smu with
mu = 1e6 bends within 1e-6 of 0) the grid is refined there, up to 6 rounds of 2^8; `check_resolution`
refuses (`Unrelaxable`, so `relax.unrelaxable` lists it) a curve that still bends too fast, or one
with a grid cell whose secant contradicts its region's convexity.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from nonlin.ops import TORCH
from nonlin.registry import spec as get_spec
from nonlin.spec import Kind, Spec

INNER = 64.0  # the fine grid covers [-INNER, INNER]
STEP = 2.0**-7
TAIL_END = 1e15
CONVEX, CONCAVE = 1, 2  # flags; linear = CONVEX | CONCAVE; unknown = 0
F64 = torch.float64

Fn = Callable[[torch.Tensor], torch.Tensor]


class Unrelaxable(NotImplementedError):
    """verify's refusal: this entry (or this curve) has no sound relaxation here, and the message says why.

    A NotImplementedError so that callers written against the earlier refusal keep working;
    `verify.unrelaxable()` lists every entry that raises it, with the reason."""


@dataclass(frozen=True)
class Curve:
    """f and f' on float64 tensors; regions between sorted `points` with their convexity `flags`."""

    label: str
    f: Fn
    df: Fn
    points: tuple[float, ...]  # region boundaries, increasing, finite
    flags: tuple[int, ...]  # len(points) + 1: region k is (points[k-1], points[k])
    jumps: tuple[float, ...]  # boundaries where f itself is discontinuous
    interval_f: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None
    # f'' is 0 on the whole grid: f is affine between its breakpoints (relu, hardtanh), so its relaxation
    # on an interval with no breakpoint inside is exact whatever the interval (CROWN skips refining those)
    affine_pieces: tuple[float, ...] | None = None  # the breakpoints, when so


def _second_derivative(df: Fn, x: torch.Tensor) -> torch.Tensor:
    x = x.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        y = df(x)
        if not y.requires_grad:
            return torch.zeros_like(x)
        (g,) = torch.autograd.grad(y.sum(), x, allow_unused=True)
    if g is None:
        return torch.zeros_like(x)
    return torch.nan_to_num(g.detach(), nan=0.0)


def _grid() -> torch.Tensor:
    inner = torch.arange(-INNER, INNER + STEP / 2, STEP, dtype=F64)
    tail = torch.logspace(math.log10(INNER), math.log10(TAIL_END), 4000, dtype=F64)[1:]
    return torch.cat([-tail.flip(0), inner, tail])


REFINE_ROUNDS, REFINE_POINTS, REFINE_MAX = 6, 256, 400_000


def _spacing(xs: torch.Tensor) -> torch.Tensor:
    """Each grid point's larger distance to its neighbours."""
    gaps = xs[1:] - xs[:-1]
    return torch.maximum(torch.cat([gaps[:1], gaps]), torch.cat([gaps, gaps[-1:]]))


def _bends_fast(xs: torch.Tensor, dx: torch.Tensor, d2x: torch.Tensor) -> torch.Tensor:
    """Grid points where f' moves by far more than its own size within one grid step (features finer than
    the grid there)."""
    return (_spacing(xs) * d2x.abs() > 16 * (dx.abs() + 1)) & (xs.abs() <= INNER)


def _refined_grid(df: Fn, d2: Fn) -> tuple[torch.Tensor, torch.Tensor]:
    """The grid, refined around the points where f bends on a finer scale than the grid (smu's erf(mu x) with
    mu = 1e6 turns within 1e-6 of 0): each such point's two neighbouring cells get REFINE_POINTS more points,
    for up to REFINE_ROUNDS rounds (each 2^8 times finer). A curve that still bends too fast is refused by
    `check_resolution`."""
    xs = _grid()
    d2x = d2(xs)
    for _ in range(REFINE_ROUNDS):
        with torch.no_grad():
            fast = _bends_fast(xs, df(xs).detach(), d2x)
        if not bool(fast.any()) or len(xs) > REFINE_MAX:
            break
        i = torch.nonzero(fast).flatten()
        lo, hi = xs[torch.clamp(i - 1, min=0)], xs[torch.clamp(i + 1, max=len(xs) - 1)]
        frac = torch.linspace(0.0, 1.0, REFINE_POINTS + 1, dtype=F64)[1:-1, None]
        new = (lo + (hi - lo) * frac).flatten()
        xs_new = torch.unique(torch.cat([xs, new]))  # sorted
        d2x = d2(xs_new)
        xs = xs_new
    return xs, d2x


def _refine(d2: Fn, a: float, b: float, sa: int) -> float:
    """A point between a and b where the sign of f'' leaves `sa` (bisection on f'')."""
    lo, hi = a, b
    for _ in range(80):
        mid = lo + (hi - lo) / 2
        if mid in (lo, hi):
            break
        s = float(d2(torch.tensor([mid], dtype=F64))[0])
        if (s > 0 and sa > 0) or (s < 0 and sa < 0):
            lo = mid
        else:
            hi = mid
    return hi


def build_curve(label: str, f: Fn, df: Fn, breakpoints: tuple[float, ...], interval_f=None) -> Curve:
    """Regions of convexity of f from f'' (autograd of df), split at the declared breakpoints."""
    bps = sorted({float(b) for b in breakpoints if math.isfinite(b)})
    d2 = lambda x: _second_derivative(df, x)
    xs, d2x = _refined_grid(df, d2)
    # f'' below the rounding noise of f' (|f''| x^2 under 2^-44 (|f| + |x f'|)) counts as zero: the error
    # of treating such a stretch as linear is within the margin every bound carries (see relax.MARGIN).
    with torch.no_grad():
        noise = 2.0**-44 * (f(xs).abs() + (xs * df(xs)).abs()) / torch.clamp(xs * xs, min=1.0)
    s = torch.where(d2x.abs() <= torch.nan_to_num(noise, nan=0.0, posinf=0.0), 0.0, torch.sign(d2x))
    # exclude the samples that sit on a breakpoint (f'' is a one-sided value there)
    on_bp = torch.zeros_like(s, dtype=torch.bool)
    for b in bps:
        on_bp |= xs == b
    s = torch.where(on_bp, 0.0, s)
    nz = torch.nonzero(s).flatten()
    sv, xv = s.tolist(), xs.tolist()
    changes: list[tuple[float, float, int]] = []
    prev = None
    for i in nz.tolist():
        if prev is not None and sv[i] != sv[prev]:
            changes.append((xv[prev], xv[i], int(sv[prev])))
        prev = i
    # Oscillating tails: several sign changes beyond the fine grid -> unknown there.
    unknown_left = sum(b <= -INNER for _, b, _ in changes) > 3
    unknown_right = sum(a >= INNER for a, _, _ in changes) > 3
    inflections = [
        _refine(d2, a, b, sa)
        for a, b, sa in changes
        if not ((unknown_left and b <= -INNER) or (unknown_right and a >= INNER))
    ]
    pts = sorted(set(inflections) | set(bps))
    if unknown_left:
        pts = sorted(set(pts) | {-INNER})
    if unknown_right:
        pts = sorted(set(pts) | {INNER})
    if len(pts) > 2000:
        raise ValueError(f"{label}: f'' changes sign {len(pts)} times; too many regions to relax")
    # Each region's flags from the sign of f'' on its samples.
    flags = []
    edges = [-math.inf, *pts, math.inf]
    for k in range(len(edges) - 1):
        lo, hi = edges[k], edges[k + 1]
        if (unknown_left and hi <= -INNER) or (unknown_right and lo >= INNER):
            flags.append(0)
            continue
        inside = (xs > lo) & (xs < hi)
        sk = s[inside]
        fl = CONVEX | CONCAVE
        if bool((sk > 0).any()):
            fl &= CONVEX
        if bool((sk < 0).any()):
            fl &= CONCAVE
        flags.append(fl)
    # Kinks and jumps at breakpoints.
    jumps = []
    kink = {}
    for b in bps:
        left = torch.tensor([b], dtype=F64)
        h = max(abs(b), 1.0) * 2.0**-30
        fl_, fr_, fb = (float(f(t)[0]) for t in (left - h, left + h, left))
        dl, dr = (float(df(t).detach()[0]) for t in (left - h, left + h))
        # a jump is what continuity (|f'| h either side) and rounding (relative 1e-9) cannot explain; no absolute
        # floor, so a small jump (xielu's alpha_n expm1(eps) at 0) is not taken for continuity
        allowed = 1e-9 * max(abs(fl_), abs(fr_), abs(fb)) + 4 * h * max(abs(dl), abs(dr)) + 1e-300
        if abs(fr_ - fl_) > allowed or abs(fb - fl_) > allowed:
            jumps.append(b)
            kink[b] = 0
        elif dr > dl + 1e-9 * max(abs(dl), abs(dr), 1.0):
            kink[b] = CONVEX
        elif dr < dl - 1e-9 * max(abs(dl), abs(dr), 1.0):
            kink[b] = CONCAVE
        else:
            kink[b] = CONVEX | CONCAVE
    # Merge neighbours whose flags agree through the boundary (left to right).
    m_pts: list[float] = []
    m_flags = [flags[0]]
    for k, p in enumerate(pts):
        through = kink.get(p, CONVEX | CONCAVE)
        joined = m_flags[-1] & flags[k + 1] & through
        if joined and m_flags[-1] and flags[k + 1]:
            m_flags[-1] = joined
        else:
            m_pts.append(p)
            m_flags.append(flags[k + 1])
    affine = tuple(bps) if not bool(s.any()) else None
    curve = Curve(label, f, df, tuple(m_pts), tuple(m_flags), tuple(jumps), interval_f, affine)
    check_resolution(curve, xs, bps, d2x)
    return curve


def check_resolution(curve: Curve, xs: torch.Tensor, bps: list[float], d2x: torch.Tensor) -> None:
    """Refuse a curve whose convexity changes between grid points (`Unrelaxable`: `unrelaxable` lists it).

    On each grid cell [x_i, x_i+1] inside one region, a convex f has f'(x_i) <= secant <= f'(x_i+1) and a
    concave f the reverse (a linear one both). A sign change of f'' the grid did not see (smu's erf(mu x)
    with mu = 1e6 bends within 1e-6 of 0, before the refinement) breaks this on the cell that holds it."""
    edges = sorted(set(curve.points) | set(bps))
    with torch.no_grad():
        fx, dx = curve.f(xs), curve.df(xs).detach()
    # f' moving by far more than its own size within one grid step: features finer than the grid
    fast = _bends_fast(xs, dx, d2x)
    if bool(fast.any()):
        i = int(torch.nonzero(fast)[0])
        raise Unrelaxable(
            f"{curve.label}: f'' = {float(d2x[i]):.3g} at x = {float(xs[i]):.6g}: f bends on a scale finer than the "
            f"convexity grid (step {float(_spacing(xs)[i]):.3g} there after refinement), so its convexity regions "
            "cannot be trusted; not relaxed"
        )
    a, b = xs[:-1], xs[1:]
    secant = (fx[1:] - fx[:-1]) / (b - a)
    e = torch.tensor(edges, dtype=F64) if edges else torch.empty(0, dtype=F64)
    # cells that hold a region boundary or breakpoint are excluded (f' is one-sided there)
    k_a, k_b = torch.searchsorted(e, a, right=False), torch.searchsorted(e, b, right=True)  # edges in [a, b]
    inner = k_a == k_b
    if curve.points:
        region = torch.searchsorted(torch.tensor(curve.points, dtype=F64), a, right=True)
    else:
        region = torch.zeros_like(a, dtype=torch.long)
    flags = torch.tensor(curve.flags, dtype=torch.long)[region]
    tol = 2.0**-36 * ((fx[1:].abs() + fx[:-1].abs()) / (b - a) + dx[1:].abs() + dx[:-1].abs()) + 1e-300
    ok_convex = (dx[:-1] - tol <= secant) & (secant <= dx[1:] + tol)
    ok_concave = (dx[:-1] + tol >= secant) & (secant >= dx[1:] - tol)
    finite = torch.isfinite(secant) & torch.isfinite(dx[1:]) & torch.isfinite(dx[:-1])
    bad = inner & finite & (((flags & CONVEX) > 0) & ~ok_convex | ((flags & CONCAVE) > 0) & ~ok_concave)
    if bool(bad.any()):
        i = int(torch.nonzero(bad)[0])
        raise Unrelaxable(
            f"{curve.label}: f bends faster than the convexity grid resolves (on [{float(a[i]):.6g}, {float(b[i]):.6g}] "
            f"f' and the secant disagree with the region's convexity); its relaxation would not be sound"
        )


def _torch_fn(body, params, *, after=()) -> Fn:
    def fn(x: torch.Tensor) -> torch.Tensor:
        return body(TORCH, *after, x, **params) if after else body(TORCH, x, **params)

    return fn


def _autograd_df(f: Fn) -> Fn:
    def df(x: torch.Tensor) -> torch.Tensor:
        nested = x.requires_grad  # called by _second_derivative: keep the graph
        xx = x if nested else x.detach().clone().requires_grad_(True)
        with torch.enable_grad():
            y = f(xx)
            if not y.requires_grad:
                return torch.zeros_like(x)
            (g,) = torch.autograd.grad(y.sum(), xx, create_graph=nested, allow_unused=True)
        if g is None:
            return torch.zeros_like(x)
        return g if nested else g.detach()

    return df


def _scalar_params(s: Spec, params: dict) -> dict:
    p = s.resolve_params(params)
    for k, v in p.items():
        if isinstance(v, torch.Tensor):
            if v.numel() != 1:
                raise ValueError(
                    f"{s.name}: parameter {k} has {v.numel()} values; verify relaxes one scalar value per parameter "
                    "(per-channel parameters: relax each channel)"
                )
            p[k] = float(v)
    return p


def pointwise_bodies(s: Spec):
    """The deterministic forward and its true derivative (None: autograd of the forward).

    Stochastic entries are bounded in their eval form; a gradient rule (straight-through) is not the
    derivative of the forward, so those entries take autograd of the forward instead."""
    fwd, der = (s.eval_forward, s.eval_derivative) if s.stochastic else (s.forward, s.derivative)
    return fwd, (None if s.gradient_rule else der)


def _interval_fn(body, p):
    """f over boxes with the interval arithmetic of nonlin.accuracy (None bounds where ambiguous)."""
    from nonlin.accuracy.interval import Interval, IntervalOps

    def fn(lo: np.ndarray, hi: np.ndarray):
        ops = IntervalOps(lo.shape)
        out = body(ops, Interval(lo, hi, ops), **p)
        out = ops._w(out)
        bad = ops.ambiguous | np.isnan(out.lo) | np.isnan(out.hi)
        return np.where(bad, -np.inf, out.lo), np.where(bad, np.inf, out.hi)

    return fn


@lru_cache(maxsize=512)
def _pointwise_curve_cached(name: str, items: tuple) -> Curve:
    s = get_spec(name)
    p = dict(items)
    fwd, der = pointwise_bodies(s)
    f = _torch_fn(fwd, p)
    df = _torch_fn(der, p) if der is not None else _autograd_df(f)
    curve = build_curve(name, f, df, tuple(s.breakpoints(**p)), _interval_fn(fwd, p))
    return curve


def pointwise_curve(name: str, params: dict | None = None) -> Curve:
    s = get_spec(name)
    if s.kind is not Kind.POINTWISE:
        raise ValueError(f"{s.name} is {s.kind.value}, not pointwise")
    p = _scalar_params(s, dict(params or {}))
    return _pointwise_curve_cached(s.name, tuple(sorted(p.items())))
