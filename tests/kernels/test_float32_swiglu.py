"""swiglu's float32 forward and quick_gelu's float32 backward on the CPU fused path
(nonlin.ops.torch_compiled.swiglu_float32 and swish_grad_float32 at beta = 1.702).

swiglu_float32 is g sigma(beta g) v as one quotient (g v an exact two-product over 1 + e^-z, the exact
remainder, 2^-k last): one rounding, where swish_float32(g) * v rounds twice (99 ULP where the gate is
subnormal and v large). Measured 0.79 ULP max over a dense g grid with log-uniform v, random bit-pattern pairs
and the subnormal-gate tail with v up to 3.4e38, betas 1, 1.702, -1, 1/16, 16; eager = compiled.
swish_grad_float32(x, 1.702) is quick_gelu's derivative with its own polynomial at the zero x0 / 1.702: 0.79 ULP
away from it, 0.59 on the 6001 float32 nearest it against mpmath (plain float32: 17.5 / 10083 ULP).

References: float64 compositions where they are within ~1e-15 relative, mpmath at the edges and the zero."""

from __future__ import annotations

import math

import mpmath
import pytest
import torch
from kernel_helpers import float32_by_bits, float32_ulps

import nonlin
from nonlin import use
from nonlin.kernels.precision import fp32_compute_for
from nonlin.ops.torch_backend import TORCH
from nonlin.ops.torch_compiled import (
    FLOAT32_SWISH_COMPILED_TORCH,
    swiglu_float32,
    swiglu_float32_supported,
    swish_float32,
    swish_grad_float32,
)

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning")]
BOUND = 0.85  # max ULP measured: 0.79 (both forms)
QUICK = 1.702
_QUICK_X0 = -0.7511542439460754  # the float32 nearest quick_gelu's derivative zero


def _log_uniform(n: int, lo: float, hi: float, seed: int) -> torch.Tensor:
    """n float32 of random sign with log2 |v| uniform in [lo, hi]."""
    gen = torch.Generator().manual_seed(seed)
    e = torch.rand(n, generator=gen, dtype=torch.float64) * (hi - lo) + lo
    s = torch.where(torch.rand(n, generator=gen) < 0.5, -1.0, 1.0).double()
    return (s * torch.exp2(e)).float()


