#!/usr/bin/env python3
"""Fit the polynomial of native32's gelu_tanh derivative near its zero.

gelu_tanh'(x) = sigma(z) (1 + m sigma(-z)), z = 2c (x + a x^3), m = x z'(x) = 2c x (1 + 3a x^2) (c = sqrt(2/pi),
a = 0.044715, the float64 constants the catalog multiplies by), is 0 at x0 = -0.7525... Near it the form is a
polynomial in d = x - x0 itself (x exact, x0 a float32 pair): the terms 1 + u + m cancel there, and m and u, each
carried as a double-float, still round to ~2^-40 absolute, thousands of ULP of d (C0 + ...) next to x0.
gelu_tanh'(x) = d (C0 + d p(d)) with p of degree DEGREE on |d| < HALF_WIDTH, fitted as tools/derivative_zero_fit.py
does (mpmath at 40 digits). Prints x0 as a float32 pair, C0 and p's coefficients.
Usage: python tools/fit_gelu_tanh_grad_float32.py [DEGREE] [HALF_WIDTH]
"""

from __future__ import annotations

import math
import sys

import mpmath
from derivative_zero_fit import ZeroFit

mpmath.mp.dps = 40
C = mpmath.mpf(math.sqrt(2.0 / math.pi))  # the float64 sqrt(2/pi) of the catalog (nonlin.catalog.smooth)
A = mpmath.mpf(0.044715)


def gelu_tanh_grad(x):
    z = 2 * C * (x + A * x**3)
    m = 2 * C * x * (1 + 3 * A * x**2)
    s = 1 / (1 + mpmath.exp(-z))
    return s * (1 + m * (1 - s))


def main() -> None:
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    width = float(sys.argv[2]) if len(sys.argv) > 2 else 0.06
    ZeroFit(gelu_tanh_grad, -0.75).report(degree, width, "GT")


if __name__ == "__main__":
    main()
