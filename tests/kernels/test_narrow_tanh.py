"""The float64 tanh the CPU fused functions use for float32 inputs computed in float64
(nonlin.ops.torch_compiled.tanh_float64_narrow: one exp instead of Sleef's float64 tanh): within a few float64
ULP relative, so its float32 rounding is torch's float64 tanh's, eager and compiled, over every binade and the
edge values; its float64 expm1 (no Kahan correction) within 2^-47; and the half namespace's float32 sin and cos
stay inductor's (no float64 detour) except where snake's derivative cancels."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import torch

from nonlin.ops.torch_compiled import (
    HALF_FLOAT64_SINCOS_ENTRIES,
    NARROW_COMPILED_TORCH,
    CompiledTorchOps,
    ops_for,
    tanh_float64_narrow,
)

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning")]


def _inputs() -> torch.Tensor:
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 0x7F800000, 3000, dtype=np.uint32)  # every finite float32 magnitude
    x = bits.view(np.float32).astype(np.float64) * rng.choice([-1.0, 1.0], 3000)
    near = np.linspace(0.0099, 0.0101, 201)  # the switch to the polynomial, where 1 - e^{-2|x|} cancels most
    dense = rng.uniform(-20, 20, 2000)
    edges = [0.0, 1e-45, 1e-300, 0.01, 0.5, 19.0, 20.0, 400.0, 1e308, math.inf]
    x = np.concatenate([x, near, -near, dense, edges, [-v for v in edges]])
    return torch.tensor(x, dtype=torch.float64)


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_tanh_float64_narrow_is_float64_accurate(compiled):
    x = torch.cat([_inputs(), torch.tensor([math.nan, -0.0], dtype=torch.float64)])
    fn = torch.compile(tanh_float64_narrow, dynamic=False) if compiled else tanh_float64_narrow
    got = fn(x)
    with mpmath.workdps(40):
        exact = [
            float(mpmath.tanh(mpmath.mpf(v))) if math.isfinite(v) else math.copysign(1.0, v) for v in x[:-2].tolist()
        ]
    exact = torch.tensor(exact, dtype=torch.float64)
    rel = ((got[:-2] - exact).abs() / exact.abs().clamp_min(1e-308)).max().item()
    assert rel <= 4e-15, f"tanh_float64_narrow: {rel:.3g} relative (float32 outputs need < 1e-9)"
    assert torch.equal(got[:-2].float(), exact.float())  # the float32 results are the correctly rounded ones
    assert math.isnan(got[-2].item()) and math.copysign(1.0, got[-1].item()) == -1.0


def test_narrow_namespace_tanh_per_dtype():
    x = _inputs()
    torch.testing.assert_close(NARROW_COMPILED_TORCH.tanh(x), tanh_float64_narrow(x), rtol=0, atol=0)
    x32 = x.float()
    torch.testing.assert_close(NARROW_COMPILED_TORCH.tanh(x32), CompiledTorchOps.tanh(x32), rtol=0, atol=0)


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "inductor"])
def test_narrow_expm1_is_accurate_for_narrow_outputs(compiled):
    """The narrow namespace's float64 expm1 (e^x - 1, Taylor's polynomial below 2^-5): within 2^-47 relative
    of mpmath over every binade, the switch included (Kahan's form, for float64 outputs, is within 2^-51), so
    its float32 rounding is the correctly rounded value but where that is within 2^-23 of a midpoint; IEEE's
    values at the infinities, NaN and signed zeros."""
    x = torch.cat([_inputs(), torch.linspace(-0.0315, 0.0315, 4001, dtype=torch.float64)])
    x = x[x.abs() < 700]  # (e^x overflows beyond 709.78, where expm1 is inf alike)
    fn = torch.compile(NARROW_COMPILED_TORCH.expm1, dynamic=False) if compiled else NARROW_COMPILED_TORCH.expm1
    got = fn(x)
    with mpmath.workdps(40):
        exact = torch.tensor([float(mpmath.expm1(mpmath.mpf(v))) for v in x.tolist()], dtype=torch.float64)
    nonzero = exact != 0
    rel = ((got - exact)[nonzero].abs() / exact[nonzero].abs()).max().item()
    assert rel <= 2.0**-47, f"narrow expm1: {rel:.3g} relative"
    edges = torch.tensor([math.inf, -math.inf, math.nan, 0.0, -0.0, 800.0, -800.0], dtype=torch.float64)
    torch.testing.assert_close(fn(edges), torch.expm1(edges), rtol=0, atol=0, equal_nan=True)
    assert math.copysign(1.0, fn(edges)[4].item()) == -1.0


@pytest.mark.parametrize("entry", ["siren", "snake"])
def test_half_namespace_sin_cos(entry):
    x = torch.linspace(-50, 50, 1001)
    ops = ops_for(torch.bfloat16, entry)
    for op in ("sin", "cos"):
        f = getattr(torch, op)
        want = f(x.double()).float() if entry in HALF_FLOAT64_SINCOS_ENTRIES else f(x)
        torch.testing.assert_close(getattr(ops, op)(x), want, rtol=0, atol=0)
