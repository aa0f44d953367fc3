"""mish of float32 inputs on the CPU fused path (nonlin.ops.torch_compiled): the forward in float32 arithmetic
(`mish_float32`, the `mish` primitive of the float32 namespace of mish: x n / (n + 2), n = e^x (e^x + 2), as one
quotient with its remainder exact and one final rounding, into the subnormal range too) and mish and mish' of float32
inputs computing in float64 as rational functions of one exp (`mish_float64_narrow`, `mish_grad_float64_narrow`,
the narrow namespace's primitives).

Measured: mish_float32 0.78 ULP over every 997th float32 and a dense [-110, 15] grid, eager = inductor; the
float32 composition x * tanh(softplus(x)) is 154 ULP there (x = -102.9: the subnormal gate rounded before the
product). The narrow forms: 0.5 ULP (correctly rounded but for the float64 rounding), also at the float32 nearest
mish's zero x0 = -1.1924, where float32 terms cancel to hundreds of ULP. The references: mpmath at the edges and near
x0, the catalog's float64 formula (`TorchOps.mish`, within ~1e-16 relative) on the dense inputs. The compiled run
is the check that inductor's flags (-ffp-contract=off, no -funsafe-math-optimizations) keep the error-free
transformations exact."""

from __future__ import annotations

import math

import mpmath
import pytest
import torch
from kernel_helpers import float32_by_bits, float32_ulps

import nonlin
from nonlin import use
from nonlin.catalog.smooth import mish_formula
from nonlin.kernels.precision import fp32_compute_for
from nonlin.ops.torch_backend import TorchOps
from nonlin.ops.torch_compiled import (
    FLOAT32_MISH_COMPILED_TORCH,
    FLOAT32_MISH_ENTRIES,
    HALF_COMPILED_TORCH,
    NARROW_COMPILED_TORCH,
    mish_float32,
    mish_float64_narrow,
    mish_grad_float64_narrow,
    ops_for,
)

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning")]
BOUND = 0.85  # max ULP measured: 0.78 (x = -91.87, a subnormal result)
NARROW_BOUND = 0.51  # one rounding of a float64 value within ~1e-15 relative
_TORCH = TorchOps()
_MISH_X0 = -1.1924312114715576  # the float32 nearest the derivative's zero


def _inputs() -> torch.Tensor:
    dense = torch.linspace(-115, 15, 200_001, dtype=torch.float32)
    tail = torch.linspace(-110, -80, 100_001, dtype=torch.float32)  # the result is subnormal below -91.86
    return torch.cat([float32_by_bits(40_009), dense, tail])


def _exact(v: float, derivative: bool = False) -> mpmath.mpf:
    with mpmath.workdps(60):
        x = mpmath.mpf(v)
        t = mpmath.exp(x)
        n = t * (t + 2)  # tanh(softplus(x)) = n / (n + 2)
        if not derivative:
            return x * n / (n + 2)
        return n / (n + 2) + x * 4 * (n + 1) / (n + 2) ** 2 * t / (1 + t)


def _ulp_of(e) -> float:
    e32 = float(torch.tensor(float(e), dtype=torch.float64).float())
    return max(2.0**-149, 2.0 ** (math.frexp(e32)[1] - 24)) if e32 != 0 else 2.0**-149


_COMPILED = []


def _mish32(compiled: bool):
    if not compiled:
        return mish_float32
    if not _COMPILED:
        _COMPILED.append(torch.compile(mish_float32, dynamic=True))
    return _COMPILED[0]


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_mish_float32_is_within_bound(compiled):
    x = _inputs()
    y = _mish32(compiled)(x)
    assert y.dtype == torch.float32
    u = float32_ulps(y, _TORCH.mish(x.double()))
    worst = int(u.argmax())
    assert u.max() <= BOUND, f"mish({x[worst].item()!r}) = {y[worst].item()!r}: {u.max().item():.4f} ULP"
    assert (u <= 0.5).double().mean() > 0.98  # one final rounding: correctly rounded but for the exp's 2^-26


def test_mish_float32_eager_equals_compiled():
    x = _inputs()
    assert torch.equal(mish_float32(x), _mish32(True)(x))


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_mish_float32_edges(compiled):
    """Signed zeros and subnormal inputs, the clamp points, the subnormal results, huge and non-finite inputs,
    against mpmath; the result has x's sign everywhere (a zero too)."""
    tiny = 2.0**-149
    vals = [0.0, -0.0, tiny, -tiny, 3 * tiny, -5 * tiny, 2.0**-126, -(2.0**-126), 1e-30, -1e-30, 2.0**-70, 1e-3,
            -1e-3, _MISH_X0, -0.5, 0.5, 1.0, 11.9, 12.0, 12.5, 20.0, -91.86, -87.33655, -91.87, -104.0, -108.0,
            -110.0, -110.5, -200.0, 1e19, -1e19, 3.4e38, -3.4e38]  # fmt: skip
    x = torch.tensor([*vals, math.inf, -math.inf, math.nan], dtype=torch.float32)
    y = _mish32(compiled)(x)
    assert y[-3].item() == math.inf
    assert y[-2].item() == 0.0 and math.copysign(1.0, y[-2].item()) == -1.0  # the closed gate: -0
    assert math.isnan(y[-1].item())
    for v, g in zip(x[:-3].tolist(), y[:-3].tolist(), strict=True):
        e = _exact(v)
        assert abs(mpmath.mpf(g) - e) <= BOUND * _ulp_of(e), (v, g, e)
        assert math.copysign(1.0, g) == math.copysign(1.0, v), v


