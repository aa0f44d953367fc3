"""The float32 swish of the CPU fused path (nonlin.ops.torch_compiled.swish_float32, the `swish` primitive of the
float32-input namespace of silu, swish, swiglu and quick_gelu): x sigma(beta x) as one quotient x / D with the
denominator an exact sum, the quotient corrected by its exact remainder and 2^-k applied last, beta x carried
exactly. Measured 0.79 ULP (beta = 1) and 0.78 (beta = 1.702) over every 997th float32 and a dense [-115, 25]
grid, eager = compiled by inductor; here over float32 bit patterns of every binade, the subnormal-gate tail, the
edge values against mpmath; every float32 under -m slow.

The reference is `TORCH.swish` on the float64 inputs (within ~1e-16 relative where the float32 result is
not 0). Error-free transformations break if the compiler reassociates or contracts: the compiled run is the
check that inductor's flags (-ffp-contract=off, no -funsafe-math-optimizations) keep them exact."""

from __future__ import annotations

import math

import mpmath
import pytest
import torch
from kernel_helpers import float32_by_bits, float32_ulps

import nonlin
from nonlin import use
from nonlin.ops.torch_backend import TORCH, TorchOps
from nonlin.ops.torch_compiled import (
    FLOAT32_SWISH_COMPILED_TORCH,
    FLOAT32_SWISH_ENTRIES,
    NARROW_COMPILED_TORCH,
    ops_for,
    silu_grad_float32,
    swish_float32,
    swish_float32_supported,
)

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning")]
BOUND = 0.85  # max ULP measured: 0.79 (beta = 1, x = -91.9), 0.78 (beta = 1.702)
BETAS = (1.0, 1.702)


def _inputs() -> torch.Tensor:
    dense = torch.linspace(-115, 25, 200_001, dtype=torch.float32)
    tail = torch.linspace(-112, -85, 100_001, dtype=torch.float32)  # the gate is subnormal below -87.3
    return torch.cat([float32_by_bits(40_009), dense, tail])


_COMPILED: dict[float, object] = {}


def _compiled(beta: float, compiled: bool):
    """swish_float32 at `beta`, eager or compiled by inductor (once per beta: dynamic shapes)."""
    if not compiled:
        return lambda x: swish_float32(x, beta)
    if beta not in _COMPILED:
        _COMPILED[beta] = torch.compile(lambda x: swish_float32(x, beta), dynamic=True)
    return _COMPILED[beta]


@pytest.mark.parametrize("beta", BETAS)
@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_swish_float32_is_within_bound(compiled, beta):
    x = _inputs() / beta  # the same gate arguments for every beta
    y = _compiled(beta, compiled)(x)
    assert y.dtype == torch.float32
    u = float32_ulps(y, TORCH.swish(x.double(), beta))
    worst = int(u.argmax())
    assert u.max() <= BOUND, f"swish({x[worst].item()!r}, {beta}) = {y[worst].item()!r}: {u.max().item():.4f} ULP"
    assert (u <= 0.5).double().mean() > 0.97  # one final rounding: correctly rounded but for the exp's 2^-26


@pytest.mark.parametrize("beta", [0.5, 2.0, -1.0, 1e-3])
def test_swish_float32_other_betas(beta):
    assert swish_float32_supported(beta)
    x = torch.cat([torch.linspace(-250, 50, 100_001, dtype=torch.float32), float32_by_bits(400_009)])
    u = float32_ulps(swish_float32(x, beta), TORCH.swish(x.double(), beta))
    assert u.max() <= BOUND, u.max().item()


