"""Every pointwise entry, the same way: forward and derivative against the mpmath reference, the derivative
formula against mpmath's numerical derivative of the forward, gradcheck, finiteness in every dtype, IEEE
behaviour at NaN and infinities, agreement with torch where torch has the function."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import torch
from catalog_grids import GENERIC, grid_for, reference, rel_err, value_and_grad, worst

import nonlin
from nonlin import reference as R

POINTWISE = nonlin.names("pointwise")
RULE_BASED = [n for n in POINTWISE if nonlin.spec(n).gradient_rule]
STOCHASTIC = [n for n in POINTWISE if nonlin.spec(n).stochastic]


@pytest.mark.parametrize("name", POINTWISE)
def test_forward_matches_reference_float64(name):
    x = grid_for(name)
    y, _ = value_and_grad(name, x)
    ref = reference(name, x)
    assert rel_err(y, ref).max() <= 1e-12, worst(y, ref, x)


@pytest.mark.parametrize("name", POINTWISE)
def test_derivative_matches_reference_float64(name):
    x = grid_for(name)
    _, dy = value_and_grad(name, x)
    ref = reference(name, x, derivative=True)
    assert rel_err(dy, ref).max() <= 1e-9, worst(dy, ref, x)


# |x| from 1e4 to the largest float64 (the grid above stops at 1e4), with products that are not exact (odd
# mantissas): sin(30 x) of the rounded product was off by its whole value beyond 1e16 and overflowed beyond
# 6e306; 1/(1 + x^2) and 1/(1 + |x|)^2 gave 0 where the true value is subnormal; x + s overflowed.
_FAR = np.concatenate([np.logspace(4, 307, 80), [3e15 + 1, 1.2345678901234567e17, 9.87654321e22, 1.7e308]])
FAR_TAILS = np.unique(np.concatenate([-_FAR, _FAR]))


@pytest.mark.parametrize("name", [n for n in POINTWISE if not nonlin.spec(n).stochastic])
def test_far_tails_match_reference_float64(name):
    y, dy = value_and_grad(name, FAR_TAILS)
    ref, dref = reference(name, FAR_TAILS), reference(name, FAR_TAILS, derivative=True)
    assert rel_err(y, ref).max() <= 1e-12, worst(y, ref, FAR_TAILS)
    assert rel_err(dy, dref).max() <= 1e-9, worst(dy, dref, FAR_TAILS)


@pytest.mark.parametrize("name", [n for n in POINTWISE if n not in RULE_BASED])
def test_declared_derivative_is_the_derivative(name):
    """The declared derivative body against mpmath's numerical derivative of the forward body (an
    independent check of the formula itself), at points away from breakpoints."""
    s = nonlin.spec(name)
    bps = s.breakpoints(**s.defaults())
    for x in GENERIC:
        if any(abs(x - b) < 1e-3 for b in bps):
            continue
        with mpmath.workdps(80):  # f' can be 1e-40 of f (erf at 9.5): differencing needs the digits
            numeric = mpmath.diff(lambda t: R.pointwise(name, t, dps=None), mpmath.mpf(x))
        declared = R.pointwise(name, x, derivative=True, dps=80)
        # 1e-13: float constants in a body (0.044715, 1 - alpha) are rounded once in Python; a wrong formula is off by far more.
        # 1e-60 |f|: differencing at 80 digits cannot see f' below that (laplace at 9.5: f = 1 - 1e-211, f' = 1e-211).
        scale = abs(R.pointwise(name, x, dps=80))
        assert abs(declared - numeric) <= 1e-13 * abs(numeric) + 1e-60 * scale + 1e-300, (x, declared, numeric)


@pytest.mark.parametrize("name", [n for n in POINTWISE if n not in RULE_BASED])
def test_gradcheck_float64(name):
    s = nonlin.spec(name)
    bps = s.breakpoints(**s.defaults())
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(24, generator=gen, dtype=torch.float64) * 3
    x = x[torch.stack([(x - b).abs() > 1e-3 for b in bps]).all(0)] if bps else x  # finite differences need smoothness
    f = nonlin.functional.function(name)
    assert torch.autograd.gradcheck(f, (x.requires_grad_(),))
    assert torch.autograd.gradgradcheck(f, (x,)), "double backward (through the derivative body)"


@pytest.mark.parametrize("name", RULE_BASED)
def test_rule_based_gradient_is_the_documented_rule(name):
    """Straight-through and hysteresis entries: the backward is the rule, which differs from the forward's
    derivative somewhere (otherwise the entry should not declare a rule)."""
    s = nonlin.spec(name)
    assert s.gradient_rule and "gradient_rule" in s.properties
    x = np.linspace(-3, 3, 601)
    y, dy = value_and_grad(name, x)
    rule = reference(name, x, derivative=True)
    assert rel_err(dy, rule).max() <= 1e-12, worst(dy, rule, x)
    fd = np.gradient(y, x)
    assert np.abs(fd - dy).max() > 0.1, "the rule should differ from the forward's derivative somewhere"


def _dtype_grid(dtype: torch.dtype) -> np.ndarray:
    top = 1e4 if dtype in (torch.float32, torch.float64) else float(torch.finfo(dtype).max)
    mag = np.unique(np.concatenate([np.logspace(-6, math.log10(top), 120), np.linspace(0.1, 20, 60)]))
    x = np.concatenate([-mag, [0.0], mag])
    return torch.tensor(x, dtype=torch.float64).to(dtype).double().numpy()  # representable in dtype


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("name", POINTWISE)
def test_finite_wherever_the_true_value_is_finite(name, dtype):
    x = _dtype_grid(dtype)
    y, dy = value_and_grad(name, x, dtype=dtype)
    big = float(torch.finfo(dtype).max)
    for what, got, ref in (("f", y, reference(name, x)), ("f'", dy, reference(name, x, derivative=True))):
        should = np.isfinite(ref) & (np.abs(ref) < big)
        bad = should & ~np.isfinite(got)
        assert not bad.any(), f"{what} not finite at x={x[bad][:5]} (reference {ref[bad][:5]})"


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("name", POINTWISE)
def test_half_and_single_precision_close_to_reference(name, dtype):
    """A loose sanity bound (a few ULPs of the dtype) on a moderate grid; nonlin.accuracy measures exactly."""
    x = torch.linspace(-8, 8, 257, dtype=torch.float64).to(dtype).double().numpy()
    y, _ = value_and_grad(name, x, dtype=dtype)
    ref = torch.tensor(reference(name, x)).to(dtype).double().numpy()  # correctly rounded to dtype
    eps = float(torch.finfo(dtype).eps)
    tiny = float(torch.finfo(dtype).tiny)
    ok = np.abs(y - ref) <= 2 * eps * np.abs(ref) + tiny
    assert ok.all(), worst(y, ref, x)


def _limit(name: str, sign: float, derivative: bool) -> float:
    """The value at +-inf: the reference at +-1e300 when it settles, else the signed infinity."""
    r = R.to_float(R.pointwise(name, sign * 1e300, derivative=derivative))
    r2 = R.to_float(R.pointwise(name, sign * 1e301, derivative=derivative))
    if abs(r) > 1e250:
        return math.copysign(math.inf, r)
    if abs(r - r2) <= 1e-12 * max(abs(r), 1e-300):
        return r
    # still moving between 1e300 and 1e301: towards 0 (squareplus at -inf, ~1/|x|) or without bound, slowly
    # (symlog's log |x|)
    return math.copysign(0.0 if abs(r2) < abs(r) else math.inf, r)


@pytest.mark.parametrize("name", POINTWISE)
def test_nan_and_infinities(name):
    f = nonlin.functional.function(name)
    nan = f(torch.tensor([math.nan], dtype=torch.float64))
    assert torch.isnan(nan).all(), "NaN in must give NaN out"
    periodic = "periodic" in nonlin.spec(name).properties
    for sign in (-1.0, 1.0):
        x = torch.tensor([sign * math.inf], dtype=torch.float64, requires_grad=True)
        y = f(x)
        (dy,) = torch.autograd.grad(y.sum(), x)
        for what, got, derivative in (("f", y.item(), False), ("f'", dy.item(), True)):
            if periodic and math.isnan(got):
                continue  # sin(inf) is NaN in IEEE arithmetic: no limit to honour
            want = _limit(name, sign, derivative)
            assert got == want or (math.isfinite(want) and abs(got - want) <= 1e-12 * abs(want)), (
                f"{what}({sign * math.inf}) = {got}, expected {want}"
            )


WITH_TORCH = [n for n in POINTWISE if nonlin.spec(n).torch_equivalent is not None]


@pytest.mark.parametrize("name", WITH_TORCH)
def test_agrees_with_torch_and_is_at_least_as_accurate(name):
    x = np.linspace(-12, 12, 481)
    y, _ = value_and_grad(name, x)
    ref = reference(name, x)
    theirs = nonlin.spec(name).torch_equivalent(torch.tensor(x)).double().numpy()
    assert np.allclose(y, theirs, rtol=1e-9, atol=1e-12), worst(y, theirs, x)
    assert rel_err(y, ref).max() <= rel_err(theirs, ref).max() + 1e-15


def test_torch_gelu_tail_is_where_nonlin_is_better():
    """The headline case: torch's float32 gelu(-6) is 0; the true value is about -5.92e-9."""
    x = torch.tensor([-6.0])
    ours = nonlin.functional.gelu(x).item()
    assert ours == pytest.approx(float(R.pointwise("gelu", -6.0)), rel=1e-7)
    assert ours < 0


