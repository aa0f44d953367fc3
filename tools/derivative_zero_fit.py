"""The polynomial of a float32 derivative form near the derivative's zero (shared by the tools/fit_*_grad_float32.py
scripts).

Near a simple zero x0 of f, f(x) = d (C0 + d p(d)) with d = x - x0 and C0 = f'(x0): no cancellation, where any
form adding f's terms rounds to an absolute error and so to thousands of ULP next to x0. p of degree DEGREE on
|d| < HALF_WIDTH: least squares on Chebyshev nodes against mpmath (the caller sets mpmath.mp.dps), then the
coefficients rounded to float32 (or, for a kernel computing in doubles, to doubles) one at a time, lowest first, the
higher ones refitted after each rounding.
`report` prints x0 as a float32 pair hi + lo (or a double pair), C0, p's coefficients (highest degree first, as the source holds
them) and the fit's max relative error on 20001 points.
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath
import numpy as np


class ZeroFit:
    def __init__(self, f: Callable, x0_guess: float) -> None:
        self.f = f
        self.x0 = mpmath.findroot(f, x0_guess)
        self.c0 = mpmath.diff(f, self.x0)  # the slope at the zero

    def target(self, d: np.ndarray) -> np.ndarray:
        """p(d) = (f(x0 + d) / d - C0) / d."""
        return np.array(
            [float((self.f(self.x0 + mpmath.mpf(float(di))) / float(di) - self.c0) / float(di)) for di in d]
        )

    def fit(self, degree: int, width: float, dtype: type = np.float32) -> np.ndarray:
        n = 8 * degree + 64
        d = width * np.cos(np.pi * (np.arange(n) + 0.5) / n)
        y = self.target(d)
        v = np.vander(d, degree + 1, increasing=True)
        c = np.zeros(degree + 1)
        fixed = 0.0 * y
        for i in range(degree + 1):
            rest, *_ = np.linalg.lstsq(v[:, i:], y - fixed, rcond=None)
            c[i] = float(dtype(rest[0]))
            fixed = fixed + c[i] * v[:, i]
        return c  # increasing degree

    def max_error(self, c: np.ndarray, width: float) -> float:
        d = np.linspace(-width, width, 20001)
        d = d[d != 0]
        got = d * (float(self.c0) + d * np.polynomial.polynomial.polyval(d, c))
        ref = np.array([float(self.f(self.x0 + mpmath.mpf(float(di)))) for di in d])
        return float(np.max(np.abs(got / ref - 1)))

    def report(self, degree: int, width: float, tag: str, dtype: type = np.float32) -> None:
        """With dtype=np.float64 (a kernel computing in doubles): x0 as a double pair, the coefficients doubles."""
        hi = float(dtype(float(self.x0)))
        lo = float(dtype(float(self.x0 - hi)))
        c = self.fit(degree, width, dtype)
        err = self.max_error(c, width)
        print(
            f"# degree {degree}, |d| < {width}: max relative error of the fit {err:.3g} "
            f"({err / 2.0**-24:.4f} float32 ULP)"
        )
        print(f"{tag}_X0_HI, {tag}_X0_LO = {hi!r}, {lo!r}")
        print(f"{tag}_C0 = {float(self.c0)!r}")
        print(f"{tag}_GRAD_P = (" + ", ".join(repr(float(dtype(x))) for x in c[::-1]) + ")")
