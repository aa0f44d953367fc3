"""nonlin.init: drop-in torch.nn.init functions for any catalog name."""

import math

import pytest
import torch

import nonlin.init
from nonlin import theory


def test_matches_torch_where_torch_is_variance_preserving():
    for name, args in (("relu", ()), ("leaky_relu", (0.2,)), ("linear", ()), ("conv2d", ())):
        assert nonlin.init.calculate_gain(name, *args) == pytest.approx(torch.nn.init.calculate_gain(name, *args))
    # torch's tanh 5/3 and selu 3/4 are heuristics of another kind; nonlin gives the variance-preserving gain.
    assert nonlin.init.calculate_gain("tanh") == pytest.approx(theory.init_gain("tanh"))
    assert nonlin.init.calculate_gain("selu") == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("name", ["swiglu", "gelu", "shifted_relu", "mish"])
def test_kaiming_normal_std(name):
    w = torch.empty(512, 1024, dtype=torch.float64)
    g = torch.Generator().manual_seed(0)
    nonlin.init.kaiming_normal_(w, nonlinearity=name, generator=g)
    want = theory.init_gain(name) / math.sqrt(1024)
    # std of 512k normal samples: relative standard error 1e-3.
    assert w.std().item() == pytest.approx(want, rel=5e-3)
    u = torch.empty(512, 1024, dtype=torch.float64)
    nonlin.init.kaiming_uniform_(u, nonlinearity=name, generator=g)
    assert u.std().item() == pytest.approx(want, rel=5e-3)


@pytest.mark.parametrize("name", ["tanh", "selu"])
def test_kaiming_keeps_variance_through_deep_net(name):
    # The gain makes q = 1 a fixed point; where it is a stable one (V'(1) < 1, true for tanh and selu, not
    # for gelu or silu) 12 layers of a wide random net stay near it.
    assert theory.fixed_point(name, theory.init_gain(name), 0.0).slope_q < 1
    g = torch.Generator().manual_seed(1)
    h = torch.randn(32, 512, generator=g, dtype=torch.float64)
    f = nonlin.functional.function(name)
    for _ in range(12):
        w = torch.empty(512, 512, dtype=torch.float64)
        nonlin.init.kaiming_normal_(w, nonlinearity=name, generator=g)
        h = f(h) @ w.T
    assert (h * h).mean().item() == pytest.approx(1.0, rel=0.05)


def test_edge_of_chaos_init():
    lin = torch.nn.Linear(1024, 1024).double()
    sw, sb = nonlin.init.edge_of_chaos_(lin.weight, lin.bias, nonlinearity="tanh", sigma_b=0.0)
    assert sw == pytest.approx(1.0, rel=1e-9) and sb == 0.0
    assert lin.weight.detach().std().item() * math.sqrt(1024) == pytest.approx(1.0, rel=1e-2)
    assert float(lin.bias.detach().abs().max()) == 0.0


def test_leaky_relu_slope_from_a_or_alpha():
    w = torch.empty(4, 4)
    torch_gain = torch.nn.init.calculate_gain("leaky_relu", 0.2)
    assert nonlin.init._kaiming_gain("leaky_relu", 0.2, {}) == pytest.approx(torch_gain)
    assert nonlin.init._kaiming_gain("leaky_relu", 0.0, {"alpha": 0.2}) == pytest.approx(torch_gain)
    with pytest.raises(ValueError, match="disagree"):
        nonlin.init.kaiming_normal_(w, a=0.1, nonlinearity="leaky_relu", alpha=0.2)
