"""The inputs an accuracy check runs on: exhaustive for 16-bit formats, a stratified sample for float32.

float32 (default 1,048,576 values plus edge cases):
- the interesting range 2^-40 <= |x| < 2^12: an equal share for every binade and sign, uniform in the bits
  within the binade (so every significand pattern is equally likely);
- every other binade (subnormals to the largest finite), 256 values each per sign (size/4096, at least 2,
  in smaller quick samples): the tails are checked in every binade, but more cheaply;
- edge cases: each breakpoint of the entry (kinks and jumps from `spec.breakpoints`, at the params) and
  its 64 neighbours on each side; thresholds where exp-like functions overflow or underflow in float32,
  float64 and where torch switches formulas (softplus's 20); around zero (subnormals, the smallest
  normals); near overflow (the largest finite values); small integers and halves; ±0, ±inf and NaN.

Gated entries take the gate from the same set and the value from a log-uniform draw over [2^-8, 2^8] with
random sign (the product's error is the gate's error plus one rounding); kappa_swiglu's router input c
is uniform in [0, 2]. Every draw is seeded: the same request gives the same inputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nonlin.accuracy.formats import Format
from nonlin.spec import Kind, Spec

SAMPLE_VERSION = 1
DEFAULT_FLOAT32_SIZE = 1 << 20
INTERESTING = (-40, 12)  # binade exponents of the densely sampled range
TAIL_PER_BINADE = 256
NEIGHBOURS = 64
THRESHOLDS = (
    0.5,
    1.0,
    1.5,
    2.0,
    3.0,
    6.0,
    7.0,
    8.0,
    10.0,
    15.0,
    20.0,
    30.0,
    40.0,
    50.0,
    88.72283935546875,
    89.41598510742188,
    103.97207708,
    87.33654475,  # float32 exp overflow/underflow
    709.782712893384,
    745.1332191019412,
    1e4,
    11356.5234,  # float64 and long double exp limits
    np.pi / 2,
    np.pi,
    2 * np.pi,
    2.0**24,
    2.0**53,
    2.0**63,
    2.0**64,
    1e20,
    1e30,
)


def _float32_bits_in_binade(rng: np.random.Generator, e: int, n: int) -> np.ndarray:
    """n random float32 values with 2^e <= x < 2^(e+1) (e >= -126), or subnormals for e < -126."""
    if e >= -126:
        mant = rng.integers(0, 1 << 23, n, dtype=np.int64)
        bits = ((e + 127) << 23) | mant
    else:  # subnormal binade: 2^e <= x < 2^(e+1), spacing 2^-149
        lo = 1 << (e + 149)
        bits = rng.integers(lo, 2 * lo, n, dtype=np.int64)
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def _neighbours(fmt: Format, points: np.ndarray, k: int) -> np.ndarray:
    """Each point rounded to fmt and its k neighbours on each side (float32 steps)."""
    p = fmt.round(np.asarray(points, dtype=np.float64))
    p = p[np.isfinite(p)].astype(np.float32)
    out = [p]
    up, down = p.copy(), p.copy()
    for _ in range(k):
        with np.errstate(over="ignore"):
            up = np.nextafter(up, np.float32(np.inf))
            down = np.nextafter(down, np.float32(-np.inf))
        out += [up, down]
    return np.concatenate(out).astype(np.float64)


def edge_cases(spec: Spec, params: dict[str, Any], fmt: Format) -> np.ndarray:
    bps = []
    try:
        bps = [float(b) for b in spec.breakpoints(**params)]
    except TypeError:
        bps = []
    t = np.array(THRESHOLDS + tuple(range(1, 17)) + tuple(k + 0.5 for k in range(0, 16)))
    special = np.concatenate([bps, t, -t, [0.0]])
    tiny = [fmt.min_subnormal, 2 * fmt.min_subnormal, fmt.min_normal, fmt.min_normal - fmt.min_subnormal]
    big = [fmt.max_finite]
    out = np.concatenate(
        [
            _neighbours(fmt, np.array(bps), NEIGHBOURS) if bps else np.zeros(0),
            _neighbours(fmt, special, 4),
            _neighbours(fmt, np.array(tiny + [-v for v in tiny]), 8),
            _neighbours(fmt, np.array(big + [-v for v in big]), 8),
            [0.0, -0.0, np.inf, -np.inf, np.nan],
        ]
    )
    out = fmt.round(out)
    keep = np.isnan(out) | (np.abs(out) <= fmt.max_finite) | np.isinf(out)
    out = out[keep]
    # unique by bit pattern (keeps -0 and +0 apart), NaN once
    finite = out[~np.isnan(out)]
    bits = np.unique(finite.astype(np.float32).view(np.uint32))
    return np.concatenate([bits.view(np.float32).astype(np.float64), [np.nan]])


def float32_sample(spec: Spec, params: dict[str, Any], size: int, seed: int = 0) -> np.ndarray:
    from nonlin.accuracy.formats import FLOAT32

    rng = np.random.default_rng(seed)
    lo, hi = INTERESTING
    tail_binades = [e for e in range(-149, 128) if not lo <= e < hi]
    tail_per = max(2, min(TAIL_PER_BINADE, size // 4096))  # 256 at the default size; fewer in quick checks
    n_tail = len(tail_binades) * 2 * tail_per
    per = max(1, (size - n_tail) // (2 * (hi - lo)))
    parts = []
    for e in range(lo, hi):
        for sign in (1.0, -1.0):
            parts.append(sign * _float32_bits_in_binade(rng, e, per))
    for e in tail_binades:
        for sign in (1.0, -1.0):
            parts.append(sign * _float32_bits_in_binade(rng, e, tail_per))
    body = np.concatenate(parts)
    return np.concatenate([edge_cases(spec, params, FLOAT32), body])


def half_subset(fmt: Format, size: int) -> np.ndarray:
    """A quick subset of a 16-bit format: every k-th bit pattern (so every binade, evenly), the values
    around zero, one, the largest finite and the breakpoints' neighbourhoods are left to the full run;
    the specials (+-0, +-inf, NaN, extreme subnormals and normals) are always in."""
    v = fmt.all_values()
    finite = v[np.isfinite(v)]
    step = max(1, finite.size // size)
    pick = finite[::step]
    tiny = [fmt.min_subnormal, fmt.min_normal, fmt.max_finite, 1.0]
    extra = np.array(tiny + [-t for t in tiny] + [0.0, -0.0])
    out = np.concatenate([pick, extra])
    bits = np.unique(fmt.to_bits(out))
    return np.concatenate([fmt.from_bits(bits), [-np.inf, np.inf, np.nan]])


def pointwise_inputs(
    spec: Spec, params: dict[str, Any], fmt: Format, size: int | None = None, half_size: int | None = None
) -> np.ndarray:
    if fmt.bits == 16:
        return fmt.all_values() if half_size is None else half_subset(fmt, half_size)
    return float32_sample(spec, params, size or DEFAULT_FLOAT32_SIZE)


def inputs(
    spec: Spec, params: dict[str, Any], fmt: Format, size: int | None = None, half_size: int | None = None
) -> tuple[np.ndarray, ...]:
    """The input arrays of a check: (x,) for pointwise entries, (g, v[, c]) for gated ones.

    `size`: float32 sample size; `half_size`: a subset of the 16-bit values (None: exhaustive)."""
    if spec.kind is Kind.NORMALIZER:
        raise ValueError(f"{spec.name} is a normalizer: its inputs are score rows (nonlin.accuracy.rows)")
    if spec.kind is Kind.SETWISE:
        raise ValueError(f"{spec.name} is set-wise: it has no elementwise inputs")
    x = pointwise_inputs(spec, params, fmt, size, half_size)
    if spec.kind is Kind.POINTWISE:
        return (x,)
    rng = np.random.default_rng(1)
    n = x.size
    v = np.exp2(rng.uniform(-8, 8, n)) * rng.choice([-1.0, 1.0], n)
    v[:4] = [0.0, -0.0, 1.0, -1.0]
    v = fmt.round(v)
    out = [x, v]
    if spec.extra_inputs:
        out.append(fmt.round(rng.uniform(0.0, 2.0, n)))
    return tuple(out)