def _pairs() -> tuple[torch.Tensor, torch.Tensor]:
    n = 200_000
    bits = float32_by_bits(20_011)
    gen = torch.Generator().manual_seed(1)
    g = torch.cat([
        torch.linspace(-210, 30, n),  # every gate, open to beyond the zero threshold with the largest v
        torch.linspace(-112, -85, n),  # the subnormal gate (below -87.3), where swish(g) * v rounded twice
        bits,
        _log_uniform(n // 4, -149, -20, 2),  # tiny g (scaled by 2^64 inside)
    ])  # fmt: skip
    v = torch.cat([
        _log_uniform(n, -149, 127.9, 3),
        _log_uniform(n, 60, 127.9, 4),
        bits[torch.randperm(bits.numel(), generator=gen)],
        _log_uniform(n // 4, -149, 127.9, 5),
    ])  # fmt: skip
    return g, v


def _exact(g: torch.Tensor, v: torch.Tensor, beta: float) -> torch.Tensor:
    g64, v64 = g.double(), v.double()
    return (g64 * v64) / (1.0 + torch.exp(-beta * g64))  # no float64 underflow in range: e^210 * 2^128 < 1e308


_COMPILED: dict[str, object] = {}


def _form(name: str, compiled: bool):
    fn = {"swiglu": lambda g, v: swiglu_float32(g, v, 1.0), "grad": lambda x: swish_grad_float32(x, QUICK)}[name]
    if not compiled:
        return fn
    if name not in _COMPILED:
        _COMPILED[name] = torch.compile(fn, dynamic=True)
    return _COMPILED[name]


def _assert_within(y: torch.Tensor, exact: torch.Tensor, what) -> None:
    keep = exact.abs() < float(torch.finfo(torch.float32).max)  # beyond: overflow, tested with the edges
    u = float32_ulps(y[keep], exact[keep])
    worst = int(u.argmax())
    assert u.max() <= BOUND, f"{what(keep, worst)}: {u.max().item():.4f} ULP"
    assert (u <= 0.5).double().mean() > 0.97  # one final rounding: correctly rounded but for the exp's 2^-26


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_swiglu_float32_is_within_bound(compiled):
    g, v = _pairs()
    y = _form("swiglu", compiled)(g, v)
    assert y.dtype == torch.float32
    _assert_within(y, _exact(g, v, 1.0), lambda k, i: f"swiglu({g[k][i].item()!r}, {v[k][i].item()!r})")


@pytest.mark.parametrize("beta", [QUICK, -1.0, 1 / 16, 16.0])
def test_swiglu_float32_other_betas(beta):
    assert swiglu_float32_supported(beta)
    g, v = _pairs()
    _assert_within(swiglu_float32(g, v, beta), _exact(g, v, beta), lambda k, i: (g[k][i].item(), v[k][i].item()))


def test_swish_then_times_v_rounds_twice():
    """Why v goes inside the quotient: swish_float32(g) * v is off by tens of ULP where the gate is subnormal
    (g < -87.3) and v large; the one-rounding form is not."""
    g = torch.linspace(-104, -88, 10_001)
    v = torch.full_like(g, 1e30)
    exact = _exact(g, v, 1.0)
    assert float32_ulps(swish_float32(g) * v, exact).max() > 20
    assert float32_ulps(swiglu_float32(g, v), exact).max() <= BOUND


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_swiglu_float32_edges(compiled):
    """Extremes of g v and of the gate against mpmath; signed zeros; inf and NaN as IEEE products."""
    big, tiny = 3.4e38, 2.0**-149
    finite = [(0.0, 2.0), (-0.0, 2.0), (0.0, -2.0), (-0.0, -0.0), (3.0, -0.0), (-3.0, 0.0), (tiny, big),
              (3 * tiny, 2.0**100), (-tiny, -big), (1e-40, 1e-40), (2.0**-70, 2.0**90), (-100.0, 1e30),
              (-150.0, big), (-180.0, big), (-190.0, -big), (-198.0, big), (-200.0, big), (-210.0, big),
              (-120.0, 1.0), (20.0, 3.0), (2.0**62, 2.0**-70), (-2.0**62, big), (1e19, 3.0),
              (-1e19, 3.0), (5.0, tiny)]  # fmt: skip
    special = [(2.0**62, 2.0**70, math.inf), (1e19, big, math.inf), (3e38, -2.0, -math.inf), (25.0, -big, -math.inf),
               (math.inf, 2.0, math.inf), (-math.inf, 2.0, -0.0), (-math.inf, -2.0, 0.0),
               (-math.inf, math.inf, math.nan), (math.inf, 0.0, math.nan), (5.0, math.inf, math.inf),
               (-50.0, math.inf, -math.inf), (0.0, math.inf, math.nan), (math.nan, 1.0, math.nan),
               (1.0, math.nan, math.nan)]  # fmt: skip
    g = torch.tensor([p[0] for p in finite + special], dtype=torch.float32)
    v = torch.tensor([p[1] for p in finite + special], dtype=torch.float32)
    y = _form("swiglu", compiled)(g, v).tolist()
    for (a, b), got in zip(finite, y, strict=False):
        with mpmath.workdps(60):
            e = mpmath.mpf(a) * mpmath.mpf(b) / (1 + mpmath.exp(-mpmath.mpf(a)))
        e32 = float(torch.tensor(float(e), dtype=torch.float64).float())
        ulp = max(tiny, 2.0 ** (math.frexp(e32)[1] - 24)) if e32 != 0 else tiny
        assert abs(mpmath.mpf(got) - e) <= BOUND * ulp, (a, b, got, e)
        assert math.copysign(1.0, got) == math.copysign(1.0, a) * math.copysign(1.0, b), (a, b, got)
    for (a, b, want), got in zip(special, y[len(finite) :], strict=True):
        assert (math.isnan(got) and math.isnan(want)) or (got == want and math.copysign(1, got) == math.copysign(1, want)), (a, b, got)  # fmt: skip


def test_swiglu_eager_equals_compiled():
    g, v = _pairs()
    assert torch.equal(swiglu_float32(g, v), _form("swiglu", True)(g, v))


def test_fused_float32_swiglu_forward_is_the_form():
    """The generated CPU forward of swiglu computes float32 inputs with this form (fp32_compute "auto" picks
    float32 for it); a tensor beta and betas outside [1/16, 16] keep the composed form (swish, then * v)."""
    assert fp32_compute_for("swiglu", "auto", torch.device("cpu"), "forward") == "float32"
    g = torch.linspace(-110, 20, 4001)
    v = _log_uniform(4001, -20, 120, 7)
    with use("fused", backend="python"):
        y = nonlin.functional.function("swiglu")(torch.cat([g, v], dim=-1))
    assert torch.equal(y, swiglu_float32(g, v))
    ns = FLOAT32_SWISH_COMPILED_TORCH
    for beta in (torch.tensor(1.0), 100.0):
        assert torch.equal(ns.swiglu(g, v, beta), ns.swish(g, beta) * v)


# --- quick_gelu's derivative (swish_grad_float32 at beta = 1.702) ---


def _quick_grad_exact(v: float) -> mpmath.mpf:
    with mpmath.workdps(60):
        z = mpmath.mpf(QUICK) * mpmath.mpf(v)
        s = 1 / (1 + mpmath.exp(-z))
        return s * (1 + z * (1 - s))


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_quick_gelu_grad_float32_is_within_bound(compiled):
    x = torch.cat([
        float32_by_bits(40_009),
        torch.linspace(-115 / QUICK, 35 / QUICK, 200_001),
        torch.linspace(_QUICK_X0 - 0.2, _QUICK_X0 + 0.2, 200_001),  # the polynomial's edges (|d| < 0.06)
    ])  # fmt: skip
    x = x[(x.double() - _QUICK_X0).abs() > 1e-3]  # near the zero the float64 composition cancels: mpmath below
    y = _form("grad", compiled)(x)
    u = float32_ulps(y, TORCH.swish_grad(x.double(), QUICK))
    worst = int(u.argmax())
    assert u.max() <= BOUND, f"quick_gelu'({x[worst].item()!r}) = {y[worst].item()!r}: {u.max().item():.4f} ULP"
    assert (u <= 0.5).double().mean() > 0.97


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_quick_gelu_grad_float32_at_its_zero_and_edges(compiled):
    """The 401 float32 nearest x0 / 1.702 (plain float32 terms: thousands of ULP there), the zone's edges and the
    tails against mpmath; the left tail's -0; inf and NaN."""
    near = [_QUICK_X0]
    lo = hi = torch.tensor(_QUICK_X0)
    for _ in range(200):
        lo, hi = torch.nextafter(lo, torch.tensor(-2.0)), torch.nextafter(hi, torch.tensor(0.0))
        near += [lo.item(), hi.item()]
    vals = [0.0, -0.0, 2.0**-149, -1e-30, _QUICK_X0 - 0.06, _QUICK_X0 + 0.06, -1.0, -0.5, 0.5, 10.0, 17.6,
            -51.3, -54.0, -60.0, -65.0, -65.8, 3.4e38]  # fmt: skip
    x = torch.tensor([*near, *vals], dtype=torch.float32)
    y = _form("grad", compiled)(x)
    tiny = 2.0**-149
    for a, got in zip(x.tolist(), y.tolist(), strict=True):
        e = _quick_grad_exact(a)
        e32 = float(torch.tensor(float(e), dtype=torch.float64).float())
        ulp = max(tiny, 2.0 ** (math.frexp(e32)[1] - 24)) if e32 != 0 else tiny
        assert abs(mpmath.mpf(got) - e) <= BOUND * ulp, (a, got, e)
        if got == 0:
            assert math.copysign(1.0, got) == -1.0, a
    z = _form("grad", compiled)(torch.tensor([-100.0, -1e30, -math.inf, math.inf, math.nan]))
    assert all(t == 0.0 and math.copysign(1.0, t) == -1.0 for t in z[:3].tolist())
    assert z[3].item() == 1.0 and math.isnan(z[4].item())


def test_fused_float32_quick_gelu_backward_is_the_form():
    assert fp32_compute_for("quick_gelu", "auto", torch.device("cpu"), "backward") == "float32"
    x = torch.linspace(-70, 20, 4001, dtype=torch.float32).requires_grad_(True)
    with use("fused", backend="python"):
        (grad,) = torch.autograd.grad(nonlin.functional.function("quick_gelu")(x), x, torch.ones_like(x))
    assert torch.equal(grad, swish_grad_float32(x.detach(), QUICK))
