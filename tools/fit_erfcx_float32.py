#!/usr/bin/env python3
"""Fit the float32 erfcx of nonlin.ops.torch_compiled (`erfcx_float32`) and print its coefficients.

Form, in a = |x| (the argument of Phi(-a) = erfc(a/sqrt2)/2, so that a/sqrt2 is never rounded):
(1 + a) erfcx(a/sqrt2) = 1 + u q(t) for a >= 0, u = a / (a + K) in [0, 1), t = 2u - 1 = (a - K) / (a + K),
q a polynomial of degree DEGREE in t. (1 + a) erfcx(a/sqrt2) runs from 1 (a = 0) to sqrt(2/pi) (a -> inf),
so 1 + u q stays in [0.79, 1.03] and q's absolute error is about the relative error of erfcx. t's float32
rounding (an absolute 2^-25 near t = -1) is multiplied by u, which is small there and relatively accurate
(rounded twice), so the evaluated form stays within a fraction of an ULP of the fit. Least squares on Chebyshev nodes in t against mpmath at 30
digits (close to minimax for a smooth target), then the coefficients are rounded to float32 one at a time,
constant term first, the higher ones refitted after each rounding, so the rounding costs next to nothing.
Prints the coefficients (highest degree first, as the source holds them) and the max relative error of
the float32-coefficient form evaluated in float64 on 20001 points of a in [0, 1e5]: the fit's own error, before float32 evaluation (tests/kernels/test_erfc_float32.py measures
the evaluated primitive). With A_MAX, the fit and the error cover a in [0, A_MAX] only (t in [-1, t(A_MAX)]): the
callers clamp a to 16, and `python tools/fit_erfcx_float32.py 10 4 16` gives the committed degree-10 _ERFCX_Q
(0.043 ULP on [0, 16]), one degree below the whole-range fit's 11 (`11 4`: 0.05 ULP).
Usage: python tools/fit_erfcx_float32.py [DEGREE] [K] [A_MAX]
"""

from __future__ import annotations

import math
import sys

import mpmath
import numpy as np


def scaled(a):
    """(1 + a) erfcx(a / sqrt2) in mpmath."""
    z = a / mpmath.sqrt(2)
    return (1 + a) * mpmath.erfc(z) * mpmath.exp(z * z)


def target(t: np.ndarray, k: float) -> np.ndarray:
    """q(t) = ((1 + a) erfcx(a/sqrt2) - 1) / u at a = K (1 + t) / (1 - t)."""
    out = []
    with mpmath.workdps(30):
        for ti in t:
            ti = mpmath.mpf(float(ti))
            if ti == 1:  # a -> inf: sqrt(2/pi) - 1, u = 1
                out.append(float(mpmath.sqrt(2 / mpmath.pi) - 1))
                continue
            a = k * (1 + ti) / (1 - ti)
            out.append(float((scaled(a) - 1) / ((1 + ti) / 2)))
    return np.array(out)


def fit(degree: int, k: float, a_max: float = math.inf) -> np.ndarray:
    n = 8 * degree + 64
    t_max = 1.0 if math.isinf(a_max) else (a_max - k) / (a_max + k)
    t = -1.0 + (np.cos(np.pi * (np.arange(n) + 0.5) / n) + 1.0) * (t_max + 1.0) / 2.0  # Chebyshev nodes
    y = target(t, k)
    v = np.vander(t, degree + 1, increasing=True)  # columns t^0 .. t^degree
    c = np.zeros(degree + 1)
    fixed = 0.0 * y
    for i in range(degree + 1):
        rest, *_ = np.linalg.lstsq(v[:, i:], y - fixed, rcond=None)
        c[i] = float(np.float32(rest[0]))  # round this one, refit the higher ones
        fixed = fixed + c[i] * v[:, i]
    return c  # increasing degree


def max_error(c: np.ndarray, k: float, a_max: float = math.inf) -> float:
    if math.isinf(a_max):
        a = np.concatenate([np.linspace(0, 30, 10001), np.geomspace(30, 1e5, 10000)])
    else:
        a = np.linspace(0, a_max, 20001)
    u = a / (a + k)
    got = 1 + u * np.polynomial.polynomial.polyval(2 * u - 1, c)
    with mpmath.workdps(30):
        ref = np.array([float(scaled(mpmath.mpf(ai))) for ai in a])
    return float(np.max(np.abs(got / ref - 1)))


def main() -> None:
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    k = float(sys.argv[2]) if len(sys.argv) > 2 else 6.0
    a_max = float(sys.argv[3]) if len(sys.argv) > 3 else math.inf
    c = fit(degree, k, a_max)
    err = max_error(c, k, a_max)
    print(
        f"# degree {degree}, K = {k}, a <= {a_max}: max relative error of the fit {err:.3g} ({err / 2.0**-24:.4f} float32 ULP)"
    )
    print("_ERFCX_Q = (" + ", ".join(repr(float(np.float32(x))) for x in c[::-1]) + ")")


if __name__ == "__main__":
    main()
