#!/usr/bin/env python3
"""Fit the interval table of nonlin.kernels.native32's float32 gelu forward and print it.

On -A <= x < A the kernel computes Phi(x) by a polynomial of degree DEGREE in t = x - c_i on each of N intervals of
width w = 2A / N (c_i = -A + (i + 1/2) w its center, i = floor((x + A) / w)), its coefficients looked up per lane
(one permute per coefficient: AVX-512's vpermt2ps reads a table of 32 floats), and gelu(x) = x Phi(x) rounded once.
Phi is fitted with relative weights (it falls to 3e-5 at x = -4, where gelu's value is x times it): least squares
on Chebyshev nodes of each interval, padded by 2^-20 on both sides (x + A rounds in float32 before the floor, so
a lane within an ULP of an edge may take the neighbouring interval), against mpmath at 30 digits, then the
coefficients rounded to float32 one at a time, constant term first, the higher ones refitted after each rounding.
c_0 is a float32 pair hi + lo. Prints the table (rows: c_0's high and low parts, then c_1 ... c_DEGREE, each listing
the N intervals' values) and the max relative error of
the float32-coefficient polynomials evaluated in float64 on 2001 points per interval: the fit's own error
(tests/kernels/test_native32.py measures the kernel).
Usage: python tools/fit_gelu_table_float32.py DEGREE N A   (native32: 7 32 4)
"""

from __future__ import annotations

import sys

import mpmath
import numpy as np

PAD = 2.0**-20


def phi(x: float) -> float:
    with mpmath.workdps(30):
        return float(mpmath.ncdf(mpmath.mpf(x)))


def fit_interval(center: float, half: float, degree: int) -> np.ndarray:
    n = 8 * degree + 32
    t = (half + PAD) * np.cos(np.pi * (np.arange(n) + 0.5) / n)
    y = np.array([phi(center + ti) for ti in t])
    w = 1.0 / y
    v = np.vander(t, degree + 1, increasing=True)
    c = np.zeros(degree + 1)
    fixed = 0.0 * y
    for i in range(degree + 1):
        rest, *_ = np.linalg.lstsq(v[:, i:] * w[:, None], (y - fixed) * w, rcond=None)
        # c_0 as a float32 pair hi + lo (the kernel adds its low part to the rest of the polynomial): its rounding
        # alone would be half an ULP of Phi at t = 0
        c[i] = _pair(rest[0]) if i == 0 else float(np.float32(rest[0]))
        fixed = fixed + c[i] * v[:, i]
    return c  # increasing degree


def _pair(v: float) -> float:
    hi = np.float32(v)
    return float(hi) + float(np.float32(v - float(hi)))


def max_error(c: np.ndarray, center: float, half: float) -> float:
    t = np.linspace(-half - PAD, half + PAD, 2001)
    ref = np.array([phi(center + ti) for ti in t])
    return float(np.max(np.abs(np.polynomial.polynomial.polyval(t, c) / ref - 1)))


def main() -> None:
    degree, n, edge = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    width = 2 * edge / n
    table, worst = [], 0.0
    for i in range(n):
        center = -edge + (i + 0.5) * width
        c = fit_interval(center, width / 2, degree)
        table.append(c)
        worst = max(worst, max_error(c, center, width / 2))
    print(f"# degree {degree}, {n} intervals on [-{edge}, {edge}): max relative error of the fit {worst:.3g} "
          f"({worst / 2.0**-24:.4f} float32 ULP)")  # fmt: skip
    his = [float(np.float32(row[0])) for row in table]
    print("    (" + ", ".join(map(repr, his)) + "),  # c_0's high parts")
    print(
        "    ("
        + ", ".join(repr(float(np.float32(row[0] - h))) for row, h in zip(table, his, strict=True))
        + "),  # low"
    )
    for k in range(1, degree + 1):
        print("    (" + ", ".join(repr(float(np.float32(row[k]))) for row in table) + "),")


if __name__ == "__main__":
    main()
