"""Module forms: learnable parameters are real nn.Parameters with the documented init and correct gradients;
stochastic modules follow train/eval; gated and normalizer modules."""

from __future__ import annotations

import pytest
import torch

import nonlin

LEARNABLE = [n for n in nonlin.names() if nonlin.spec(n).learnable_params]


@pytest.mark.parametrize("name", LEARNABLE)
def test_learnable_parameters_are_parameters_with_documented_init(name):
    s = nonlin.spec(name)
    act = nonlin.get(name, learnable=True)
    params = dict(act.named_parameters())
    assert set(params) == {p.name for p in s.learnable_params}
    for p in s.learnable_params:
        assert params[p.name].item() == torch.tensor(p.default, dtype=torch.float32).item()
    default = nonlin.get(name)
    assert {n for n, _ in default.named_parameters()} == {p.name for p in s.learnable_params if p.learned_by_default}


@pytest.mark.parametrize("name", LEARNABLE)
def test_parameter_gradients_pass_gradcheck(name):
    s = nonlin.spec(name)
    gen = torch.Generator().manual_seed(0)
    ruled = dict(s.param_rules)  # gradients by a declared rule: test_parameter_gradient_rules
    params = {
        p.name: torch.tensor(p.default + 0.05, dtype=torch.float64, requires_grad=p.name not in ruled)
        for p in s.learnable_params
    }
    if not any(t.requires_grad for t in params.values()):
        pytest.skip("every learnable parameter of this entry has a gradient rule")
    f = nonlin.functional.function(name)
    if s.kind.value == "gated":
        g = torch.randn(6, generator=gen, dtype=torch.float64)
        v = torch.randn(6, generator=gen, dtype=torch.float64)
        extra = {"c": torch.rand(6, generator=gen, dtype=torch.float64)} if s.extra_inputs else {}
        fn = lambda *ps: f(g, v, **extra, **dict(zip(params, ps, strict=True)))
    else:
        x = torch.randn(12, generator=gen, dtype=torch.float64) * 2 + 0.01
        extra = {k: torch.randn(12, generator=gen, dtype=torch.float64) for k in s.extra_inputs}  # normalizers'
        fn = lambda *ps: f(x, **extra, **dict(zip(params, ps, strict=True)))
    assert torch.autograd.gradcheck(fn, tuple(params.values()))


RULED = [n for n in LEARNABLE if nonlin.spec(n).param_rules]


