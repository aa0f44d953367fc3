"""The hand-written float32 kernels (nonlin.kernels.native32): accuracy against float64 on every binade and the
edges, the same bits in the vector body, the partial tail and across threads, and the route that takes them."""

from __future__ import annotations

import functools

import mpmath
import numpy as np
import pytest
import scipy.special as sp
import torch
from kernel_helpers import nonlin_ops_traced

import nonlin
import nonlin.functional as F
from nonlin import route
from nonlin.catalog.additions_pointwise import _TANHSHRINK_SERIES
from nonlin.catalog.smooth import _GELU_TANH_C, _SQRT_2_OVER_PI, SELU_ALPHA, SELU_SCALE
from nonlin.kernels import cpu, dispatch, native32
from nonlin.registry import convention

# float64 references (1e-16 relative: far below a float32 ULP)
REFERENCE = {
    "sigmoid": (sp.expit, lambda x: sp.expit(x) * sp.expit(-x)),
    "tanh": (np.tanh, lambda x: np.where(np.isinf(x), 0.0, 1.0 / np.cosh(np.minimum(np.abs(x), 355.0)) ** 2)),
    # (the limits at -inf: -0, as nonlin's gated product gives, where x * 0 is NaN; at +inf silu' is 1)
    "silu": (
        lambda x: np.maximum(x, -1e4) * sp.expit(x),
        lambda x: sp.expit(x) * (1.0 + np.clip(x, -1e4, 1e4) * sp.expit(-x)),
    ),
    "gelu": (lambda x: np.maximum(x, -1e4) * sp.ndtr(x), lambda x: _gelu_grad(x)),
    "quick_gelu": (
        lambda x: np.maximum(x, -1e4) * sp.expit(1.702 * x),
        lambda x: sp.expit(1.702 * x) * (1.0 + np.clip(1.702 * x, -1e4, 1e4) * sp.expit(-1.702 * x)),
    ),
    # (e^x - 1 of x itself where x <= 0: numpy's minimum(-0, 0) is +0; the eager path's and torch's elu(-0) are -0)
    "elu": (
        lambda x: np.where(x > 0, x, np.expm1(np.where(x > 0, 0.0, x))),
        lambda x: np.where(x > 0, 1.0, np.exp(np.minimum(x, 0.0))),
    ),
    "selu": (
        lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(np.where(x > 0, 0.0, x))),
        lambda x: SELU_SCALE * np.where(x > 0, 1.0, SELU_ALPHA * np.exp(np.minimum(x, 0.0))),
    ),
    "tanhshrink": (lambda x: _tanhshrink(x), lambda x: np.tanh(x) ** 2),
    # (HF's gelu_10: the derivative 0 where gelu(x) > 10)
    "clipped_gelu": (
        lambda x: np.where(np.isnan(x), np.nan, np.clip(REFERENCE["gelu"][0](x), -10.0, 10.0)),
        lambda x: np.where(np.isnan(x) | (REFERENCE["gelu"][0](x) <= 10.0), _gelu_grad(x), 0.0),
    ),
    "laplace": (
        lambda x: sp.ndtr((x - 0.707107) / 0.282095),
        lambda x: _gauss_grad(x, 0.707107, 0.282095),
    ),
    "ndtr": (sp.ndtr, lambda x: _gauss_grad(x, 0.0, 1.0)),
    # (x (x + 3) is exact in float64; at -3 and 3 the catalog's one-sided derivatives, -1/2 and 3/2)
    "hardswish": (
        lambda x: np.where(
            x <= -3, np.where(np.isnan(x), np.nan, -0.0), np.maximum(x, -3.0) * np.clip(x + 3.0, 0, 6) / 6
        ),
        lambda x: np.where(x < -3, 0.0, np.where(x > 3, 1.0, (2.0 * x + 3.0) / 6.0)),
    ),
    "lecun_tanh": (
        lambda x: 1.7159 * np.tanh(x * (2.0 / 3.0)),
        lambda x: np.where(
            np.isinf(x), 0.0, (1.7159 * 2.0 / 3.0) / np.cosh(np.minimum(np.abs(x * (2.0 / 3.0)), 355.0)) ** 2
        ),
    ),
    "gelu_tanh": (lambda x: _gelu_tanh(x)[0], lambda x: _gelu_tanh(x)[1]),
    "tanhexp": (lambda x: _tanhexp(x)[0], lambda x: _tanhexp(x)[1]),
    "serf": (lambda x: _serf(x)[0], lambda x: _serf(x)[1]),
    "log_ndtr": (sp.log_ndtr, lambda x: _log_ndtr_grad(x)),
    # (at +-inf the derivative's limit +-1: x sech^2 x -> 0)
    "lisht": (
        lambda x: x * np.tanh(x),
        lambda x: np.where(
            np.isinf(x),
            np.sign(x),
            np.tanh(x) + np.where(np.isinf(x), 0.0, x) / np.cosh(np.minimum(np.abs(x), 355.0)) ** 2,
        ),
    ),
    # (30 x exact in float64; numpy's sin and cos reduce their argument exactly at every magnitude)
    "siren": (lambda x: np.sin(30.0 * x), lambda x: 30.0 * np.cos(30.0 * x)),
    "sqrtsoftplus": (lambda x: np.sqrt(np.logaddexp(0.0, x)), lambda x: _sqrtsoftplus_grad(x)),
    "log_sigmoid": (lambda x: -np.logaddexp(0.0, -x), lambda x: sp.expit(-x)),
    "softplus": (lambda x: np.logaddexp(0.0, x), sp.expit),
    # (numpy's sin and cos reduce exactly; the derivative's sum cancels near its zeros to ~2^-53, far below float32's)
    "snake": (lambda x: x + np.sin(x) ** 2, lambda x: (np.sin(x) + np.cos(x)) ** 2),
    # (at its defaults: b + eps = 1 + 1e-9 in doubles, the derivative the catalog's (eps + (s + c)^2) / (b + eps))
    "snake_beta": (
        lambda x: x + np.sin(x) ** 2 / (1.0 + 1e-9),
        lambda x: (1e-9 + (np.sin(x) + np.cos(x)) ** 2) / (1.0 + 1e-9),
    ),
    "mish": (lambda x: _mish(x, 0.0)[0], lambda x: _mish(x, 0.0)[1]),
    "mila": (lambda x: _mish(x, -0.25)[0], lambda x: _mish(x, -0.25)[1]),
    "golu": (lambda x: _golu(x)[0], lambda x: _golu(x)[1]),
    # (derf at its defaults, erf(x / 2 + 0) + 0 as the catalog adds shift and bias: +0 at x = -0; the derivative's
    # exp underflows as the kernel's doubles do)
    "derf": (lambda x: sp.erf(x / 2 + 0.0) + 0.0, lambda x: np.exp(-(x * x) / 4) / np.sqrt(np.pi)),
    "sau": (lambda x: _sau(x)[0], lambda x: _sau(x)[1]),
    # (the derivative's float64 terms cancel near its zeros, to ~2^-53 |x|: test_gcu_derivative_near_its_zeros)
    "gcu": (lambda x: x * np.cos(x), lambda x: np.cos(x) - x * np.sin(x)),
    "softcap": (
        lambda x: 50.0 * np.tanh(x / 50.0),
        lambda x: np.where(np.isinf(x), 0.0, 1.0 / np.cosh(np.minimum(np.abs(x / 50.0), 355.0)) ** 2),
    ),
}


def _mish(x: np.ndarray, shift: float) -> tuple[np.ndarray, np.ndarray]:
    """x tanh(s), s = softplus(x + shift), and its derivative tanh(s) + x sech^2(s) sigma(x + shift), in float64 (near
    the derivative's zero its Taylor series, `_near_zero`); at -inf -0 and -0 (the limits of x e^x and e^x (1 + x)),
    at +inf +inf and 1."""
    with np.errstate(all="ignore"):
        s = np.logaddexp(0.0, x + shift)
        y = np.where(np.isneginf(x), -0.0, x * np.tanh(s))
        finite_x = np.where(np.isinf(x), 0.0, x)
        d = np.tanh(s) + finite_x / np.cosh(np.minimum(s, 355.0)) ** 2 * sp.expit(x + shift)
        # (below -50, e^(x + shift) (1 + x) to e^-50 relative, whose underflow keeps the true value's sign: -0)
        d = np.where(x < -50.0, np.exp(x + shift) * (1.0 + x), d)
    d = _near_zero("mila" if shift else "mish", x, d)
    return y, np.where(np.isneginf(x), -0.0, np.where(np.isposinf(x), 1.0, d))


