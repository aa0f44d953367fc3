#!/usr/bin/env python3
"""Fit the polynomial of native32's tanhexp derivative near its zero.

tanhexp'(x) = tanh(E) + x E sech^2(E), E = e^x, is 0 at x0 = -1.09... (for x < 0 the two terms have opposite
signs). native32 computes it as E B with B = tanh(E) / E + x sech^2(E), whose two terms (each from u = e^-2E,
to ~2^-27) cancel near x0; there the form is a polynomial in d = x - x0 itself (x exact, x0 a float32 pair):
tanhexp'(x) = d (C0 + d p(d)) with p of degree DEGREE on |d| < HALF_WIDTH, fitted as
tools/derivative_zero_fit.py does (mpmath at 40 digits). Prints x0 as a float32 pair, C0 and p's coefficients.
Usage: python tools/fit_tanhexp_grad_float32.py [DEGREE] [HALF_WIDTH]
"""

from __future__ import annotations

import sys

import mpmath
from derivative_zero_fit import ZeroFit

mpmath.mp.dps = 40


def tanhexp_grad(x):
    e = mpmath.exp(x)
    return mpmath.tanh(e) + x * e * mpmath.sech(e) ** 2


def main() -> None:
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    width = float(sys.argv[2]) if len(sys.argv) > 2 else 0.3
    ZeroFit(tanhexp_grad, -1.1).report(degree, width, "TE")


if __name__ == "__main__":
    main()