@pytest.mark.parametrize("name", RULED)
def test_parameter_gradient_rules(name):
    """A parameter with a declared rule gets sum(upstream * rule) from the mpmath rule body, per channel too,
    and the rule is not the forward's derivative (else it should not be a rule)."""
    from mpmath import mp

    from nonlin.ops import MPMATH

    s = nonlin.spec(name)
    p = s.defaults()
    x = torch.linspace(-2, 2, 4001, dtype=torch.float64)
    x = torch.cat([x, torch.tensor([b + d for b in s.breakpoints(**p) for d in (-1e-5, 1e-5)], dtype=torch.float64)])
    go = torch.rand(x.shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    for pname, rule in s.param_rules:
        t = {**p, pname: torch.tensor(p[pname], dtype=torch.float64, requires_grad=True)}
        (got,) = torch.autograd.grad((nonlin.functional.function(name)(x, **t) * go).sum(), t[pname])
        with mp.workdps(30):
            want = sum(float(g) * float(rule(MPMATH, mp.mpf(float(v)), **p)) for v, g in zip(x, go, strict=True))
        assert abs(got.item() - want) <= 1e-12 * max(1.0, abs(want)), (got, want)
        assert want != 0.0, "the test grid should reach where the rule is non-zero"
        act = nonlin.get(name, num_parameters=3, channel_dim=-1)
        act(x[:3000].reshape(1000, 3).float()).sum().backward()
        assert getattr(act, pname).grad.shape == (3,)


def test_prelu_per_channel_matches_torch():
    act = nonlin.get("prelu", num_parameters=3)
    ref = torch.nn.PReLU(3)
    with torch.no_grad():
        act.a.copy_(torch.tensor([0.1, 0.2, 0.3]))
        ref.weight.copy_(act.a)
    x = torch.randn(4, 3, 5, requires_grad=True)
    y, yr = act(x), ref(x)
    assert torch.allclose(y, yr)
    y.sum().backward()
    g = act.a.grad.clone()
    x.grad = None
    yr.sum().backward()
    assert torch.allclose(g, ref.weight.grad, atol=1e-5)


def test_per_channel_last_dim_for_transformers():
    act = nonlin.get("swish", learnable=True, num_parameters=8, channel_dim=-1)
    y = act(torch.randn(2, 5, 8))
    assert y.shape == (2, 5, 8)
    y.sum().backward()
    assert act.beta.grad.shape == (8,)


def test_stochastic_module_follows_train_and_eval():
    gen = torch.Generator().manual_seed(0)
    act = nonlin.get("stochastic_silu_relu", generator=gen)
    x = torch.randn(1000)
    act.eval()
    assert torch.equal(act(x), torch.relu(x))
    act.train()
    y = act(x)
    silu = nonlin.functional.silu(x)
    neg = x < -0.5  # where relu gives 0 and SiLU a negative value
    took = y[neg] < 0
    frac = took.float().mean().item()  # p = 0.5 of elements take SiLU
    assert 0.4 < frac < 0.6
    # (its SiLU and the functional one may round differently: each is within 2 ULP of the true value)
    torch.testing.assert_close(y[neg][took], silu[neg][took], rtol=2.0**-21, atol=0.0)
    assert torch.equal(y[neg][~took], torch.zeros_like(y[neg][~took]))


def test_gated_and_normalizer_modules():
    assert nonlin.get("swiglu")(torch.randn(2, 3, 16)).shape == (2, 3, 8)
    attn = nonlin.get("sparsemax", dim=-1)
    w = attn(torch.randn(2, 4, 4), mask=torch.tril(torch.ones(4, 4, dtype=torch.bool)))
    assert torch.allclose(w.sum(-1), torch.ones(2, 4))
    assert "sparsemax" in repr(attn)


def test_module_matches_functional_for_every_entry():
    x = torch.randn(3, 8, dtype=torch.float64)
    for name in nonlin.names():
        s = nonlin.spec(name)
        act = nonlin.get(name).eval()
        if s.kind is nonlin.Kind.GATED:
            extra = {"c": torch.ones(3, 4, dtype=torch.float64)} if s.extra_inputs else {}
        else:  # stochastic normalizers: the noise, given
            extra = {k: torch.full_like(x, 0.1) for k in s.extra_inputs}
        got = act(x, **extra)
        want = nonlin.functional.function(name)(x, **extra)
        assert torch.allclose(got.double(), want), name


@pytest.mark.parametrize("name", [n for n in LEARNABLE if any(p.shared for p in nonlin.spec(n).params)])
def test_shared_parameters_keep_one_value_per_channel_module(name):
    """num_parameters=C makes the per-channel parameters [C] and leaves `shared` ones (DyT's alpha) single; the
    module then equals the functional form with those values broadcast along channel_dim."""
    s = nonlin.spec(name)
    act = nonlin.get(name, learnable=True, num_parameters=5, channel_dim=-1)
    params = dict(act.named_parameters())
    for p in s.learnable_params:
        assert params[p.name].shape == ((1,) if p.shared else (5,)), p.name
    with torch.no_grad():
        for p in params.values():
            p.uniform_(0.2, 1.2)
    x = torch.randn(3, 5, dtype=torch.float32)
    want = nonlin.functional.function(name)(x, **{k: v.detach() for k, v in params.items()})
    assert torch.equal(act(x), want)
