#!/usr/bin/env python3
"""Fit the polynomial of nonlin.ops.torch_compiled's `swish_grad_float32` near quick_gelu's derivative zero.

quick_gelu'(x) = sigma(b x) (1 + b x sigma(-b x)), b = 1.702, is 0 at x0 = -1.27846454... / b (silu's zero
moved by b). Near it the form is a polynomial in d = x - x0 itself (x exact, x0 a float32 pair), not in
b x - x0 * b: b x carried as a double-float still rounds to ~2^-47 absolute, thousands of ULP of d (C0 + ...)
next to x0. quick_gelu'(x) = d (C0 + d p(d)) with p of degree DEGREE on |d| < HALF_WIDTH, fitted as
tools/derivative_zero_fit.py does (mpmath at 40 digits). Prints x0 as a float32 pair, C0 and p's coefficients.
Usage: python tools/fit_quick_gelu_grad_float32.py [DEGREE] [HALF_WIDTH]
"""

from __future__ import annotations

import sys

import mpmath
from derivative_zero_fit import ZeroFit

mpmath.mp.dps = 40
BETA = mpmath.mpf(1.702)  # the float64 1.702 the catalog's quick_gelu multiplies by, as the reference does


def quick_gelu_grad(x):
    z = BETA * x
    s = 1 / (1 + mpmath.exp(-z))
    return s * (1 + z * (1 - s))


def main() -> None:
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    width = float(sys.argv[2]) if len(sys.argv) > 2 else 0.06
    ZeroFit(quick_gelu_grad, -0.75).report(degree, width, "_QUICK_GELU")


if __name__ == "__main__":
    main()
