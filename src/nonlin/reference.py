"""High-precision scalar reference for every entry: the catalog's own formula body run in mpmath.

mpmath evaluates each primitive correctly at the working precision (default 50 digits) with an unbounded
exponent, so nothing overflows, underflows or cancels at the magnitudes nonlin's tests use. This is the
ground truth the tests (and nonlin.accuracy) compare against.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import mpmath
import numpy as np
from mpmath import mp

from nonlin.ops import MPMATH
from nonlin.registry import spec as get_spec
from nonlin.spec import Kind

DEFAULT_DPS = 50


def _mpf(x: Any) -> mpmath.mpf:
    return mpmath.mpf(float(x)) if not isinstance(x, mpmath.mpf) else x


def _params(name: str, params: dict[str, Any]):
    s = get_spec(name)
    return s, s.resolve_params(params)


def pointwise(
    name: str, x: float, *, derivative: bool = False, u: float | None = None, dps: int | None = DEFAULT_DPS, **params
):
    """f(x) or f'(x) (the declared rule for gradient-rule entries) as an mpf.

    Stochastic entries: the eval-mode function unless `u` (the uniform draw) is given. ``dps=None`` keeps
    the caller's precision (for use inside mpmath routines that raise it, such as ``mpmath.diff``).
    """
    s, p = _params(name, params)
    if s.kind is not Kind.POINTWISE:
        raise ValueError(f"{s.name} is {s.kind.value}, not pointwise")
    with mp.workdps(dps or mp.dps):
        xm = _mpf(x)
        if s.stochastic and u is None:
            body = s.eval_derivative if derivative else s.eval_forward
            return body(MPMATH, xm, **p)
        body = s.derivative if derivative else s.forward
        args = (xm,) if u is None else (xm, _mpf(u))
        return body(MPMATH, *args, **p)


def gated(name: str, g: float, v: float, *, c: float | None = None, dps: int = DEFAULT_DPS, **params):
    """(value, d/dg, d/dv) of a gated entry at (g, v) as mpfs."""
    s, p = _params(name, params)
    if s.kind is not Kind.GATED:
        raise ValueError(f"{s.name} is {s.kind.value}, not gated")
    with mp.workdps(dps):
        args = [_mpf(g), _mpf(v)] + ([_mpf(c)] if s.extra_inputs else [])
        y = s.forward(MPMATH, *args, **p)
        dg, dv = s.derivative(MPMATH, *args, **p)
        return y, dg, dv


def row(
    name: str,
    scores: Sequence[float],
    mask: Sequence[bool] | None = None,
    *,
    dps: int = DEFAULT_DPS,
    **params,
):
    """Weights of a normalizer for one row of scores, as a list of mpfs.

    Stochastic normalizers take their noise row as a keyword (gumbel_softmax: ``gumbels=[...]``)."""
    s = get_spec(name)
    extra = {k: params.pop(k) for k in list(params) if k in s.extra_inputs}
    p = s.resolve_params(params)
    if s.kind is not Kind.NORMALIZER:
        raise ValueError(f"{s.name} is {s.kind.value}, not a normalizer")
    keep = [True] * len(scores) if mask is None else [bool(k) for k in mask]
    with mp.workdps(dps):
        extra = {k: [_mpf(v) for v in vs] for k, vs in extra.items()}
        return s.reference_row([_mpf(z) for z in scores], keep, **p, **extra)


def setwise(name: str, values: Sequence[float], *, dps: int = DEFAULT_DPS, **params):
    """Outputs of a set-wise unit for one set of values (a row; batchwise entries: the whole batch, with
    ``rows=`` the number of rows in it), as a list of mpfs of length ``output_size(len(values))``."""
    s = get_spec(name)
    rows = params.pop("rows", None)
    p = s.resolve_params(params)
    if s.kind is not Kind.SETWISE:
        raise ValueError(f"{s.name} is {s.kind.value}, not setwise")
    with mp.workdps(dps):
        extra = {"rows": rows} if "batchwise" in s.properties else {}
        return s.reference_row([_mpf(v) for v in values], **p, **extra)


def to_float(value) -> float:
    """An mpf rounded to the nearest float64, with exponents far outside float64's range going to 0 or inf
    (mpmath's own conversion raises for exponents beyond a C int)."""
    v = mpmath.mpf(value)
    if mp.isnan(v) or mp.isinf(v) or v == 0:
        return float(v)
    if abs(v) < mpmath.mpf(2) ** -1100:
        return 0.0 if v > 0 else -0.0
    if abs(v) > mpmath.mpf(2) ** 1100:
        return float("inf") if v > 0 else float("-inf")
    return float(v)


def pointwise_array(name: str, xs: Iterable[float], *, derivative: bool = False, dps: int = DEFAULT_DPS, **params):
    """The reference at every x, correctly rounded to float64 (NaN where the reference is undefined)."""
    out = []
    for x in np.asarray(list(xs), dtype=np.float64).ravel():
        try:
            out.append(to_float(pointwise(name, x, derivative=derivative, dps=dps, **params)))
        except (ZeroDivisionError, ValueError):
            out.append(float("nan"))
    return np.array(out)
