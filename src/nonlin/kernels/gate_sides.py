"""The true side of a gate whose float64 value lands on a short number, for GateTable's float32 gates.

A gated entry's half-type forward by table is gate[g] * v rounded once to the half type (kernels/table.py), with
gate[g] the float64 gate rounded to float32 *to odd*: a later rounding never lands on a midpoint the true product is
not on. That holds where float64 saw the gate's true value to its last bit. It does not where the float64 value is
exactly a *short* number (2 to p + 1 significant bits, p the half type's precision) and the true value is not: then
gate * v is exactly a half-type midpoint for some v and rounds to even, while the true product lies to one side.
silu(g) is g / 2 to float64 below |g| = 2^-53 (truly g / 2 + g^2 / 4) and g beyond g = 36.7 (truly g - g e^-g);
gelu's and gelu_tanh's gates the same: 0.25% of the bfloat16 (g, v) pairs `nonlin check` samples for swiglu, geglu
and geglu_tanh were misrounded so, and dv = go * gate[g] with them. (A power of two times a half-type v is never a
midpoint: glu's 1/2 and 1 need nothing.)

Those gates are settled by the accuracy reference's mpmath at its 50 digits (`reference.DPS`): a float32 gate
becomes the short number's float32 neighbour on the true side, the to-odd rounding of the true value, and bfloat16's
float64 gates (the far path's: a gate below float32's normal range, a go * v beyond it) move 2^-40 of themselves
that way. Where 50 digits still see the short number (within the reference's tie tolerance, 2^-140), the gate stays
as float64 has it. The reference decides those at 800 digits, which see silu's defect g e^-g up to g ~ 1840 and
gelu's up to g ~ 60: the table does not follow it there, because 800-digit erfc of g / sqrt(2) ~ 20 takes 2-16 ms in
mpmath, 10-75 s for a table's few thousand such gates. What that leaves, with the products gate * v below 2^-126 of
a float32 gate (rounded to float32's subnormals first: a test for them in the product kernel cost 11% of its time,
`notes/2026-12-07b/gather_ab.py`), is measured by `nonlin check --size-class large`
(`notes/2026-12-07b/gate_check.py`): bfloat16 forwards 99.75% -> 99.991-99.994% correctly rounded (swiglu, geglu,
geglu_tanh; glu 100%), their d/dv 99.80% -> 99.9985%; float16 forwards 99.978-99.989% -> 99.978-99.992%.

About 35 000 of a bfloat16 table's 65536 gates are short (11 000-14 000 of a float16 one): 0.3-1.3 s of mpmath, once
per machine: the sides are kept on disk ($NONLIN_CACHE/tables, else ~/.cache/nonlin/tables), keyed by the entry, its
parameters, the half type, the reference's version, this module's `SIDES_VERSION` and the float64 gates themselves
(a changed formula is a new key).
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from nonlin.cache_folders import cache_folder

if TYPE_CHECKING:
    from nonlin.accuracy.formats import Format

# Bump when what is settled, or how, changes: it keys the cache.
SIDES_VERSION = 1
# A float64 gate this near (relative) a short number is settled even where it is not exactly on it: float64's own
# error of a few ulps may have put it on the wrong side (the window `table._settle_near_ties` uses).
_WINDOW = 2.0**-40
_FLOAT32_TINY = float(np.finfo(np.float32).tiny)
_FLOAT32_MAX = float(np.finfo(np.float32).max)
# Below this a gate times any bfloat16 (< 2^128) is below half its smallest subnormal (2^-133): never a midpoint.
_PRODUCT_FLOOR = 2.0**-262


def short_near(y: np.ndarray, precision: int, subnormal: bool) -> tuple[np.ndarray, np.ndarray]:
    """(indices, short numbers): the float64 gates `y` within 2^-40 (relative) of a number of 2 to precision + 1
    significant bits, inside float32's normal range, and below it where `subnormal` (bfloat16's far tails, whose
    products are float64: a product below 2^-126 is a midpoint of bfloat16's subnormals only with at most 8
    significant bits, so these are the gates that may give one too)."""
    with np.errstate(all="ignore"):
        m, e = np.frexp(y)
        s = np.ldexp(np.rint(np.ldexp(m, precision + 1)), e - (precision + 1))
        a = np.abs(s)
        near = (
            np.isfinite(y)
            & (a >= (_PRODUCT_FLOOR if subnormal else _FLOAT32_TINY))
            & (a <= _FLOAT32_MAX)
            & (np.abs(y - s) <= _WINDOW * np.abs(y))
            & (np.abs(np.frexp(s)[0]) != 0.5)  # a power of two times v is never a midpoint
        )
    idx = np.flatnonzero(near)
    return idx, s[idx]


def true_sides(gate: Callable[..., Any], params: Mapping[str, Any], xs: np.ndarray, shorts: np.ndarray) -> np.ndarray:
    """sign(gate(x) - s) for each (x, s) at the reference's 50 digits: 0 within its tie tolerance there, or where
    the gate is not a number (module docstring)."""
    import mpmath

    from nonlin.accuracy.reference import _TIE_TOLERANCE, DPS, MPMATH

    sides = np.zeros(xs.size, dtype=np.int8)
    with mpmath.workdps(DPS):
        for k, (x, s) in enumerate(zip(xs.tolist(), shorts.tolist(), strict=True)):
            try:
                exact = mpmath.mpf(gate(MPMATH, mpmath.mpf(x), **params)) * 1  # (*1: at the working precision)
            except (ZeroDivisionError, ValueError, OverflowError):
                continue
            if mpmath.isnan(exact):
                continue
            d = exact - mpmath.mpf(s)
            if abs(d) > _TIE_TOLERANCE * abs(exact):
                sides[k] = 1 if d > 0 else -1
    return sides


def _key(name: str, params: Mapping[str, Any], dtype_name: str, y: np.ndarray) -> str:
    from nonlin.accuracy.reference import REFERENCE_VERSION

    blob = json.dumps(
        {
            "name": name,
            "params": {k: float(v) for k, v in sorted(params.items())},
            "dtype": dtype_name,
            "reference": REFERENCE_VERSION,
            "sides": SIDES_VERSION,
            "gates": hashlib.sha1(np.ascontiguousarray(y, dtype=np.float64).tobytes()).hexdigest(),
        },
        sort_keys=True,
    )
    return f"{name}-{dtype_name}-{hashlib.sha1(blob.encode()).hexdigest()[:16]}"


def _load(path: Path, n: int) -> np.ndarray | None:
    try:
        with np.load(path) as z:
            sides = z["sides"]
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
        return None
    return sides if sides.shape == (n,) and sides.dtype == np.int8 else None


def _save(path: Path, sides: np.ndarray) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}.npz")
        np.savez(tmp, sides=sides)
        tmp.replace(path)  # atomic: a parallel builder never reads half a file
    except OSError:
        pass  # a read-only home: the sides are computed again next time


def settle(
    name: str,
    gate: Callable[..., Any],
    params: Mapping[str, Any],
    fmt: Format,
    x: np.ndarray,
    y: np.ndarray,
    gates32: np.ndarray,
    wide: np.ndarray | None,
) -> None:
    """Moves every short float64 gate (of `y`, at the inputs `x`, for the half type `fmt`) whose true value is not
    that number to the true side (module docstring): in `gates32` (the float32 gates, to odd) to its float32
    neighbour, in `wide` (bfloat16's float64 gates, which the far path reads) by 2^-40 of itself."""
    idx, shorts = short_near(y, fmt.precision, subnormal=wide is not None)
    if idx.size == 0:
        return
    path = cache_folder("tables") / f"{_key(name, params, fmt.name, y)}.npz"
    sides = _load(path, idx.size)
    if sides is None:
        sides = true_sides(gate, params, x[idx], shorts)
        _save(path, sides)
    normal = np.abs(shorts) >= _FLOAT32_TINY
    s32 = shorts[normal].astype(np.float32)  # exact: at most 12 significant bits, in float32's normal range
    up = sides[normal] > 0
    gates32[idx[normal]] = np.where(
        sides[normal] == 0, s32, np.nextafter(s32, np.where(up, np.inf, -np.inf).astype(np.float32))
    )
    if wide is not None:
        # The float64 gates too (read by the far path, `table._product`), moved by 2^-40 of themselves: at most 41
        # bits, so a gate's product with a bfloat16 v or go (8 bits) stays exact in float64 and keeps the side (a
        # move by one float64 ulp can round away in that product)
        wide[idx] = shorts + sides.astype(np.float64) * np.abs(shorts) * _WINDOW
