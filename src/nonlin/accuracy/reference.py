"""The exact result of a catalog body, correctly rounded to a format: fast interval path, mpmath fallback.

For an array of inputs, the body runs once on rigorous float64 intervals (`nonlin.accuracy.interval`).
Where both ends of an output's interval round to the same value of the target format, that value is the
correctly rounded exact result (rounding is monotone). Elsewhere (an interval straddling a rounding
boundary, an undecided branch, a non-finite input) the body runs again in mpmath at `DPS` digits and the
value is rounded there: this is Ziv's strategy, and the fallback touches a small share of the inputs.

The reference is the catalog body evaluated in real arithmetic: it is the function as declared,
including any series a body uses for stability (those are exact to far below float64 precision).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np
from mpmath import mp

from nonlin.accuracy.formats import Format
from nonlin.accuracy.interval import HAS_LONG_DOUBLE, Interval, IntervalOps
from nonlin.ops import MPMATH
from nonlin.spec import Kind, Spec

REFERENCE_VERSION = 3  # bump when the reference computation changes: it keys the cache
DPS = 50  # mpmath digits in the fallback: 166 bits, far beyond float32's 24
# A value within 2^-140 (relative) of a rounding midpoint is taken to be exactly on it (ties to even): at
# 50 digits an exact midpoint (a rational result such as (x + 3)/6) is computed with error ~2^-166, while
# no transcendental value of a float32 input comes that close to a midpoint (hardest cases for float32
# need ~2^-50).
_TIE_TOLERANCE = mpmath.mpf(2) ** -140
# Not so near a midpoint that a product has to be one: sin(30 x) of a bf16 x is 30 x (12 bits, a midpoint
# of bf16's 8 when its last 4 bits are 1000) times 1 - (30 x)^2 / 6, within 2^-140 of it from |x| < 1e-22
# down (2^-256 at bf16's smallest x, 2^-2140 at float64's). Values within _TIE_TOLERANCE of a midpoint are
# recomputed with TIE_DPS digits, and only a value within _TIE_TOLERANCE_HIGH of it there is a tie.
TIE_DPS = 800
_TIE_TOLERANCE_HIGH = mpmath.mpf(2) ** -2600


_SIGN_FREE = np.longdouble(2.0) ** -16000


@dataclass
class RefOutput:
    """One output of the reference over an input array."""

    rounded: np.ndarray  # the exact value correctly rounded to the format (float64 holding it)
    exact: np.ndarray  # float64 approximation of the exact value (error far below the format's ulp)
    # bool: the exact value is 0, or below 2^-16000 in magnitude: either sign of zero is accepted there
    exact_zero: np.ndarray


@dataclass
class RefStats:
    n: int = 0
    fallback: int = 0


def output_names(spec: Spec, derivative: bool) -> tuple[str, ...]:
    if not derivative:
        return ("forward",)
    return ("backward_gate", "backward_value") if spec.kind is Kind.GATED else ("backward",)


def body_of(spec: Spec, derivative: bool) -> Callable[..., Any]:
    if spec.kind is Kind.NORMALIZER:
        raise ValueError(f"{spec.name} is a normalizer: it has no elementwise body (see nonlin.accuracy.rows)")
    if spec.stochastic:
        return spec.eval_derivative if derivative else spec.eval_forward
    body = spec.derivative if derivative else spec.forward
    if body is None:
        raise ValueError(f"{spec.name} declares no derivative")
    return body


def round_mpfs(
    ys: Sequence[Any], fmt: Format, tolerance: Any = _TIE_TOLERANCE, ties: list[int] | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(correctly rounded values, float64 of the exact values, exact value is zero) for mpmath numbers.

    y = y64 + r with y64 = float(y) (correctly rounded by mpmath) and r = y - y64. A rounding boundary of
    the format is a double, so only when y64 itself is a boundary (a midpoint) does r decide the direction;
    |r| below `tolerance` |y| is an exact tie (see _TIE_TOLERANCE). `ties`, when given, collects the
    positions rounded as ties (ties to even)."""
    n = len(ys)
    y64 = np.empty(n)
    r = np.zeros(n)
    zero = np.zeros(n, dtype=bool)
    with mp.workdps(max(DPS, mp.dps)):
        for i, y in enumerate(ys):
            y = mpmath.mpf(y)
            if mpmath.isnan(y):
                y64[i] = np.nan
                continue
            if y == 0:
                y64[i], zero[i] = 0.0, True
                continue
            v = float(y)
            if v == 0.0:  # below float64's range: keep the sign
                y64[i], r[i] = (-0.0, -1.0) if y < 0 else (0.0, 1.0)
                continue
            y64[i] = v
            if not np.isinf(v):
                d = y - mpmath.mpf(v)
                r[i] = 0.0 if abs(d) <= tolerance * abs(y) else (1.0 if d > 0 else -1.0)
    with np.errstate(all="ignore"):
        up = np.nextafter(y64, np.inf)
        down = np.nextafter(y64, -np.inf)
        r_up, r_down, r_mid = fmt.round(up), fmt.round(down), fmt.round(y64)
        # y64 is a midpoint of the format: an odd multiple of half its ulp. (Not r_down != r_up: that also holds
        # for the double just below or above a midpoint, where ties to even pulls one neighbour across and r
        # then chose the wrong side: bent_identity's 1.5 x - 1/2 at bf16 x = 1.57e15, 2.5% of bf16 values.)
        q = y64 / (fmt.ulp(y64) / 2)
        is_boundary = np.isfinite(y64) & (q == np.rint(q)) & (np.fmod(np.rint(q), 2) != 0)
        rounded = np.where(is_boundary & (r > 0), r_up, np.where(is_boundary & (r < 0), r_down, r_mid))
        rounded = np.where(np.isnan(y64), np.nan, rounded)
    if ties is not None:
        ties.extend(np.flatnonzero(is_boundary & (r == 0) & ~zero & np.isfinite(y64)).tolist())
    return rounded, y64, zero


