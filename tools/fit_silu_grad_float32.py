#!/usr/bin/env python3
"""Fit the polynomial of nonlin.ops.torch_compiled's `silu_grad_float32` near the derivative's zero.

silu'(x) = sigma(x) (1 + x sigma(-x)) is 0 at x0 = -1.27846454..., where 1 + x sigma(-x) cancels: a float32
sum of its terms rounds to ~2^-26 absolute, thousands of ULP near x0. Near it (|d| < HALF_WIDTH, d = x - x0)
silu'(x) = d (C0 + d p(d)), p a polynomial of degree DEGREE (C0 = silu''(x0)), fitted as
tools/derivative_zero_fit.py does: least squares on Chebyshev nodes against mpmath at 40 digits, the
coefficients rounded to float32 one at a time, lowest first, the higher ones refitted after each rounding.
The series converges within 3.39 of x0 (sigma's poles at +-i pi). Prints x0 as a float32 pair hi + lo, C0, p's
coefficients (highest degree first) and the fit's max relative error on 20001 points.
Usage: python tools/fit_silu_grad_float32.py [DEGREE] [HALF_WIDTH]
"""

from __future__ import annotations

import sys

import mpmath
from derivative_zero_fit import ZeroFit

mpmath.mp.dps = 40


def silu_grad(x):
    s = 1 / (1 + mpmath.exp(-x))
    return s * (1 + x * (1 - s))


def main() -> None:
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    width = float(sys.argv[2]) if len(sys.argv) > 2 else 0.25
    ZeroFit(silu_grad, -1.28).report(degree, width, "_SILU")


if __name__ == "__main__":
    main()
