"""A rigorous interval backend of the math namespace, vectorised in numpy float64: the reference's fast path.

Every value is an `Interval` [lo, hi] of float64 arrays that is guaranteed to contain the exact real
value of the formula (the catalog body, evaluated in real arithmetic at the float inputs), provided the
float64 elementary functions are within `LIBM_REL` of the true value (documented bounds: glibc and
numpy's SIMD paths <= 4 ulp for exp, log, expm1, log1p, sin, cos, tanh, atan; Cephes erf/erfc as shipped
in scipy, peak relative error 5.7e-14 ~ 2^-44 over its tested range). The margins used are 2^-40 for the
elementary functions (4096 ulp of float64) and 2^-34 for erf/erfc (about 1000x Cephes' documented
peak), plus an absolute 2^-1060 for results near float64's underflow.

How the bounds are kept:
- + - * are rounded outward, exactly: TwoSum / TwoProduct give the rounding error, so an exact result
  stays a point (a product by 1 or by a power of two does not widen), and an inexact one widens by one
  float64 ulp in the direction of the error only. Near overflow or underflow, both sides widen.
- / and sqrt widen by one ulp both ways unless the result is exact (checked by multiplying back).
- Monotone functions map the endpoints; even ones (sech^2, the Gaussian) go through |x|; sin and cos
  use the mean value theorem around the midpoint (|sin'| <= 1), clipped to [-1, 1].
- A comparison (in `where`, `indicator`, ...) whose answer differs between lo and hi is recorded in
  `IntervalOps.ambiguous`: those elements are recomputed in mpmath by the caller (Ziv's strategy).

The caller rounds lo and hi to the target format; where the two agree, that is the correctly rounded
value of the exact result (rounding is monotone), and no mpmath evaluation is needed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.special as sc

LIBM_REL = 2.0**-40
ERF_REL = 2.0**-34
_INF = np.inf


class _Consts:
    """Per working dtype: float64 (the first pass) or x87 long double (64-bit significand, exponent to
    2^-16445: the second pass, for results that underflow or overflow float64)."""

    def __init__(self, dtype):
        fi = np.finfo(dtype)
        self.dtype = dtype
        self.max = fi.max
        p = fi.nmant + 1
        self.split = dtype(2.0 ** ((p + 1) // 2) + 1)  # Veltkamp's splitter
        self.big = dtype(2.0) ** (fi.maxexp - (p + 1) // 2 - 2)  # beyond this the splitter overflows
        self.small = dtype(2.0) ** (fi.minexp + p + 10)  # below: a product's error may be subnormal
        self.abs_tiny = dtype(2.0) ** (fi.minexp - p + 14)  # absolute slack for libm results near underflow
        self.pi = _const(dtype, "3.14159265358979323846264338327950288419716939937510")
        self.sqrt2 = _const(dtype, "1.41421356237309504880168872420969807856967187537694")
        self.inv_sqrt_2pi = _const(dtype, "0.39894228040143267793994605993438186847585863116493")


def _const(dtype, digits: str):
    v = dtype(digits) if dtype is not np.float64 else np.float64(float(digits))
    return (np.nextafter(v, dtype(-np.inf)), np.nextafter(v, dtype(np.inf)))


F64 = _Consts(np.float64)
LONG = _Consts(np.longdouble)
HAS_LONG_DOUBLE = np.finfo(np.longdouble).nmant >= 63  # x87 extended (Linux x86-64); else a no-op second pass


def _step(v: np.ndarray) -> np.ndarray:
    """A step of at least one ulp of |v| in v's dtype (|v| eps + the smallest subnormal): cheaper than
    np.nextafter (which is ~20x slower than arithmetic), and at most two ulps wide."""
    fi = np.finfo(v.dtype)
    return np.abs(v) * fi.eps + fi.smallest_subnormal


def _down(v: np.ndarray) -> np.ndarray:
    """A value <= v - ulp(v) (infinities kept)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(np.isinf(v), v, v - _step(v))


