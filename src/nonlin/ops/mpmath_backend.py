"""mpmath backend of the math namespace: the high-precision reference.

Each primitive is mpmath's own, correct to the working precision at any argument (mpmath has an
unbounded exponent, so nothing overflows or underflows). Callers set the precision with
``mpmath.mp.workdps``; `nonlin.reference` does.
"""

from __future__ import annotations

import mpmath
from mpmath import mp

# Beyond this magnitude e^x is 0 or inf after rounding to any IEEE format (e^-(2^200) < 10^-(10^59)); mpmath
# itself would try to compute e^x for a doubly-exponential x (golu at x = -3e38: exp(-exp(3e38))) to full
# relative precision, which needs astronomically many bits of ln 2.
_EXP_CUTOFF = mpmath.mpf(2) ** 200


_ERF_CUTOFF = mpmath.mpf(2) ** 100
_TANH_CUTOFF = mpmath.mpf(2) ** 20
_ERFCX_CUTOFF = mpmath.mpf(2) ** 60


def _exp(x):
    if x > _EXP_CUTOFF:
        return mpmath.mpf("inf")
    if x < -_EXP_CUTOFF:
        return mpmath.mpf(0)
    return mp.exp(x)


def _expm1(x):
    return _exp(x) - 1 if abs(x) > _EXP_CUTOFF else mp.expm1(x)


class MpmathOps:
    name = "mpmath"

    @property
    def pi(self):
        return mp.pi

    exp = staticmethod(_exp)
    expm1 = staticmethod(_expm1)
    log = staticmethod(mp.log)
    log1p = staticmethod(mp.log1p)
    sqrt = staticmethod(mp.sqrt)
    sin = staticmethod(mp.sin)
    cos = staticmethod(mp.cos)

    @staticmethod
    def tanh(x):
        # mpmath's tanh overflows a Python int beyond |x| ~ 2^(2^60) (tanhexp's tanh(e^x)); past 2^20 it is
        # +-1 to 10^-(10^5) digits, far below any working precision.
        return mp.sign(x) * 1 if abs(x) > _TANH_CUTOFF else mp.tanh(x)

    atan = staticmethod(mp.atan)

    @staticmethod
    def erf(x):
        return mp.sign(x) * 1 if abs(x) > _ERF_CUTOFF else mp.erf(x)

    @staticmethod
    def erfc(x):
        # mpmath's erfc raises OverflowError for arguments near 1e300; beyond 2^100 it is 0 or 2 after rounding.
        if abs(x) > _ERF_CUTOFF:
            return mpmath.mpf(0) if x > 0 else mpmath.mpf(2)
        return mp.erfc(x)

    @staticmethod
    def sinpi(x):
        return mp.sinpi(x)

    @staticmethod
    def cospi(x):
        return mp.cospi(x)

    @staticmethod
    def erfcx(x):
        # e^{x^2} erfc(x); beyond 2^60 the asymptotic 1/(x sqrt(pi)) is exact to far below any precision used,
        # and below -2^60 the value overflows every format
        if x > _ERFCX_CUTOFF:
            return 1 / (x * mp.sqrt(mp.pi))
        if x < -_ERFCX_CUTOFF:
            return mpmath.mpf("inf")
        return _exp(x * x) * mp.erfc(x)

    @staticmethod
    def abs(x):
        return abs(x)

    @staticmethod
    def sign(x):
        return mp.sign(x)

    @staticmethod
    def isnan(x):
        return mp.isnan(x)

    @staticmethod
    def square(x):
        return x * x

    @staticmethod
    def pow(x, n):
        return mpmath.power(x, n)

    @staticmethod
    def sigmoid(x):
        return 1 / (1 + _exp(-x))

    @staticmethod
    def softplus(x):
        return x if x > _EXP_CUTOFF else mp.log1p(_exp(x))

    @staticmethod
    def log_sigmoid(x):
        return x if x < -_EXP_CUTOFF else -mp.log1p(_exp(-x))

    @staticmethod
    def sech2(x):
        # 4 e^{-2|x|} / (1 + e^{-2|x|})^2: cosh itself overflows a Python int for huge |x|
        t = _exp(-2 * abs(x))
        return 4 * t / (1 + t) ** 2

    @staticmethod
    def norm_cdf(x):
        return MpmathOps.erfc(-x / mp.sqrt(2)) / 2

    @staticmethod
    def norm_pdf(x):
        return _exp(-x * x / 2) / mp.sqrt(2 * mp.pi)

    @staticmethod
    def gelu_tanh(x):
        from nonlin.catalog.smooth import gelu_tanh_formula

        return gelu_tanh_formula(MPMATH, x)

    @staticmethod
    def gelu_tanh_grad(x):
        from nonlin.catalog.smooth import gelu_tanh_grad_formula

        return gelu_tanh_grad_formula(MPMATH, x)

    @staticmethod
    def mish(x):
        from nonlin.catalog.smooth import mish_formula

        return mish_formula(MPMATH, x)

    @staticmethod
    def mish_grad(x):
        from nonlin.catalog.smooth import mish_grad_formula

        return mish_grad_formula(MPMATH, x)

    @staticmethod
    def gelu_grad(x):
        return MpmathOps.norm_cdf(x) + MpmathOps.gated(x, MpmathOps.norm_pdf(x))

    @staticmethod
    def where(cond, a, b):
        return a if cond else b

    @staticmethod
    def maximum(x, y):
        return x if x >= y else mpmath.mpf(y)

    @staticmethod
    def minimum(x, y):
        return x if x <= y else mpmath.mpf(y)

    @staticmethod
    def clamp(x, lo, hi):
        return MpmathOps.minimum(MpmathOps.maximum(x, lo), hi)

    @staticmethod
    def indicator(cond, like):
        return mpmath.mpf(1) if cond else mpmath.mpf(0)

    @staticmethod
    def gated(x, g):
        return mpmath.mpf(0) if g == 0 else x * g

    @staticmethod
    def swish(x, beta):
        return MpmathOps.gated(x, MpmathOps.sigmoid(beta * x))

    @staticmethod
    def swiglu(g, v, beta):
        return MpmathOps.swish(g, beta) * v

    @staticmethod
    def swish_grad(x, beta):
        bx = beta * x
        return MpmathOps.gated(1 + MpmathOps.gated(bx, MpmathOps.sigmoid(-bx)), MpmathOps.sigmoid(bx))

    @staticmethod
    def sin_of_product(x, w):
        return mpmath.sin(w * x)  # the working precision holds a product of two floats exactly

    @staticmethod
    def cos_of_product(x, w):
        return mpmath.cos(w * x)

    @staticmethod
    def keep(cond, x):
        return x if cond else mpmath.mpf(0)

    @staticmethod
    def full_like(x, value):
        return mpmath.mpf(value)

    @staticmethod
    def zeros_like(x):
        return mpmath.mpf(0)

    @staticmethod
    def ones_like(x):
        return mpmath.mpf(1)


MPMATH = MpmathOps()
