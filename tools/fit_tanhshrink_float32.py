#!/usr/bin/env python3
"""Fit the series of nonlin.kernels.native32's float32 tanhshrink and print its coefficients.

Below |x| = T (7/8) the kernel computes x - tanh x = a^3 S(a^2), S(t) = 1/3 + t R(t), with R a polynomial of
degree DEGREE in float32 Horner (the Taylor polynomial of the catalog's _TANHSHRINK_SERIES needs degree 16 for the
same error: a chain of 17 dependent FMAs, the kernel's latency). The error that matters is t (R_fit - R)
relative to S. Least squares on Chebyshev nodes of [0, T^2] against mpmath at 40 digits (close to minimax for this
smooth target: S is analytic out to t = -(pi/2)^2), weighted by t / S(t), then the coefficients rounded to
float32 one at a time, constant term first, the higher ones refitted after each rounding (as
tools/fit_expm1_float32.py). Prints the coefficients (highest degree first, as the source holds them) and the
max error of the float32-coefficient form evaluated in float64 on 20001 points: the fit's own error
(tests/kernels/test_native32.py measures the kernel).
Usage: python tools/fit_tanhshrink_float32.py DEGREE T   (native32: 8 0.875)
"""

from __future__ import annotations

import sys

import mpmath
import numpy as np


def s_of(t: float) -> mpmath.mpf:
    with mpmath.workdps(40):
        if t == 0:
            return mpmath.mpf(1) / 3
        a = mpmath.sqrt(mpmath.mpf(t))
        return (a - mpmath.tanh(a)) / a**3


def r_of(t: float) -> float:
    with mpmath.workdps(40):
        return float((s_of(t) - mpmath.mpf(1) / 3) / t) if t != 0 else -2.0 / 15.0


def fit(degree: int, edge: float) -> np.ndarray:
    n = 16 * degree + 64
    top = edge * edge
    t = 0.5 * top * (1 + np.cos(np.pi * (np.arange(n) + 0.5) / n))  # Chebyshev nodes of [0, T^2]
    y = np.array([r_of(ti) for ti in t])
    w = t / np.array([float(s_of(ti)) for ti in t])
    v = np.vander(t, degree + 1, increasing=True)
    c = np.zeros(degree + 1)
    fixed = 0.0 * y
    for i in range(degree + 1):
        rest, *_ = np.linalg.lstsq(v[:, i:] * w[:, None], (y - fixed) * w, rcond=None)
        c[i] = float(np.float32(rest[0]))
        fixed = fixed + c[i] * v[:, i]
    return c  # increasing degree


def max_error(c: np.ndarray, edge: float) -> float:
    t = np.linspace(0, edge * edge, 20001)
    got = t * np.polynomial.polynomial.polyval(t, c)
    ref = np.array([r_of(ti) for ti in t]) * t
    return float(np.max(np.abs(got - ref) / np.array([float(s_of(ti)) for ti in t])))


def main() -> None:
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    edge = float(sys.argv[2]) if len(sys.argv) > 2 else 0.875
    c = fit(degree, edge)
    err = max_error(c, edge)
    print(f"# degree {degree}, |x| < {edge}: max error of the fit relative to S {err:.3g} (2^{np.log2(err):.1f})")
    print("(" + ", ".join(repr(float(np.float32(x))) for x in c[::-1]) + ")")


if __name__ == "__main__":
    main()
