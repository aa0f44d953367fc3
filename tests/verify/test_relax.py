"""Relaxations and ranges of every catalog entry: sound (proved with interval arithmetic), tight, explained.

Parametrized over the catalog: a new entry gets its relaxation checked with no new test code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from verify_prover import prove, prove_piecewise_affine

import nonlin
from nonlin import verify
from nonlin.ops import TORCH
from nonlin.verify.relax import gated_factors

F64 = torch.float64
UNRELAXABLE = verify.unrelaxable()
POINTWISE = nonlin.names("pointwise")
GATED = nonlin.names("gated")
NORMALIZERS = nonlin.names("normalizer")
# a pointwise entry is refused only when its curvature is finer than the convexity grid (curve.check_resolution)
RELAXED_POINTWISE = [n for n in POINTWISE if n not in UNRELAXABLE]
# Relaxations the interval-arithmetic prover cannot yet prove (strict: proving one fails until it leaves the
# list). Empty now: siren and snake_beta are proved since the interval backend's sin_of_product is sin of the
# product's enclosure (real arithmetic), exponential and symexp since verify bounds overflowing intervals
# by constants at the exact range's end.
NOT_PROVED: dict[str, str] = {}


def _proved(name: str):
    reason = NOT_PROVED.get(name)
    return pytest.param(name, marks=[pytest.mark.xfail(reason=reason, strict=True)] if reason else [])


def intervals_for(name: str, n_random: int = 24, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Tiny, huge, across each breakpoint, in both tails, and random ones."""
    s = nonlin.spec(name)
    rng = np.random.default_rng(seed)
    lo, hi = [], []

    def add(a, b):
        lo.append(min(a, b))
        hi.append(max(a, b))

    for c in (-3.1, -0.4, 0.0, 0.7, 2.5):  # tiny
        add(c, c)
        add(c, np.nextafter(c, np.inf))
        add(c - 1e-9, c + 1e-9)
    for a, b in ((-1e4, 1e4), (-1e3, 2.0), (-5.0, 1e3), (-60.0, 60.0)):  # huge
        add(a, b)
    for a, b in ((30.0, 45.0), (-45.0, -30.0), (1e3, 1e5), (-1e5, -1e3), (700.0, 800.0), (-800.0, -700.0)):  # tails
        add(a, b)
    for p in s.breakpoints(**s.defaults()) if s.kind is not nonlin.Kind.NORMALIZER else ():  # across kinks
        for w in (1e-12, 1e-3, 0.5, 4.0):
            add(p - w, p + w)
            add(p - w, p + 0.1 * w)
        add(p, p + 1.0)
        add(p - 1.0, p)
    c = rng.normal(0, 4, n_random)
    w = rng.uniform(0, 1, n_random) * np.logspace(-6, 1.3, n_random)
    for ci, wi in zip(c, w, strict=True):
        add(ci - wi, ci + wi)
    return np.array(lo), np.array(hi)


def _bodies(s):
    fwd = s.eval_forward if s.stochastic else s.forward
    der = s.eval_derivative if s.stochastic else s.derivative
    return fwd, (None if s.gradient_rule else der)


def test_every_entry_is_relaxed_or_explained():
    for name in nonlin.names():
        if name in UNRELAXABLE:
            assert len(UNRELAXABLE[name]) > 20 and name in UNRELAXABLE[name]
            continue
        lo = torch.tensor([[-1.0, 0.5]], dtype=F64)
        r = verify.relax(name, lo, lo + 1.0)
        assert r is not None
    # the deterministic pointwise entries have no excuse: every one is relaxed
    for name in set(UNRELAXABLE) & set(POINTWISE):
        assert "finer than the convexity grid" in UNRELAXABLE[name], (name, UNRELAXABLE[name])


def test_unrelaxable_entries_refuse_with_the_reason():
    for name, reason in UNRELAXABLE.items():
        lo = torch.zeros(1, 2, dtype=F64)
        with pytest.raises(verify.Unrelaxable, match=name):
            verify.relax(name, lo, lo + 1)
        assert reason
    assert issubclass(verify.Unrelaxable, NotImplementedError)  # callers catching the earlier refusal still do


