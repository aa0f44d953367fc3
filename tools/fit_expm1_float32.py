#!/usr/bin/env python3
"""Fit the polynomial tail of nonlin.ops.torch_compiled's float32 exp forms and print its coefficients.

The float32 exp of the sigmoid family (`exp_neg_float32`) reduces the argument to r, |r| <= R = 0.35, and
needs e^r - 1 = r + r^2 g(r) with g(r) = (e^r - 1 - r) / r^2 a polynomial of degree DEGREE (5: 2^-32.8, as
good as the Taylor polynomial of degree 6 it replaced). The erfc family's `_gauss_split` (|r| <= 0.44) keeps
its Taylor polynomial: a degree-5 fit (`5 0.44`, 2^-30.2) measured no faster there. The error that matters is r^2 (g_fit - g) relative to e^r. Least squares on Chebyshev nodes
against mpmath at 40 digits (close to minimax for this smooth target), weighted by r^2 / e^r, then the
coefficients are rounded to float32 one at a time, constant term first, the higher ones refitted after
each rounding. Prints the coefficients (highest degree first, as the source holds them) and the max error
of the float32-coefficient form evaluated in float64 on 20001 points of [-R, R]: the fit's own error
(tests/kernels/test_float32_sigmoid.py and test_erfc_float32.py measure the evaluated forms).
Usage: python tools/fit_expm1_float32.py DEGREE R   (exp_neg_float32: 5 0.35; native32's sigmoid_near: 4 0.35, 2^-27.9)
"""

from __future__ import annotations

import sys

import mpmath
import numpy as np


def g(r: float) -> float:
    with mpmath.workdps(40):
        r = mpmath.mpf(r)
        return float(mpmath.expm1(r) / (r * r) - 1 / r) if r != 0 else 0.5


def fit(degree: int, radius: float) -> np.ndarray:
    n = 16 * degree + 64
    r = radius * np.cos(np.pi * (np.arange(n) + 0.5) / n)  # Chebyshev nodes
    y = np.array([g(ri) for ri in r])
    w = r * r / np.exp(r)  # g's error is multiplied by r^2, relative to e^r
    v = np.vander(r, degree + 1, increasing=True)  # columns r^0 .. r^degree
    c = np.zeros(degree + 1)
    fixed = 0.0 * y
    for i in range(degree + 1):
        rest, *_ = np.linalg.lstsq(v[:, i:] * w[:, None], (y - fixed) * w, rcond=None)
        c[i] = float(np.float32(rest[0]))  # round this one, refit the higher ones
        fixed = fixed + c[i] * v[:, i]
    return c  # increasing degree


def max_error(c: np.ndarray, radius: float) -> float:
    r = np.linspace(-radius, radius, 20001)
    got = r * r * np.polynomial.polynomial.polyval(r, c)
    ref = np.array([g(ri) for ri in r]) * r * r
    return float(np.max(np.abs(got - ref) / np.exp(r)))


def main() -> None:
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    radius = float(sys.argv[2]) if len(sys.argv) > 2 else 0.35
    c = fit(degree, radius)
    err = max_error(c, radius)
    print(f"# degree {degree}, |r| <= {radius}: max error of the fit relative to e^r {err:.3g} (2^{np.log2(err):.1f})")
    print("(" + ", ".join(repr(float(np.float32(x))) for x in c[::-1]) + ")")


if __name__ == "__main__":
    main()
