#!/usr/bin/env python3
"""Fit an interval table of nonlin.kernels.native32's float32 kernels and print it.

On -A <= x < A a kernel computes a function F by a polynomial of degree DEGREE in t = x - c_i on each of 32
intervals of width w = A / 16 (c_i = -A + (i + 1/2) w its center, i = floor((x + A) / w)), its coefficients looked
up per lane (one permute per coefficient: AVX-512's vpermt2ps reads a table of 32 floats). FUNCTION names F:
"gelu": Phi(x) (gelu(x) = x Phi(x)); "gelu_grad": gelu'(x) = Phi(x) + x phi(x); "silu_grad": silu'(x) = sigma(x)
(1 + x sigma(-x)); "serf": erf(softplus(x)) (serf(x) = x F); "serf_grad": serf'(x); "tanhshrink": (x - tanh x) / x^3 (tanhshrink(x) = x^3 F); "tanhshrink_grad": (tanh(x) / x)^2
(tanh(x)^2 = x^2 F); "lisht": tanh(x) / x (lisht(x) = x^2 F); "lisht_grad": lisht'(x) / x; "tanhexp": tanh(e^x)
(tanhexp(x) = x F); "tanhexp_grad": tanhexp'(x); "log_ndtr": log Phi(x); "log_sigmoid": log sigma(x); "mish": tanh(softplus(x)) (mish(x) = x F); "mish_grad": mish'(x);
"mila", "mila_grad": the same at x - 1/4; "golu": exp(-e^-x) (golu(x) = x F); "golu_grad": golu'(x);
"derf": erf(x / 2) / x (derf at its defaults, x F); "derf_grad": e^{-x^2/4} / sqrt(pi); "sau": sau at its defaults,
alpha x + (1 - alpha)(x Phi(x) + phi(x)) (its zero carried); "sau_grad": alpha + (1 - alpha) Phi(x); "situ_gate": 4
tanh(x / 4) sigma(x) / x (situ_glu's gate, x F); "situ_gate_grad": its derivative; "situ_up": 25 tanh(x / 25) / x;
"situ_up_grad": sech^2(x / 25); "log_ndtr_grad": phi(x) / Phi(x); "lecun_tanh": A tanh(B x) / x (lecun_tanh(x) = x F,
A = 1.7159, B = 2/3 as doubles); "lecun_tanh_grad": A B sech^2(B x); "sqrtsoftplus": sqrt(softplus(x));
"sqrtsoftplus_grad": sigma(x) / (2 sqrt(softplus(x))). A derivative with a zero x0 (gelu' at -0.7518, silu' at -1.2785) is fitted on the intervals
whose center lies within w of x0 as F / (x - x0) (the kernel multiplies by x - x0 carried as a float32 pair).
Each F is fitted with relative weights (Phi falls to 3e-5 at x = -4, where gelu's value is x times it): least
squares on Chebyshev nodes of each interval, padded by 2^-20 on both sides (x + A rounds in float32 before the
floor, so a lane within an ULP of an edge may take the neighbouring interval), against mpmath at 30 digits, then
the coefficients rounded one at a time, constant term first, the higher ones refitted after each rounding: c_0 as a
float32 pair hi + lo (its rounding alone would be half an ULP of F at t = 0), the rest float32.
Prints the rows (c_0's high and low parts, then c_1 ... c_DEGREE, each listing the 32 intervals' values; for a
derivative with a zero then its intervals, -0.0 marking them) and the max relative error of the polynomials
evaluated in float64 on 2001 points per interval: the fit's own error (tests/kernels/test_native32.py measures the
kernels).
Usage: python tools/fit_table_float32.py FUNCTION DEGREE A   (native32: gelu 6 4, gelu_grad 6 4, silu_grad 6 8,
serf 6 4, serf_grad 6 4, tanhexp 6 4, tanhexp_grad 6 4, tanhshrink 6 4,
tanhshrink_grad 6 4, lisht 6 4, lisht_grad 6 4, log_ndtr 6 4, log_ndtr_grad 6 4, lecun_tanh 6 8, lecun_tanh_grad 6 4, sqrtsoftplus 6 8,
sqrtsoftplus_grad 6 8, log_sigmoid 6 8, mish 6 8, mish_grad 6 4, mila 6 8, mila_grad 6 4, golu 6 2,
golu_grad 6 2, derf 6 8, derf_grad 6 4, sau 6 8, sau_grad 6 4, situ_gate 6 8, situ_gate_grad 6 8, situ_up 6 16,
situ_up_grad 6 16)
"""

