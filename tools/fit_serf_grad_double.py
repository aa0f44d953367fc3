#!/usr/bin/env python3
"""Fit the polynomial of native32's serf derivative near its zero (a kernel computing in doubles).

serf'(x) = erf(s) + x (2 / sqrt(pi)) e^{-s^2} sigma(x), s = softplus(x), is 0 at x0 = -1.19... (for x < 0 the two
terms have opposite signs). native32 computes the terms in doubles to ~2^-30 (softplus_d's error), which cancel near
x0; there the form is a polynomial in d = x - x0 (x exact, x0 a double pair): serf'(x) = d (C0 + d p(d)) with p of
degree DEGREE on |d| < HALF_WIDTH, fitted as tools/derivative_zero_fit.py does (mpmath at 40 digits), the
coefficients doubles. Prints x0 as a double pair, C0 and p's coefficients.
Usage: python tools/fit_serf_grad_double.py [DEGREE] [HALF_WIDTH]
"""

from __future__ import annotations

import sys

import mpmath
import numpy as np
from derivative_zero_fit import ZeroFit

mpmath.mp.dps = 40


def serf_grad(x):
    s = mpmath.log1p(mpmath.exp(x))
    return mpmath.erf(s) + x * 2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-s * s) / (1 + mpmath.exp(-x))


def main() -> None:
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    width = float(sys.argv[2]) if len(sys.argv) > 2 else 0.15
    ZeroFit(serf_grad, -1.2).report(degree, width, "SERF", np.float64)


if __name__ == "__main__":
    main()
