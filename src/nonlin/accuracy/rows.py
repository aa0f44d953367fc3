"""Accuracy of attention-score normalizers over a stated sample of score rows, lengths and masks.

Rows: lengths 1, 2, 3, 8, 33 and 64; scores N(0, s^2) with s in {1, 8}; masks none, random (30% of keys
masked, at least one kept) and causal-like (a random prefix kept); 2 rows per combination (72 rows, 1,300
weights), plus one fully masked row per length (weights must be 0). Scores are drawn, then rounded to the
dtype. Reference: the entry's row-wise mpmath reference at 40 digits (independent of the torch
algorithm: bisection for the sparse maps), correctly rounded to the dtype.

Backward is not measured for normalizers: with an upstream gradient of ones, the exact gradient of a row-normalized
map is identically 0 (its weights sum to 1), so an ULP measure against 0 says nothing useful.
"""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np
import torch

from nonlin import functional as nf
from nonlin.accuracy.formats import get_format, to_numpy
from nonlin.accuracy.metric import measure
from nonlin.accuracy.reference import RefOutput, round_mpfs
from nonlin.accuracy.report import Report, Result
from nonlin.spec import Spec

LENGTHS = (1, 2, 3, 8, 33, 64)
SCALES = (1.0, 8.0)
MASKS = ("none", "random", "prefix")
ROWS_PER = 2
DPS = 40


def sample_rows(fmt, seed: int = 0) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """length -> (scores [rows, n] rounded to fmt, keep mask [rows, n])."""
    rng = np.random.default_rng(seed)
    out = {}
    for n in LENGTHS:
        scores, keeps = [], []
        for scale in SCALES:
            for kind in MASKS:
                for _ in range(ROWS_PER):
                    z = rng.standard_normal(n) * scale
                    if kind == "none":
                        keep = np.ones(n, dtype=bool)
                    elif kind == "random":
                        keep = rng.random(n) > 0.3
                        keep[rng.integers(n)] = True
                    else:
                        keep = np.arange(n) < rng.integers(1, n + 1)
                    scores.append(z)
                    keeps.append(keep)
        scores.append(rng.standard_normal(n))
        keeps.append(np.zeros(n, dtype=bool))  # fully masked row
        out[n] = (fmt.round(np.array(scores)), np.array(keeps))
    return out


def _noise(s: Spec, shape: tuple[int, ...], seed: int) -> dict[str, np.ndarray]:
    """An entry's extra tensor inputs (gumbel_softmax's noise, differential_attn's second scores): standard
    Gumbel draws, passed to both sides."""
    rng = np.random.default_rng(seed)
    return {name: -np.log(-np.log(rng.random(shape))) for name in s.extra_inputs}


def _reference(s: Spec, scores: np.ndarray, keep: np.ndarray, params: dict[str, Any], fmt, extra=None) -> RefOutput:
    ys = []
    with mpmath.workdps(DPS):
        for i, (z, k) in enumerate(zip(scores, keep, strict=True)):
            if not k.any():
                ys.extend([mpmath.mpf(s.masked_value)] * len(z))
                continue
            noise = {name: [mpmath.mpf(float(v)) for v in t[i]] for name, t in (extra or {}).items()}
            ys.extend(s.reference_row([mpmath.mpf(float(v)) for v in z], [bool(b) for b in k], **params, **noise))
    rounded, exact, zero = round_mpfs(ys, fmt)
    return RefOutput(rounded.reshape(scores.shape), exact.reshape(scores.shape), zero.reshape(scores.shape))


def check_rows(s: Spec, impl: Any, dtypes, *, params=None, backward=True, size=None, **_: Any) -> Report:
    from nonlin.accuracy.check import resolve_impl

    if isinstance(dtypes, str | torch.dtype):
        dtypes = (dtypes,)
    given = dict(params or {})
    resolved = s.resolve_params(given)
    if impl is None or impl == "nonlin":
        label, fn = "nonlin", nf.function(s.name)
    else:
        label, fn = resolve_impl(s, impl)
    results = {}
    for d in dtypes:
        fmt = get_format(d)
        got_all, ref_parts, inputs = [], [], []
        for scores, keep in sample_rows(fmt).values():
            extra = _noise(s, scores.shape, scores.shape[-1])
            ref_parts.append(_reference(s, scores, keep, resolved, fmt, extra))
            x = fmt.to_tensor(scores)
            noise = {k: torch.from_numpy(v) for k, v in extra.items()}
            y = fn(x, dim=-1, mask=torch.from_numpy(keep), **noise, **given)
            if not isinstance(y, torch.Tensor) or tuple(y.shape) != tuple(x.shape) or y.dtype != x.dtype:
                raise ValueError(
                    f"impl {label} returned {getattr(y, 'shape', type(y).__name__)} {getattr(y, 'dtype', '')} for "
                    f"scores {tuple(x.shape)} {x.dtype}; expected the same shape and dtype"
                )
            got_all.append(to_numpy(y).ravel())
            inputs.append(scores.ravel())
        ref = RefOutput(
            np.concatenate([r.rounded.ravel() for r in ref_parts]),
            np.concatenate([r.exact.ravel() for r in ref_parts]),
            np.concatenate([r.exact_zero.ravel() for r in ref_parts]),
        )
        x = np.concatenate(inputs)
        stats, err = measure(np.concatenate(got_all), ref, fmt, {"score": x})
        results[fmt.name] = {
            "forward": Result(stats, err),
            "_inputs": Result(None, None, inputs={"score": x}),
        }
        if backward:
            results[fmt.name]["backward"] = Result(
                None, None, note="not measured for normalizers (see nonlin.accuracy.rows)"
            )
    rows = {"rows": sum(len(v[0]) for v in sample_rows(get_format(dtypes[0])).values())}
    # Normalizers have one implementation (nonlin.functional's row-wise torch code); no route table.
    routes = {d: {"forward": "eager (row-wise)"} for d in results} if label == "nonlin" else {}
    return Report(s.name, label, resolved, results, rows, routes=routes)