from __future__ import annotations

import sys

import mpmath
import numpy as np

from nonlin.kernels.native32 import LECUN_A, LECUN_B

PAD = 2.0**-20
SAU_ALPHA = mpmath.mpf(0.01)  # (sau's default alpha as the double 0.01 the catalog holds; sigma = 1)
mpmath.mp.dps = 30
N = 32


def _sigma(x):
    return 1 / (1 + mpmath.exp(-x))


def _shrunk(x):
    """(x - tanh x) / x^3, 1/3 at 0: at 80 digits (x - tanh x cancels to x^3 / 3)."""
    with mpmath.workdps(80):
        return (x - mpmath.tanh(x)) / x**3 if x else mpmath.mpf(1) / 3


def _softplus(x):
    return mpmath.log1p(mpmath.exp(x))


def _mish_grad(x, shift):
    """d/dx x tanh(softplus(x + shift)) = tanh(s) + x sech^2(s) sigma(x + shift), s = softplus(x + shift)."""
    s = _softplus(x + shift)
    return mpmath.tanh(s) + x * mpmath.sech(s) ** 2 * _sigma(x + shift)


# FUNCTION -> (F, a guess of its zero or None)
FUNCTIONS = {
    "gelu": (mpmath.ncdf, None),
    "gelu_grad": (lambda x: mpmath.ncdf(x) + x * mpmath.npdf(x), -0.75),
    "silu_grad": (lambda x: _sigma(x) * (1 + x * _sigma(-x)), -1.28),
    "serf": (lambda x: mpmath.erf(_softplus(x)), None),
    "serf_grad": (
        lambda x: (
            mpmath.erf(_softplus(x)) + x * 2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-(_softplus(x) ** 2)) * _sigma(x)
        ),
        -1.19,
    ),
    "tanhshrink": (lambda x: _shrunk(x), None),
    "tanhshrink_grad": (lambda x: (mpmath.tanh(x) / x) ** 2 if x else mpmath.mpf(1), None),
    "lisht": (lambda x: mpmath.tanh(x) / x if x else mpmath.mpf(1), None),
    "lisht_grad": (lambda x: mpmath.tanh(x) / x + mpmath.sech(x) ** 2 if x else mpmath.mpf(2), None),
    "tanhexp": (lambda x: mpmath.tanh(mpmath.exp(x)), None),
    "tanhexp_grad": (lambda x: mpmath.tanh(mpmath.exp(x)) + x * mpmath.exp(x) * mpmath.sech(mpmath.exp(x)) ** 2, -1.08),
    "lecun_tanh": (lambda x: LECUN_A * mpmath.tanh(LECUN_B * x) / x if x else mpmath.mpf(LECUN_A * LECUN_B), None),
    "lecun_tanh_grad": (lambda x: LECUN_A * LECUN_B * mpmath.sech(LECUN_B * x) ** 2, None),
    "sqrtsoftplus": (lambda x: mpmath.sqrt(_softplus(x)), None),
    "sqrtsoftplus_grad": (lambda x: _sigma(x) / (2 * mpmath.sqrt(_softplus(x))), None),
    "log_ndtr": (lambda x: mpmath.log(mpmath.ncdf(x)), None),
    "log_ndtr_grad": (lambda x: mpmath.npdf(x) / mpmath.ncdf(x), None),
    "log_sigmoid": (lambda x: -_softplus(-x), None),
    "mish": (lambda x: mpmath.tanh(_softplus(x)), None),
    "mish_grad": (lambda x: _mish_grad(x, 0), -1.19),
    "mila": (lambda x: mpmath.tanh(_softplus(x - mpmath.mpf(0.25))), None),
    "mila_grad": (lambda x: _mish_grad(x, -mpmath.mpf(0.25)), -0.93),
    "golu": (lambda x: mpmath.exp(-mpmath.exp(-x)), None),
    "golu_grad": (lambda x: mpmath.exp(-mpmath.exp(-x)) * (1 + x * mpmath.exp(-x)), -0.57),
    "derf": (lambda x: mpmath.erf(x / 2) / x if x else 1 / mpmath.sqrt(mpmath.pi), None),
    "derf_grad": (lambda x: mpmath.exp(-(x**2) / 4) / mpmath.sqrt(mpmath.pi), None),
    "situ_gate": (lambda x: 4 * mpmath.tanh(x / 4) * _sigma(x) / x if x else mpmath.mpf(1) / 2, None),
    "situ_gate_grad": (
        lambda x: mpmath.sech(x / 4) ** 2 * _sigma(x) + 4 * mpmath.tanh(x / 4) * _sigma(x) * _sigma(-x),
        -1.5,
    ),
    "situ_up": (lambda x: mpmath.tanh(x / 25) * 25 / x if x else mpmath.mpf(1), None),
    "situ_up_grad": (lambda x: mpmath.sech(x / 25) ** 2, None),
    "sau": (lambda x: SAU_ALPHA * x + (1 - SAU_ALPHA) * (x * mpmath.ncdf(x) + mpmath.npdf(x)), -1.7),
    "sau_grad": (lambda x: SAU_ALPHA + (1 - SAU_ALPHA) * mpmath.ncdf(x), None),
}