def _up(v: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(np.isinf(v), v, v + _step(v))


def _fix_overflow(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # A lower bound that overflowed to +inf is only known to be >= the largest finite, and likewise below.
    m = np.finfo(lo.dtype).max
    lo = np.where(lo == _INF, m, lo)
    hi = np.where(hi == -_INF, -m, hi)
    return lo, hi


def _two_sum_bounds(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper float64 bounds of the exact a + b."""
    s = a + b
    bb = s - a
    err = (a - (s - bb)) + (b - bb)  # exact: a + b = s + err (Knuth), when s is finite
    finite = np.isfinite(s)
    lo = np.where(finite & (err < 0), _down(s), s)
    hi = np.where(finite & (err > 0), _up(s), s)
    return lo, hi


def _split(a: np.ndarray, c: _Consts) -> tuple[np.ndarray, np.ndarray]:
    t = c.split * a
    hi = t - (t - a)
    return hi, a - hi


def _two_prod_bounds(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds (in the working dtype) of the exact a * b."""
    a, b = np.broadcast_arrays(a, b)
    c = LONG if a.dtype == np.longdouble else F64
    p = a * b
    safe = (np.abs(a) < c.big) & (np.abs(b) < c.big) & (np.abs(p) > c.small) & np.isfinite(p)
    a_s = np.where(safe, a, 0.0)
    b_s = np.where(safe, b, 0.0)
    ah, al = _split(a_s, c)
    bh, bl = _split(b_s, c)
    ps = a_s * b_s
    err = ((ah * bh - ps) + ah * bl + al * bh) + al * bl  # Dekker: exact error of the product
    exact_zero = (p == 0) & ((a == 0) | (b == 0))
    lo = np.where(safe, np.where(err < 0, _down(p), p), np.where(exact_zero, p, _down(p)))
    hi = np.where(safe, np.where(err > 0, _up(p), p), np.where(exact_zero, p, _up(p)))
    # 0 * inf is NaN, not a bound: propagate it so the caller falls back.
    return lo, hi


class Interval:
    """[lo, hi] as float64 arrays; arithmetic is rounded outward. Comparisons report ambiguity to `ops`."""

    __slots__ = ("hi", "lo", "ops")
    __array_priority__ = 1000  # numpy arrays defer to our reflected operators

    def __init__(self, lo: Any, hi: Any, ops: IntervalOps):
        self.lo = np.asarray(lo, dtype=ops.dtype)
        self.hi = np.asarray(hi, dtype=ops.dtype)
        self.ops = ops

    # --- construction ---
    def _wrap(self, other: Any) -> Interval:
        if isinstance(other, Interval):
            return other
        if isinstance(other, int | float | bool | np.floating | np.integer | np.bool_ | np.ndarray):
            # Python floats are the constants of the formula as written (params, 0.5, ...): exact points.
            v = np.asarray(other, dtype=self.ops.dtype)
            return Interval(v, v, self.ops)
        raise TypeError(f"interval arithmetic with {type(other).__name__}")

    # --- arithmetic ---
    def __add__(self, other: Any) -> Interval:
        o = self._wrap(other)
        lo, _ = _two_sum_bounds(self.lo, o.lo)
        _, hi = _two_sum_bounds(self.hi, o.hi)
        return Interval(*_fix_overflow(lo, hi), self.ops)

    __radd__ = __add__

    def __neg__(self) -> Interval:
        return Interval(-self.hi, -self.lo, self.ops)

    def __sub__(self, other: Any) -> Interval:
        return self + (-self._wrap(other))

    def __rsub__(self, other: Any) -> Interval:
        return self._wrap(other) + (-self)

    def __mul__(self, other: Any) -> Interval:
        o = self._wrap(other)
        if o is self:  # x * x: the square is tighter than the product of two independent intervals
            return self.ops.square(self)
        point_a = np.array_equal(self.lo, self.hi)
        point_b = np.array_equal(o.lo, o.hi)
        if point_a and point_b:
            # exact tracking (TwoProduct): a product of inputs by constants stays a point when exact
            lo, hi = _two_prod_bounds(self.lo, o.lo)
            return Interval(*_fix_overflow(lo, hi), self.ops)
        with np.errstate(invalid="ignore", over="ignore"):
            if point_b or point_a:
                a, b = (self, o.lo) if point_b else (o, self.lo)
                p1, p2 = a.lo * b, a.hi * b
                lo, hi = np.minimum(p1, p2), np.maximum(p1, p2)
            elif np.all(self.lo >= 0) and np.all(o.lo >= 0):
                lo, hi = self.lo * o.lo, self.hi * o.hi
            else:
                ps = [self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi]
                lo, hi = np.minimum.reduce(ps), np.maximum.reduce(ps)
            zero_lo = lo == 0
            zero_hi = hi == 0
            lo = np.where(zero_lo & _exact_zero_product(self, o), lo, _down(lo))
            hi = np.where(zero_hi & _exact_zero_product(self, o), hi, _up(hi))
        return Interval(*_fix_overflow(lo, hi), self.ops)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Interval:
        o = self._wrap(other)
        if not np.array_equal(o.lo, o.hi):
            return self * self.ops.reciprocal(o)
        # Division by a point (a constant, or an exact input): exact where q * d == x, else one ulp outward.
        d = np.broadcast_to(o.lo, np.broadcast_shapes(o.lo.shape, self.lo.shape))
        with np.errstate(divide="ignore", invalid="ignore"):
            a = self.lo / d
            b = self.hi / d
            a = np.where(_exact_quotient(a, d, self.lo), a, np.where(d > 0, _down(a), _up(a)))
            b = np.where(_exact_quotient(b, d, self.hi), b, np.where(d > 0, _up(b), _down(b)))
            lo, hi = _fix_overflow(np.minimum(a, b), np.maximum(a, b))
        # x / 0 has no bound: NaN makes the caller fall back to mpmath (only where this branch is used)
        return Interval(np.where(d == 0, np.nan, lo), np.where(d == 0, np.nan, hi), self.ops)

    def __rtruediv__(self, other: Any) -> Interval:
        return self._wrap(other) / self

    def __abs__(self) -> Interval:
        return self.ops.abs(self)

    def __pow__(self, n: Any) -> Interval:
        return self.ops.pow(self, n)

    # --- comparisons: the answer at the lower end; ambiguity recorded ---
    def _cmp(self, other: Any, op) -> np.ndarray:
        o = self._wrap(other)
        with np.errstate(invalid="ignore"):
            a = op(self.lo, o.lo)
            b = op(self.hi, o.hi)
            c = op(self.lo, o.hi)
            d = op(self.hi, o.lo)
        self.ops.flag((a != b) | (a != c) | (a != d))
        return a

    def __gt__(self, other: Any) -> np.ndarray:
        return self._cmp(other, np.greater)

    def __ge__(self, other: Any) -> np.ndarray:
        return self._cmp(other, np.greater_equal)

    def __lt__(self, other: Any) -> np.ndarray:
        return self._cmp(other, np.less)

    def __le__(self, other: Any) -> np.ndarray:
        return self._cmp(other, np.less_equal)

    def __eq__(self, other: Any) -> np.ndarray:  # type: ignore[override]
        return self._cmp(other, np.equal)

    __hash__ = None  # type: ignore[assignment]


def _exact_zero_product(a: Interval, b: Interval) -> np.ndarray:
    """The product is exactly 0: one factor is the point 0."""
    return ((a.lo == 0) & (a.hi == 0)) | ((b.lo == 0) & (b.hi == 0))


def _exact_quotient(q: np.ndarray, d: np.ndarray, x: np.ndarray) -> np.ndarray:
    lo, hi = _two_prod_bounds(q, np.broadcast_to(d, q.shape))
    return (lo == x) & (hi == x) & np.isfinite(q)


class IntervalOps:
    """The math namespace on `Interval`s. `ambiguous` collects elements whose branch could not be decided."""

    name = "interval"

    def __init__(self, shape: tuple[int, ...], long_double: bool = False):
        self.shape = shape
        self.c = LONG if long_double else F64
        self.dtype = self.c.dtype
        self.ambiguous = np.zeros(shape, dtype=bool)

    def flag(self, mask: Any) -> None:
        self.ambiguous |= np.broadcast_to(np.asarray(mask, dtype=bool), self.shape)

    def point(self, x: np.ndarray) -> Interval:
        x = np.asarray(x, dtype=self.dtype)
        return Interval(x, x, self)

    def _w(self, x: Any) -> Interval:
        return (
            x if isinstance(x, Interval) else self.point(np.broadcast_to(np.asarray(x, dtype=self.dtype), self.shape))
        )

    def const(self, bounds) -> Interval:
        return Interval(bounds[0], bounds[1], self)

    @property
    def pi(self) -> Interval:
        return self.const(self.c.pi)

    # --- helpers ---
    def _widen(self, lo: np.ndarray, hi: np.ndarray, rel: float) -> Interval:
        with np.errstate(invalid="ignore", over="ignore"):
            lo2 = _down(lo - np.abs(lo) * rel - self.c.abs_tiny)
            hi2 = _up(hi + np.abs(hi) * rel + self.c.abs_tiny)
        # inf stays inf (an overflowed bound); NaN stays NaN (the caller falls back)
        lo2 = np.where(np.isinf(lo), lo, lo2)
        hi2 = np.where(np.isinf(hi), hi, hi2)
        return Interval(*_fix_overflow(lo2, hi2), self)

    def _increasing(self, f, x: Any, rel: float = LIBM_REL, positive: bool = False, keeps_sign: bool = False):
        """f increasing; `positive`: f > 0 everywhere; `keeps_sign`: sign(f(x)) = sign(x) (f(0) = 0).

        The sign facts keep the widened bounds from crossing zero, so an underflowed result still has a
        known sign (the sign of a zero result is measured)."""
        x = self._w(x)
        with np.errstate(all="ignore"):
            out = self._widen(f(x.lo), f(x.hi), rel)
        return self._signs(out, x, positive, keeps_sign)

    def _decreasing(self, f, x: Any, rel: float = LIBM_REL, positive: bool = False) -> Interval:
        x = self._w(x)
        with np.errstate(all="ignore"):
            out = self._widen(f(x.hi), f(x.lo), rel)
        return self._signs(out, x, positive, False)

    def _signs(self, out: Interval, x: Interval, positive: bool, keeps_sign: bool) -> Interval:
        lo, hi = out.lo, out.hi
        if positive:
            lo = np.maximum(lo, 0.0)
        if keeps_sign:
            lo = np.where(x.lo >= 0, np.maximum(lo, 0.0), lo)
            hi = np.where(x.hi <= 0, np.minimum(hi, -0.0), hi)
        return Interval(lo, hi, self)

    # --- elementary ---
    def exp(self, x):
        return self._increasing(np.exp, x, positive=True)

    def expm1(self, x):
        return self._increasing(np.expm1, x, keeps_sign=True)

    def log(self, x):
        return self._increasing(np.log, x)

    def log1p(self, x):
        return self._increasing(np.log1p, x, keeps_sign=True)

    def sqrt(self, x):
        x = self._w(x)
        with np.errstate(invalid="ignore"):
            lo, hi = np.sqrt(x.lo), np.sqrt(x.hi)
            lo = np.where(_exact_square(lo, x.lo), lo, _down(lo))
            hi = np.where(_exact_square(hi, x.hi), hi, _up(hi))
        return Interval(lo, hi, self)

    def tanh(self, x):
        return self._increasing(np.tanh, x, keeps_sign=True)

    def atan(self, x):
        return self._increasing(np.arctan, x, keeps_sign=True)

    def erf(self, x):
        # scipy works in float64: fine for erf, whose value never underflows except near 0 (sign kept).
        return self._increasing(lambda v: sc.erf(v.astype(np.float64)).astype(v.dtype), x, ERF_REL, keeps_sign=True)

    def erfc(self, x):
        x = self._w(x)
        direct = self._decreasing(lambda v: sc.erfc(v.astype(np.float64)).astype(v.dtype), x, ERF_REL, positive=True)
        if self.dtype == np.float64:
            return direct
        # Long double pass: erfc(x) = erfcx(x) e^{-x^2} keeps its value below float64's underflow. erfcx is
        # decreasing for x > 0 and smooth (relative change 2^-52 under float64 rounding of x: within the margin).
        tail = x.lo > 26.0
        xl = self.point(np.where(tail, x.lo, 30.0))
        xh = self.point(np.where(tail, x.hi, 30.0))
        with np.errstate(all="ignore"):
            cx = self._widen(
                sc.erfcx(xh.lo.astype(np.float64)).astype(self.dtype),
                sc.erfcx(xl.lo.astype(np.float64)).astype(self.dtype),
                ERF_REL,
            )
        ex = Interval(self.exp(-self.square(xh)).lo, self.exp(-self.square(xl)).hi, self)
        t = cx * ex
        return Interval(np.where(tail, np.maximum(t.lo, 0.0), direct.lo), np.where(tail, t.hi, direct.hi), self)

    def _periodic(self, f, x):
        x = self._w(x)
        with np.errstate(all="ignore"):
            mid = x.lo + (x.hi - x.lo) / 2
            rad = _up(np.maximum(x.hi - mid, mid - x.lo))
            fm = f(mid)
            out = self._widen(fm - rad, fm + rad, LIBM_REL)
        lo = np.maximum(out.lo, -1.0)
        hi = np.minimum(out.hi, 1.0)
        wide = ~np.isfinite(mid)
        return Interval(np.where(wide, np.nan, lo), np.where(wide, np.nan, hi), self)

    def sin(self, x):
        return self._periodic(np.sin, x)

    def _pi_periodic(self, f, x):
        """sin(pi x) or cos(pi x): exact reduction to a half turn, then the mean value theorem (|f'| <= pi)."""
        x = self._w(x)
        with np.errstate(all="ignore"):
            mid = x.lo + (x.hi - x.lo) / 2
            rad = _up(np.pi * _up(np.maximum(x.hi - mid, mid - x.lo)) * (1 + 2.0**-50))
            r = mid - 2 * np.round(0.5 * mid)
            fm = f(r)
            out = self._widen(fm - rad, fm + rad, LIBM_REL)
        lo = np.maximum(out.lo, -1.0)
        hi = np.minimum(out.hi, 1.0)
        wide = ~np.isfinite(mid)
        return Interval(np.where(wide, np.nan, lo), np.where(wide, np.nan, hi), self)

    def sinpi(self, x):
        def f(r):
            s = np.where(r > 0.5, 1 - r, np.where(r < -0.5, -1 - r, r))
            return np.sin(np.pi * s)

        return self._pi_periodic(f, x)

    def cospi(self, x):
        return self._pi_periodic(lambda r: np.sin(np.pi * (0.5 - np.abs(r))), x)

    def erfcx(self, x):
        # decreasing everywhere, positive; scipy's erfcx is within a few ulp (Steven G. Johnson's Faddeeva)
        return self._decreasing(lambda v: sc.erfcx(v.astype(np.float64)).astype(v.dtype), x, ERF_REL, positive=True)

    def cos(self, x):
        return self._periodic(np.cos, x)

    def abs(self, x):
        x = self._w(x)
        straddle = (x.lo < 0) & (x.hi > 0)
        lo = np.where(straddle, 0.0, np.minimum(np.abs(x.lo), np.abs(x.hi)))
        hi = np.maximum(np.abs(x.lo), np.abs(x.hi))
        return Interval(lo, hi, self)

    def sign(self, x):
        x = self._w(x)
        a, b = np.sign(x.lo), np.sign(x.hi)
        self.flag(a != b)
        return self.point(a)

    def isnan(self, x):
        x = self._w(x)
        return np.isnan(x.lo) | np.isnan(x.hi)

    def square(self, x):
        a = self.abs(self._w(x))
        lo, _ = _two_prod_bounds(a.lo, a.lo)
        _, hi = _two_prod_bounds(a.hi, a.hi)
        return Interval(*_fix_overflow(np.maximum(lo, 0.0), hi), self)

    def reciprocal(self, x: Interval) -> Interval:
        x = self._w(x)
        # An interval holding 0 has no bounded reciprocal: NaN, so the caller falls back to mpmath
        # (a global flag would be wrong here: this may be the unused branch of a `where`).
        zero = (x.lo <= 0) & (x.hi >= 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            a, b = 1.0 / x.hi, 1.0 / x.lo
            lo = np.where(_exact_quotient(a, x.hi, np.ones_like(a)), a, _down(a))
            hi = np.where(_exact_quotient(b, x.lo, np.ones_like(b)), b, _up(b))
            lo, hi = _fix_overflow(lo, hi)
        return Interval(np.where(zero, np.nan, lo), np.where(zero, np.nan, hi), self)

    def pow(self, x, n):
        x = self._w(x)
        n = float(n)
        if n == 0:
            return self.point(np.ones(self.shape))
        if n == int(n) and 0 < n <= 16:
            out = x
            for _ in range(int(n) - 1):
                out = out * x  # rigorous (loose where x straddles 0)
            return Interval(np.maximum(out.lo, 0.0), out.hi, self) if int(n) % 2 == 0 else out
        self.flag(x.lo < 0)
        return self._increasing(lambda v: np.power(v, n), x)

    # --- sigmoid family, composed from the primitives above (so their bounds are inherited) ---
    def _monotone(self, at, x: Interval, increasing: bool = True) -> Interval:
        """Bounds of an increasing (decreasing) composite: `at` bounds it at a point; evaluated at both ends."""
        if np.array_equal(x.lo, x.hi):
            return at(x.lo)
        a, b = at(x.lo), at(x.hi)
        return Interval(a.lo, b.hi, self) if increasing else Interval(b.lo, a.hi, self)

    def sigmoid(self, x):
        def at(v):
            # 1/(1+e^-|v|) for v >= 0, e^-|v|/(1+e^-|v|) below: no overflow at either end
            p = self.point(v)
            t = self.exp(-self.abs(p))  # in (0, 1]
            r = self.reciprocal(1.0 + t)
            return self._select(v >= 0, r, t * r)

        return self._monotone(at, self._w(x))

    def softplus(self, x):
        def at(v):  # max(v, 0) + log1p(e^-|v|)
            p = self.point(v)
            return self.maximum(p, 0.0) + self.log1p(self.exp(-self.abs(p)))

        return self._monotone(at, self._w(x))

    def log_sigmoid(self, x):
        return -self.softplus(-self._w(x))

    def sech2(self, x):
        def at(v):  # 4t/(1+t)^2 with t = e^{-2|v|}: decreasing in |v|
            t = self.exp(-2.0 * self.point(v))
            return 4.0 * t * self.reciprocal(self.square(1.0 + t))

        return self._monotone(at, self.abs(self._w(x)), increasing=False)

    def norm_cdf(self, x):
        x = self._w(x)
        return 0.5 * self.erfc(-x * self.reciprocal(self.const(self.c.sqrt2)))

    def norm_pdf(self, x):
        a = self.abs(self._w(x))
        return self.const(self.c.inv_sqrt_2pi) * self.exp(-0.5 * self.square(a))

    def gelu_tanh(self, x):
        from nonlin.catalog.smooth import gelu_tanh_formula

        return gelu_tanh_formula(self, self._w(x))

    def gelu_tanh_grad(self, x):
        from nonlin.catalog.smooth import gelu_tanh_grad_formula

        return gelu_tanh_grad_formula(self, self._w(x))

    def mish(self, x):
        from nonlin.catalog.smooth import mish_formula

        return mish_formula(self, self._w(x))

    def mish_grad(self, x):
        from nonlin.catalog.smooth import mish_grad_formula

        return mish_grad_formula(self, self._w(x))

    def gelu_grad(self, x):  # Phi(x) + x phi(x), the sum of the two enclosures (rigorous, not tight)
        x = self._w(x)
        return self.norm_cdf(x) + self.gated(x, self.norm_pdf(x))

    # --- piecewise ---
    def _select(self, cond, a, b) -> Interval:
        a, b = self._w(a), self._w(b)
        cond = np.asarray(cond, dtype=bool)
        return Interval(np.where(cond, a.lo, b.lo), np.where(cond, a.hi, b.hi), self)

    def where(self, cond, a, b):
        return self._select(cond, a, b)

    def maximum(self, x, y):
        x, y = self._w(x), self._w(y)
        return Interval(np.maximum(x.lo, y.lo), np.maximum(x.hi, y.hi), self)

    def minimum(self, x, y):
        x, y = self._w(x), self._w(y)
        return Interval(np.minimum(x.lo, y.lo), np.minimum(x.hi, y.hi), self)

    def clamp(self, x, lo, hi):
        return self.minimum(self.maximum(x, lo), hi)

    def indicator(self, cond, like):
        return self.point(np.where(np.asarray(cond, dtype=bool), 1.0, 0.0) * np.ones(self.shape))

    def gated(self, x, g):
        x, g = self._w(x), self._w(g)
        zero = (g.lo == 0) & (g.hi == 0)
        return self._select(zero, 0.0, x * g)

    def swish(self, x, beta):
        return self.gated(x, self.sigmoid(beta * x))

    def swiglu(self, g, v, beta):
        return self.swish(g, beta) * v

    def swish_grad(self, x, beta):
        bx = beta * x
        return self.gated(1.0 + self.gated(bx, self.sigmoid(-bx)), self.sigmoid(bx))

    def sin_of_product(self, x, w):
        return self.sin(x * w)  # the product's interval encloses the exact product

    def cos_of_product(self, x, w):
        return self.cos(x * w)

    def keep(self, cond, x):
        return self._select(cond, x, 0.0)

    def full_like(self, x, value):
        return self.point(np.full(self.shape, float(value)))

    def zeros_like(self, x):
        return self.point(np.zeros(self.shape))

    def ones_like(self, x):
        return self.point(np.ones(self.shape))


def _exact_square(r: np.ndarray, x: np.ndarray) -> np.ndarray:
    lo, hi = _two_prod_bounds(r, r)
    return (lo == x) & (hi == x)