@pytest.mark.parametrize("name", STOCHASTIC)
def test_stochastic_entries_honour_mode_and_generator(name):
    f = nonlin.functional.function(name)
    x = torch.linspace(-3, 3, 4001, dtype=torch.float64)
    ev = f(x)  # eval mode by default: deterministic, the eval-mode reference
    assert np.array_equal(ev.numpy(), reference(name, x.numpy()))
    a = f(x, training=True, generator=torch.Generator().manual_seed(1))
    b = f(x, training=True, generator=torch.Generator().manual_seed(1))
    c = f(x, training=True, generator=torch.Generator().manual_seed(2))
    assert torch.equal(a, b) and not torch.equal(a, c)
    # each training output equals the reference at its own draw u
    gen = torch.Generator().manual_seed(1)
    u = torch.rand(x.shape, generator=gen, dtype=torch.float64)
    for i in range(0, 4001, 250):
        assert a[i].item() == pytest.approx(float(R.pointwise(name, x[i].item(), u=u[i].item())), rel=1e-12, abs=1e-300)
    call = f(x, training=True, per_element=False, generator=torch.Generator().manual_seed(3))
    single = [f(x, training=True, per_element=False, generator=torch.Generator().manual_seed(s)) for s in range(20)]
    assert any(not torch.equal(single[0], s) for s in single), "one draw per call still varies across calls"
    assert call.shape == x.shape


def test_every_alias_resolves_and_torch_names_work():
    for alias, canonical in nonlin.aliases().items():
        assert nonlin.resolve(alias) == canonical
    assert nonlin.spec("gelu_new").name == "gelu_tanh"
    assert nonlin.spec("SiLU").name == "silu"
    assert nonlin.spec("nn.GELU").name == "gelu"
    assert nonlin.get("gelu_new").spec.name == "gelu_tanh"
