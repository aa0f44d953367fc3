"""Every gated entry, the same way: value and both partial derivatives against the reference, packed and
split forms, gradcheck, torch agreement, finiteness in every dtype."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from catalog_grids import rel_err

import nonlin
from nonlin import reference as R

GATED = nonlin.names("gated")
_VALS = [-1e4, -300.0, -30.0, -5.0, -1.3, -0.2, -1e-7, 0.0, 1e-7, 0.2, 1.3, 5.0, 30.0, 300.0, 1e4]


def _inputs(name, dtype=torch.float64, requires_grad=True):
    g, v = zip(*itertools.product(_VALS, [-2.5, -1e-3, 0.0, 0.7, 40.0]), strict=True)
    g = torch.tensor(g, dtype=torch.float64).to(dtype).requires_grad_(requires_grad)
    v = torch.tensor(v, dtype=torch.float64).to(dtype).requires_grad_(requires_grad)
    extra = (
        {"c": torch.linspace(-1, 1, g.numel(), dtype=torch.float64).to(dtype)} if nonlin.spec(name).extra_inputs else {}
    )
    return g, v, extra


@pytest.mark.parametrize("name", GATED)
def test_value_and_partials_match_reference_float64(name):
    g, v, extra = _inputs(name)
    y = nonlin.functional.function(name)(g, v, **extra)
    dg, dv = torch.autograd.grad(y.sum(), (g, v))
    cs = extra["c"].tolist() if extra else [None] * g.numel()
    ref = [R.gated(name, a, b, c=c) for a, b, c in zip(g.tolist(), v.tolist(), cs, strict=True)]
    for i, got in enumerate((y, dg, dv)):
        want = np.array([float(r[i]) for r in ref])
        tol = 1e-12 if i == 0 else 1e-9
        err = rel_err(got.detach().numpy(), want)
        assert err.max() <= tol, (
            ("value", "d/dg", "d/dv")[i],
            err.max(),
            g[err.argmax()].item(),
            v[err.argmax()].item(),
        )


@pytest.mark.parametrize("name", GATED)
def test_every_packed_layout_equals_split(name):
    gen = torch.Generator().manual_seed(0)
    g, v = torch.randn(2, 3, 5, 4, generator=gen, dtype=torch.float64)
    extra = {"c": torch.rand(3, 5, 4, generator=gen, dtype=torch.float64)} if nonlin.spec(name).extra_inputs else {}
    f = nonlin.functional.function(name)
    want = f(g, v, **extra)
    packs = {
        "gate_value": torch.cat([g, v], -1),
        "value_gate": torch.cat([v, g], -1),
        "interleaved": torch.stack([g, v], -1).reshape(3, 5, 8),  # gpt-oss: g = x[..., ::2], v = x[..., 1::2]
    }
    for layout, packed in packs.items():
        assert torch.equal(f(packed, layout=layout, **extra), want), layout
        along_1 = packed.movedim(-1, 1)  # [3, 8, 5]: the halves along dim 1
        c = {k: t.movedim(-1, 1) for k, t in extra.items()}
        assert torch.equal(f(along_1, dim=1, layout=layout, **c), want.movedim(-1, 1)), layout
    # Gate first by default; torch's glu (and so nonlin's glu, the same name) packs the value first.
    record = nonlin.registry.convention(name)
    default = record.defaults.get("layout", "gate_value") if record else "gate_value"
    assert default == ("value_gate" if name == "glu" else "gate_value")
    assert torch.equal(f(packs[default], **extra), want)


@pytest.mark.parametrize("route", ["eager", "fused"])
@pytest.mark.parametrize("layout", ["gate_value", "value_gate", "interleaved"])
@pytest.mark.parametrize("dim", [-1, 1])
def test_packed_gradients_keep_the_sign_of_zero(layout, dim, route):
    """swiglu at g = -200 (v = 1): both partials are negative and round to -0.0 in float32, and the packed
    input's gradient holds them as they are (two slices' gradients, zero-padded and added, gave +0.0)."""
    packed = torch.tensor([-200.0, 1.0], dtype=torch.float32).repeat(3, 4, 1)  # [3, 4, 2]: (g, v) pairs
    packed = {"gate_value": packed, "value_gate": packed.flip(-1), "interleaved": packed}[layout]
    packed = packed.reshape(3, 8) if layout == "interleaved" else packed.transpose(-1, -2).reshape(3, 8)
    packed = (packed if dim == -1 else packed.movedim(-1, 1).unsqueeze(-1).contiguous()).requires_grad_()
    with nonlin.kernels.use(route):
        y = nonlin.functional.swiglu(packed, dim=dim, layout=layout)
        (grad,) = torch.autograd.grad(y, packed, torch.ones_like(y))
    assert (grad == 0).all() and torch.signbit(grad).all(), grad


@pytest.mark.parametrize("name", GATED)
def test_gradcheck_float64(name):
    s = nonlin.spec(name)
    gen = torch.Generator().manual_seed(1)
    g = torch.randn(10, generator=gen, dtype=torch.float64) * 2
    for b in s.breakpoints(**s.defaults()):
        g = torch.where((g - b).abs() < 1e-3, g + 0.01, g)
    v = torch.randn(10, generator=gen, dtype=torch.float64).clamp(-5, 5)
    inputs = [g.requires_grad_(), v.requires_grad_()]
    if s.extra_inputs:
        inputs.append(torch.randn(10, generator=gen, dtype=torch.float64).requires_grad_())
        params = {p.name: torch.tensor(0.3, dtype=torch.float64, requires_grad=True) for p in s.learnable_params}
        fn = lambda g, v, c, *ps: nonlin.functional.function(name)(g, v, c=c, **dict(zip(params, ps, strict=True)))
        inputs += list(params.values())
    else:
        fn = nonlin.functional.function(name)
    assert torch.autograd.gradcheck(fn, tuple(inputs))


@pytest.mark.parametrize("name", [n for n in GATED if nonlin.spec(n).torch_equivalent is not None])
def test_agrees_with_torch(name):
    g, v, _ = _inputs(name, requires_grad=False)
    ours = nonlin.functional.function(name)(g, v)
    theirs = nonlin.spec(name).torch_equivalent(g, v)
    assert torch.allclose(ours, theirs, rtol=1e-9, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("name", GATED)
def test_finite_in_every_dtype(name, dtype):
    big = float(torch.finfo(dtype).max)
    g, v, extra = _inputs(name, dtype=torch.float64, requires_grad=False)
    keep = (g.abs() < big**0.5) & (v.abs() < big**0.5)  # products of two inputs stay in range
    g, v = g[keep].to(dtype).requires_grad_(), v[keep].to(dtype).requires_grad_()
    extra = {k: t[keep].to(dtype) for k, t in extra.items()}
    y = nonlin.functional.function(name)(g, v, **extra)
    dg, dv = torch.autograd.grad(y.float().sum(), (g, v))
    for t in (y, dg, dv):
        assert torch.isfinite(t).all()
        assert t.dtype == dtype


def test_glu_matches_torch_glu_with_its_value_first_convention():
    x = torch.randn(4, 6, dtype=torch.float64)
    # torch: first half value, second half gate; nonlin: gate first.
    assert torch.allclose(nonlin.functional.glu(x[:, 3:], x[:, :3]), torch.nn.functional.glu(x, dim=-1))


@pytest.mark.parametrize("name", [n for n in GATED if nonlin.spec(n).gate is not None])
def test_a_declared_gate_is_the_forward_over_v(name):
    """`Spec.gate` says forward = gate(g) * v: the half-type tables compute from it alone, so it must agree
    with the declared forward and derivative (float64, bit for bit: the same primitives in the same order)."""
    from nonlin.ops import TORCH

    s = nonlin.spec(name)
    gate, gate_grad = s.gate
    g = torch.tensor(_VALS * 5, dtype=torch.float64)
    v = torch.tensor([-2.5, -1e-3, 0.0, 0.7, 40.0] * len(_VALS), dtype=torch.float64)
    p = s.defaults()
    assert torch.equal(s.forward(TORCH, g, v, **p), gate(TORCH, g, **p) * v)
    dg, dv = s.derivative(TORCH, g, v, **p)
    assert torch.equal(dg, gate_grad(TORCH, g, **p) * v)
    assert torch.equal(dv, torch.as_tensor(gate(TORCH, g, **p)).expand_as(dv))