def _golu(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x F, F = exp(-e^-x), and its derivative F (1 + x e^-x), in float64 (near the derivative's zero its Taylor
    series); below -6.5, where both are below 2^-280, -0 (their limits' sign, as at -inf); at +inf +inf and 1."""
    with np.errstate(all="ignore"):
        w = np.exp(-x)
        f = np.exp(-w)
        y = np.where(x < -6.5, -0.0, x * f)
        d = f * (1.0 + np.where(np.isinf(x), 0.0, x) * w)
    d = _near_zero("golu", x, d)
    return y, np.where(x < -6.5, -0.0, np.where(np.isposinf(x), 1.0, d))


def _mish_grad_mp(shift):
    def f(x):
        s = mpmath.log1p(mpmath.exp(x + shift))
        return mpmath.tanh(s) + x * mpmath.sech(s) ** 2 / (1 + mpmath.exp(-(x + shift)))

    return f


# derivatives whose float64 terms cancel near a zero (to ~2^-54 absolute: 1.6 ULP of the value at the float32s
# nearest it): the function in mpmath and a guess of the zero
_ZEROS = {
    "mish": (_mish_grad_mp(0.0), -1.19),
    "mila": (_mish_grad_mp(-0.25), -1.15),
    "golu": (lambda x: mpmath.exp(-mpmath.exp(-x)) * (1 + x * mpmath.exp(-x)), -0.57),
    # (sau's forward: alpha x and (1 - alpha)(x Phi(x) + phi(x)) cancel there)
    "sau": (lambda x: _SAU_ALPHA * x + (1 - _SAU_ALPHA) * (x * mpmath.ncdf(x) + mpmath.npdf(x)), -1.72),
}
_SAU_ALPHA = nonlin.spec("sau").defaults()["alpha"]  # (0.01, the double the catalog holds; sigma = 1)


@functools.cache
def _zero_series(name: str) -> tuple[float, float, list[float]]:
    """The zero x0 of `_ZEROS[name]` as a float64 pair and the function's Taylor coefficients there to degree 4
    (mpmath at 40 digits; the remainder below 2^-40 of the value within 2^-10 of x0)."""
    f, guess = _ZEROS[name]
    with mpmath.workdps(40):
        x0 = mpmath.findroot(f, guess)
        hi = float(x0)
        return hi, float(x0 - hi), [float(c) for c in mpmath.taylor(f, x0, 4)]


def _near_zero(name: str, x: np.ndarray, d: np.ndarray) -> np.ndarray:
    """d with its values within 2^-10 of the zero replaced by the Taylor series there, in x - x0 exactly."""
    x0_hi, x0_lo, coefficients = _zero_series(name)
    dx = (x - x0_hi) - x0_lo
    near = np.abs(dx) < 2.0**-10
    return np.where(near, np.polynomial.polynomial.polyval(np.where(near, dx, 0.0), coefficients), d)


def _sau(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """alpha x + (1 - alpha)(x Phi(x) + phi(x)) at its defaults (sigma = 1) and its derivative alpha + (1 - alpha)
    Phi(x), in float64 (near the forward's zero its Taylor series; x Phi(x) at -inf its limit -0); +-inf give +-inf
    and the limits 1 and alpha."""
    with np.errstate(all="ignore"):
        xf = np.where(np.isinf(x), 0.0, x)
        y = _SAU_ALPHA * x + (1 - _SAU_ALPHA) * (xf * sp.ndtr(xf) + np.exp(-xf * xf / 2) / np.sqrt(2 * np.pi))
        y = np.where(np.isinf(x), x, y)
    return _near_zero("sau", x, y), _SAU_ALPHA + (1 - _SAU_ALPHA) * sp.ndtr(x)


def _tanhshrink(x: np.ndarray) -> np.ndarray:
    """x - tanh x in float64 without its cancellation: the catalog's Taylor series below 1/2 (1e-16 relative)."""
    small = np.where(np.abs(x) < 0.5, x, 0.0)
    series = small**3 * np.polyval(_TANHSHRINK_SERIES[::-1], small * small)
    return np.where(np.abs(x) < 0.5, series, x - np.tanh(x))


def _gelu_tanh(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x sigma(z), z = 2c (x + a x^3), and its derivative sigma(z) (1 + m sigma(-z)), m = 2c x (1 + 3a x^2), in
    float64 (x clamped where the value is x or 0, as silu's reference; at -inf the gated product's -0)."""
    xc = np.clip(np.where(np.isnan(x), 0.0, x), -1e3, 1e3)
    z = 2.0 * _SQRT_2_OVER_PI * (xc + _GELU_TANH_C * xc**3)
    m = 2.0 * _SQRT_2_OVER_PI * xc * (1.0 + 3.0 * _GELU_TANH_C * xc**2)
    value = np.where(np.isnan(x), np.nan, np.where(x > 1e3, x, xc * sp.expit(z)))
    slope = np.where(np.isnan(x), np.nan, sp.expit(z) * (1.0 + m * sp.expit(-z)))
    return value, np.where((slope == 0) & (x < 0), -0.0, slope)


def _tanhexp(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x tanh(e^x) and its derivative tanh(E) + x E sech^2(E) in float64 (the derivative's left tail a negative
    zero where it underflows, as the catalog's signed sum gives; its limit 1 at +inf)."""
    e = np.exp(np.minimum(x, 700.0))
    value = np.maximum(x, -1e4) * np.tanh(e)
    slope = np.tanh(e) + np.clip(x, -1e4, 700.0) * e / np.cosh(np.minimum(e, 700.0)) ** 2
    return value, np.where((slope == 0) & (x < 0), -0.0, slope)


def _serf(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x erf(s), s = softplus(x), and its derivative erf(s) + x (2 / sqrt pi) e^{-s^2} sigma(x) in float64 (x clamped
    where the value is x or 0, as silu's reference; the derivative's left tail a negative zero where it underflows,
    as the catalog's signed sum gives; its limit 1 at +inf)."""
    s = np.logaddexp(0.0, x)
    xc = np.clip(x, -1e4, 1e4)
    value = np.maximum(x, -1e4) * sp.erf(s)
    slope = sp.erf(s) + xc * (2.0 / np.sqrt(np.pi)) * np.exp(-(np.minimum(s, 1e4) ** 2)) * sp.expit(x)
    return value, np.where((slope == 0) & (x < 0), -0.0, slope)


def _log_ndtr_grad(x: np.ndarray) -> np.ndarray:
    """phi(x) / Phi(x): below 0 sqrt(2 / pi) / erfcx(-x / sqrt2), which neither underflows nor cancels (infinite at
    -inf); above, phi(x) / Phi(x), float64's smallest subnormal where that underflows but x is finite (as in
    `_gauss_grad`), 0 at +inf."""
    with np.errstate(divide="ignore", invalid="ignore"):  # (each branch's values where the other is taken)
        left = np.sqrt(2.0 / np.pi) / sp.erfcx(-np.minimum(x, 0.0) / np.sqrt(2.0))
        right = np.exp(-0.5 * np.minimum(x * x, 1e5)) / np.sqrt(2 * np.pi) / sp.ndtr(x)
    return np.where(x < 0, left, np.where(x < np.inf, np.maximum(right, 5e-324), right))


def _gauss_grad(x: np.ndarray, mu: float, sigma: float) -> np.ndarray:
    """phi(z) / sigma, z = (x - mu) / sigma; where it underflows float64 (|z| > 38.6) but x is finite, float64's
    smallest subnormal stands for the tiny positive value (an infinite go times it is the infinity, as the true
    product)."""
    z = np.where(np.isfinite(x), (x - mu) / sigma, 0.0)
    d = np.exp(-0.5 * np.minimum(z * z, 1e5)) / (sigma * np.sqrt(2 * np.pi))
    return np.where(np.isfinite(x), np.maximum(d, 5e-324), np.where(np.isnan(x), np.nan, 0.0))


def _sqrtsoftplus_grad(x: np.ndarray) -> np.ndarray:
    """sigma(x) / (2 sqrt(softplus(x))), e^(x / 2) / 2 below -40 (the catalog's form); where that underflows float64
    (x < -1490) but x is finite, float64's smallest subnormal stands for the tiny positive value, as in
    `_gauss_grad`; at +-inf the limit 0."""
    xc = np.clip(np.where(np.isnan(x), 0.0, x), -40.0, np.inf)
    d = np.where(
        x < -40, 0.5 * np.exp(0.5 * np.minimum(x, -40.0)), sp.expit(xc) / (2.0 * np.sqrt(np.logaddexp(0.0, xc)))
    )
    return np.where(np.isfinite(x), np.maximum(d, 5e-324), np.where(np.isnan(x), np.nan, 0.0))


def _gelu_grad(x: np.ndarray) -> np.ndarray:
    d = sp.ndtr(x) + np.clip(x, -1e4, 1e4) * np.exp(-0.5 * np.minimum(x * x, 1e8)) / np.sqrt(2 * np.pi)
    # where both terms underflow float64 (x < -38.5), 0 + (-0) is +0: the true value is negative (x phi(x))
    return np.where((d == 0) & (x < 0), -0.0, d)


# Bounds (float32 ULP of the true value), forward and backward (go f'(x)); measured on every 1021st float32 and
# 4.8M dense points (and 2M around silu's and gelu's derivative zeros): sigmoid 1.44 / 1.75 (below |x| = 69 the
# exponential rounded to float32, bounded by 1.92 both ways; 1.47 forward on every 7th float32), tanh 0.51 / 1.75
# (its forward for 2^-32 <= |x| < 4 x F from lisht's table F = tanh(x) / x, 0.51 on 4M dense points, elsewhere the
# quotient, 0.72; its derivative's form is sigmoid's), silu 1.59 / 2.00 (its derivative below |x| = 8 from its
# interval table evaluated in float32, bounded by 3.5; below |x| = 69 the forward is sigmoid's near form times x, the exponential rounded to float32:
# bounded by 1.92, 1.69 on every 7th float32; from -68 to 20 the derivative's form carries u as uh + ul with p
# rounded: 1.11 on every 7th float32), gelu 1.06 / 1.13 (below |x| = 4 its interval tables, 0.61 / 0.63:
# test_interval_tables_hold_their_bounds_on_their_range; beyond, from -9 up the near forms, whose e^{-a^2/2} has
# exp_near's error: 1.22 forward on every 7th float32, where the exact form had 1.20), elu 0.84 / 1.68 (every 7th
# float32 of [-40, 0]: fma(t, p, t - 1) and go fma(t, p, t), to the goals, bounded by ~0.75 and ~2.35; the exact
# forms, selu's, had 0.79 / 0.84), selu
# 0.75 / 0.79, quick_gelu 1.04 / 1.07 (1.702 x carried as hi + lo; from -39.5 up silu's near forms on it: 1.09 /
# 1.14 on every 7th float32; the reduction's rounded argument, then silu' cancelling just outside the zero's
# zone), tanhshrink 0.94 / 1.15 (the series' float32 Horner at its edge, 0.87; tanh's error doubled in tanh^2, at 0.14: also on 2M dense points
# over [-1.2, 1.2] and 200K of 2^-[0, 60]), softcap 0.80 / 0.79 (x / 50 carried as hi + lo outside the
# exponential's reduced argument: folded into it, 1.37 forward), clipped_gelu gelu's (whose derivative reaches 1.30
# at x = -0.986 on the 2M dense points over [-1.2, 1.2]), laplace 1.17 / 0.81
# ((x - mu) / sigma carried as hi + lo; Phi's left tail at z = -5.4; 1.19 at z = -12.1 on 2M dense points over [-4, 4];
# the near forms, gelu's Phi and e^{-z^2/2} from exp_near on z = zh + zl: 1.41 / 1.14 on every 7th float32),
# ndtr 1.03 / 0.82 (the same near forms with z = x: 1.31 / 1.13 on every 7th float32), hardswish 0.50 / 1.45 (x (x + 3) / 6 as an exact sum and product
# with a corrected quotient, 0.5000001 on every float32 of |x| < 3.5; the derivative's 2x + 3 rounded once, bounded by
# 1.5, 1.498 on those floats with go ~ N(0, 1)),
# lecun_tanh 0.80 / 0.80 (softcap's, 2x / 3 carried as hi + lo), gelu_tanh 0.94 / 0.99 (z and x z' carried as hi +
# lo; from -9 up silu's near forms on them: 1.13 / 1.15 on every 7th float32), siren 0.5001 / 0.5001 (sin and cos of the
# exact 30 x in doubles, rounded once: also on every float32 of its reduced range, tools/sin_reduction_bound.py),
# sqrtsoftplus 0.57 / 0.53 (below |x| = 8 its interval tables, 0.54 / 0.52 on 4M dense points; beyond, exp and
# log1p in doubles to 2^-30, rounded once: 0.504 / 0.505), log_sigmoid 0.58 / 1.63 (below |x| = 8 its interval table,
# beyond sqrtsoftplus's softplus in doubles; the derivative glu's sigma(g) v at g = -x, v = go: u = e^-|x| rounded,
# below 1.92 as sigmoid's forward; softplus its kernel at -x, negated), snake 0.5000 / 0.5000 (x + sin^2 x and
# (sin x + cos x)^2 from gcu's sine and cosine in doubles, rounded once: on 1M points over [-50, 50] with go ~ N(0, 1); snake_beta at its defaults the
# same), mish 0.59 / 0.55 and mila 0.58 /
# 0.58 (below |x| = 8 and 4 interval tables, the derivative's zero carried; beyond, softplus, tanh and sech^2 in
# doubles: on 600K points over [-30, 30] and 10K over [-120, -80], go ~ N(0, 1) scaled by 1 and 2^+-40; the forward
# 1.0 just above x = 2^-126, where x times the table's low part rounds on the subnormal grid, half an ULP of the
# result), golu 0.77 / 0.86 (below |x| = 2 interval tables, the derivative's zero carried, 0.55 / 0.57; from 2 up
# float32, w = e^-x rounded and expm1(-w)'s series; below -2, e^-e^-x in doubles by exp_d's full series: on 600K
# points over [-8, 30] with go scaled as mish's; the forward's edge above 2^-126 as mish's), derf at its defaults 0.51
# / 0.52 (erf(x / 2) = x F below |x| = 8 and the derivative below 4 from interval tables; beyond, +-1 and doubles: on
# 1.2M points over [-60, 60], go as mish's; the forward's edge above 2^-126 as mish's), serf 0.64 / 0.64 (below |x| = 4 its
# interval tables, 0.53 / 0.57, up to 0.64 where x times the low part is subnormal; beyond, doubles: 0.51 / 0.56),
# log_ndtr 0.56 / 0.60 (below |x| = 4 its interval tables, 0.62 / 0.59 on 4M dense points; beyond, doubles: the
# left tail -x^2/2 + log z, Phi(-a) = e^{-a^2/2} z, the right -(Q + Q^2/2)), gcu 0.50 / 0.50 (siren's sine
# and cosine at w = 1, to 2^-54 for the derivative, whose terms cancel near its zeros: 0.4998 against mpmath on
# the 601 float32s around each of six zeros). Up to 1 ULP just below 2^-126, where the quotient
# (rounded to float32's 24 bits) is rounded again to the subnormal grid, which is as fine there (silu's 0.89 at x = -91.9); gelu's pieces
# (erfcx's fit and its float32 evaluation, the quotient, e^{-a^2/2} to 2^-26) add up to ~1 (the goal is 2).
# Every operation is correctly rounded IEEE arithmetic, so the bits, and these errors, are the same under AVX2
# and AVX-512 (.ci/isa_matrix.py runs this file under each; under the default ISA the kernels are not used:
# test_without_a_vector_isa_the_generated_kernels_run)
BOUNDS = {
    "sigmoid": (1.5, 2.0),
    "tanh": (0.6, 2.0),
    "silu": (1.75, 2.5),
    "gelu": (1.3, 1.2),
    "elu": (0.9, 2.4),
    "selu": (0.85, 0.9),
    "quick_gelu": (1.15, 1.25),
    "tanhshrink": (1.05, 1.25),
    "softcap": (0.9, 0.9),
    "clipped_gelu": (1.3, 1.35),
    "laplace": (1.45, 1.2),
    "ndtr": (1.35, 1.2),
    "hardswish": (0.55, 1.55),
    "lecun_tanh": (0.9, 0.9),
    "lisht": (0.9, 0.9),
    "gelu_tanh": (1.2, 1.2),
    "tanhexp": (1.0, 1.25),
    "serf": (0.7, 0.7),
    "log_ndtr": (0.65, 0.65),
    "siren": (0.501, 0.501),
    "sqrtsoftplus": (0.6, 0.6),
    "gcu": (0.501, 0.501),
    "log_sigmoid": (0.6, 2.0),
    "softplus": (0.6, 2.0),  # (log_sigmoid's kernel on -x)
    "snake": (0.501, 0.501),
    "snake_beta": (0.501, 0.501),
    "mish": (1.05, 0.75),
    "mila": (1.05, 0.75),
    "golu": (1.05, 0.95),
    "derf": (1.05, 0.6),
    "sau": (0.7, 0.75),
}

# the entries whose float32 calls take the kernels outside torch.compile too (elu's route there is torch's op:
# it meets the goals and costs less)
ROUTED = sorted(set(native32.PRIMITIVES) - {"elu"})


def _torch_forward_when_large(name: str) -> bool:
    """Whether a large float32 call's forward is torch's op (route.NATIVE's inference rows not sent to the fused
    route at the large size class: tanh), as `route._torch_forward` decides."""
    n = route.NATIVE.get(name)
    return n is not None and "float32" in n.dtypes("forward") and "float32" not in n.large_fused


needs_kernels = pytest.mark.skipif(
    not cpu.compile_available() or not native32.available(), reason="no C++ compiler, or not AVX2 / AVX-512"
)


def _ulp_error(y: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|y - ref| in float32 ULP of ref (the ULP of a subnormal below 2^-126)."""
    e = np.floor(np.log2(np.maximum(np.abs(ref), 2.0**-149)))
    ulp = np.maximum(2.0 ** (e - 23), 2.0**-149)
    err = np.abs(y.astype(np.float64) - ref) / ulp
    err[y.astype(np.float64) == ref] = 0.0
    # beyond float32's largest value and half its last ULP the correctly rounded result is the infinity
    overflow = np.abs(ref) >= 2.0**128 - 2.0**103
    err[overflow & (y.astype(np.float64) == np.sign(ref) * np.inf)] = 0.0
    return err


def _inputs(step: int) -> np.ndarray:
    bits = np.arange(0, 2**32, step, dtype=np.uint64).astype(np.uint32)
    xs = bits.view(np.float32)
    dense = [np.linspace(-110, 110, 400_001, dtype=np.float32), np.linspace(-1, 1, 200_001, dtype=np.float32)]
    # the reduction's boundaries (z = +-ln2/2: k changes), small arguments, the subnormal range
    edges = [np.float32(v) * (1 + np.arange(-300, 301, dtype=np.float32) * 2.0**-20) for v in (0.3466, 0.1733, 2**-12)]
    return np.concatenate([xs[np.isfinite(xs)], *dense, *edges, -np.concatenate(edges)]).astype(np.float32)


def _check_bounds(primitive: str, step: int, seed: int) -> None:
    xs = _inputs(step)
    x = torch.from_numpy(xs)
    go = torch.randn(x.shape, generator=torch.Generator().manual_seed(seed))
    value, derivative = REFERENCE[primitive]
    xd = xs.astype(np.float64)
    fwd = _ulp_error(native32.forward(primitive, x).numpy(), value(xd))
    bwd = _ulp_error(native32.backward(primitive, go, x).numpy(), go.double().numpy() * derivative(xd))
    forward_ulp, backward_ulp = BOUNDS[primitive]
    assert fwd.max() <= forward_ulp, (fwd.max(), xs[fwd.argmax()])
    assert bwd.max() <= backward_ulp, (bwd.max(), xs[bwd.argmax()])


@needs_kernels
@pytest.mark.parametrize("primitive", sorted(native32.PRIMITIVES))
def test_native_kernels_are_within_their_bounds(primitive):
    _check_bounds(primitive, 65521, seed=0)


@needs_kernels
@pytest.mark.slow
@pytest.mark.parametrize("primitive", sorted(native32.PRIMITIVES))
def test_native_kernels_are_within_their_bounds_dense(primitive):
    _check_bounds(primitive, 1021, seed=1)


EDGES = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-40, -1e-40, 1e-30, -1e-30, 88.0, -88.0, -87.5,
         -103.0, -200.0, 200.0, 3e38, -3e38]  # fmt: skip


@needs_kernels
@pytest.mark.parametrize("primitive", sorted(native32.PRIMITIVES))
def test_non_finite_inputs_and_signed_zeros_are_the_references(primitive):
    """NaN in, NaN out; infinities and the far tails give the limits, zeros keep the sign the reference's IEEE
    arithmetic gives (tanh(-0) = -0; go f'(x) takes go's sign, also at go = -0, where the two-products' zeros
    had summed to +0); the rest within the bounds."""
    x = torch.tensor(EDGES)
    value, derivative = REFERENCE[primitive]
    forward_ulp, backward_ulp = BOUNDS[primitive]
    outputs = [(native32.forward(primitive, x), value(x.double().numpy()), forward_ulp)]
    for s in (1.0, -1.0, 0.0, -0.0, float("nan")):  # (a NaN go: NaN, also where f'(x) is a zero)
        g = native32.backward(primitive, torch.full_like(x, s), x)
        outputs.append((g, s * derivative(x.double().numpy()), backward_ulp))
    for y, ref64, bound in outputs:
        ref = torch.from_numpy(ref64).float()
        assert torch.equal(torch.isnan(y), torch.isnan(ref))
        fin = ~torch.isnan(ref)
        assert _ulp_error(y[fin].numpy(), ref64[fin.numpy()]).max(initial=0.0) <= bound
        exact = fin & ((ref == 0) | ref.isinf() | (ref.abs() == 1))
        assert torch.equal(y[exact], ref[exact]), (y, ref)
        assert torch.equal(torch.signbit(y[fin]), torch.signbit(ref[fin]))


@needs_kernels
@pytest.mark.parametrize("primitive", sorted(native32.PRIMITIVES))
def test_the_bits_do_not_depend_on_position_or_threads(primitive):
    """The partial tail runs the vector code on a partial load, and threads split the array in chunks: every
    element's bits are its own, wherever it lies."""
    gen = torch.Generator().manual_seed(2)
    n = native32.PARALLEL_NUMEL + 37  # threads split it; a tail of every length below the vector's
    x = torch.randn(n, generator=gen) * 30
    go = torch.randn(n, generator=gen)
    one = native32.kernel(primitive, "fwd")
    y1 = torch.empty_like(x)
    one(x, y1, 1, n, n, n, 1)  # (rows, width, strides, threads)
    y2 = torch.empty_like(x)
    one(x, y2, 1, n, n, n, 2)
    assert torch.equal(y1, y2)
    for length in range(1, 18):  # shorter than a vector (16 or 8 lanes), and one more
        assert torch.equal(native32.forward(primitive, x[:length].clone()), y1[:length])
        assert torch.equal(native32.backward(primitive, go[:length].clone(), x[:length].clone()),
                           native32.backward(primitive, go, x)[:length])  # fmt: skip


def _with_a_nan_lane(t: torch.Tensor) -> torch.Tensor:
    """t's elements, 7 to every 8 with a NaN as the 8th: every vector (8 or 16 lanes) then holds a NaN, so the
    kernels take their full form (special cases blended in) on every lane."""
    rows = t.reshape(-1, 7)
    return torch.cat([rows, torch.full((rows.shape[0], 1), float("nan"))], dim=1).reshape(-1)


def _plain_sample() -> tuple[torch.Tensor, torch.Tensor]:
    """Finite float32s sorted (runs of ordinary values fill whole vectors: the plain form takes them), every
    binade, dense over the kernels' ranges, and a finite go of every magnitude."""
    xs = np.sort(np.concatenate([_inputs(4099), np.float32([0.0, -0.0])]))
    xs = xs[: len(xs) // 7 * 7]
    gen = torch.Generator().manual_seed(8)
    go = torch.randn(len(xs), generator=gen) * torch.exp2(torch.randint(-60, 61, (len(xs),), generator=gen).float())
    return torch.from_numpy(xs), go


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    """The same bit patterns (float32 or bfloat16, of one dtype), NaN for NaN."""
    bits = torch.int32 if a.dtype == torch.float32 else torch.int16
    return a.dtype == b.dtype and bool(((a.view(bits) == b.view(bits)) | (a.isnan() & b.isnan())).all())


@needs_kernels
@pytest.mark.parametrize("primitive", sorted(native32.PRIMITIVES))
def test_the_plain_form_gives_the_full_forms_bits(primitive):
    """Where every lane of a vector is ordinary (no clamp, tail, infinity or NaN to blend in) a kernel takes its
    plain form (native32's `every`): the same operations, so the same bits as the full form, which a NaN lane
    in each vector forces."""
    x, go = _plain_sample()
    keep = ~_with_a_nan_lane(torch.zeros_like(x)).isnan()
    full = native32.forward(primitive, _with_a_nan_lane(x))[keep]
    assert _same_bits(native32.forward(primitive, x), full)
    full = native32.backward(primitive, _with_a_nan_lane(go), _with_a_nan_lane(x))[keep]
    assert _same_bits(native32.backward(primitive, go, x), full)


@needs_kernels
@pytest.mark.parametrize("name", ROUTED)
def test_float32_calls_of_the_entries_take_the_native_kernels(name):
    """The default route of a float32 call (inference and training) runs the hand-written kernels, saves the
    input alone, and its backward is the kernel's; other dtypes and settings keep their kernels. Where torch's
    op is the row's forward (route.NATIVE: tanh), a training call's forward is torch's op and its backward the
    kernel's."""
    s = nonlin.spec(name)
    defaults = s.defaults()
    job = dispatch.job_for(s, torch.float32, defaults)
    assert job is not None and job.native == name
    assert dispatch.job_for(s, torch.float64, defaults).native is None
    assert dispatch.job_for(s, torch.bfloat16, defaults).native is None
    with nonlin.use(fp32_compute="float64"):
        assert dispatch.job_for(s, torch.float32, defaults).native is None
    x = (torch.randn(route.LARGE_NUMEL, generator=torch.Generator().manual_seed(3)) * 5).requires_grad_()
    go = torch.randn(x.shape)
    torch_forward = _torch_forward_when_large(name)
    saved = []
    with (
        route.recording() as taken,
        torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t),
    ):
        y = F.function(name)(x)
    assert taken[0][5] == "fused"
    assert (
        y.grad_fn.name() == "nonlin_fusedBackward"
    )  # (the C++ node or the Python Function: tests/kernels/test_cpp_ops.py)
    forward = s.torch_equivalent(x.detach()) if torch_forward else native32.forward(name, x.detach())
    assert torch.equal(y, forward)
    with torch.no_grad(), route.recording() as taken:
        assert torch.equal(F.function(name)(x), y)
    assert taken[0][5] == ("torch" if torch_forward else "fused")
    assert len(saved) == 1 and saved[0].data_ptr() == x.data_ptr()
    y.backward(go)
    assert torch.equal(x.grad, native32.backward(name, go, x.detach()))


@needs_kernels
def test_an_entry_written_as_the_primitive_takes_it():
    """What decides is the traced forward: one of the kernels' forms of the input (swish at beta 1 is silu; at
    another beta, or quick_gelu's 1.702, it is not), less its products and quotients by 1 (celu at alpha 1 is
    elu; tempered_sigmoid at its defaults traces to 1 tanh(1 x), which is tanh) and differences with +0 (xgelu
    at alpha 0 is gelu; xsilu at alpha 0 is gated(x, sigmoid(x)), another op than silu's swish(x, 1))."""
    from nonlin.kernels.codegen import plan

    def of(name, **params):
        return native32.primitive_of(plan(nonlin.spec(name), "plain", tuple(sorted(params.items())), ()))

    assert of("sigmoid") == "sigmoid" and of("tanh") == "tanh"
    assert of("silu") == "silu" and of("swish", beta=1.0) == "silu"
    assert of("swish", beta=2.0) is None and of("softsign") is None
    assert of("quick_gelu") == "quick_gelu" and of("swish", beta=1.702) == "quick_gelu"
    assert of("gelu") == "gelu" and of("xgelu", alpha=1.0) is None and of("gelu_tanh") == "gelu_tanh"
    assert of("selu") == "selu" and of("elu", alpha=1.0) == "elu" and of("elu", alpha=2.0) == "elu@0x1.0000000000000p+1"
    assert of("celu", alpha=1.0) == "elu" and of("celu", alpha=2.0) is None
    assert of("tempered_sigmoid", s=2.0, T=2.0, o=1.0) == "tanh"
    assert of("tempered_sigmoid", s=2.0, T=3.0, o=1.0) is None  # tanh(1.5 x)
    assert of("tempered_sigmoid", s=3.0, T=2.0, o=1.0) is None  # s sigma(T x) - o: no tanh form
    assert of("xgelu", alpha=0.0) == "gelu" and of("xsilu", alpha=0.0) is None
    assert of("xgelu", alpha=0.5) is None
    # y - +0 is y at every y; y - -0 is +0 at y = -0, and y + +0 too
    assert native32._normal_form(("sub", ("mul", 1.0, "x"), 0.0)) == "x"
    assert native32._normal_form(("sub", "x", -0.0)) == ("sub", "x", -0.0)
    assert native32._normal_form(("add", "x", 0.0)) == ("add", "x", 0.0)
    assert of("tanhshrink") == "tanhshrink" and of("softsign") is None
    assert of("softcap", cap=50.0) == "softcap" and of("softcap", cap=30.0) is None
    assert of("clipped_gelu", min=-10.0, max=10.0) == "clipped_gelu"
    assert of("clipped_gelu", min=-10.0, max=5.0) is None
    assert of("laplace", mu=0.707107, sigma=0.282095) == "laplace" and of("laplace", mu=0.0, sigma=1.0) == "ndtr"
    assert of("ndtr") == "ndtr" and of("hardswish") == "hardswish" and of("hard_mish") is None
    assert of("lecun_tanh") == "lecun_tanh" and of("penalized_tanh", a=0.25) is None
    assert of("siren", omega_0=30.0) == "siren" and of("siren", omega_0=10.0) is None and of("sin") is None
    assert of("sqrtsoftplus") == "sqrtsoftplus" and of("gcu") == "gcu"
    assert of("log_sigmoid") == "log_sigmoid" and of("snake", a=1.0) == "snake" and of("snake", a=2.0) is None
    assert of("softplus", beta=1.0) == "softplus" and of("softplus", beta=2.0) == "softplus@0x1.0000000000000p+1"
    assert of("shifted_softplus") is None
    beta = {"alpha": 1.0, "beta": 1.0, "alpha_logscale": 0.0, "eps": 1e-9}
    assert of("snake_beta", **beta) == "snake_beta" and of("snake_beta", **dict(beta, beta=2.0)) is None
    assert of("mish") == "mish" and of("mila", beta=-0.25) == "mila" and of("mila", beta=0.0) is None
    assert of("golu", alpha=1.0, beta=1.0, gamma=1.0) == "golu" and of("golu", alpha=1.0, beta=1.0, gamma=2.0) is None
    derf = {"alpha": 0.5, "shift": 0.0, "weight": 1.0, "bias": 0.0}
    assert of("derf", **derf) == "derf" and of("derf", **dict(derf, shift=0.25)) is None
    assert of("sau", alpha=0.01, sigma=1.0) == "sau" and of("sau", alpha=0.01, sigma=2.0) is None


# The interval tables (native32's `table_parts`): primitive -> (the backward's range's edge A or None, the
# derivative's zero (sau's: its forward's) or None, the forward's edge or None: None where that pass takes no
# table); measured 0.61 / 0.63 (gelu), 0.53 / 0.57 (serf), 0.54 / 0.59 (tanhexp), 0.62 / 0.59 (log_ndtr), 0.53 / 0.53 (lecun_tanh), 0.54 / 0.52
# (sqrtsoftplus) and 0.51 (tanh's forward) on 4M dense points; silu's backward, its table evaluated in float32, 1.85
# on this test's points (PLAIN_TABLE_BOUNDS)
TABLES = {
    "gelu": (4.0, -0.7517915368080139, 4.0),
    "silu": (8.0, -1.2784645557403564, None),
    "serf": (4.0, -1.193059968928188, 4.0),
    "tanhexp": (4.0, -1.0788600584645954, 4.0),
    "tanhshrink": (4.0, None, 4.0),
    "lisht": (4.0, None, 4.0),
    "log_ndtr": (4.0, None, 4.0),
    "lecun_tanh": (4.0, None, 8.0),
    "sqrtsoftplus": (8.0, None, 8.0),
    "log_sigmoid": (None, None, 8.0),
    "mish": (4.0, native32.MISH_X0[0], 8.0),
    "mila": (4.0, native32.MILA_X0[0], 8.0),
    "golu": (2.0, native32.GOLU_X0[0], 2.0),
    "derf": (4.0, None, 8.0),
    "sau": (4.0, native32.SAU_X0[0], 8.0),  # (the zero is the forward's)
    "tanh": (None, None, 4.0),  # (lisht's forward table: tanh(x) = x F; no backward table)
}

# The tables the kernels evaluate in float32 arithmetic alone (native32's `plain_table_value`): their own bound; and
# golu's derivative, whose zero -Omega lies half an ULP from its float32: at the float32s nearest it x - x0 is mostly
# the zero's low part, whose product with F is rounded to float32 before the sum (`grad_table_parts`), 1.18 ULP with
# go = 1 against mpmath (the others' zeros lie nearer a float32)
PLAIN_TABLE_BOUNDS = {"silu": 2.5, "golu": 1.25}

# Each table and its intervals' half-width (the range's edge / 32)
TABLE_ROWS = {
    "GELU_TABLE": 0.125,
    "GELU_GRAD_TABLE": 0.125,
    "SILU_GRAD_TABLE": 0.25,
    "SERF_TABLE": 0.125,
    "SERF_GRAD_TABLE": 0.125,
    "TANHEXP_TABLE": 0.125,
    "TANHEXP_GRAD_TABLE": 0.125,
    "TANHSHRINK_TABLE": 0.125,
    "TANHSHRINK_GRAD_TABLE": 0.125,
    "LISHT_TABLE": 0.125,
    "LISHT_GRAD_TABLE": 0.125,
    "LOG_NDTR_TABLE": 0.125,
    "LOG_NDTR_GRAD_TABLE": 0.125,
    "LECUN_TANH_TABLE": 0.25,
    "LECUN_TANH_GRAD_TABLE": 0.125,
    "SQRTSOFTPLUS_TABLE": 0.25,
    "SQRTSOFTPLUS_GRAD_TABLE": 0.25,
    "LOG_SIGMOID_TABLE": 0.25,
    "MISH_TABLE": 0.25,
    "MISH_GRAD_TABLE": 0.125,
    "MILA_TABLE": 0.25,
    "MILA_GRAD_TABLE": 0.125,
    "GOLU_TABLE": 0.0625,
    "GOLU_GRAD_TABLE": 0.0625,
    "DERF_TABLE": 0.25,
    "DERF_GRAD_TABLE": 0.125,
    "SAU_TABLE": 0.25,
    "SAU_GRAD_TABLE": 0.125,
    "SITU_GATE_TABLE": 0.25,
    "SITU_GATE_GRAD_TABLE": 0.25,
    "SITU_UP_TABLE": 0.5,
    "SITU_UP_GRAD_TABLE": 0.5,
}


@pytest.mark.parametrize("name", sorted(TABLE_ROWS))
def test_interval_tables_meet_their_sums_precondition(name):
    """`table_parts` adds c_0's high part and t r(t) by Fast2Sum, exact where |t r| <= |hi|: on every interval the
    terms past c_0 sum to at most 0.66 |c_0| over |t| <= the half-width (the kernels' comment; a new table that
    breaks it needs TwoSum). Every table is listed here."""
    table, half = getattr(native32, name), TABLE_ROWS[name]
    assert len(table) in (8, 9) and all(len(row) == 32 for row in table)
    for i in range(32):
        rest = sum(abs(table[k][i]) * half ** (k - 1) for k in range(2, 8))
        assert rest <= 0.66 * abs(table[0][i] + table[1][i]), (i, rest)
    assert {n for n in dir(native32) if n.endswith("_TABLE") and isinstance(getattr(native32, n), tuple)} == set(
        TABLE_ROWS
    )


@needs_kernels
@pytest.mark.parametrize("primitive", sorted(TABLES))
def test_interval_tables_hold_their_bounds_on_their_range(primitive):
    """Each table (TABLES: forward and backward; silu's backward, tanh's forward) below |x| = A, its edge (a
    polynomial per A / 16: native32's `table_parts`) on 1M dense points, the edges of every interval and their
    float32 neighbours, and the 2001 float32s nearest the derivative's zero x0 (the intervals around it carry x - x0
    as a factor; or 0): within 0.7 ULP, or PLAIN_TABLE_BOUNDS' (the rest of the line, the near and far forms, is
    BOUNDS')."""
    edge, zero, forward_edge = TABLES[primitive]
    value, derivative = REFERENCE[primitive]
    x0 = np.float32(0.0 if zero is None else zero)
    near_zero = torch.from_numpy((x0 + np.arange(-1000, 1001, dtype=np.float32) * np.spacing(x0)).astype(np.float32))
    for a in sorted({edge, forward_edge} - {None}):
        edges = torch.arange(-16, 17, dtype=torch.float32) * (a / 16)
        xs = torch.cat(
            [
                torch.linspace(-a, a, 1_000_001)[1:-1],
                torch.nextafter(edges, edges + 1),
                torch.nextafter(edges, edges - 1),
                near_zero,
            ]
        )
        xs = xs[xs.abs() < a]
        xd = xs.double().numpy()
        if a == edge:
            go = torch.randn(xs.shape, generator=torch.Generator().manual_seed(4))
            bwd = _ulp_error(native32.backward(primitive, go, xs).numpy(), go.double().numpy() * derivative(xd))
            assert bwd.max() <= PLAIN_TABLE_BOUNDS.get(primitive, 0.7), (bwd.max(), xd[bwd.argmax()])
        if a == forward_edge:
            fwd = _ulp_error(native32.forward(primitive, xs).numpy(), value(xd))
            assert fwd.max() <= 0.7, (fwd.max(), xd[fwd.argmax()])


@needs_kernels
def test_gcu_derivative_near_its_zeros():
    """gcu' = cos x - x sin x cancels near its zeros (x tan x = 1), where the value falls to ~2^-30 |x| for the
    float32s nearest them: the kernel's sine and cosine are carried to 2^-54 there (with the forward's 2^-36 series,
    553 ULP), measured against mpmath on the 201 float32s around each of five zeros, both signs."""
    import mpmath

    xs = []
    for guess in (0.86, 3.43, 6.44, 9.53, 100.0):
        x0 = np.float32(float(mpmath.findroot(lambda t: mpmath.cos(t) - t * mpmath.sin(t), guess)))
        xs.append(x0 + np.arange(-100, 101, dtype=np.float32) * np.spacing(x0))
    xs = np.concatenate([*xs, -np.concatenate(xs)])
    got = native32.backward("gcu", torch.ones(len(xs)), torch.from_numpy(xs)).numpy()
    with mpmath.workdps(40):
        ref = np.array([float(mpmath.cos(v) - v * mpmath.sin(v)) for v in map(mpmath.mpf, xs.astype(float))])
    assert _ulp_error(got, ref).max() <= BOUNDS["gcu"][1]


def test_without_a_vector_isa_the_generated_kernels_run(monkeypatch):
    """Inductor's scalar builds (no AVX2 or AVX-512) use fast-math flags that reassociate the kernels' error-free
    sums: there no entry takes them."""
    from nonlin.kernels.codegen import plan

    monkeypatch.setattr(native32, "_AVAILABLE", [False])
    monkeypatch.setattr(native32, "_BUILT", {})
    assert native32.primitive_of(plan(nonlin.spec("sigmoid"), "plain", (), ())) is None
    assert native32.forward("sigmoid", torch.zeros(4)) is None


@needs_kernels
def test_where_the_kernels_do_not_compile_the_generated_ones_run(monkeypatch):
    saved = dict(cpu._DISABLED)
    monkeypatch.setattr(native32, "_BUILT", {})

    def broken(*args):
        raise RuntimeError("no C++ compiler")

    monkeypatch.setattr(native32, "_compile", broken)
    try:
        with pytest.warns(RuntimeWarning, match="float32 sigmoid kernel failed"):
            assert native32.forward("sigmoid", torch.zeros(4)) is None
        assert not cpu.compile_available()
        x = torch.randn(64)
        torch.testing.assert_close(F.sigmoid(x), torch.sigmoid(x))  # (the eager path, correctly rounded)
    finally:
        cpu._DISABLED.clear()
        cpu._DISABLED.update(saved)


@needs_kernels
@pytest.mark.parametrize("primitive", sorted(native32.PRIMITIVES))
def test_large_incoming_gradients_do_not_overflow_where_the_product_is_finite(primitive):
    x = torch.tensor([0.0, 0.5, 30.0, 60.0, 90.0, 140.0, 180.0, -180.0])
    for s in (3e38, -3e38, 1e-38, 2.0**-140):
        go = torch.full_like(x, s)
        ref = go.double().numpy() * REFERENCE[primitive][1](x.double().numpy())  # (go as float32 holds it)
        assert _ulp_error(native32.backward(primitive, go, x).numpy(), ref).max() <= BOUNDS[primitive][1]


@needs_kernels
@pytest.mark.parametrize(
    "primitive", ["sigmoid", "tanh", "silu", "gelu", "quick_gelu", "gelu_tanh", "ndtr", "laplace", "tanhshrink"]
)
def test_the_near_forms_hold_at_the_edges_of_their_range(primitive):
    """The near forms take go of [2^-32, 2^32] unscaled and x up to their edges (|x m| < 69, silu's derivative's [-68, 20],
    gelu's and gelu_tanh's [-9, float32's largest], quick_gelu's [-39.5, float32's largest], ndtr's and laplace's
    every finite z (their exponentials scaled beyond z = -11 and |z| = 10.5), tanhshrink's derivative's |x| in
    [2^-32, 2^32]):
    there the product may be subnormal (sigmoid' (-68) 2^-32 < 2^-126), rounded once all the same; just outside,
    the exact form, each within the kernel's bounds."""
    edges = [-69.0, -68.0, -39.5, -34.5, -16.0, -14.25, -11.0, -10.5, -9.0, 2.0**-32, 0.875, 6.0, 9.0, 10.5, 11.0]
    edges += [12.0, 16.0, 20.0, 34.5, 69.0, 2.0**32, 3.4e38, -3.3125, -2.396, -2.255, 3.669]  # (laplace's z edges)
    x = torch.cat([torch.linspace(-70, 70, 14001), torch.tensor(edges)])
    x = torch.cat([x, torch.nextafter(x, torch.tensor(float("inf"))), torch.nextafter(x, torch.tensor(-float("inf")))])
    for s in (2.0**-32, -(2.0**-32), 2.0**32, -(2.0**32), 2.0**-32 * 0.99, 2.0**32 * 1.01):
        go = torch.full_like(x, s)
        ref = go.double().numpy() * REFERENCE[primitive][1](x.double().numpy())
        err = _ulp_error(native32.backward(primitive, go, x).numpy(), ref)
        assert err.max() <= BOUNDS[primitive][1], (s, err.max(), x[err.argmax()])
    y = native32.forward(primitive, x)
    assert _ulp_error(y.numpy(), REFERENCE[primitive][0](x.double().numpy())).max() <= BOUNDS[primitive][0]


@needs_kernels
@pytest.mark.parametrize("primitive", sorted(native32.PRIMITIVES))
def test_infinite_incoming_gradients_give_the_ieee_product(primitive):
    """go = +-inf: the infinity of go f'(x)'s sign where f'(x) is not 0, NaN where it is (the infinities of x where
    f' tends to 0), as the float64 reference's multiplication gives (found by this test: the two-products' inf - inf
    made NaN of every product)."""
    x = torch.tensor([-10.0, -3.0, -1.0, -1e-30, -0.0, 0.0, 1e-30, 0.5, 1.0, 10.0, 100.0, float("inf"), -float("inf")])
    for s in (float("inf"), -float("inf")):
        got = native32.backward(primitive, torch.full_like(x, s), x)
        want = torch.from_numpy(s * REFERENCE[primitive][1](x.double().numpy())).float()
        assert torch.equal(got.isnan(), want.isnan()), (got, want)
        assert torch.equal(got[~want.isnan()], want[~want.isnan()]), (got, want)


@needs_kernels
@pytest.mark.parametrize("name", ROUTED)
def test_inside_torch_compile_the_kernels_run_as_ops(name):
    """A user's torch.compile puts the same kernels in its graph (two custom ops, opaque to inductor): a compiled
    model computes the eager one's bits, forward and gradient (where torch's op is the eager forward, tanh, the
    compiled forward is the kernel's: inductor lowers torch's op its own way, `route.choose`)."""
    x = torch.randn(3000, generator=torch.Generator().manual_seed(4)) * 6
    go = torch.randn(x.shape, generator=torch.Generator().manual_seed(5))
    f = F.function(name)
    xe = x.clone().requires_grad_()
    with route.pinned("large"):
        ye = f(xe)
    ye.backward(go)
    xc = x.clone().requires_grad_()
    torch._dynamo.reset()  # (one lambda's code object for every entry: dynamo's recompile limit is 8)
    yc = torch.compile(lambda t: f(t) * 1.0, fullgraph=True)(xc)
    yc.backward(go)
    torch_forward = _torch_forward_when_large(name)
    assert torch.equal(ye, nonlin.spec(name).torch_equivalent(x) if torch_forward else native32.forward(name, x))
    assert torch.equal(yc, native32.forward(name, x)) and torch.equal(xc.grad, xe.grad)


# the gated kernels: gate(g) v with the gate's float64 reference (the limits as the pointwise ones)
GATES = {"swiglu": "silu", "geglu": "gelu", "glu": "sigmoid"}
# forward, gradients (ULP); measured on this sample 0.79 / 0.75 (swiglu), 1.07 / 1.07 (geglu), 0.78 / 0.80 (glu:
# sigmoid's quotient, the product rounded once), before the near forms. With 2M more g over [-20, 20]: swiglu
# 0.82 / 0.81, glu the same, geglu 1.31 / 1.28 (gelu's derivative near its zero, as the pointwise kernel's 1.30;
# the goal is 2 / 4). The near forms (|g| <= 60, g of -9 up for geglu; notes/2026-12-05c/gated_ulp.py, 4M g over
# [-20, 20] and [-80, 80]): swiglu 1.14 / 1.11 (d/dv) / 1.11 (d/dg), glu 1.08 / 1.09 / 1.10, geglu 1.25 / 1.26 /
# 1.16 (sigma's u carried as uh + ul, p's error 0.42 2^-24). glu's forward since (native32's `times_sigma_near`,
# silu's forward form with v in the numerator, u rounded): bounded by 1.92, 1.764 on every 7th float32 g of |g| <= 60
# with v = N(0, 1) 2^[-30, 30] (notes/2026-12-06h/glu_ulp.py)
GATED_BOUNDS = {"swiglu": (1.25, 1.2), "geglu": (1.3, 1.3), "glu": (1.85, 1.2)}


def _gated_sample(n_g: int = 20011):
    """g over every binade (and dense where the gate bends), v of magnitudes 2^-40..2^30. (geglu takes its gate
    as 0 below g = -16, where Phi(g) < 2^-186: exact for |v| < 2^36, |go v| < 2^60 for its gradient; beyond, a
    subnormal product is returned as 0, as the generated float32 form does.)"""
    gen = torch.Generator().manual_seed(6)
    g = torch.from_numpy(_inputs(65521)[:n_g].copy())
    g = torch.cat([g, torch.linspace(-20, 20, 20001)])
    v = torch.randn(g.shape, generator=gen) * torch.exp2(torch.randint(-40, 31, g.shape, generator=gen).float())
    go = torch.randn(g.shape, generator=gen)
    return g, v, go


@needs_kernels
@pytest.mark.parametrize("name", sorted(GATES))
def test_gated_kernels_are_within_their_bounds(name):
    g, v, go = _gated_sample()
    value, derivative = REFERENCE[GATES[name]]
    gd, vd, god = (t.double().numpy() for t in (g, v, go))
    forward_ulp, grad_ulp = GATED_BOUNDS[name]
    y = native32.gated_forward(name, g, v)
    assert _ulp_error(y.numpy(), value(gd) * vd).max() <= forward_ulp
    dg, dv = torch.empty_like(g), torch.empty_like(g)
    assert native32.gated_backward(name, go, g, v, dg, dv)
    assert _ulp_error(dv.numpy(), god * value(gd)).max() <= grad_ulp
    assert _ulp_error(dg.numpy(), god * vd * derivative(gd)).max() <= grad_ulp
    # v = 1: the pointwise kernels' bits (sigmoid's and silu's forwards and backwards take their faster forms,
    # within their own bounds; swiglu keeps the quotient carried to the product's one rounding, glu its own far
    # forms beyond |g| = 60)
    one = torch.ones_like(g)
    y1 = native32.gated_forward(name, g, one)
    if name in ("glu", "swiglu"):
        assert _ulp_error(y1.numpy(), value(gd)).max() <= forward_ulp
    else:
        assert torch.equal(y1, native32.forward(GATES[name], g))
    assert native32.gated_backward(name, go, g, one, dg, dv)
    if name in ("glu", "swiglu"):  # (sigmoid's and silu's backward take their faster forms too)
        assert _ulp_error(dg.numpy(), god * derivative(gd)).max() <= grad_ulp
    else:
        assert torch.equal(dg, native32.backward(GATES[name], go, g))


@needs_kernels
@pytest.mark.parametrize("name", sorted(GATES))
def test_the_gated_near_forms_hold_at_the_edges_of_their_range(name):
    """The gated near forms take g from -9 (geglu) or |g| <= 60 (swiglu, glu) and g (not glu's), v, go of
    [2^-32, 2^32] (or 0) unscaled: at those edges and just outside (the exact forms), forward and both gradients
    within the bounds. (geglu's exact forms take the gate as 0 below g = -16, exact for |go v| < 2^60: its g stays
    above.)"""
    edges = [-9.0, 2.0**-32, -(2.0**-32), 2.0**32, -(2.0**32)] + ([] if name == "geglu" else [-60.0, 60.0])
    span = 12.0 if name == "geglu" else 64.0
    g = torch.cat([torch.linspace(-span, span, 6401), torch.tensor(edges)])
    g = torch.cat([g, torch.nextafter(g, torch.tensor(float("inf"))), torch.nextafter(g, torch.tensor(-float("inf")))])
    value, derivative = REFERENCE[GATES[name]]
    forward_ulp, grad_ulp = GATED_BOUNDS[name]
    gd = g.double().numpy()
    for s in (2.0**-32, -(2.0**-32), 2.0**32, -(2.0**32), 2.0**-32 * 0.99, 2.0**32 * 1.01):
        v = torch.full_like(g, s)
        go = torch.full_like(g, -s)
        assert _ulp_error(native32.gated_forward(name, g, v).numpy(), value(gd) * s).max() <= forward_ulp
        dg, dv = torch.empty_like(g), torch.empty_like(g)
        assert native32.gated_backward(name, go, g, v, dg, dv)
        assert _ulp_error(dv.numpy(), -s * value(gd)).max() <= grad_ulp
        assert _ulp_error(dg.numpy(), -s * s * derivative(gd)).max() <= grad_ulp


@needs_kernels
@pytest.mark.parametrize("name", sorted(native32.GATED))
def test_the_gated_plain_form_gives_the_full_forms_bits(name):
    """As the pointwise kernels' plain form: vectors of ordinary g (and finite v, go) against the same lanes beside
    a NaN gate."""
    g, go = _plain_sample()
    v = go.flip(0)
    keep = ~_with_a_nan_lane(torch.zeros_like(g)).isnan()
    gn, vn, gon = (_with_a_nan_lane(t) for t in (g, v, go))
    assert _same_bits(native32.gated_forward(name, g, v), native32.gated_forward(name, gn, vn)[keep])
    dg, dv, dgn, dvn = torch.empty_like(g), torch.empty_like(g), torch.empty_like(gn), torch.empty_like(gn)
    assert native32.gated_backward(name, go, g, v, dg, dv) and native32.gated_backward(name, gon, gn, vn, dgn, dvn)
    assert _same_bits(dg, dgn[keep]) and _same_bits(dv, dvn[keep])


@needs_kernels
@pytest.mark.parametrize("name", sorted(GATES))
def test_gated_products_keep_their_range(name):
    """A subnormal or huge g or v (or go) is scaled into range first: the product rounds once wherever it is a
    float32, and its zeros keep the sign of g v."""
    value = REFERENCE[GATES[name]][0]
    g = torch.tensor([1e-40, -1e-40, 3e-30, 1e30, -3.0, -50.0, -12.0, 0.0, -0.0, 2.0, 2.0])
    v = torch.tensor([1e38, -3e37, 1e-30, 2e8, 1e36, 1e30, 1e-10, -5.0, 5.0, 1e-44, -3e38])
    ref = value(g.double().numpy()) * v.double().numpy()
    y = native32.gated_forward(name, g, v)
    finite = np.abs(ref) <= np.finfo(np.float32).max
    assert _ulp_error(y.numpy()[finite], ref[finite]).max() <= GATED_BOUNDS[name][0], (y, ref)
    assert torch.equal(torch.signbit(y), torch.from_numpy(np.signbit(ref)))


@needs_kernels
@pytest.mark.parametrize("name", sorted(GATES))
def test_gated_gradients_of_zeros_keep_the_ieee_sign(name):
    """go = +-0 or v = +-0: d/dg = go v gate'(g) and d/dv = go gate(g) are zeros of the sign IEEE multiplication
    gives the float64 products, on every binade of g."""
    value, derivative = REFERENCE[GATES[name]]
    g = torch.from_numpy(_inputs(65521))
    g = g[g.isfinite()]
    gd = g.double().numpy()
    gen = torch.Generator().manual_seed(11)
    for go_sign, v_kind in ((0.0, "random"), (-0.0, "random"), (1.0, 0.0), (-1.0, -0.0), (-0.0, -0.0)):
        v = torch.randn(g.shape, generator=gen) if v_kind == "random" else torch.full_like(g, v_kind)
        go = torch.full_like(g, go_sign)
        dg, dv = torch.empty_like(g), torch.empty_like(g)
        assert native32.gated_backward(name, go, g, v, dg, dv)
        want_dg = torch.from_numpy(go_sign * v.double().numpy() * derivative(gd)).float()
        want_dv = torch.from_numpy(go_sign * value(gd)).float()
        for got, want in ((dg, want_dg), (dv, want_dv)):
            zero = want == 0
            assert torch.equal(got[zero], want[zero]) and torch.equal(got[zero].signbit(), want[zero].signbit())


@needs_kernels
@pytest.mark.parametrize("name", sorted(native32.GATED))
def test_gated_layouts_compile_and_training_give_one_result(name):
    """Packed as the entry's own name packs it ([gate | value], or [value | gate] for torch's glu), split,
    value-first halves (strided rows), inference, training and a caller's torch.compile: the same bits; the
    packed input alone is saved (one tensor, or for [value | gate] its two halves, views of it)."""
    gen = torch.Generator().manual_seed(7)
    base = torch.randn(64, 2 * 130, generator=gen) * 4  # rows of 130: a partial vector at each row's end
    go = torch.randn(64, 130, generator=gen)
    record = convention(name)
    value_first = record is not None and record.defaults.get("layout") == "value_gate"
    g, v = (base[:, 130:], base[:, :130]) if value_first else (base[:, :130], base[:, 130:])
    ref = native32.gated_forward(name, g.contiguous(), v.contiguous())
    f = F.function(name)
    with route.pinned("large"):
        assert torch.equal(f(base), ref)
        assert torch.equal(f(g.contiguous(), v.contiguous()), ref)
        gg, vv = torch.randn(64, 2 * 130, generator=gen).chunk(2, dim=-1)
        vf = torch.cat([vv, gg], dim=-1)  # value first: the halves as strided rows
        assert torch.equal(f(vf[:, 130:], vf[:, :130]), native32.gated_forward(name, gg.contiguous(), vv.contiguous()))
        xb = base.clone().requires_grad_()
        seen = []
        with torch.autograd.graph.saved_tensors_hooks(lambda t: seen.append(t) or t, lambda t: t):
            y = f(xb)
        assert torch.equal(y, ref) and len(seen) == (2 if value_first else 1)
        assert all(t.untyped_storage().data_ptr() == xb.untyped_storage().data_ptr() for t in seen)
        y.backward(go)
    dg, dv = torch.empty_like(ref), torch.empty_like(ref)
    assert native32.gated_backward(name, go, g.contiguous(), v.contiguous(), dg, dv)
    assert torch.equal(xb.grad, torch.cat([dv, dg] if value_first else [dg, dv], dim=-1))
    xc = base.clone().requires_grad_()
    yc = torch.compile(lambda t: f(t) * 1.0, fullgraph=True)(xc)
    yc.backward(go)
    assert torch.equal(yc, ref) and torch.equal(xc.grad, xb.grad)
    # the compiled graph's ops on the halves of a packed [batch, seq, 2d] tensor (strided views, read in place)
    b3 = base.view(8, 8, 2 * 130)
    g3, v3 = (b3[..., 130:], b3[..., :130]) if value_first else (b3[..., :130], b3[..., 130:])
    assert torch.equal(native32.traced_gated_forward(g3, v3, name), ref.view(8, 8, 130))
    dg3, dv3 = native32.traced_gated_backward(go.view(8, 8, 130), g3, v3, name)
    assert torch.equal(dg3, dg.view(8, 8, 130)) and torch.equal(dv3, dv.view(8, 8, 130))
    # one half strided rows, the other transposed (no unit inner stride): both reach the kernel as rows of 130
    vt = v.t().contiguous().t()
    assert torch.equal(native32.traced_gated_forward(g, vt, name), ref)
    dgt, dvt = native32.traced_gated_backward(go, g, vt, name)
    assert torch.equal(dgt, dg) and torch.equal(dvt, dv)
    # a packed call inside a caller's graph is one op on the packed tensor, whose backward writes its gradient (the
    # ops' C++ twins where they are built, nonlin.kernels.cpp_ops)
    traced = {op.removesuffix("_cpp") for op in nonlin_ops_traced(f, xc)}
    assert traced == {"native32_gated_packed", "native32_gated_packed_grad"}
    dx = xb.grad.view(8, 8, 2 * 130)
    assert torch.equal(native32.traced_packed_forward(b3, name, value_first), ref.view(8, 8, 130))
    assert torch.equal(native32.traced_packed_backward(go.view(8, 8, 130), b3, name, value_first), dx)
    # packed rows with no unit inner stride (a copy), and one packed row
    bt = base.t().contiguous().t()
    assert torch.equal(native32.traced_packed_forward(bt, name, value_first), ref)
    assert torch.equal(native32.traced_packed_backward(go, bt, name, value_first), xb.grad)
    assert torch.equal(native32.traced_packed_forward(base[5], name, value_first), ref[5])
    assert torch.equal(native32.traced_packed_backward(go[5], base[5], name, value_first), xb.grad[5])
    for shape in [(0, 8), (3, 0)]:  # no rows, or an empty last dim
        empty = torch.empty(shape)
        assert native32.traced_packed_forward(empty, name, value_first).shape == (*shape[:-1], shape[-1] // 2)
        assert native32.traced_packed_backward(empty[..., : shape[-1] // 2], empty, name, value_first).shape == shape


@needs_kernels
@pytest.mark.parametrize("name", sorted(native32.GATED))
def test_traced_gated_ops_without_their_kernel_take_the_formula(name, monkeypatch):
    """Where a kernel is not built (compilation turned off after a trace), the traced gated ops compute the
    entry's float64 formula, rounded once: within the kernels' goals (2 ULP forward, 4 backward) of them, both
    halves in place, in either order."""
    gen = torch.Generator().manual_seed(8)
    base = torch.randn(16, 2 * 70, generator=gen) * 3
    go = torch.randn(16, 70, generator=gen)
    g, v = base[:, :70], base[:, 70:]

    def outputs():
        return (
            native32.traced_packed_forward(base, name, False),
            native32.traced_packed_forward(base, name, True),
            native32.traced_gated_forward(g, v, name),
            native32.traced_packed_backward(go, base, name, False),
            native32.traced_packed_backward(go, base, name, True),
            torch.cat(native32.traced_gated_backward(go, g, v, name), dim=-1),
        )

    kernels = outputs()
    for which in ("fwd", "bwd"):
        monkeypatch.setitem(native32._BUILT, (name, which), None)
    for k, (a, b) in enumerate(zip(kernels, outputs(), strict=True)):
        assert _ulp_error(a.numpy(), b.double().numpy()).max() <= (2 if k < 3 else 4)


@needs_kernels
def test_gated_entries_take_the_kernels():
    from nonlin.kernels.codegen import plan

    def of(name, **params):
        return native32.primitive_of(plan(nonlin.spec(name), "plain", tuple(sorted(params.items())), ()))

    assert of("swiglu", beta=1.0) == "swiglu" and of("geglu") == "geglu"
    assert of("swiglu", beta=2.0) is None and of("geglu_tanh") is None and of("glu") == "glu"
    assert of("reglu") is None and of("bilinear") is None and of("gtu") == "gtu"
    assert of("swiglustep", limit=7.0) == "swiglustep" and of("swiglustep", limit=6.0) is None
    assert of("clamped_swiglu", limit=7.0) == "clamped_swiglu" and of("clamped_swiglu", limit=6.0) is None
    assert of("situ_glu", beta=4.0, linear_beta=25.0) == "situ_glu"
    assert of("situ_glu", beta=2.0, linear_beta=25.0) is None and of("situ_glu", beta=4.0, linear_beta=5.0) is None
    swiglu = nonlin.spec("swiglu")
    assert dispatch.job_for(swiglu, torch.float32, swiglu.defaults()).native == "swiglu"
    assert dispatch.job_for(swiglu, torch.bfloat16, swiglu.defaults()).native is None  # (its gate table)
    assert dispatch.job_for(swiglu, torch.float32, {"beta": 2.0}).native is None
    # bfloat16: the gated entries with no gate table (both halves nonlinear, or clamped) take the kernels too
    for name in ("gtu", "clamped_swiglu", "swiglustep", "situ_glu"):
        s = nonlin.spec(name)
        assert dispatch.job_for(s, torch.bfloat16, s.defaults()).native == name
        assert dispatch.job_for(s, torch.float16, s.defaults()).native is None
    clamped = nonlin.spec("clamped_swiglu")
    assert dispatch.job_for(clamped, torch.bfloat16, {"limit": 6.0}).native is None


@needs_kernels
@pytest.mark.parametrize("name", sorted(native32.GATED))
def test_bfloat16_gated_kernels_give_the_float32_kernels_results_rounded(name):
    """`native32._GATED_BF16`: bfloat16 g, v (and go) widened, the float32 forms, each result rounded to bfloat16:
    the float32 kernels' outputs on the widened inputs rounded by torch, bit for bit, packed in either order and
    split (strided rows), rows of 130 and of 1000 (under AVX-512 2V elements a step, then V, then a partial vector),
    with infinities, NaNs and signed zeros among the inputs; and a call of an entry whose bfloat16 job takes them."""
    gen = torch.Generator().manual_seed(11)
    for d in (130, 1000):
        base = (torch.randn(24, 2 * d, generator=gen) * 4).to(torch.bfloat16)
        base.view(-1)[::97] = (
            torch.tensor([float("inf"), float("-inf"), float("nan"), 0.0, -0.0])
            .repeat(base.numel() // 97 // 5 + 1)[: base.view(-1)[::97].numel()]
            .to(torch.bfloat16)
        )
        go = (torch.randn(24, d, generator=gen) * 2).to(torch.bfloat16)
        for value_first in (False, True):
            ref = native32.packed_forward(name, base.float(), value_first).to(torch.bfloat16)
            assert _same_bits(native32.packed_forward(name, base, value_first), ref)
            ref_dx = native32.packed_backward(name, go.float(), base.float(), value_first).to(torch.bfloat16)
            assert _same_bits(native32.packed_backward(name, go, base, value_first), ref_dx)
        g, v = base[:, :d], base[:, d:]  # (strided rows)
        assert _same_bits(
            native32.gated_forward(name, g, v), native32.packed_forward(name, base.float()).to(torch.bfloat16)
        )
        dg, dv = torch.empty(24, d, dtype=torch.bfloat16), torch.empty(24, d, dtype=torch.bfloat16)
        assert native32.gated_backward(name, go, g, v, dg, dv)
        full = native32.packed_backward(name, go.float(), base.float()).to(torch.bfloat16)
        assert _same_bits(torch.cat([dg, dv], dim=-1), full)
    s = nonlin.spec(name)
    if dispatch.job_for(s, torch.bfloat16, s.defaults()).native == name:
        xb = base.clone().requires_grad_()
        with route.pinned("large"):
            y = F.function(name)(xb)
        y.backward(go)
        assert _same_bits(y, native32.packed_forward(name, base)) and _same_bits(
            xb.grad, native32.packed_backward(name, go, base)
        )


@needs_kernels
@pytest.mark.parametrize("name", sorted(native32.SILU_GATED))
def test_bfloat16_silu_gated_products_on_a_midpoint_take_the_true_side(name):
    """Below |g| = 2^-24 silu(g) is g / 2 in float32, so g / 2 * v (and go g / 2, d/dv) lands exactly on a midpoint
    between two bfloat16s for some v: the kernels must give the true product's nearest bfloat16 (the true value
    is off the midpoint by a factor 1 + g / 2 + ..., decided here at 40 digits by mpmath), where rounding the
    float32 product to even picks the wrong side at about half of them (so the test can fail)."""
    import mpmath

    gen = torch.Generator().manual_seed(12)
    # g: bfloat16 normals below 2^-24 and subnormals; v: short values making g / 2 * v a midpoint (9 bits, odd)
    g = (torch.rand(4000, generator=gen) * 2 - 1) * torch.exp2(-torch.randint(25, 140, (4000,), generator=gen).float())
    g = g.to(torch.bfloat16)
    g = g[(g != 0) & (g.float().abs() < 2.0**-24)]
    v = torch.randint(-6, 7, g.shape, generator=gen).float() + 0.5  # (|v| < 7: inside the clamps)
    v = v.to(torch.bfloat16)
    plain = (g.float() / 2 * v.float()).to(torch.bfloat16)
    y = native32.gated_forward(name, g, v)
    go = v  # d/dv = go silu(g): the same product
    dg, dv = torch.empty_like(g), torch.empty_like(g)
    assert native32.gated_backward(name, go, g, v, dg, dv)
    mpmath.mp.dps = 40
    on_midpoint = total_wrong_plain = 0
    for gi, vi, yi, dvi, pi in zip(g.float().tolist(), v.float().tolist(), y.float().tolist(), dv.float().tolist(),
                                   plain.float().tolist(), strict=True):  # fmt: skip
        product = mpmath.mpf(gi) / 2 * mpmath.mpf(vi)
        as_float32 = torch.tensor(float(product), dtype=torch.float32)
        if (int(as_float32.view(torch.int32)) & 0xFFFF) != 0x8000:
            continue  # not on a midpoint: plain rounding is right there
        on_midpoint += 1
        true = mpmath.mpf(gi) / (1 + mpmath.exp(-mpmath.mpf(gi))) * mpmath.mpf(vi)
        lo = torch.tensor(float(product), dtype=torch.float32).view(torch.int32) - 0x8000
        hi = lo + 0x10000
        near = [t.view(torch.float32).to(torch.bfloat16).float().item() for t in (lo, hi)]
        expected = min(near, key=lambda n: abs(mpmath.mpf(n) - true))
        assert yi == expected and dvi == expected, (gi, vi, yi, dvi, expected)
        total_wrong_plain += pi != expected
    assert on_midpoint > 100 and total_wrong_plain > 10


# gtu, sigmoid(g) tanh(v): its value and gradients in float64 (scipy's expit, numpy's tanh and cosh: ~1e-16)
def _gtu_reference(g: np.ndarray, v: np.ndarray, go: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    s = sp.expit(g)
    with np.errstate(over="ignore"):
        sech2 = 1.0 / np.cosh(v) ** 2
    return s * np.tanh(v), go * s * sp.expit(-g) * np.tanh(v), go * s * sech2


# forward, d/dg, d/dv (ULP): 1.11 / 1.12 / 1.24 on 4M g over [-20, 20], v ~ 3 N(0, 1) (notes/2026-12-05d/gtu_ulp.py);
# the far lanes (g < -60, tiny v; the gradients' |g| > 26, |v| > 20: glu's kernels on tanh(v) rounded, tanh's
# derivative kernel on go sigma(g) rounded) add a rounding to those kernels' errors: 1.42 for d/dv at g = 2.6e8,
# v = -9.5 on this sample (tanh's derivative, 1.75 at most on its own), and on GTU_WIDE's (g over [-80, 80], v
# scaled by 2^[-40, 8]) GTU_WIDE_BOUNDS
GTU_BOUNDS = (1.3, 1.5)
GTU_WIDE_BOUNDS = (1.7, 2.4)


def _check_gtu(g: torch.Tensor, v: torch.Tensor, go: torch.Tensor, forward_ulp: float, grad_ulp: float) -> None:
    value, dg_ref, dv_ref = _gtu_reference(*(t.double().numpy() for t in (g, v, go)))
    y = native32.gated_forward("gtu", g, v)
    dg, dv = torch.empty_like(g), torch.empty_like(g)
    assert native32.gated_backward("gtu", go, g, v, dg, dv)
    for got, ref, bound in ((y, value, forward_ulp), (dg, dg_ref, grad_ulp), (dv, dv_ref, grad_ulp)):
        finite = np.isfinite(ref)
        err = _ulp_error(got.numpy()[finite], ref[finite])
        assert err.max() <= bound, (err.max(), g[finite][err.argmax()], v[finite][err.argmax()])
        assert torch.equal(got[~torch.from_numpy(finite)].isnan(), torch.from_numpy(np.isnan(ref[~finite])))


@needs_kernels
def test_gtu_is_within_its_bounds():
    """g over every binade and dense over [-20, 20] against v of every binade (and the reverse), go ~ N(0, 1); and a
    sample mostly of far lanes."""
    g, v, go = _gated_sample()
    _check_gtu(g, v, go, *GTU_BOUNDS)
    _check_gtu(v, g, go, *GTU_BOUNDS)
    gen = torch.Generator().manual_seed(12)
    n = 1 << 20
    g = (torch.rand(n, generator=gen) * 2 - 1) * 80
    v = torch.randn(n, generator=gen) * 3 * torch.exp2(torch.randint(-40, 9, (n,), generator=gen).float())
    _check_gtu(g, v, torch.randn(n, generator=gen), *GTU_WIDE_BOUNDS)


@needs_kernels
def test_gtu_near_forms_hold_at_the_edges_of_their_range():
    """The near forms take |g| <= 60 (the gradients: 26) and |v| of [2^-32, inf] (20) or 0, go of [2^-32, 2^32]
    unscaled: at those edges and just outside (glu's kernel on tanh(v)), within the bounds; where the far lanes
    round tanh(v) first, up to a rounding more (2 ULP forward, 4 for the gradients: the goals)."""
    edges = torch.tensor([-60.0, -26.0, -20.0, 0.0, 2.0**-32, 20.0, 26.0, 60.0, 2.0**32])
    edges = torch.cat([edges, -edges])
    edges = torch.cat([edges, torch.nextafter(edges, torch.tensor(float("inf"))), torch.nextafter(edges, -edges.abs())])
    g = torch.cat([torch.linspace(-64, 64, 1281), edges]).repeat_interleave(len(edges))
    v = torch.cat([edges.repeat(1281), edges.repeat(len(edges))])
    for s in (1.0, 2.0**-32, -(2.0**32), 2.0**-32 * 0.99, 2.0**32 * 1.01):
        _check_gtu(g, v, torch.full_like(g, s), 2.0, 4.0)
        _check_gtu(v, g, torch.full_like(g, s), 2.0, 4.0)


@needs_kernels
def test_gtu_non_finite_inputs_and_signed_zeros_are_the_ieee_products():
    """NaN in, NaN out; g = +-inf gives the gate's limits, v = +-inf tanh's, the zeros the signs IEEE
    multiplication gives the float64 products (v = -0: -0 forward; go = -0: zeros of go's sign), infinite go the
    infinity of the product's sign where the derivative is not 0."""
    values = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-40, -1e-40, 1.5, -1.5, 90.0, -90.0])
    g = values.repeat_interleave(len(values))
    v = values.repeat(len(values))
    for s in (1.0, -1.0, 0.0, -0.0, float("inf"), -float("inf"), float("nan")):
        go = torch.full_like(g, s)
        gd, vd, god = (t.double().numpy() for t in (g, v, go))
        with np.errstate(invalid="ignore", over="ignore"):
            want = _gtu_reference(gd, vd, god)
        y = native32.gated_forward("gtu", g, v)
        dg, dv = torch.empty_like(g), torch.empty_like(g)
        assert native32.gated_backward("gtu", go, g, v, dg, dv)
        for got, ref in zip((y, dg, dv), want, strict=True):
            ref32 = torch.from_numpy(ref).float()
            assert torch.equal(got.isnan(), ref32.isnan()), (got, ref32)
            exact = (ref32 == 0) | ref32.isinf()
            assert torch.equal(got[exact], ref32[exact]) and torch.equal(got[exact].signbit(), ref32[exact].signbit())


# swiglustep, min(silu(g), L) clamp(v, -L, L) at L = 7: swiglu's kernel on the clamped v, the gate L above the last
# float32 whose silu is below L; clamped_swiglu, silu(min(g, L)) clamp(v, -L, L): swiglu's kernel on the clamped g
# and v. Against the catalog's float64 path with autograd (its indicators' zeros and NaN included), within swiglu's
# bounds
def _check_float64_path(
    name: str,
    g: torch.Tensor,
    v: torch.Tensor,
    go: torch.Tensor,
    bounds: tuple[float, float] = GATED_BOUNDS["swiglu"],
    underflows: tuple[torch.Tensor, torch.Tensor] | None = None,
) -> None:
    """The kernels against the catalog's float64 path with autograd; `underflows`: the lanes (of d/dg, d/dv) where
    float64's factors underflow to 0 but the true derivative is not 0 (default: g < -745, silu's and sigma's)."""
    gd, vd = (t.double().requires_grad_() for t in (g, v))
    ref = F.function(name)(gd, vd)
    ref.backward(go.double())
    y = native32.gated_forward(name, g, v)
    dg, dv = torch.empty_like(g), torch.empty_like(g)
    assert native32.gated_backward(name, go, g, v, dg, dv)
    # (where float64's silu(g) or sigma(g) underflows to 0 (g < -745) an infinite go gives float64 NaN; the kernels
    # give the true product's infinity there, NaN only beside a true zero: not a finite number either way)
    left = (g < -745) & g.isfinite()
    dg_far, dv_far = (left, left) if underflows is None else underflows
    forward_ulp, grad_ulp = bounds
    for got, want, bound, far in (
        (y, ref.detach(), forward_ulp, None),
        (dg, gd.grad, grad_ulp, go.isinf() & dg_far),
        (dv, vd.grad, grad_ulp, go.isinf() & dv_far),
    ):
        if far is not None:
            assert not got[far].isfinite().any()
            got, want = got[~far], want[~far]
        want32 = want.float()
        assert torch.equal(got.isnan(), want32.isnan())
        exact = (want32 == 0) | want32.isinf()
        assert torch.equal(got[exact], want32[exact]) and torch.equal(got[exact].signbit(), want32[exact].signbit())
        finite = want.isfinite() & ~exact
        err = _ulp_error(got[finite].numpy(), want[finite].numpy())
        assert err.max(initial=0.0) <= bound, err.max(initial=0.0)


@needs_kernels
@pytest.mark.parametrize("name", ["swiglustep", "clamped_swiglu"])
def test_clipped_swiglus_are_within_swiglus_bounds(name):
    """g over every binade, dense over [-20, 20] and at the gate's clip (the float32s around 7, and around
    silu(g) = 7 for swiglustep), v of every binade and at the value's clip +-7, go ~ N(0, 1) and at its limits."""
    g, v, go = _gated_sample()
    steps = np.arange(-40, 41, dtype=np.float32)  # (7.006342: silu's crossing of 7, within a float32)
    cut = np.float32(7.006342 if name == "swiglustep" else 7.0)
    near_cut = torch.from_numpy(cut + steps * np.spacing(np.float32(7.0)))
    clips = torch.tensor([7.0, -7.0])
    clips = torch.cat([clips, torch.nextafter(clips, torch.zeros(2)), torch.nextafter(clips, 2 * clips)])
    g2 = near_cut.repeat_interleave(len(clips) + 3)
    v2 = torch.cat([clips, torch.tensor([1.0, -0.5, 3e-20])]).repeat(len(near_cut))
    _check_float64_path(name, torch.cat([g, g2]), torch.cat([v, v2]), torch.cat([go, torch.randn(len(g2))]))
    _check_float64_path(name, v, g, go)
    _check_float64_path(name, g2, v2, torch.full_like(g2, 2.0**32 * 1.01))


@needs_kernels
@pytest.mark.parametrize("name", ["swiglustep", "clamped_swiglu"])
def test_clipped_swiglus_non_finite_inputs_and_signed_zeros_are_the_float64_paths(name):
    """NaN, infinities, signed zeros, the clips and huge values in g, v and go: the NaN, zeros (of their sign) and
    infinities the catalog's float64 path gives."""
    values = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-40, -1e-40, 1.5, -1.5, 7.0, -7.0, 7.5, -7.5]
    values = torch.tensor([*values, 90.0, -90.0, 3e38, -3e38])
    g = values.repeat_interleave(len(values))
    v = values.repeat(len(values))
    for s in (1.0, -1.0, 0.0, -0.0, float("inf"), -float("inf"), float("nan")):
        _check_float64_path(name, g, v, torch.full_like(g, s))


# situ_glu at its defaults (beta_g = 4, beta_u = 25): G(g) U(v) from interval tables (G' with its zero carried) where
# |g| < 8 and |v| < 16, doubles elsewhere. Measured 0.57 / 0.71 / 0.58 (forward, d/dg, d/dv) on 1M g ~ 3 N(0, 1), v ~
# 5 N(0, 1); 0.54 / 0.56 / 0.54 with g over [-60, 60], v and go scaled by 2^[-40, 8] and 2^[-40, 40]; 0.51 around the
# zero of G' (notes/2026-12-07d/situ_check.py); `nonlin check` 0.61 / 0.77 / 0.61
SITU_BOUNDS = (0.75, 0.9)


@needs_kernels
def test_situ_glu_is_within_its_bounds():
    """g over every binade and dense over [-20, 20] against v of every binade (and the reverse), go ~ N(0, 1); a
    sample of far and scaled lanes; and the 2001 float32 gates nearest the zero of G' (its table carries g - x0 on
    both paths) with values inside and beyond the tables' range, against mpmath."""
    g, v, go = _gated_sample()
    _check_float64_path("situ_glu", g, v, go, SITU_BOUNDS)
    _check_float64_path("situ_glu", v, g, go, SITU_BOUNDS)
    gen = torch.Generator().manual_seed(13)
    n = 1 << 18
    g = (torch.rand(n, generator=gen) * 2 - 1) * 60
    v = torch.randn(n, generator=gen) * 40 * torch.exp2(torch.randint(-40, 9, (n,), generator=gen).float())
    go = torch.randn(n, generator=gen) * torch.exp2(torch.randint(-40, 40, (n,), generator=gen).float())
    _check_float64_path("situ_glu", g, v, go, SITU_BOUNDS)
    x0 = np.float32(native32.SITU_X0[0])
    gz = x0 + np.arange(-1000, 1001, dtype=np.float32) * np.spacing(x0)

    def grad(x, value):  # d/dg of G(g) U(v) at g = x, v = value
        s, m = 1 / (1 + mpmath.exp(-x)), 1 / (1 + mpmath.exp(x))
        return (mpmath.sech(x / 4) ** 2 * s + 4 * mpmath.tanh(x / 4) * s * m) * 25 * mpmath.tanh(value / 25)

    for value in (3.0, 30.0):
        dg, dv = torch.empty(len(gz)), torch.empty(len(gz))
        g, v = torch.from_numpy(gz), torch.full((len(gz),), value)
        assert native32.gated_backward("situ_glu", torch.ones_like(g), g, v, dg, dv)
        with mpmath.workdps(40):
            ref = np.array([float(grad(mpmath.mpf(float(x)), mpmath.mpf(value))) for x in gz])
        assert _ulp_error(dg.numpy(), ref).max() <= SITU_BOUNDS[1]


@needs_kernels
def test_situ_glu_non_finite_inputs_and_signed_zeros_are_the_float64_paths():
    """NaN, infinities, signed zeros, subnormal and huge values in g, v and go: the NaN, zeros (of their sign) and
    infinities the catalog's float64 path gives (G(-inf) = -0, G'(+-inf) = +-0, U'(+-inf) = 0 exactly)."""
    values = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-40, -1e-40, 1.5, -1.5, -1.22, 8.0, -8.0]
    values = torch.tensor([*values, 16.0, -16.0, 90.0, -90.0, -800.0, 3e38, -3e38])
    g = values.repeat_interleave(len(values))
    v = values.repeat(len(values))
    # (float64's sigma(g) underflows below g = -745, G' above ~1490 and U' = sech^2(v / 25) beyond |v| = 9300,
    # where the true factors are not 0: there an infinite go gives the kernels' infinity, float64's NaN)
    left = (g < -745) & g.isfinite()
    underflows = (left | ((g > 1490) & g.isfinite()), left | ((v.abs() > 9300) & v.isfinite()))
    for s in (1.0, -1.0, 0.0, -0.0, float("inf"), -float("inf"), float("nan"), 3e38, 1e-40):
        _check_float64_path("situ_glu", g, v, torch.full_like(g, s), SITU_BOUNDS, underflows)


# ATen's AVX-512 Vectorized<float>::blendv (and <double>'s) selects only the lanes whose mask is all ones, where
# AVX2's reads the sign bit alone: a kernel that passed a value's sign as blendv's mask is right on AVX2 and wrong on
# AVX-512 (the near forms of 2026-12-05 did). The float kernels blend through native32's `blend`, which reads the
# sign bit on both ISAs; the double kernels use VD::blendv. On AVX2 every kernel is built once more, in one
# library, with VD::blendv under AVX-512's rule, and must give the same bits; no VF::blendv may bypass `blend`.
_ALL_ONES_BLEND = r"""
ALWAYS static inline Vectorized<double> blendv_all_ones(Vectorized<double> a, Vectorized<double> b,
                                                        Vectorized<double> mask) {
  const __m256i ones = _mm256_set1_epi64x(-1);
  const __m256d m = _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_castpd_si256(mask), ones));
  return Vectorized<double>(_mm256_blendv_pd(a, b, m));
}
"""


def _vector_isa() -> str:
    from torch._inductor import cpu_vec_isa

    return str(cpu_vec_isa.pick_vec_isa()).split()[0]


def _kernels_under_avx512_blend_rule():
    """Every kernel of native32, VD::blendv under the AVX-512 rule, as one ctypes library: k_NAME_f, k_NAME_b."""
    import ctypes

    from torch._inductor.codecache import CppCodeCache

    from nonlin.kernels.gather import FOR_BLOCKS

    always = "#define ALWAYS __attribute__((always_inline))\n"
    prelude = native32._PRELUDE.replace("// CONSTANTS", native32._constants())
    assert always in prelude
    parts = [prelude.replace(always, always + _ALL_ONES_BLEND) + FOR_BLOCKS]
    for name, (f, b) in native32.PRIMITIVES.items():
        parts.append(native32._UNARY.replace("FN", f).replace("void kernel(", f"void k_{name}_f("))
        parts.append(native32._BINARY.replace("FN", b).replace("void kernel(", f"void k_{name}_b("))
    for name, (f, b) in native32.GATED.items():
        parts.append(native32._GATED.replace("FN", f).replace("void kernel(", f"void k_{name}_f("))
        parts.append(native32._GATED_GRAD.replace("FN", b).replace("void kernel(", f"void k_{name}_b("))
    source = "\n".join(parts)
    assert "VD::blendv(" in source  # (the double kernels: siren, gcu, sqrtsoftplus)
    assert "VF::blendv(" not in source  # (every float blend is `blend`'s one rule)
    lib = CppCodeCache.load(source.replace("VD::blendv(", "blendv_all_ones("))

    def call(symbol: str, *tensors: torch.Tensor, outputs: int = 1) -> list[torch.Tensor]:
        outs = [torch.empty_like(tensors[0]) for _ in range(outputs)]
        n = tensors[0].numel()
        arrays = (*tensors, *outs)
        offsets = (0, 0) if symbol[2:].rsplit("_", 1)[0] in native32.GATED else ()  # (the gated kernels' g_at, v_at)
        fn = getattr(lib, symbol)
        fn.argtypes = [ctypes.c_void_p] * len(arrays) + [ctypes.c_int64] * (3 + len(arrays) + len(offsets))
        fn.restype = None
        fn(*(t.data_ptr() for t in arrays), 1, n, *([n] * len(arrays)), *offsets, 1)
        return outs

    return call


@needs_kernels
@pytest.mark.skipif(
    not native32.available() or _vector_isa() != "avx2", reason="on AVX-512 the other tests run its own blendv"
)
def test_every_blend_mask_is_a_comparison_mask():
    """Under AVX-512's blendv rule every kernel, forward and backward, gives the bits of its AVX2 build, on both
    signs of every binade, zeros, infinities and NaN."""
    call = _kernels_under_avx512_blend_rule()
    x = torch.from_numpy(_inputs(65521))
    x = torch.cat([x, torch.tensor(EDGES, dtype=torch.float32)])
    go = torch.randn(x.shape, generator=torch.Generator().manual_seed(13))
    for name in native32.PRIMITIVES:
        assert _same_bits(call(f"k_{name}_f", x)[0], native32.forward(name, x)), name
        assert _same_bits(call(f"k_{name}_b", go, x)[0], native32.backward(name, go, x)), name
    g, v, go = _gated_sample(4001)
    for name in native32.GATED:
        assert _same_bits(call(f"k_{name}_f", g, v)[0], native32.gated_forward(name, g, v)), name
        dg, dv = torch.empty_like(g), torch.empty_like(g)
        assert native32.gated_backward(name, go, g, v, dg, dv)
        got_dg, got_dv = call(f"k_{name}_b", go, g, v, outputs=2)
        assert _same_bits(got_dg, dg) and _same_bits(got_dv, dv), name


@needs_kernels
@pytest.mark.parametrize(("primitive", "which"), [("hardswish", "fwd"), ("sigmoid", "bwd"), ("gelu", "fwd"),
                                                  ("swiglu", "fwd"), ("swiglu", "bwd")])  # fmt: skip
def test_kernels_built_without_their_prefetch_give_the_same_bits(primitive, which):
    """The prefetch is a per-machine choice (`set_prefetch`, `nonlin tune`): both builds compute the same values
    (a prefetch changes none); and a change of the setting rebuilds the kernels already built."""
    gen = torch.Generator().manual_seed(3)
    n = 3 * native32.AHEAD_FLOATS + 37  # (past the prefetch distance, and a vector tail)
    ins = [torch.randn(n, generator=gen) * 8 for _ in range(3 if primitive in native32.GATED else 2)]
    outs = {}
    for on in (True, False):
        k = native32._compile(primitive, which, prefetch=on)
        if which == "fwd" and primitive not in native32.GATED:
            out = [torch.empty(n)]
            k(ins[0], *out, 1, n, n, n, 1)
        elif which == "fwd":
            out = [torch.empty(n)]
            k(ins[0], ins[1], *out, 1, n, n, n, n, 0, 0, 1)
        elif primitive not in native32.GATED:
            out = [torch.empty(n)]
            k(ins[0], ins[1], *out, 1, n, n, n, n, 1)
        else:
            out = [torch.empty(n), torch.empty(n)]
            k(*ins, *out, 1, n, n, n, n, n, n, 0, 0, 1)
        outs[on] = out
    for a, b in zip(outs[True], outs[False], strict=True):
        assert torch.equal(a.view(torch.int32), b.view(torch.int32))
    before = native32.kernel(primitive, which)
    try:
        native32.set_prefetch(False)
        assert not native32.prefetching() and not native32.built(primitive, which)
        assert native32.kernel(primitive, which) is not before
    finally:
        native32.set_prefetch(True)