@pytest.mark.parametrize("beta", BETAS)
@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_swish_float32_edges(compiled, beta):
    tiny = 2.0**-149
    vals = [0.0, -0.0, tiny, -tiny, 3 * tiny, -5 * tiny, 1e-30, -1e-30, 2.0**-70, 19.9, 20.0, 25.0, -1.2785,
            -87.33655, -91.9, -104.0, -108.0, -109.4, -110.0, -200.0, 1e19, -1e19, 3.4e38, -3.4e38]  # fmt: skip
    x = torch.tensor([*vals, math.inf, -math.inf, math.nan], dtype=torch.float32)
    y = _compiled(beta, compiled)(x)
    assert y[-3].item() == math.inf
    assert y[-2].item() == 0.0 and math.copysign(1.0, y[-2].item()) == -1.0  # the closed gate: -0
    assert math.isnan(y[-1].item())
    for v, g in zip(x[:-3].tolist(), y[:-3].tolist(), strict=True):
        with mpmath.workdps(60):
            e = mpmath.mpf(v) / (1 + mpmath.exp(-mpmath.mpf(beta) * mpmath.mpf(v)))
        e32 = float(torch.tensor(float(e), dtype=torch.float64).float())
        ulp = max(tiny, 2.0 ** (math.frexp(e32)[1] - 24)) if e32 != 0 else tiny
        assert abs(mpmath.mpf(g) - e) <= BOUND * ulp, (v, g, e)
        assert math.copysign(1.0, g) == math.copysign(1.0, v)  # x sigma(z) has x's sign, zeros included


def test_ops_for_takes_the_swish_form():
    for name in FLOAT32_SWISH_ENTRIES:
        assert ops_for(torch.float32, name) is FLOAT32_SWISH_COMPILED_TORCH
    assert ops_for(torch.float32, "softplus") is NARROW_COMPILED_TORCH
    assert type(ops_for(torch.bfloat16, "silu")).swish is TorchOps.swish  # halves keep the plain float32 form
    x = torch.linspace(-120, 30, 2001, dtype=torch.float32)
    ns = FLOAT32_SWISH_COMPILED_TORCH
    assert torch.equal(ns.swish(x, 1.0), swish_float32(x, 1.0))
    # a tensor beta (learnable) and float64 compute keep the composed form
    beta = torch.tensor(1.0)
    assert torch.equal(ns.swish(x, beta), TORCH.swish(x, beta))
    assert torch.equal(ns.swish(x.double(), 1.0), TORCH.swish(x.double(), 1.0))
    assert not swish_float32_supported(0.0) and not swish_float32_supported(1e-30)


@pytest.mark.parametrize("name", ["silu", "quick_gelu"])
def test_fused_float32_forward_is_the_form(name):
    """The generated CPU function of the entry computes float32 inputs with this form."""
    x = torch.linspace(-100, 20, 4001, dtype=torch.float32)
    beta = {"silu": 1.0, "quick_gelu": 1.702}[name]
    with use("fused", backend="python", fp32_compute="float32"):
        y = nonlin.functional.function(name)(x)
    assert torch.equal(y, swish_float32(x, beta))


@pytest.mark.slow
@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_swish_float32_every_float32(compiled):
    f = _compiled(1.0, compiled)
    worst = 0.0
    for start in range(64):  # 2^26 values per chunk
        x = float32_by_bits(64, start)
        worst = max(worst, float32_ulps(f(x), TORCH.swish(x.double(), 1.0)).max().item())
    assert worst <= BOUND, worst


# --- silu's derivative (silu_grad_float32, the swish_grad primitive at beta = 1) ---
GRAD_BOUND = 0.85  # max ULP measured: 0.78 (x = -91.87, the subnormal range), 0.51 next to the zero x0
_SILU_X0 = -1.2784645557403564  # the float32 nearest the derivative's zero


def _grad_inputs() -> torch.Tensor:
    dense = torch.linspace(-115, 35, 200_001, dtype=torch.float32)
    zone = torch.linspace(_SILU_X0 - 0.3, _SILU_X0 + 0.3, 200_001, dtype=torch.float32)  # the polynomial's edges
    return torch.cat([float32_by_bits(40_009), dense, zone])


_COMPILED_GRAD = []


def _silu_grad(compiled: bool):
    if not compiled:
        return silu_grad_float32
    if not _COMPILED_GRAD:
        _COMPILED_GRAD.append(torch.compile(silu_grad_float32, dynamic=True))
    return _COMPILED_GRAD[0]


