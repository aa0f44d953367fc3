"""gelu's derivative Phi(x) + x phi(x) in float32 arithmetic (nonlin.ops.torch_compiled.gelu_grad_float32), eager
and compiled by inductor, against mpmath: every float32 within 4000 ULP of the zero x0 = -0.7517915 (where the two
terms cancel: a float32 sum of them is 1.3e5 ULP off there), both sides of the edges of the polynomial's zone
|x - x0_hi| < 1/4, every binade, the left tail to underflow (a negative result whose zero keeps its sign) and
the edge values. Only +, -, *, /, round and a bit cast: eager and compiled bits agree (any vector ISA)."""

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

EDGES = [0.0, -0.0, 1e-45, -1e-45, 1.0, -1.0, 1.4142135, -1.4142135, 4.0, -4.0, -13.9, -14.5, -15.99, 15.99,
         -16.0, 16.0, -30.0, 30.0, 3.4e38, -3.4e38, math.inf, -math.inf, math.nan]  # fmt: skip


def _float32_steps(center: float, n: int) -> np.ndarray:
    """The 2n + 1 float32 values nearest `center` (by bit pattern, same sign)."""
    c = np.array([center], dtype=np.float32).view(np.int32)[0]
    return (c + np.arange(-n, n + 1, dtype=np.int32)).view(np.float32)


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 0x41900000, 1500, dtype=np.uint32)  # |x| < 18 by float32 bit pattern
    spread = bits.view(np.float32) * rng.choice(np.array([-1.0, 1.0], dtype=np.float32), bits.size)
    edges = [_float32_steps(_GELU_X0_HI + s * _GELU_ZONE, 40) for s in (-1.0, 1.0)]  # where the forms meet
    parts = [
        _float32_steps(-0.75179152, 4000),  # the zero
        np.linspace(-1.1, -0.4, 4001, dtype=np.float32),  # the zone and the cancelling sum beside it
        np.linspace(-16.5, 6.0, 3001, dtype=np.float32),
        spread,
        *edges,
        np.array(EDGES, dtype=np.float32),
    ]
    return np.concatenate(parts)


def _exact(x: np.ndarray) -> np.ndarray:
    """Phi(x) + x phi(x) at 40 digits, as float64; IEEE's limits at +-inf (1, and -0 from the left)."""
    out = []
    with mpmath.workdps(40):
        for v in x.astype(np.float64).tolist():
            if math.isnan(v) or math.isinf(v):
                out.append(math.nan if math.isnan(v) else (1.0 if v > 0 else -0.0))
                continue
            m = mpmath.mpf(v)
            out.append(float(mpmath.ncdf(m) + m * mpmath.npdf(m)))
    return np.array(out)


X = _inputs()
EXACT = _exact(X)
F32 = FORMATS["float32"]
CASES = {
    # name: (function, max float32 ULP of the float32-rounded result)
    "wide": (lambda t: gelu_grad_float32(t, wide=True), 1.0),  # float32 inputs (measured 0.92)
    "float32": (gelu_grad_float32, 6.0),  # half inputs' namespace (measured 5.3; 1e-4 of a bf16 ULP)
}


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
@pytest.mark.parametrize("case", list(CASES))
def test_gelu_grad_against_mpmath(case, compiled):
    f, bound = CASES[case]
    g = torch.compile(f, fullgraph=True) if compiled else f
    y = g(torch.from_numpy(X))
    assert y.dtype == (torch.float64 if case == "wide" else torch.float32)
    got = y.float().double().numpy()
    err = ulp_error(got, EXACT, F32)
    worst = int(err.argmax())
    assert err.max() <= bound, (case, err.max(), X[worst])
    # Where the true value is negative and rounds to zero (the left tail), the zero is -0.
    tiny = (EXACT < 0) & (np.abs(EXACT) < 2.0**-150)
    assert tiny.sum() > 20 and np.all(np.signbit(got[tiny])), X[tiny & ~np.signbit(got)][:5]
    # NaN in, NaN out; the cancellation zone itself within half the bound
    assert np.isnan(got[np.isnan(X)]).all()
    near = np.abs(X.astype(np.float64) - (-0.7517915246935645)) < 2e-4
    assert near.sum() > 6000 and err[near].max() <= max(0.5 * bound, 0.75), err[near].max()


@pytest.mark.parametrize("case", list(CASES))
def test_eager_and_compiled_bits_agree(case):
    f = CASES[case][0]
    x = torch.cat([torch.from_numpy(X), torch.linspace(-17, 17, 20001)])
    torch.testing.assert_close(torch.compile(f, fullgraph=True)(x), f(x), rtol=0, atol=0, equal_nan=True)


def test_namespaces_choose_the_form():
    """float32 tensors take the float32 forms (float32 io: wide); float64 tensors the float64 sum."""
    x = torch.from_numpy(X)
    assert NARROW_COMPILED_TORCH.gelu_grad(x).dtype == torch.float64
    torch.testing.assert_close(NARROW_COMPILED_TORCH.gelu_grad(x), gelu_grad_float32(x, wide=True), rtol=0, atol=0,
                               equal_nan=True)  # fmt: skip
    torch.testing.assert_close(HALF_COMPILED_TORCH.gelu_grad(x), gelu_grad_float32(x), rtol=0, atol=0, equal_nan=True)
    x64 = x.double()
    finite = np.isfinite(EXACT) & (np.abs(EXACT - 0) > 1e-6)  # away from the zero, where a float64 sum cancels
    err = ulp_error(NARROW_COMPILED_TORCH.gelu_grad(x64).numpy(), EXACT, FORMATS["float32"])
    assert err[finite].max() < 1e-3
