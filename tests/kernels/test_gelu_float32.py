"""The float32-arithmetic form of gelu's derivative Phi(x) + x phi(x) (nonlin.ops.torch_compiled.gelu_grad_float32),
eager and compiled by inductor, against mpmath: every float32 within 4000 ULP of the zero x0 = -0.7517915 (where
a float32 sum of the terms is 1.3e5 ULP off), both sides of the edges of the polynomial's zone |x - x0_hi| < 1/4,
every binade, the left tail to underflow (negative results whose zeros keep their sign) and the edge values. Only +, -, *, /,
round and a bit cast: eager and compiled bits agree (on any vector ISA; .ci/isa_matrix.py runs this file under
each)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import torch

from nonlin.accuracy.formats import FORMATS
from nonlin.accuracy.metric import ulp_error
from nonlin.ops.torch_compiled import (
    _GELU_X0_HI,
    _GELU_ZONE,
    HALF_COMPILED_TORCH,
    NARROW_COMPILED_TORCH,
    gelu_grad_float32,
)

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning")]

EDGES = [0.0, -0.0, 1e-45, -1e-45, 1.0, -1.0, 1.4142135, -1.4142135, 4.0, -4.0, -10.0, -10.6, -13.9, -14.5, -15.99,
         15.99, -16.0, 16.0, -20.0, 20.0, -30.0, 30.0, 3.4e38, -3.4e38, math.inf, -math.inf, math.nan]  # fmt: skip


def _gelu_grad(x):
    return mpmath.ncdf(x) + x * mpmath.npdf(x)


def _float32_steps(center: float, n: int) -> np.ndarray:
    """The 2n + 1 float32 values nearest `center` (by bit pattern, same sign)."""
    c = np.array([center], dtype=np.float32).view(np.int32)[0]
    return (c + np.arange(-n, n + 1, dtype=np.int32)).view(np.float32)


def _inputs(zero: float) -> np.ndarray:
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 0x41B00000, 1500, dtype=np.uint32)  # |x| < 22 by float32 bit pattern
    spread = bits.view(np.float32) * rng.choice(np.array([-1.0, 1.0], dtype=np.float32), bits.size)
    parts = [
        _float32_steps(zero, 4000),  # the zero
        *(_float32_steps(zero + s * _GELU_ZONE, 40) for s in (-1.0, 1.0)),  # where the two forms meet
        np.linspace(-1.1, -0.4, 4001, dtype=np.float32),  # the zone and the cancelling sum beside it
        np.linspace(-22.0, 6.0, 3001, dtype=np.float32),
        spread,
        np.array(EDGES, dtype=np.float32),
    ]
    return np.concatenate(parts)


def _exact(f, x: np.ndarray, limits: tuple[float, float]) -> np.ndarray:
    """f at 40 digits, as float64; `limits` at (-inf, +inf)."""
    out = []
    with mpmath.workdps(40):
        for v in x.astype(np.float64).tolist():
            if math.isnan(v) or math.isinf(v):
                out.append(math.nan if math.isnan(v) else limits[v > 0])
                continue
            out.append(float(f(mpmath.mpf(v))))
    return np.array(out)


CASES = {
    # name: (function, mpmath reference, limits at -+inf, the derivative's zero, max float32 ULP)
    "gelu_grad wide": (lambda t: gelu_grad_float32(t, wide=True), _gelu_grad, (-0.0, 1.0), _GELU_X0_HI, 1.0),
    # half inputs' namespace: 5.3 float32 ULP measured, 1e-4 of a bf16 ULP
    "gelu_grad float32": (gelu_grad_float32, _gelu_grad, (-0.0, 1.0), _GELU_X0_HI, 6.0),
}
_DATA: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def _data(case: str) -> tuple[np.ndarray, np.ndarray]:
    if case not in _DATA:
        _, ref, limits, zero, _ = CASES[case]
        x = _inputs(zero)
        _DATA[case] = x, _exact(ref, x, limits)
    return _DATA[case]


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
@pytest.mark.parametrize("case", list(CASES))
def test_form_against_mpmath(case, compiled):
    """Compiled, also bit for bit equal to the eager form (here and on 20001 more points)."""
    f, _, _, zero, bound = CASES[case]
    x, exact = _data(case)
    t = torch.from_numpy(x)
    if compiled:
        t = torch.cat([t, torch.linspace(-22, 22, 20001)])
        y = torch.compile(f, fullgraph=True)(t)
        torch.testing.assert_close(y, f(t), rtol=0, atol=0, equal_nan=True)
        y = y[: x.size]
    else:
        y = f(t)
    assert y.dtype == (torch.float32 if case == "gelu_grad float32" else torch.float64)
    got = y.float().double().numpy()
    err = ulp_error(got, exact, FORMATS["float32"])
    assert err.max() <= bound, (case, err.max(), x[int(err.argmax())])
    # Where the true value is negative and rounds to zero (the left tail), the zero is -0.
    tiny = (exact < 0) & (np.abs(exact) < 2.0**-150)
    assert tiny.sum() > 20 and np.all(np.signbit(got[tiny])), x[tiny & ~np.signbit(got)][:5]
    assert np.isnan(got[np.isnan(x)]).all()
    near = np.abs(x.astype(np.float64) - zero) < 2e-4  # the derivatives' zero itself
    assert near.sum() > 6000 and err[near].max() <= max(0.5 * bound, 0.75), err[near].max()


def test_namespaces_choose_the_forms():
    """float32 tensors take the float32 form (float32 io: float64 results, the half namespace's: float32);
    float64 tensors the float64 sum."""
    x, exact = _data("gelu_grad wide")
    t = torch.from_numpy(x)
    same = {"rtol": 0, "atol": 0, "equal_nan": True}
    torch.testing.assert_close(NARROW_COMPILED_TORCH.gelu_grad(t), gelu_grad_float32(t, wide=True), **same)
    torch.testing.assert_close(HALF_COMPILED_TORCH.gelu_grad(t), gelu_grad_float32(t), **same)
    away = np.isfinite(exact) & (np.abs(exact) > 1e-6)  # a float64 sum cancels at the zero
    err = ulp_error(NARROW_COMPILED_TORCH.gelu_grad(t.double()).numpy(), exact, FORMATS["float32"])
    assert err[away].max() < 1e-3