def test_float32_composition_misses_the_bound():
    """What the form is for: x * tanh(softplus(x)) in float32 rounds the subnormal gate before the product."""
    x = torch.linspace(-110, -80, 100_001, dtype=torch.float32)
    plain = x * torch.tanh(torch.nn.functional.softplus(x))
    assert float32_ulps(plain, _TORCH.mish(x.double())).max() > 10 * BOUND


def test_narrow_forms_are_within_bound():
    """mish and mish' of float32 values in float64, rounded to float32, against the float64 formula (away from
    x0, where it is within ~1e-15 relative), with inf, NaN and the signed zeros of the tails."""
    x = _inputs()
    for form, exact in ((mish_float64_narrow, _TORCH.mish), (mish_grad_float64_narrow, _TORCH.mish_grad)):
        keep = (x.double() - _MISH_X0).abs() > 1e-3
        xs = x[keep].double()
        u = float32_ulps(form(xs).float(), exact(xs))
        assert u.max() <= NARROW_BOUND, (form.__name__, u.max().item(), x[keep][int(u.argmax())].item())
    special = torch.tensor([-800.0, -1e30, -math.inf, math.inf, math.nan, 3.4e38], dtype=torch.float64)
    y = mish_float64_narrow(special).tolist()
    assert all(v == 0.0 and math.copysign(1.0, v) == -1.0 for v in y[:3])
    assert y[3] == math.inf and math.isnan(y[4]) and y[5] == 3.4e38
    g = mish_grad_float64_narrow(special).tolist()
    assert all(v == 0.0 and math.copysign(1.0, v) == -1.0 for v in g[:3])  # the true value is negative
    assert g[3] == 1.0 and math.isnan(g[4]) and g[5] == 1.0


def test_narrow_grad_at_its_zero():
    """The 401 float32 nearest mish's zero x0 = -1.1924 and the tails, against mpmath: float32 terms cancel to
    hundreds of ULP next to x0; in float64 the cancellation costs under 0.3 float32 ULP at the nearest float32."""
    near = [_MISH_X0]
    lo = hi = torch.tensor(_MISH_X0)
    for _ in range(200):
        lo, hi = torch.nextafter(lo, torch.tensor(-2.0)), torch.nextafter(hi, torch.tensor(0.0))
        near += [lo.item(), hi.item()]
    vals = [0.0, -0.0, 2.0**-149, -1e-30, -0.5, -1.0, -1.5, -2.0, 0.5, 3.0, 12.0, 19.0, 21.0, -40.0, -87.33655,
            -91.87, -104.0, -200.0, -700.0, -740.0]  # fmt: skip
    x = torch.tensor([*near, *vals], dtype=torch.float32)
    y = mish_grad_float64_narrow(x.double()).float()
    for v, g in zip(x.tolist(), y.tolist(), strict=True):
        e = _exact(v, derivative=True)
        assert abs(mpmath.mpf(g) - e) <= NARROW_BOUND * _ulp_of(e), (v, g, e)
        if g == 0:
            assert math.copysign(1.0, g) == -1.0, v


def test_namespaces_take_the_forms():
    for name in FLOAT32_MISH_ENTRIES:
        assert ops_for(torch.float32, name) is FLOAT32_MISH_COMPILED_TORCH
    assert fp32_compute_for("mish", "auto", torch.device("cpu"), "forward") == "float32"
    assert fp32_compute_for("mish", "auto", torch.device("cpu"), "backward") == "float64"
    x = torch.linspace(-120, 30, 2001, dtype=torch.float32)
    ns = FLOAT32_MISH_COMPILED_TORCH
    assert torch.equal(ns.mish(x), mish_float32(x))
    assert torch.equal(ns.mish(x.double()), mish_float64_narrow(x.double()))
    assert torch.equal(NARROW_COMPILED_TORCH.mish_grad(x.double()), mish_grad_float64_narrow(x.double()))
    # float64 outputs keep the catalog's formula; halves compute in float32 with the plain composition
    assert ops_for(torch.float64, "mish").mish(x.double()).equal(_TORCH.mish(x.double()))
    assert torch.equal(HALF_COMPILED_TORCH.mish(x), mish_formula(HALF_COMPILED_TORCH, x))


def test_fused_float32_mish_is_the_form():
    """mish's generated CPU functions compute float32 inputs with these forms (forward in float32, the backward in
    float64 as one exp)."""
    x = torch.linspace(-100, 20, 4001, dtype=torch.float32)
    xg = x.clone().requires_grad_(True)
    with use("fused", backend="python"):
        y = nonlin.functional.mish(xg)
        (g,) = torch.autograd.grad(y, xg, torch.ones_like(x))
    assert torch.equal(y.detach(), mish_float32(x))
    assert torch.equal(g, mish_grad_float64_narrow(x.double()).float())


@pytest.mark.slow
@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_mish_float32_every_float32(compiled):
    f = _mish32(compiled)
    worst = 0.0
    for start in range(64):  # 2^26 values per chunk
        x = float32_by_bits(64, start)
        worst = max(worst, float32_ulps(f(x), _TORCH.mish(x.double())).max().item())
    assert worst <= BOUND, worst