def target(f, x0, x: float, zero: bool) -> float:
    x = mpmath.mpf(x)
    return float(f(x) / (x - x0)) if zero else float(f(x))


def fit_interval(f, x0, center: float, half: float, degree: int, zero: bool) -> np.ndarray:
    n = 8 * degree + 32
    t = (half + PAD) * np.cos(np.pi * (np.arange(n) + 0.5) / n)
    y = np.array([target(f, x0, center + ti, zero) for ti in t])
    w = 1.0 / np.abs(y)
    v = np.vander(t, degree + 1, increasing=True)
    c = np.zeros(degree + 1)
    fixed = 0.0 * y
    for i in range(degree + 1):
        rest, *_ = np.linalg.lstsq(v[:, i:] * w[:, None], (y - fixed) * w, rcond=None)
        c[i] = _pair(rest[0]) if i == 0 else float(np.float32(rest[0]))
        fixed = fixed + c[i] * v[:, i]
    return c  # increasing degree


def _pair(v: float) -> float:
    hi = np.float32(v)
    return float(hi) + float(np.float32(v - float(hi)))


def max_error(f, x0, c: np.ndarray, center: float, half: float, zero: bool) -> float:
    t = np.linspace(-half - PAD, half + PAD, 2001)
    ref = np.array([target(f, x0, center + ti, zero) for ti in t])
    return float(np.max(np.abs(np.polynomial.polynomial.polyval(t, c) / ref - 1)))


def main() -> None:
    name, degree, edge = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    f, guess = FUNCTIONS[name]
    x0 = None if guess is None else mpmath.findroot(f, guess)
    width = 2 * edge / N
    table, zeros, worst = [], [], 0.0
    for i in range(N):
        center = -edge + (i + 0.5) * width
        zero = x0 is not None and abs(center - float(x0)) < width
        c = fit_interval(f, x0, center, width / 2, degree, zero)
        table.append(c)
        zeros.append(zero)
        worst = max(worst, max_error(f, x0, c, center, width / 2, zero))
    print(
        f"# {name}, degree {degree}, {N} intervals on [-{edge}, {edge}): max relative error of the fit {worst:.3g} "
        f"({worst / 2.0**-24:.4f} float32 ULP)"
    )
    his = [float(np.float32(row[0])) for row in table]
    print("    (" + ", ".join(map(repr, his)) + "),  # c_0's high parts")
    print("    (" + ", ".join(repr(float(np.float32(row[0] - h))) for row, h in zip(table, his, strict=True)) + "),")
    for k in range(1, degree + 1):
        print("    (" + ", ".join(repr(float(np.float32(row[k]))) for row in table) + "),")
    if x0 is not None:
        print("    (" + ", ".join("-0.0" if z else "0.0" for z in zeros) + "),  # the zero's intervals")
        hi = float(np.float32(float(x0)))
        print(
            f"# the zero x0 = {mpmath.nstr(x0, 20)} as float32 hi + lo: {hi!r}, {float(np.float32(float(x0 - hi)))!r}"
        )


if __name__ == "__main__":
    main()
