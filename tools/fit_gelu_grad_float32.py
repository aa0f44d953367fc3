#!/usr/bin/env python3
"""Fit the polynomial of nonlin.ops.torch_compiled's `gelu_grad_float32` near the derivative's zero.

gelu'(x) = Phi(x) + x phi(x) is 0 at x0 = -0.75179152..., where its two terms (~0.226 each) cancel: any
form that adds them rounds to an absolute error of ~2^-26, which is 1e5 float32 ULP at the zero. Near it
(|d| < HALF_WIDTH, d = x - x0) gelu'(x) = d (C0 + d p(d)), p a polynomial of degree DEGREE: no cancellation
(C0 = gelu''(x0) = 0.431). Least squares on Chebyshev nodes in d against mpmath at 40 digits, then the
coefficients of p rounded to float32 one at a time, lowest first, the higher ones refitted after each
rounding (C0 stays a float64 constant: the form adds it in float64). Prints x0 as a float32 pair hi + lo,
C0, p's coefficients (highest degree first, as the source holds them) and the fit's max relative error on
20001 points. tests/kernels/test_gelu_float32.py measures the evaluated primitive.
Usage: python tools/fit_gelu_grad_float32.py [DEGREE] [HALF_WIDTH] [gelu|gelu_tanh]
(gelu_tanh: the same for the tanh form's derivative sigma(u) + x u' sigma(u) sigma(-u), u = 2 sqrt(2/pi)(x +
0.044715 x^3) with the catalog's float64 constants, zero at x = -0.75246...: for a float32 gelu_tanh form; one
built with it, commit 08b2807, was 0.6 ULP but twice the time of float64 math, and is not in the tree.)
"""

from __future__ import annotations

import math
import sys

import mpmath
from derivative_zero_fit import ZeroFit

mpmath.mp.dps = 40


ENTRY = sys.argv[3] if len(sys.argv) > 3 else "gelu"
_C1 = mpmath.mpf(2.0 * math.sqrt(2.0 / math.pi))  # the catalog's float64 constants (nonlin.catalog.smooth)
_C3 = mpmath.mpf(0.044715)


def gelu_grad(x):
    if ENTRY == "gelu":
        return mpmath.ncdf(x) + x * mpmath.npdf(x)
    u = _C1 * (x + _C3 * x**3)
    s = 1 / (1 + mpmath.exp(-u))
    return s + x * _C1 * (1 + 3 * _C3 * x * x) * s * (1 - s)


def main() -> None:
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    width = float(sys.argv[2]) if len(sys.argv) > 2 else 0.25
    ZeroFit(gelu_grad, -0.75).report(degree, width, "_GELU" if ENTRY == "gelu" else "_GELU_TANH")


if __name__ == "__main__":
    main()
