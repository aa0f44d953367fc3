"""Every pointwise and gated entry's generated Triton kernels (forward and backward) against the mpmath
reference, under the interpreter: float32, float16 and bfloat16, sizes that are not multiples of the
block, non-contiguous views, packed and split gated inputs."""

from __future__ import annotations

import pytest
import torch
from kernel_helpers import DTYPES, FUSED, GOAL, gen, grid, needs_triton, ref_gated, ref_pointwise, ulp_error

import nonlin
from nonlin.autograd import compute_dtype
from nonlin.kernels import use

pytestmark = [needs_triton, pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")]
F = nonlin.functional
slow = pytest.mark.slow


@pytest.fixture
def triton_fused():
    with use("fused", backend="triton"):
        yield


def _noncontiguous(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A leaf [n, 2] and its column 0: a strided view with the values of x."""
    base = torch.zeros(x.shape[0], 2, dtype=x.dtype)
    base[:, 0] = x
    base.requires_grad_(True)
    return base, base[:, 0]


def _check(what: str, got: torch.Tensor, ref, goal: float, name: str, inputs: torch.Tensor) -> None:
    err = ulp_error(got, ref)
    worst = int(err.argmax())
    assert err.max() <= goal, (
        f"{name} {what} {got.dtype}: {err.max():.3g} ULP at input {inputs.ravel()[worst].item()!r}: "
        f"got {got.ravel()[worst].item()!r}, reference {float(ref.ravel()[worst])!r}"
    )


POINTWISE = nonlin.names("pointwise")
GATED = nonlin.names("gated")
# The interpreter costs ~0.1 s per kernel call, so the default run checks every entry in float32, and the
# half types on every gated entry and a pointwise sample covering each family (half loads, float32 math
# and rounding stores are the same code for all entries); the rest is marked slow.
HALF_SAMPLE = {
    "relu",
    "gelu",
    "mish",
    "swish",
    "rational",
    "snake",
    "sign",
    "xatlu",
    "softsign",
    "erf",
    "stochastic_silu_relu",
    "golu",
}


def _dtype_cases(names: list[str]) -> list:
    cases = []
    for n in names:
        for dt in DTYPES:
            sample = dt == torch.float32 or n in HALF_SAMPLE or nonlin.spec(n).kind is nonlin.Kind.GATED
            cases.append(pytest.param(n, dt, id=f"{n}-{str(dt)[6:]}", marks=() if sample else slow))
    return cases


@pytest.mark.parametrize(("name", "dtype"), _dtype_cases(POINTWISE))
def test_pointwise_kernel_matches_reference(name, dtype, triton_fused):
    s = nonlin.spec(name)
    f = F.function(name)
    x = grid(dtype)
    base, xv = _noncontiguous(x)
    go = torch.randn(x.shape, generator=gen(1)).to(dtype)
    kw, u = {}, None
    if s.stochastic:  # training mode: the draw u is an input of the kernel
        kw = {"training": True, "generator": gen(2)}
        u = torch.rand(x.shape, generator=gen(2), dtype=compute_dtype(dtype))
    y = f(xv, **kw)
    (gbase,) = torch.autograd.grad(y, base, go)
    fwd_goal, bwd_goal = GOAL[dtype]
    _check("forward", y, ref_pointwise(name, x, u), fwd_goal, name, x)
    dref = ref_pointwise(name, x, u, derivative=True) * go.double().numpy()
    _check("backward", gbase[:, 0], dref, bwd_goal, name, x)
    assert torch.all(gbase[:, 1] == 0)


@pytest.mark.parametrize(("name", "dtype"), _dtype_cases(GATED))
def test_gated_kernel_matches_reference(name, dtype, triton_fused):
    s = nonlin.spec(name)
    f = F.function(name)
    rows, d = 3, 33
    g = grid(dtype, rows * d).reshape(rows, d)
    v = (torch.randn(rows, d, generator=gen(3)) * 2).to(dtype)
    kw = {"c": torch.rand(rows, 1, generator=gen(4)).to(dtype)} if s.extra_inputs else {}
    packed = torch.cat([g, v], dim=-1).requires_grad_(True)
    go = torch.randn(rows, d, generator=gen(5)).to(dtype)
    y = f(packed, layout="gate_value", **kw)  # [gate | value] (glu's default is torch's value first)
    (dp,) = torch.autograd.grad(y, packed, go)
    yr, dgr, dvr = ref_gated(name, g, v, kw.get("c"))
    fwd_goal, bwd_goal = GOAL[dtype]
    _check("forward", y, yr, fwd_goal, name, g)
    gor = go.double().numpy().ravel()
    _check("d/dgate", dp[:, :d], dgr * gor, bwd_goal, name, g)
    _check("d/dvalue", dp[:, d:], dvr * gor, bwd_goal, name, g)

    if dtype != torch.float32:
        return  # the layouts share one kernel: checking them in one dtype is enough
    # Split, non-contiguous inputs: the same numbers as the packed layout.
    gs = g.t().contiguous().t().requires_grad_(True)
    vs = v.t().contiguous().t().requires_grad_(True)
    assert not gs.is_contiguous()
    y2 = f(gs, vs, **kw)
    dg2, dv2 = torch.autograd.grad(y2, (gs, vs), go)
    assert torch.equal(y2, y)
    assert torch.equal(dg2, dp[:, :d]) and torch.equal(dv2, dp[:, d:])


F64_SAMPLE = {"gelu", "rational", "xatlu", "swiglu", "kappa_swiglu", "gpt_oss_swiglu"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=() if n in F64_SAMPLE else slow) for n in FUSED])
def test_float64_kernel_equals_eager(name, triton_fused):
    """float64 inputs: the kernel runs the eager path's operations in the same order, so it agrees with it
    to a few ULP (libdevice, or scipy under the interpreter, and torch differ by a few ULP in erfc's far
    tail and in the form of the sigmoid)."""
    s = nonlin.spec(name)
    f = F.function(name)
    if s.kind is nonlin.Kind.GATED:
        x = torch.randn(2, 2 * 17, generator=gen(6), dtype=torch.float64) * 3
        kw = {"c": torch.rand(2, 1, generator=gen(7), dtype=torch.float64)} if s.extra_inputs else {}
    else:
        x = grid(torch.float64)
        kw = {}
    x.requires_grad_(True)
    y = f(x, **kw)
    (gx,) = torch.autograd.grad(y.sum(), x)
    with use("eager"):
        ye = f(x, **kw)
        (ge,) = torch.autograd.grad(ye.sum(), x)
    assert torch.allclose(y, ye, rtol=1e-13, atol=1e-300, equal_nan=True)
    assert torch.allclose(gx, ge, rtol=1e-13, atol=1e-300, equal_nan=True)


def test_empty_and_zero_dim_inputs(triton_fused):
    y = F.mish(torch.empty(0, 3))
    assert y.shape == (0, 3)
    x = torch.tensor(0.5, requires_grad=True)
    y = F.gelu(x)
    (gx,) = torch.autograd.grad(y, x)
    with use("eager"):
        assert torch.equal(y, F.gelu(x.detach()))
    assert y.shape == () and gx.shape == ()


# bf16 inputs compute in float32 on the Triton path: beyond FLT_MAX / |w| the product w x overflows (siren's
# 30 x from 1.1e37), where sin(w x) is still a number; the CPU forms take five double-angle steps of (w / 32) x
# there (ops.torch_backend.sin_cos_of_product) and so must the kernels.
_HUGE_BF16 = torch.tensor(
    [2.5e30, -2.5e30, 1.2e37, -1.2e37, 3.0e38, -3.3e38, 1.0e38, 7.0e37, 2.0e36, -5.0e37], dtype=torch.float64
).to(torch.bfloat16)


@pytest.mark.parametrize("name", ["siren", "snake", "snake_beta"])
def test_sin_of_a_product_beyond_float32s_range(name, triton_fused):
    x = _HUGE_BF16.clone().requires_grad_(True)
    y = F.function(name)(x)
    (g,) = torch.autograd.grad(y, x, torch.ones_like(y))
    _check("forward", y, ref_pointwise(name, _HUGE_BF16), 1.0, name, _HUGE_BF16)
    _check("backward", g, ref_pointwise(name, _HUGE_BF16, derivative=True), 1.0, name, _HUGE_BF16)