def _silu_grad_exact(v: float) -> mpmath.mpf:
    with mpmath.workdps(60):
        x = mpmath.mpf(v)
        s = 1 / (1 + mpmath.exp(-x))
        return s * (1 + x * (1 - s))


def _ulp_of(e) -> float:
    e32 = float(torch.tensor(float(e), dtype=torch.float64).float())
    return max(2.0**-149, 2.0 ** (math.frexp(e32)[1] - 24)) if e32 != 0 else 2.0**-149


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_silu_grad_float32_is_within_bound(compiled):
    x = _grad_inputs()
    # away from x0 the float64 composition is within ~1e-15 relative (near it, the mpmath test below)
    x = x[(x.double() - _SILU_X0).abs() > 1e-3]
    y = _silu_grad(compiled)(x)
    assert y.dtype == torch.float32
    u = float32_ulps(y, TORCH.swish_grad(x.double(), 1.0))
    worst = int(u.argmax())
    assert u.max() <= GRAD_BOUND, f"silu'({x[worst].item()!r}) = {y[worst].item()!r}: {u.max().item():.4f} ULP"
    assert (u <= 0.5).double().mean() > 0.97


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_silu_grad_float32_at_its_zero_and_edges(compiled):
    """The 401 float32 nearest x0 (where float32 terms cancel: thousands of ULP), the zone's edges and the
    tails, against mpmath; the signed zero of the left tail; inf and NaN."""
    near = [_SILU_X0]
    lo = hi = torch.tensor(_SILU_X0)
    for _ in range(200):
        lo, hi = torch.nextafter(lo, torch.tensor(-2.0)), torch.nextafter(hi, torch.tensor(0.0))
        near += [lo.item(), hi.item()]
    tiny = 2.0**-149
    vals = [0.0, -0.0, tiny, -tiny, 1e-30, -1e-30, _SILU_X0 - 0.1, _SILU_X0 + 0.1, -1.0, -2.0, -0.5, 0.5, 20.0,
            30.0, 40.0, -87.33655, -91.87, -104.0, -108.0, -110.0, -112.0, 3.4e38]  # fmt: skip
    x = torch.tensor([*near, *vals], dtype=torch.float32)
    y = _silu_grad(compiled)(x)
    for v, g in zip(x.tolist(), y.tolist(), strict=True):
        e = _silu_grad_exact(v)
        assert abs(mpmath.mpf(g) - e) <= GRAD_BOUND * _ulp_of(e), (v, g, e)
        if g == 0:
            assert math.copysign(1.0, g) == -1.0, v  # the left tail's true value is negative
    z = _silu_grad(compiled)(torch.tensor([-150.0, -1e30, -math.inf, math.inf, math.nan]))
    assert all(v == 0.0 and math.copysign(1.0, v) == -1.0 for v in z[:3].tolist())
    assert z[3].item() == 1.0 and math.isnan(z[4].item())


def test_silu_grad_eager_equals_compiled():
    x = _grad_inputs()
    assert torch.equal(silu_grad_float32(x), _silu_grad(True)(x))


def test_fused_float32_silu_backward_is_the_form():
    """silu's and swish's (beta = 1) generated CPU backward computes float32 inputs with this form; betas without a
    fitted zero form and a tensor beta keep the composed one (quick_gelu's 1.702 has its own: test_float32_swiglu)."""
    x = torch.linspace(-100, 20, 4001, dtype=torch.float32)
    for name in ("silu", "swish"):
        xg = x.clone().requires_grad_(True)
        with use("fused", backend="python", fp32_compute="float32"):
            (g,) = torch.autograd.grad(nonlin.functional.function(name)(xg), xg, torch.ones_like(x))
        assert torch.equal(g, silu_grad_float32(x)), name
    ns = FLOAT32_SWISH_COMPILED_TORCH
    assert torch.equal(ns.swish_grad(x, 2.0), TORCH.swish_grad(x, 2.0))
    assert torch.equal(ns.swish_grad(x, torch.tensor(1.0)), TORCH.swish_grad(x, torch.tensor(1.0)))