@pytest.mark.parametrize("name", [_proved(n) for n in RELAXED_POINTWISE])
def test_pointwise_relaxation_is_proved_sound(name):
    s = nonlin.spec(name)
    xl, xu = intervals_for(name)
    r = verify.relax(name, torch.tensor(xl), torch.tensor(xu))
    fwd, der = _bodies(s)
    params = s.defaults()
    bps = tuple(s.breakpoints(**params))
    for upper, a, b in ((False, r.lower_slope, r.lower_intercept), (True, r.upper_slope, r.upper_intercept)):
        side = "upper" if upper else "lower"
        if der is None:  # a gradient rule: no true derivative declared; such entries are piecewise affine
            from nonlin.verify.curve import _grid, _second_derivative, pointwise_curve

            d2 = _second_derivative(pointwise_curve(name).df, _grid())
            assert bool((d2 == 0).all()), f"{name}: has a gradient rule and is not piecewise affine"
            bad = prove_piecewise_affine(fwd, params, xl, xu, a.numpy(), b.numpy(), upper, bps)
            assert not bad, f"{name}: {side} bound violated on {[(xl[i], xu[i]) for i in bad[:3]]}"
            continue
        bad, open_ = prove(fwd, der, params, xl, xu, a.numpy(), b.numpy(), upper, bps)
        assert not bad, f"{name}: {side} bound violated on {[(xl[i], xu[i]) for i in bad[:3]]}"
        assert not open_, f"{name}: {side} bound not proved on {[(xl[i], xu[i]) for i in open_[:3]]}"


@pytest.mark.parametrize("name", [_proved(n) for n in RELAXED_POINTWISE])
def test_interval_is_the_exact_range(name):
    """Sound (proved like a bound of slope 0) and exact: attained by samples to within 1e-6 of the width."""
    s = nonlin.spec(name)
    xl, xu = intervals_for(name)
    lo, hi = verify.interval(name, torch.tensor(xl), torch.tensor(xu))
    fwd, der = _bodies(s)
    params = s.defaults()
    bps = tuple(s.breakpoints(**params))
    zero = np.zeros_like(xl)
    if der is None:  # piecewise affine (see the relaxation test)
        assert not prove_piecewise_affine(fwd, params, xl, xu, zero, lo.numpy(), False, bps)
        assert not prove_piecewise_affine(fwd, params, xl, xu, zero, hi.numpy(), True, bps)
        return
    bad, open_ = prove(fwd, der, params, xl, xu, zero, lo.numpy(), False, bps)
    assert not bad and not open_, f"{name}: lower end not a proved lower bound on {bad[:3] or open_[:3]}"
    bad, open_ = prove(fwd, der, params, xl, xu, zero, hi.numpy(), True, bps)
    assert not bad and not open_, f"{name}: upper end not a proved upper bound on {bad[:3] or open_[:3]}"
    # exact: dense samples (plus the ends) reach the range
    t = torch.linspace(0, 1, 20001, dtype=F64)[:, None]
    x = torch.tensor(xl) + (torch.tensor(xu) - torch.tensor(xl)) * t
    # and the declared breakpoints inside each interval (an isolated kink, |x| at 0, is where the range ends)
    kinks = [
        torch.tensor(b, dtype=F64).clamp(torch.tensor(xl), torch.tensor(xu))[None] for b in bps if math.isfinite(b)
    ]
    x = torch.cat([x, *kinks])
    y = fwd(TORCH, x, **params)
    width = (hi - lo).clamp(min=1e-300)
    scale = torch.maximum(lo.abs(), hi.abs())
    reach = torch.maximum(torch.tensor(xl).abs(), torch.tensor(xu).abs())
    slack = 1e-6 * width + 2.0**-28 * (scale + 2.0**-12 * reach) + 1e-300  # twice the margin (extremum.py)
    finite_w = (torch.tensor(xu) - torch.tensor(xl)) < 100  # on huge intervals 20001 samples miss narrow dips
    assert bool(((y.min(0).values - lo <= slack) | ~finite_w).all()), name
    assert bool(((hi - y.max(0).values <= slack) | ~finite_w).all()), name


