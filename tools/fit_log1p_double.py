"""log1p(f) = f + f^2 Q(f) on f in [sqrt(1/2) - 1, sqrt(2) - 1], Q a polynomial of degree DEGREE, for native32's
double-precision log1p (the kernels of the softplus family: m = 1 + u halved above sqrt 2, f = m - 1).

Weighted least squares on 400 Chebyshev nodes against mpmath (Q's target (log1p(f) - f) / f^2 cancels in
doubles near 0), weighted to the relative error of log1p itself; prints Q's coefficients (lowest degree
first, as native32.LOG1P_Q holds them) and the max relative error of f + f^2 Q(f) on 20001 points (float64
arithmetic: its own rounding, ~2^-52, is below the fit's).

    python tools/fit_log1p_double.py [DEGREE]      # 9 by default: 2^-30.1
"""

from __future__ import annotations

import sys

import mpmath
import numpy as np

mpmath.mp.dps = 40
LOW, HIGH = float(mpmath.sqrt(0.5) - 1), float(mpmath.sqrt(2) - 1)


def fit(degree: int) -> tuple[np.ndarray, float]:
    t = np.cos(np.pi * (np.arange(400) + 0.5) / 400)
    f = (LOW + HIGH) / 2 + (HIGH - LOW) / 2 * t
    log1p = np.array([float(mpmath.log1p(mpmath.mpf(v))) for v in f])
    target = np.array([float((mpmath.log1p(mpmath.mpf(v)) - v) / mpmath.mpf(v) ** 2) for v in f])
    weight = f**2 / np.abs(log1p)
    q, *_ = np.linalg.lstsq(np.vander(f, degree + 1) * weight[:, None], target * weight, rcond=None)
    test = np.linspace(LOW, HIGH, 20001)
    test = test[test != 0]
    truth = np.array([float(mpmath.log1p(mpmath.mpf(v))) for v in test])
    approx = test + test**2 * np.polyval(q, test)
    return q, float(np.max(np.abs(approx - truth) / np.abs(truth)))


if __name__ == "__main__":
    q, worst = fit(int(sys.argv[1]) if len(sys.argv) > 1 else 9)
    print("Q (lowest degree first):", ", ".join(repr(float(c)) for c in q[::-1]))
    print(f"max relative error of f + f^2 Q(f): 2^{np.log2(worst):.1f}")