def _mp_eval(body, spec: Spec, args: Sequence[float], params: dict[str, Any], n_out: int, dps: int = DPS) -> list[Any]:
    if any(np.isnan(a) for a in args):
        return [mpmath.nan] * n_out
    try:
        with mp.workdps(dps):
            y = body(MPMATH, *[mpmath.mpf(float(a)) for a in args], **params)
            y = list(y) if isinstance(y, tuple) else [y]
            return [mpmath.mpf(v) * 1 for v in y]  # *1: evaluate at the working precision
    except (ZeroDivisionError, ValueError, OverflowError):
        return [mpmath.nan] * n_out


def finite_all(inputs: Sequence[np.ndarray]) -> np.ndarray:
    return np.logical_and.reduce([np.isfinite(a) for a in inputs]).ravel()


def _to_f64(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """float64 bounds of long double bounds, rounded outward (so a tiny negative stays below zero)."""
    lo64, hi64 = lo.astype(np.float64), hi.astype(np.float64)
    lo64 = np.where(lo64 > lo, np.nextafter(lo64, -np.inf), lo64)
    hi64 = np.where(hi64 < hi, np.nextafter(hi64, np.inf), hi64)
    return lo64, hi64


_CHUNK = 1 << 14  # elements per interval evaluation: the temporaries stay in cache (several times faster)


def _interval_pass(body, params, inputs, fmt: Format, n_out: int, long_double: bool):
    """Per output: (decided, rounded, exact, exact_zero) over the given (finite) inputs, in chunks."""
    n = inputs[0].size
    if n <= _CHUNK:
        return _interval_chunk(body, params, inputs, fmt, n_out, long_double)
    parts = [
        _interval_chunk(body, params, [a[i : i + _CHUNK] for a in inputs], fmt, n_out, long_double)
        for i in range(0, n, _CHUNK)
    ]
    return [tuple(np.concatenate([p[k][j] for p in parts]) for j in range(4)) for k in range(n_out)]


def _interval_chunk(body, params, inputs, fmt: Format, n_out: int, long_double: bool):
    ops = IntervalOps(inputs[0].shape, long_double=long_double)
    with np.errstate(all="ignore"):
        out = body(ops, *[ops.point(a) for a in inputs], **params)
    out = list(out) if isinstance(out, tuple) else [out]
    if len(out) != n_out:
        raise ValueError(f"body returned {len(out)} outputs, expected {n_out}")
    res = []
    for o in out:
        o = o if isinstance(o, Interval) else ops._w(o)
        lo = np.broadcast_to(o.lo, ops.shape)
        hi = np.broadcast_to(o.hi, ops.shape)
        with np.errstate(all="ignore"):
            zero = (lo == 0) & (hi == 0)
            if long_double:
                lo, hi = _to_f64(lo, hi)
            r_lo, r_hi = fmt.round(lo), fmt.round(hi)
            decided = (r_lo == r_hi) & (np.signbit(r_lo) == np.signbit(r_hi)) & ~ops.ambiguous
            if long_double:
                # Below 2^-16000 no working format has the exponent to tell the sign: such a result is taken
                # as zero of either sign (documented; only the far tails of Gaussian or exponential gates).
                unsigned = (r_lo == 0) & (r_hi == 0) & (o.lo >= -_SIGN_FREE) & (o.hi <= _SIGN_FREE) & ~ops.ambiguous
                zero = zero | unsigned
                decided = decided | unsigned
            exact = np.where(lo == hi, lo, lo + 0.5 * (hi - lo))
            exact = np.where(np.isinf(r_lo), r_lo, exact)
        res.append((decided, r_lo, exact, zero & decided))
    return res


def evaluate(
    spec: Spec,
    params: dict[str, Any],
    inputs: Sequence[np.ndarray],
    fmt: Format,
    derivative: bool,
    stats: RefStats | None = None,
) -> list[RefOutput]:
    """The reference outputs of `spec`'s forward (or derivative) at `inputs` (float64 arrays of one shape)."""
    body = body_of(spec, derivative)
    names = output_names(spec, derivative)
    inputs = [np.asarray(a, dtype=np.float64) for a in inputs]
    shape = inputs[0].shape
    n_out = len(names)
    results = [
        RefOutput(np.full(shape, np.nan), np.full(shape, np.nan), np.zeros(shape, dtype=bool)) for _ in range(n_out)
    ]
    todo = ~np.logical_and.reduce([np.isfinite(a) for a in inputs])
    # Pass 1 in float64 on every finite input; pass 2 in long double on what pass 1 left undecided
    # (mostly results below float64's underflow, whose sign is still wanted); then mpmath.
    passes = [False, True] if HAS_LONG_DOUBLE else [False]
    for long_double in passes:
        sel = np.flatnonzero(~todo.ravel()) if not long_double else np.flatnonzero(todo.ravel() & finite_all(inputs))
        if long_double and sel.size == 0:
            break
        decided = _interval_pass(body, params, [a.ravel()[sel] for a in inputs], fmt, n_out, long_double)
        ok = np.logical_and.reduce([d[0] for d in decided])
        for r, (_, rounded, exact, zero) in zip(results, decided, strict=True):
            r.rounded.ravel()[sel[ok]] = rounded[ok]
            r.exact.ravel()[sel[ok]] = exact[ok]
            r.exact_zero.ravel()[sel[ok]] = zero[ok]
        flat = todo.ravel().copy()
        flat[sel] = ~ok
        todo = flat.reshape(shape)
    idx = np.flatnonzero(todo.ravel())
    if idx.size:
        ys = [_mp_eval(body, spec, [a.ravel()[i] for a in inputs], params, n_out) for i in idx]
        for k, r in enumerate(results):
            ties: list[int] = []
            v, e, z = round_mpfs([y[k] for y in ys], fmt, ties=ties)
            if ties:  # a midpoint at 50 digits: decided with TIE_DPS (see _TIE_TOLERANCE_HIGH)
                near = idx[ties]
                with mp.workdps(TIE_DPS):
                    high = [
                        _mp_eval(body, spec, [a.ravel()[i] for a in inputs], params, n_out, TIE_DPS)[k] for i in near
                    ]
                    v[ties], e[ties], z[ties] = round_mpfs(high, fmt, _TIE_TOLERANCE_HIGH)
            r.rounded.ravel()[idx], r.exact.ravel()[idx], r.exact_zero.ravel()[idx] = v, e, z
    if stats is not None:
        stats.n += int(np.prod(shape))
        stats.fallback += len(idx)
    return results