def _mean_gap_of(curve_f, xl, xu, al, bl, au, bu):
    t = torch.linspace(0, 1, 2001, dtype=F64)[:, None]
    x = xl + (xu - xl) * t
    return ((au * x + bu) - (al * x + bl)).mean(0)


@pytest.mark.parametrize("name", [n for n in POINTWISE if not nonlin.spec(n).breakpoints(**nonlin.spec(n).defaults())])
def test_convex_and_concave_pieces_get_the_optimal_lines(name):
    """Inside one convex region the upper bound is the secant (touches both ends) and the lower bound the
    tangent at the midpoint (no other tangent has a smaller mean gap); mirrored in concave regions."""
    from nonlin.verify.curve import CONCAVE, CONVEX, pointwise_curve

    curve = pointwise_curve(name)
    edges = [-50.0, *[p for p in curve.points if -50 < p < 50], 50.0]
    for k in range(len(edges) - 1):
        flag = curve.flags[min(k + sum(p <= -50 for p in curve.points), len(curve.flags) - 1)]
        if flag in (0, CONVEX | CONCAVE):
            continue
        a, b = edges[k], edges[k + 1]
        xl = torch.tensor([a + 0.1 * (b - a)], dtype=F64)
        xu = torch.tensor([a + 0.6 * (b - a)], dtype=F64)
        r = verify.relax(name, xl, xu)
        fl, fu = curve.f(xl), curve.f(xu)
        # up to the margin every bound carries (extremum.margin), twice over
        scale = 2.0**-28 * (
            fl.abs() + fu.abs() + (r.upper_slope.abs() + r.lower_slope.abs() + 1) * xl.abs().max(xu.abs())
        )
        chord, tangent = (r.upper_bound, r.lower_bound) if flag == CONVEX else (r.lower_bound, r.upper_bound)
        assert torch.allclose(chord(xl), fl, atol=float(scale)) and torch.allclose(chord(xu), fu, atol=float(scale))
        mid = (xl + xu) / 2
        assert torch.allclose(tangent(mid), curve.f(mid), atol=float(scale))
        # moving the tangent point either way widens the band
        gap = float(r.mean_gap())
        for t in (xl + 0.3 * (xu - xl), xl + 0.7 * (xu - xl)):
            a_t = curve.df(t)
            b_t = curve.f(t) - a_t * t
            band = (r.upper_slope - a_t) * mid + (r.upper_intercept - b_t)
            if flag == CONCAVE:
                band = (a_t - r.lower_slope) * mid + (b_t - r.lower_intercept)
            assert float(band) >= gap - 1e-8 * (1 + float(curve.f(mid).abs() + mid.abs()))  # margins aside


@pytest.mark.parametrize("name", ["relu", "tanh", "sigmoid", "silu", "gelu", "elu", "snake"])
def test_relaxation_is_tighter_than_ibp(name):
    xl, xu = intervals_for(name)
    keep = (xu - xl) < 50
    xl, xu = torch.tensor(xl[keep]), torch.tensor(xu[keep])
    r = verify.relax(name, xl, xu)
    lo, hi = verify.interval(name, xl, xu)
    reach = torch.maximum(xl.abs(), xu.abs())
    margins = 2.0**-27 * (lo.abs() + hi.abs() + (r.lower_slope.abs() + r.upper_slope.abs() + 1) * reach)
    assert bool((r.mean_gap() <= (hi - lo) + margins).all())
    assert float(r.mean_gap().sum()) < 0.9 * float((hi - lo).sum())


