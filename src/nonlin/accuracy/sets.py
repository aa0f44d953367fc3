"""Accuracy of set-wise units over a stated sample of sets (the counterpart of nonlin.accuracy.rows).

Sets: sizes 2, 6, 12 and 64 (multiples of 2 and 3, so Maxout's default splits them); values N(0, s^2) with s in
{1, 8}; 8 sets per combination (rows of a batch: BatchTopK selects over each batch of 8), 1,344 values per dtype,
rounded to the dtype. Reference: the entry's mpmath set reference at 40 digits, correctly rounded to the dtype.
Backward is not measured here (tests/test_setwise.py checks gradients in float64 with gradcheck).
"""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np
import torch

from nonlin import functional as nf
from nonlin import reference as R
from nonlin.accuracy.formats import get_format, to_numpy
from nonlin.accuracy.metric import measure
from nonlin.accuracy.reference import RefOutput, round_mpfs
from nonlin.accuracy.report import Report, Result
from nonlin.spec import Spec

SIZES = (2, 6, 12, 64)
SCALES = (1.0, 8.0)
SETS_PER = 8
DPS = 40


def sample_sets(fmt, seed: int = 0) -> list[np.ndarray]:
    """Batches [SETS_PER, n] of values rounded to fmt, one per (size, scale)."""
    rng = np.random.default_rng(seed)
    return [fmt.round(rng.standard_normal((SETS_PER, n)) * scale) for n in SIZES for scale in SCALES]


def _reference(s: Spec, x: np.ndarray, params: dict[str, Any]) -> list[Any]:
    given = {k: v for k, v in params.items() if k != "keepdim"}  # the shape, not the values
    if "batchwise" in s.properties:
        return R.setwise(s.name, x.ravel().tolist(), rows=x.shape[0], dps=DPS, **given)
    return [v for row in x for v in R.setwise(s.name, row.tolist(), dps=DPS, **given)]


def check_sets(s: Spec, impl: Any, dtypes, *, params=None, backward=True, **_: Any) -> Report:
    from nonlin.accuracy.check import resolve_impl

    if isinstance(dtypes, str | torch.dtype):
        dtypes = (dtypes,)
    given = dict(params or {})
    resolved = s.resolve_params(given)
    label, fn = ("nonlin", nf.function(s.name)) if impl in (None, "nonlin") else resolve_impl(s, impl)
    results = {}
    for d in dtypes:
        fmt = get_format(d)
        got_all, ys, inputs = [], [], []
        for x in sample_sets(fmt):
            y = fn(fmt.to_tensor(x), dim=-1, **given)
            want = s.output_size(x.shape[-1], **resolved)
            if not isinstance(y, torch.Tensor) or y.numel() != x.shape[0] * want:
                raise ValueError(
                    f"impl {label} returned {getattr(y, 'shape', type(y).__name__)} for a set batch {x.shape}; "
                    f"expected {want} outputs per set"
                )
            got_all.append(to_numpy(y).ravel())
            with mpmath.workdps(DPS):
                ys += _reference(s, x, resolved)
            inputs.append(x.ravel())
        rounded, exact, zero = round_mpfs(ys, fmt)
        stats, err = measure(np.concatenate(got_all), RefOutput(rounded, exact, zero), fmt, {"x": exact})
        results[fmt.name] = {"forward": Result(stats, err)}
        if backward:
            results[fmt.name]["backward"] = Result(None, None, note="not measured for set-wise units")
    return Report(s.name, label, resolved, results, {"sets": len(SIZES) * len(SCALES) * SETS_PER})
