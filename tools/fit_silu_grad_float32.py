#!/usr/bin/env python3
"""Fit the polynomial of nonlin.ops.torch_compiled's `silu_grad_float32` near the derivative's zero.

silu'(x) = sigma(x) (1 + x sigma(-x)) is 0 at x0 = -1.27846454..., where 1 + x sigma(-x) cancels: a float32
sum of its terms rounds to ~2^-26 absolute, thousands of ULP near x0. Near it (|d| < HALF_WIDTH, d = x - x0)
silu'(x) = d (C0 + d p(d)), p a polynomial of degree DEGREE (C0 = silu''(x0)), fitted as
tools/fit_gelu_grad_float32.py fits gelu's: least squares on Chebyshev nodes against mpmath at 40 digits, the
coefficients rounded to float32 one at a time, lowest first, the higher ones refitted after each rounding.
The series converges within 3.39 of x0 (sigma's poles at +-i pi). Prints x0 as a float32 pair hi + lo, C0, p's
coefficients (highest degree first) and the fit's max relative error on 20001 points.
Usage: python tools/fit_silu_grad_float32.py [DEGREE] [HALF_WIDTH]
"""

from __future__ import annotations

import sys

import mpmath
import numpy as np

mpmath.mp.dps = 40


def silu_grad(x):
    s = 1 / (1 + mpmath.exp(-x))
    return s * (1 + x * (1 - s))


X0 = mpmath.findroot(silu_grad, -1.28)
C0 = mpmath.diff(silu_grad, X0)


def target(d: np.ndarray) -> np.ndarray:
    """p(d) = (silu'(x0 + d) / d - C0) / d."""
    return np.array([float((silu_grad(X0 + mpmath.mpf(float(di))) / float(di) - C0) / float(di)) for di in d])


def fit(degree: int, width: float) -> np.ndarray:
    n = 8 * degree + 64
    d = width * np.cos(np.pi * (np.arange(n) + 0.5) / n)
    y = target(d)
    v = np.vander(d, degree + 1, increasing=True)
    c = np.zeros(degree + 1)
    fixed = 0.0 * y
    for i in range(degree + 1):
        rest, *_ = np.linalg.lstsq(v[:, i:], y - fixed, rcond=None)
        c[i] = float(np.float32(rest[0]))
        fixed = fixed + c[i] * v[:, i]
    return c  # increasing degree


def max_error(c: np.ndarray, width: float) -> float:
    d = np.linspace(-width, width, 20001)
    d = d[d != 0]
    got = d * (float(C0) + d * np.polynomial.polynomial.polyval(d, c))
    ref = np.array([float(silu_grad(X0 + mpmath.mpf(float(di)))) for di in d])
    return float(np.max(np.abs(got / ref - 1)))


def main() -> None:
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    width = float(sys.argv[2]) if len(sys.argv) > 2 else 0.25
    hi = float(np.float32(float(X0)))
    lo = float(np.float32(float(X0 - hi)))
    c = fit(degree, width)
    err = max_error(c, width)
    print(
        f"# degree {degree}, |d| < {width}: max relative error of the fit {err:.3g} ({err / 2.0**-24:.4f} float32 ULP)"
    )
    print(f"_SILU_X0_HI, _SILU_X0_LO = {hi!r}, {lo!r}")
    print(f"_SILU_C0 = {float(C0)!r}")
    print("_SILU_GRAD_P = (" + ", ".join(repr(float(np.float32(x))) for x in c[::-1]) + ")")


if __name__ == "__main__":
    main()
