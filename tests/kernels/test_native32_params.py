"""The hand-written float32 kernels compiled per parameter value (nonlin.kernels.native32.PARAMETRIZED: elu at any
alpha, softplus at any beta in [2^-60, 2^60]): accuracy against the entry's float64 formula on every binade and the edges, the plain
form's bits, and the route of a call at that value, eager and inside torch.compile."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_native32 import EDGES, _inputs, _plain_sample, _same_bits, _ulp_error, _with_a_nan_lane, needs_kernels

import nonlin
import nonlin.functional as F
from nonlin import route
from nonlin.kernels import dispatch, native32
from nonlin.kernels.codegen import plan
from nonlin.ops import TORCH

# (forward, backward) float32 ULP, measured over VALUES on this file's sample plus 1-2M dense points
# (notes/2026-12-06d/params_ulp.py): elu 0.79 / 0.83 (alpha (e^x - 1) as hi + lo rounded once, alpha itself to
# 2^-48; the bounds of elu's kernel at alpha 1), softplus 0.511 / 0.504 (in doubles to 2^-30, rounded once)
BOUNDS = {"elu": (0.9, 0.95), "softplus": (0.52, 0.51)}
VALUES = (2.0**-60, 0.1, 0.5, 1.7, 2.0, 1000.0, 2.0**60)
CASES = [(base, value) for base in sorted(native32.PARAMETRIZED) for value in VALUES]


def _name(base: str, value: float) -> str:
    return f"{base}@{value.hex()}"


def _reference(base: str, value: float, x: torch.Tensor, go: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """The entry's float64 formula and go times its float64 derivative at the value (1e-16 relative)."""
    kernel = native32.PARAMETRIZED[base]
    s = nonlin.spec(kernel.entry)
    params = {**s.defaults(), kernel.param: value}
    x64 = x.double()
    return s.forward(TORCH, x64, **params).numpy(), (go.double() * s.derivative(TORCH, x64, **params)).numpy()


@needs_kernels
@pytest.mark.parametrize(("base", "value"), CASES)
def test_parametrized_kernels_are_within_their_bounds(base, value):
    x = torch.from_numpy(np.concatenate([_inputs(65521), np.float32(EDGES)]))
    go = torch.randn(x.shape, generator=torch.Generator().manual_seed(11))
    name = _name(base, value)
    ref = _reference(base, value, x, go)
    for y, ref64, bound in zip(
        (native32.forward(name, x), native32.backward(name, go, x)), ref, BOUNDS[base], strict=True
    ):
        want = torch.from_numpy(ref64).float()
        assert torch.equal(y.isnan(), want.isnan())
        fin = ~want.isnan()
        err = _ulp_error(y[fin].numpy(), ref64[fin.numpy()])
        assert err.max() <= bound, (err.max(), x[fin][err.argmax()])
        exact = fin & ((want == 0) | want.isinf())
        assert torch.equal(y[exact], want[exact])
        assert torch.equal(torch.signbit(y[fin]), torch.signbit(want[fin]))


@needs_kernels
@pytest.mark.parametrize(("base", "value"), CASES[:3])
def test_the_parametrized_plain_form_gives_the_full_forms_bits(base, value):
    name = _name(base, value)
    x, go = _plain_sample()
    keep = ~_with_a_nan_lane(torch.zeros_like(x)).isnan()
    assert _same_bits(native32.forward(name, x), native32.forward(name, _with_a_nan_lane(x))[keep])
    full = native32.backward(name, _with_a_nan_lane(go), _with_a_nan_lane(x))[keep]
    assert _same_bits(native32.backward(name, go, x), full)


def _of(entry: str, **params) -> str | None:
    return native32.primitive_of(plan(nonlin.spec(entry), "plain", tuple(sorted(params.items())), ()), fixed=False)


@needs_kernels
def test_the_form_decides_the_value():
    """elu's form at a value in range is the kernel at that value; out of range (0, negative: the kernel's result
    takes x's sign), or another form (celu's x / alpha inside the exponential), it is not; softplus's form holds
    its value at two leaves."""
    assert _of("elu", alpha=0.5) == "elu@0x1.0000000000000p-1"
    assert native32._parameter_of("elu@0x1.0000000000000p-1") == ("elu", 0.5)
    assert _of("elu", alpha=1e-19) is None and _of("elu", alpha=2.0**61) is None
    assert _of("elu", alpha=0.0) is None and _of("elu", alpha=-1.0) is None
    assert _of("celu", alpha=2.0) is None and _of("selu") is None
    assert _of("softplus", beta=2.0) == "softplus@0x1.0000000000000p+1"
    assert _of("softplus", beta=1.0) is None  # (the default: softplus(x) once the unit factors are gone)
    # the defaults keep the fixed kernels: elu at alpha 1 is "elu", whose form the FORMS hold
    assert native32.primitive_of(plan(nonlin.spec("elu"), "plain", (("alpha", 1.0),), ())) == "elu"


@needs_kernels
@pytest.mark.parametrize(("base", "value"), [(b, 0.5) for b in sorted(native32.PARAMETRIZED)])
def test_calls_at_the_value_take_the_kernels(base, value):
    """A float32 call at another value than the default (which the route table's torch row does not cover) takes
    the kernel compiled for that value, forward and backward, eagerly and inside a caller's torch.compile, and
    saves the input alone."""
    kernel = native32.PARAMETRIZED[base]
    name = _name(base, value)
    s = nonlin.spec(kernel.entry)
    params = {kernel.param: value}
    assert dispatch.job_for(s, torch.float32, {**s.defaults(), **params}).native == name
    assert dispatch.job_for(s, torch.float64, {**s.defaults(), **params}).native is None
    x = (torch.randn(route.LARGE_NUMEL, generator=torch.Generator().manual_seed(12)) * 5).requires_grad_()
    go = torch.randn(x.shape, generator=torch.Generator().manual_seed(13))
    f = F.function(kernel.entry)
    saved = []
    with (
        route.recording() as taken,
        torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t),
    ):
        y = f(x, **params)
    assert taken[0][5] == "fused"
    assert torch.equal(y, native32.forward(name, x.detach()))
    assert len(saved) == 1 and saved[0].data_ptr() == x.data_ptr()
    y.backward(go)
    assert torch.equal(x.grad, native32.backward(name, go, x.detach()))

    xc = x.detach()[:3000].clone().requires_grad_()
    torch._dynamo.reset()
    yc = torch.compile(lambda t: f(t, **params) * 1.0, fullgraph=True)(xc)
    yc.backward(go[:3000])
    assert torch.equal(yc, native32.forward(name, xc.detach()))
    assert torch.equal(xc.grad, native32.backward(name, go[:3000].contiguous(), xc.detach()))