@pytest.mark.parametrize("name", ["gelu", "tanh", "relu", "hardswish"])
def test_any_slope_is_sound_and_intercepts_are_differentiable(name):
    s = nonlin.spec(name)
    xl, xu = intervals_for(name)
    xl_t, xu_t = torch.tensor(xl), torch.tensor(xu)
    slopes = torch.linspace(-2, 2, len(xl), dtype=F64)
    r = verify.relax(name, xl_t, xu_t, lower_slope=slopes, upper_slope=slopes.flip(0))
    fwd, der = _bodies(s)
    bps = tuple(s.breakpoints(**s.defaults()))
    for upper, a, b in ((False, r.lower_slope, r.lower_intercept), (True, r.upper_slope, r.upper_intercept)):
        bad, open_ = prove(fwd, der, s.defaults(), xl, xu, a.numpy(), b.numpy(), upper, bps)
        assert not bad and not open_
    a = slopes.clone().requires_grad_(True)
    from nonlin.verify.curve import pointwise_curve
    from nonlin.verify.extremum import intercept

    b = intercept(pointwise_curve(name), xl_t, xu_t, a)
    b.sum().backward()
    h = 1e-6
    fd = (
        intercept(pointwise_curve(name), xl_t, xu_t, slopes + h)
        - intercept(pointwise_curve(name), xl_t, xu_t, slopes - h)
    ) / (2 * h)
    if name in ("gelu", "tanh"):  # smooth: a unique minimizer, so b(a) is differentiable
        small = (xu_t - xl_t) < 10
        assert torch.allclose(a.grad[small], fd[small], atol=1e-4 * (1 + float(xu_t[small].abs().max())))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_float32_bounds_are_rounded_outward(dtype):
    xl = torch.tensor([-2.3, -0.1, 0.37, 5.0]).to(dtype)
    xu = xl + torch.tensor([1.7, 0.2, 1e-3, 30.0]).to(dtype)
    r = verify.relax("gelu", xl, xu)
    assert r.lower_slope.dtype == (torch.float64 if dtype == torch.float64 else torch.float32)
    s = nonlin.spec("gelu")
    a_l, b_l = r.lower_slope.double().numpy(), r.lower_intercept.double().numpy()
    a_u, b_u = r.upper_slope.double().numpy(), r.upper_intercept.double().numpy()
    xl64, xu64 = xl.double().numpy(), xu.double().numpy()
    assert prove(s.forward, s.derivative, {}, xl64, xu64, a_l, b_l, False) == ([], [])
    assert prove(s.forward, s.derivative, {}, xl64, xu64, a_u, b_u, True) == ([], [])
    lo, hi = verify.interval("gelu", xl, xu)
    lo64, hi64 = verify.interval("gelu", xl.double(), xu.double())
    assert bool((lo.double() <= lo64).all() & (hi.double() >= hi64).all())


@pytest.mark.parametrize("name", sorted(set(GATED) - set(UNRELAXABLE)))
def test_gated_factors_are_proved_and_planes_hold(name):
    s = nonlin.spec(name)
    p = s.defaults()
    factors = gated_factors(name)
    gen = torch.Generator().manual_seed(3)
    c = torch.randn(2, 300, generator=gen, dtype=F64) * 4
    w = torch.rand(2, 300, generator=gen, dtype=F64) * torch.logspace(-6, 1, 300, dtype=F64)
    gl, gu, vl, vu = c[0] - w[0], c[0] + w[0], c[1] - w[1].flip(0), c[1] + w[1].flip(0)
    r = verify.relax(name, (gl, vl), (gu, vu))
    lo, hi = verify.interval(name, (gl, vl), (gu, vu))
    # samples, including the corners and edges of every box
    t = torch.rand(2, 4000, 1, generator=gen, dtype=F64)
    t[:, :4] = torch.tensor([[0.0, 0.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0]], dtype=F64)[..., None]
    t[0, 4:200] = 0.0
    t[1, 200:400] = 1.0
    g, v = gl + (gu - gl) * t[0], vl + (vu - vl) * t[1]
    y = s.forward(TORCH, g, v, **p)
    assert bool((r.lower_bound(g, v) <= y).all()), name
    assert bool((r.upper_bound(g, v) >= y).all()), name
    assert bool((lo <= y).all() & (hi >= y).all()), name
    # the factors' own bounds are proved with interval arithmetic (phi(g) = f(g, v0) and psi(v) = f(g0, v) / c)
    from nonlin.verify.pointwise import exact_range, lines

    v0 = 1.0 if factors.psi is None else None
    if v0 is not None:

        def phi(m, x):
            return s.forward(m, x, 1.0, **p)

        def dphi(m, x):
            return s.derivative(m, x, 1.0, **p)[0]

        a_l, b_l, a_u, b_u = lines(factors.phi, gl, gu)
        bps = tuple(s.breakpoints(**p))
        assert prove(phi, dphi, {}, gl.numpy(), gu.numpy(), a_l.numpy(), b_l.numpy(), False, bps) == ([], [])
        assert prove(phi, dphi, {}, gl.numpy(), gu.numpy(), a_u.numpy(), b_u.numpy(), True, bps) == ([], [])
        rlo, rhi = exact_range(factors.phi, gl, gu)
        zero = np.zeros(len(gl))
        assert prove(phi, dphi, {}, gl.numpy(), gu.numpy(), zero, rlo.numpy(), False, bps) == ([], [])
        assert prove(phi, dphi, {}, gl.numpy(), gu.numpy(), zero, rhi.numpy(), True, bps) == ([], [])
    # tighter than the box of the product
    assert float(r.mean_gap().mean()) < float((hi - lo).mean())


