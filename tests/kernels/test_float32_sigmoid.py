"""The float32 sigmoid of the CPU fused path (nonlin.ops.torch_compiled.sigmoid_float32, the float32-input
namespace of `ops_for`): float32 arithmetic with the low parts carried (exp by Cody-Waite reduction with 1 + r
kept exact, 1 + e as an exact sum, the quotient corrected to first order), 1.0985 ULP at most over every 7th
float32 in [-104, 17], eager and compiled by inductor; here over float32 bit patterns of every binade, the
tails, the edge values; every float32 under -m slow.

The reference is float64 torch.sigmoid (within 2^-50 relative: 1e-7 of a float32 ULP), and mpmath on the
edge values. Error-free transformations break if the compiler reassociates or contracts: the compiled run is
the check that inductor's flags (-ffp-contract=off, no -funsafe-math-optimizations) keep them exact."""

from __future__ import annotations

import math

import mpmath
import pytest
import torch
from kernel_helpers import float32_by_bits, float32_ulps

from nonlin.ops.torch_compiled import (
    FLOAT32_COMPILED_TORCH,
    NARROW_COMPILED_TORCH,
    _pow2,
    exp_neg_float32,
    ops_for,
    sigmoid_float32,
)

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning")]
BOUND = 1.15  # max ULP measured: 1.0985 (x = -11.443) over every 7th float32 in [-104, 17], 317M values


def _inputs() -> torch.Tensor:
    dense = torch.linspace(-110, 30, 200_001, dtype=torch.float32)  # where sigma is neither 0 nor 1
    return torch.cat([float32_by_bits(40_009), dense])


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_sigmoid_float32_is_within_bound(compiled):
    x = _inputs()
    f = torch.compile(sigmoid_float32, dynamic=False) if compiled else sigmoid_float32
    y = f(x)
    assert y.dtype == torch.float32
    exact = torch.sigmoid(x.double())
    u = float32_ulps(y, exact)
    worst = int(u.argmax())
    assert u.max() <= BOUND, f"sigmoid({x[worst].item()!r}) = {y[worst].item()!r}: {u.max().item():.4f} ULP"
    # correctly rounded for ~97% (the quotient and its correction round separately)
    assert (u <= 0.5).double().mean() > 0.95


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_sigmoid_float32_edges(compiled):
    tiny = 2.0**-149
    vals = [0.0, -0.0, tiny, -tiny, 1e-30, -1e-30, 16.635532, 17.0, 88.7, -87.33655, -87.9269, -103.27893, -103.97,
            -104.0, -200.0, 3.4e38, -3.4e38, math.inf, -math.inf]  # fmt: skip
    x = torch.tensor([*vals, math.nan], dtype=torch.float32)
    f = torch.compile(sigmoid_float32, dynamic=False) if compiled else sigmoid_float32
    y = f(x)
    assert math.isnan(y[-1].item())
    for v, g in zip(x[:-1].tolist(), y[:-1].tolist(), strict=True):
        e = mpmath.mpf(1) / (1 + mpmath.exp(-mpmath.mpf(v))) if math.isfinite(v) else (1.0 if v > 0 else 0.0)
        e32 = float(torch.tensor(float(e), dtype=torch.float64).float())
        ulp = max(tiny, 2.0 ** (math.frexp(e32)[1] - 24)) if e32 != 0 else tiny
        assert abs(mpmath.mpf(g) - e) <= BOUND * ulp, (v, g, e)
        assert 0.0 <= g <= 1.0


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_exp_neg_float32_carries_the_low_part(compiled):
    """e^z = (eh + el) 2^(k + 64) 2^-64 to 2^-26 relative for z <= 0 (the float32 exp alone: 2^-24 at best)."""
    x = _inputs()
    z = -x.abs()
    z = z[z >= -104]
    f = torch.compile(exp_neg_float32, dynamic=False) if compiled else exp_neg_float32
    eh, el, scale = f(z)
    assert torch.equal(torch.log2(scale.double()), torch.round(torch.log2(scale.double())))  # powers of 2
    value = (eh.double() + el.double()) * scale.double() * 2.0**-64
    exact = torch.exp(z.double())
    assert ((value - exact) / exact).abs().max() < 2.0**-26


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_pow2_is_exact_for_every_exponent(compiled):
    """The float32 forms build 2^k with exp2 of an integer (a vector op in inductor; a bit cast is not):
    exact for every k they can pass, here all of them, on whatever ISA runs the test."""
    k = torch.arange(-126, 128, dtype=torch.float32)
    f = torch.compile(_pow2, dynamic=False) if compiled else _pow2
    assert torch.equal(f(k).double(), torch.pow(2.0, k.double()))


def test_ops_for_float32_inputs_takes_the_float32_form():
    assert ops_for(torch.float32, "sigmoid") is FLOAT32_COMPILED_TORCH
    assert ops_for(torch.float32, "softplus") is NARROW_COMPILED_TORCH  # the plain form meets its goals
    # halves keep the plain float32 sigmoid (their namespace only changes the erfc family)
    assert ops_for(torch.bfloat16, "sigmoid").sigmoid is NARROW_COMPILED_TORCH.sigmoid
    x = torch.linspace(-20, 20, 1001, dtype=torch.float32)
    assert torch.equal(FLOAT32_COMPILED_TORCH.sigmoid(x), sigmoid_float32(x))
    x64 = x.double()  # float32 inputs computing in float64 keep the float64 form
    assert torch.equal(FLOAT32_COMPILED_TORCH.sigmoid(x64), NARROW_COMPILED_TORCH.sigmoid(x64))


@pytest.mark.slow
@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_sigmoid_float32_every_float32(compiled):
    f = torch.compile(sigmoid_float32, dynamic=False) if compiled else sigmoid_float32
    worst = 0.0
    for start in range(64):  # 2^26 values per chunk
        x = float32_by_bits(64, start)
        worst = max(worst, float32_ulps(f(x), torch.sigmoid(x.double())).max().item())
    assert worst <= BOUND, worst
