"""nonlin.probe.swap: replacement, parameters, dtype, sharing, undo bit for bit, functional calls, errors."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import nonlin
from nonlin import probe


def mlp() -> nn.Sequential:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 8), nn.GELU(), nn.Linear(8, 2), nn.Tanh())


def snapshot(model: nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.clone() for k, v in model.state_dict().items()}


def test_swap_and_undo_bit_for_bit():
    model = mlp()
    x = torch.randn(5, 4)
    ref, state = model(x), snapshot(model)
    originals = [model[1], model[3]]
    report = probe.swap(model, {"gelu": "relu"})
    assert [r.path for r in report.replaced] == ["1", "3"]
    assert all(r.old == "GELU (gelu)" and r.new == "relu" for r in report.replaced)
    assert isinstance(model[1], nonlin.Nonlinearity) and model[1].spec.name == "relu"
    assert torch.equal(model(x), model[5](model[4](torch.relu(model[2](torch.relu(model[0](x)))))))
    report.undo()
    assert model[1] is originals[0] and model[3] is originals[1]
    assert torch.equal(model(x), ref)
    assert all(torch.equal(v, state[k]) for k, v in model.state_dict().items())
    with pytest.raises(RuntimeError, match="already undone"):
        report.undo()


def test_swap_by_class_with_params_and_learnable_state():
    model = mlp().double()
    report = probe.swap(model, nn.GELU, "shifted_relu", tau=0.5)
    assert len(report.replaced) == 2 and model[1].spec.name == "shifted_relu"
    assert model[1]._fixed["tau"] == 0.5
    x = torch.randn(3, 8, dtype=torch.float64)
    assert torch.equal(model[1](x), torch.where(x > 0.5, x - 0.5, 0.0) * 1.0) or torch.allclose(
        model[1](x), nonlin.functional.shifted_relu(x, tau=0.5)
    )
    report.undo()
    # learnable target: PReLU's slope is a parameter, initialised as the spec says, in the model's dtype
    report = probe.swap(model, {"gelu": "prelu"})
    a = model[1].a
    assert (
        isinstance(a, nn.Parameter) and a.dtype == torch.float64 and a.item() == nonlin.spec("prelu").param("a").default
    )
    assert any(p is a for p in model.parameters())
    report.undo()
    assert not any(p.dtype == torch.float64 and p.numel() == 1 for p in model.parameters())


def test_swap_keeps_training_mode_and_mapping_with_params_tuple():
    model = mlp()
    model[3].eval()
    probe.swap(model, {"gelu": ("soft_threshold", {"tau": 0.1})})
    assert model[1].training and not model[3].training
    assert model[1]._fixed["tau"] == 0.1


def test_shared_module_is_replaced_everywhere_and_shared():
    act = nn.SiLU()
    model = nn.Sequential(nn.Linear(3, 3), act, nn.Linear(3, 3), act)
    report = probe.swap(model, {"silu": "mish"})
    assert [r.path for r in report.replaced] == ["1", "3"]
    assert model[1] is model[3] and model[1].spec.name == "mish"
    report.undo()
    assert model[1] is act and model[3] is act


def test_template_module_target_and_where():
    model = mlp()
    report = probe.swap(model, {"gelu": nn.ReLU()}, where="3")
    assert [r.path for r in report.replaced] == ["3"] and isinstance(model[3], nn.ReLU)
    assert isinstance(model[1], nn.GELU)
    report.undo()


class FunctionalGelu(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.act = nn.GELU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(F.gelu(self.fc(x)) + torch.tanh(x))


def test_functional_calls_are_reported_traced_and_scanned():
    model = FunctionalGelu()
    x = torch.randn(2, 4)
    rng = torch.random.get_rng_state()
    with pytest.warns(UserWarning, match="gelu in the model"):
        report = probe.swap(model, {"gelu": "relu"}, example_inputs=x)
    assert torch.equal(torch.random.get_rng_state(), rng) and model.training
    traced = {(f.module, f.function, f.catalog, f.how) for f in report.functional}
    # nn.GELU's own F.gelu call is not reported; the forward's F.gelu and torch.tanh are
    assert traced == {("", "gelu", "gelu", "traced"), ("", "tanh", "tanh", "traced")}
    assert [f.catalog for f in report.unswapped] == ["gelu"]
    assert len(report.replaced) == 1 and "functional nonlinearity calls" in report.table()
    report.undo()
    with pytest.warns(UserWarning):
        report = probe.swap(model, {"gelu": "relu"})  # no inputs: source scan
    assert {(f.function, f.how) for f in report.functional} == {("gelu", "source"), ("tanh", "source")}
    report.undo()


def test_swap_without_functional_calls_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        probe.swap(mlp(), {"tanh": "hardtanh"}, example_inputs=torch.randn(2, 4)).undo()


def test_swap_errors():
    model = mlp()
    with pytest.raises(ValueError, match=r"unknown nonlinearity name 'gleu'.*did you mean"):
        probe.swap(model, {"gleu": "relu"})
    with pytest.raises(ValueError, match="unknown nonlinearity name"):
        probe.swap(model, {"gelu": "rleu"})
    with pytest.raises(ValueError, match=r"no module matches 'silu'.*modules found: GELU"):
        probe.swap(model, {"silu": "relu"})
    with pytest.raises(ValueError, match=r"pointwise nonlinearity .* but swiglu is gated"):
        probe.swap(model, {"gelu": "swiglu"})
    with pytest.raises(TypeError, match="unknown parameter 'tau'"):
        probe.swap(model, {"gelu": "relu"}, tau=1.0)
    with pytest.raises(TypeError, match="target is missing"):
        probe.swap(model, "gelu")
    with pytest.raises(TypeError, match="swap source must be"):
        probe.swap(model, {3: "relu"})
    assert isinstance(model[1], nn.GELU)  # failed swaps leave the model alone
    model2 = FunctionalGelu()
    del model2.act
    model2.act = nn.Identity()
    with pytest.raises(ValueError, match="computed by functional calls"):
        probe.swap(model2, {"gelu": "relu"}, example_inputs=torch.randn(1, 4))


@pytest.mark.parametrize(
    "module",
    [
        nn.ReLU(),
        nn.GELU(),
        nn.GELU(approximate="tanh"),
        nn.SiLU(),
        nn.Tanh(),
        nn.Sigmoid(),
        nn.Mish(),
        nn.SELU(),
        nn.ReLU6(),
        nn.Hardswish(),
        nn.Hardsigmoid(),
        nn.Softsign(),
        nn.LogSigmoid(),
        nn.LeakyReLU(0.2),
        nn.ELU(0.7),
        nn.CELU(1.3),
        nn.Hardtanh(-2.0, 0.5),
        nn.Softshrink(0.3),
        nn.Hardshrink(0.4),
        nn.Softplus(beta=2.0),
        nn.PReLU(),
    ],
    ids=lambda m: repr(m),
)
def test_torch_modules_map_to_the_catalog_entry_they_compute(module):
    site = probe.classify(module)
    assert site is not None and site.catalog is not None
    x = torch.linspace(-6, 6, 240, dtype=torch.float64).reshape(2, -1)
    module = module.double()
    f = nonlin.functional.function(site.catalog)
    params = dict(site.params)
    if site.catalog == "prelu":
        params["a"] = float(module.weight.detach())
    torch.testing.assert_close(f(x, **params), module(x), rtol=1e-12, atol=1e-12)


def test_torch_glu_is_not_named_glu_because_its_halves_are_swapped():
    x = torch.randn(3, 8)
    a, b = x[:, :4], x[:, 4:]
    assert torch.allclose(nn.GLU()(x), a * torch.sigmoid(b))  # gate second; the catalog packs [gate | value]
    site = probe.classify(nn.GLU())
    assert site is not None and site.catalog is None