@pytest.mark.parametrize("name", NORMALIZERS)
def test_normalizer_ranges_hold_and_are_reached(name):
    if name in UNRELAXABLE:
        pytest.skip(UNRELAXABLE[name])
    s = nonlin.spec(name)
    p = s.defaults()
    gen = torch.Generator().manual_seed(5)
    c = torch.randn(40, 6, generator=gen, dtype=F64) * 2
    w = torch.rand(40, 6, generator=gen, dtype=F64) * torch.logspace(-4, 0.5, 40, dtype=F64)[:, None]
    lo, hi = verify.interval(name, c - w, c + w)
    r = verify.relax(name, c - w, c + w)
    t = torch.rand(3000, 40, 6, generator=gen, dtype=F64)
    t[:2] = torch.stack([torch.zeros(40, 6), torch.ones(40, 6)]).to(F64)
    z = c - w + 2 * w * t
    y = s.torch_impl(z, torch.ones_like(z, dtype=torch.bool), **p)
    assert bool((lo <= y).all() & (y <= hi).all()), name
    assert bool((r.lower_bound(z) <= y).all() & (y <= r.upper_bound(z)).all()), name
    # the corner configurations reach the ends: exact up to rounding
    n = 6
    eye = torch.eye(n, dtype=torch.bool)
    # the two corners (own score low and the others high, or the reverse): the lower end is the smaller
    # (own-low for weights increasing in their own score, own-high for softmin's decreasing ones)
    corners = [torch.where(eye, a[:, None, :], b[:, None, :]) for a, b in ((c - w, c + w), (c + w, c - w))]
    at = [s.torch_impl(z, torch.ones_like(z, dtype=torch.bool), **p).diagonal(dim1=-2, dim2=-1) for z in corners]
    reach = torch.minimum(*at)
    tol = 2.0**-27 * (lo.abs() + c.abs() + w) + 1e-300  # the margins of extremum.py
    assert bool(((reach - lo).abs() <= tol).all()), (name, float((reach - lo).abs().max()))
    with pytest.raises(ValueError, match="lower must be <= upper"):
        verify.interval(name, c + 1, c)


def test_bad_input_is_refused_clearly():
    x = torch.zeros(3, dtype=F64)
    with pytest.raises(ValueError, match="lower must be <= upper"):
        verify.relax("gelu", x + 1, x)
    with pytest.raises(ValueError, match="finite"):
        verify.relax("gelu", x - math.inf, x)
    with pytest.raises(TypeError, match="floating"):
        verify.relax("gelu", torch.zeros(3, dtype=torch.int64), x)
    with pytest.raises(ValueError, match="did you mean"):
        verify.relax("gleu", x, x)
    with pytest.raises(ValueError, match="even last dimension"):
        verify.relax("swiglu", x, x)
    with pytest.raises(TypeError, match="unknown parameter"):
        verify.relax("elu", x, x, beta=2.0)
