"""Bound propagation: IBP, CROWN and alpha-CROWN through models, checked against sampled inputs."""

from __future__ import annotations

import pytest
import torch
from torch import nn

import nonlin
from nonlin import verify
from nonlin.verify.graph import trace
from nonlin.verify.propagate import Propagator, propagator

UNRELAXABLE = verify.unrelaxable()
F64 = torch.float64


def _samples(model, x, eps, n=2000, gen=None):
    """Outputs at the corners-heavy random points of the eps-ball around each x: [n, B, out]."""
    gen = gen or torch.Generator().manual_seed(0)
    u = torch.rand(n, *x.shape, generator=gen, dtype=x.dtype) * 2 - 1
    u[: n // 4] = torch.sign(u[: n // 4])  # vertices, where ReLU-like nets take their extremes
    xs = x[None] + eps * u
    with torch.no_grad():
        return model(xs.reshape(-1, *x.shape[1:])).reshape(n, x.shape[0], -1)


def _mlp(act, d=4, h=8, k=3, seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(d, h), act(), nn.Linear(h, h), act(), nn.Linear(h, k)).double().eval()


@pytest.mark.parametrize("name", sorted(set(nonlin.names("pointwise")) - set(UNRELAXABLE)))
def test_every_pointwise_entry_bounds_hold_in_a_model(name):
    model = _mlp(lambda: nonlin.get(name))
    x = torch.randn(3, 4, dtype=F64, generator=torch.Generator().manual_seed(1))
    ys = _samples(model, x, 0.3)
    widths, got = {}, {}
    for method in ("ibp", "crown", "alpha-crown"):
        lo, hi = verify.bounds(model, x, 0.3, method, steps=3)
        assert lo.dtype == F64
        assert bool((ys >= lo[None]).all() & (ys <= hi[None]).all()), (name, method)
        widths[method] = float((hi - lo).sum())
        got[method] = lo, hi
    assert widths["crown"] <= widths["ibp"] * (1 + 1e-9)
    # alpha-CROWN (intermediate slopes included) starts from CROWN and keeps the best: never looser, per element
    (cl, ch), (al, ah) = got["crown"], got["alpha-crown"]
    assert bool((al >= cl).all() & (ah <= ch).all()), name


class _GatedNet(nn.Module):
    def __init__(self, name, packed):
        super().__init__()
        torch.manual_seed(0)
        self.up = nn.Linear(4, 12)
        self.down = nn.Linear(6, 3)
        self.name, self.packed = name, packed

    def forward(self, x):
        h = self.up(x)
        f = getattr(nonlin.functional, self.name)
        if self.packed:
            return self.down(f(h))
        return self.down(f(h[:, :6], h[:, 6:]))


@pytest.mark.parametrize("name", sorted(set(nonlin.names("gated")) - set(UNRELAXABLE)))
def test_every_gated_entry_bounds_hold_in_a_model(name):
    x = torch.randn(3, 4, dtype=F64, generator=torch.Generator().manual_seed(2))
    for packed in (True, False):
        model = _GatedNet(name, packed).double().eval()
        ys = _samples(model, x, 0.2)
        w, got = {}, {}
        for method in ("ibp", "crown", "alpha-crown"):
            lo, hi = verify.bounds(model, x, 0.2, method, steps=3)
            assert bool((ys >= lo[None]).all() & (ys <= hi[None]).all()), (name, packed, method)
            w[method] = float((hi - lo).sum())
            got[method] = lo, hi
        assert w["crown"] <= w["ibp"] * (1 + 1e-9)
        (cl, ch), (al, ah) = got["crown"], got["alpha-crown"]
        assert bool((al >= cl).all() & (ah <= ch).all()), (name, packed)


class _DeepGatedNet(nn.Module):
    """A pointwise layer before the gated one and after it: the gated unit's input bounds come from a pass
    whose tanh slopes alpha-CROWN optimizes, and its (CROWN) lines feed the passes after it."""

    def __init__(self, name):
        super().__init__()
        torch.manual_seed(1)
        self.a, self.b = nn.Linear(4, 8), nn.Linear(8, 12)
        self.c, self.d = nn.Linear(6, 6), nn.Linear(6, 3)
        self.name = name

    def forward(self, x):
        h = getattr(nonlin.functional, self.name)(self.b(torch.tanh(self.a(x))))
        return self.d(torch.relu(self.c(h)))


@pytest.mark.parametrize("name", sorted(set(nonlin.names("gated")) - set(UNRELAXABLE)))
def test_alpha_crown_through_gated_entries_is_sound_and_never_looser(name):
    model = _DeepGatedNet(name).double().eval()
    x = torch.randn(3, 4, dtype=F64, generator=torch.Generator().manual_seed(3))
    ys = _samples(model, x, 0.2)
    cl, ch = verify.bounds(model, x, 0.2, "crown")
    al, ah = verify.bounds(model, x, 0.2, "alpha-crown", steps=3)
    assert bool((ys >= al[None]).all() & (ys <= ah[None]).all()), name
    assert bool((al >= cl).all() & (ah <= ch).all()), name


class _ConvRes(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv2d(1, 4, 3, stride=1, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 4, 3, stride=2, padding=1)
        self.fc = nn.Linear(4 * 4 * 4, 5)
        self.act = nn.GELU()

    def forward(self, x):
        h = self.act(self.bn(self.conv(x)))
        h = h + 0.5 * torch.tanh(h)  # residual add of a nonlinear branch
        h = torch.relu(self.conv2(h))
        return self.fc(h.flatten(1))


def test_conv_residual_batchnorm_model():
    model = _ConvRes().double()
    model.bn.running_mean.uniform_(-0.2, 0.2)
    model.bn.running_var.uniform_(0.5, 2.0)
    model.eval()
    x = torch.rand(2, 1, 8, 8, dtype=F64, generator=torch.Generator().manual_seed(3))
    ys = _samples(model, x, 0.05, n=1000)
    w = {}
    for method in ("ibp", "crown", "alpha-crown"):
        lo, hi = verify.bounds(model, x, 0.05, method, steps=5)
        assert bool((ys >= lo[None]).all() & (ys <= hi[None]).all()), method
        w[method] = float((hi - lo).sum())
    assert w["crown"] < w["ibp"]
    assert w["alpha-crown"] <= w["crown"] * (1 + 1e-12)


@pytest.mark.parametrize("act", [nn.ReLU, nn.Tanh, nn.Sigmoid, nn.SiLU])
def test_margins_are_sound_and_alpha_improves_on_crown(act):
    torch.manual_seed(4)
    model = nn.Sequential(nn.Linear(6, 16), act(), nn.Linear(16, 16), act(), nn.Linear(16, 4)).double().eval()
    x = torch.randn(5, 6, dtype=F64)
    y = model(x).argmax(1)
    ys = _samples(model, x, 0.1)
    true_margin = ys.gather(2, y[None, :, None].expand(ys.shape[0], -1, 1)) - ys
    m = {}
    for method in ("ibp", "crown", "alpha-crown"):
        m[method] = verify.margin_bounds(model, x, y, 0.1, method, steps=10)
        finite = torch.isfinite(m[method])
        assert bool(((true_margin >= m[method][None]) | ~finite[None]).all()), method
        assert bool(torch.isinf(m[method][torch.arange(5), y]).all())
    fin = torch.isfinite(m["crown"])
    assert bool((m["crown"][fin] >= m["ibp"][fin] - 1e-9).mean(dtype=F64) > 0.9)
    assert bool((m["alpha-crown"][fin] >= m["crown"][fin]).all())


@pytest.mark.parametrize("act", [nn.ReLU, nn.Tanh, nn.SiLU])
def test_alpha_crown_optimizes_the_intermediate_bounds(act):
    # three hidden layers: the slopes of the first two passes move the bounds the last pass starts from
    torch.manual_seed(7)
    model = nn.Sequential(
        nn.Linear(5, 24), act(), nn.Linear(24, 24), act(), nn.Linear(24, 24), act(), nn.Linear(24, 3)
    ).double()
    model.eval()
    x = torch.randn(4, 5, dtype=F64)
    eps = 0.15
    ys = _samples(model, x, eps)
    cl, ch = verify.bounds(model, x, eps, "crown")
    al, ah = verify.bounds(model, x, eps, "alpha-crown")
    assert bool((ys >= al[None]).all() & (ys <= ah[None]).all())
    assert bool((al >= cl).all() & (ah <= ch).all())
    p = propagator(model, x)
    xl, xu = x - eps, x + eps
    bounds_, relax = p.prepare(xl, xu, "crown")
    out = len(p.ops) - 1
    n = p.ops[out].shape[0]
    eye = torch.eye(n, dtype=F64)
    C = torch.cat([eye, -eye])[None].expand(x.shape[0], -1, -1)
    crown = p._backward(out, C, relax, xl, xu)
    # the same optimisation restricted to the final pass (the intermediate bounds fixed at CROWN's)
    final_only = Propagator(model, x[:1])
    final_only.needs_bounds = set()  # no start node but the output: its slopes alone are optimized
    fo = final_only._optimize(out, C, relax, bounds_, xl, xu, crown.clone(), 20, 0.5)
    full = p._optimize(out, C, relax, bounds_, xl, xu, crown.clone(), 20, 0.5)
    gain_full, gain_final = float((full - crown).sum()), float((fo - crown).sum())
    assert gain_full > 0
    assert gain_full > gain_final, (gain_full, gain_final)


def test_exact_intercept_gradients_match_finite_differences():
    from nonlin.verify.alpha import exact_intercept
    from nonlin.verify.curve import pointwise_curve

    curve = pointwise_curve("sigmoid", {})
    # minima at the left end, the right end and inside: each gradient (slope, both ends) against a difference
    a = torch.tensor([0.01, 0.24, 0.1], dtype=F64, requires_grad=True)
    lo = torch.tensor([-1.0, -2.0, -3.0], dtype=F64, requires_grad=True)
    hi = torch.tensor([2.0, -0.5, -0.5], dtype=F64, requires_grad=True)
    for sign in (1.0, -1.0):
        s = torch.full((3,), sign, dtype=F64)
        b = exact_intercept(curve, a, lo, hi, s)
        ga, gl, gu = torch.autograd.grad(b.sum(), (a, lo, hi))
        h = 1e-6
        for t, g in ((a, ga), (lo, gl), (hi, gu)):
            for i in range(3):
                d = torch.zeros(3, dtype=F64)
                d[i] = h
                args = [v.detach() + d if v is t else v.detach() for v in (a, lo, hi)]
                bp = exact_intercept(curve, *args, s)[i]
                args = [v.detach() - d if v is t else v.detach() for v in (a, lo, hi)]
                bm = exact_intercept(curve, *args, s)[i]
                assert float(g[i]) == pytest.approx(float(bp - bm) / (2 * h), abs=1e-5), (sign, i)


def test_float32_models_get_float32_bounds_rounded_outward():
    torch.manual_seed(5)
    model = nn.Sequential(nn.Linear(5, 10), nn.GELU(), nn.Linear(10, 3)).eval()
    x = torch.randn(4, 5)
    lo, hi = verify.bounds(model, x, 0.05, "crown")
    assert lo.dtype == torch.float32
    lo64, hi64 = verify.bounds(model.double(), x.double(), 0.05, "crown")
    assert bool((lo.double() <= lo64).all() & (hi.double() >= hi64).all())


def test_certified_accuracy_matches_margins():
    torch.manual_seed(6)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3)).double().eval()
    x = torch.randn(30, 6, dtype=F64)
    y = model(x).argmax(1)
    y[:5] = (y[:5] + 1) % 3  # five wrong labels: never certified
    acc0 = verify.certified_accuracy(model, x, y, 0.0)
    assert acc0 == pytest.approx(25 / 30)
    acc = verify.certified_accuracy(model, x, y, 0.05)
    m = verify.margin_bounds(model, x, y, 0.05)
    assert acc == pytest.approx(float(((m > 0).all(1) & (model(x).argmax(1) == y)).double().mean()))
    assert verify.certified_accuracy(model, x, y, 10.0) <= acc <= acc0


def test_torch_activations_map_to_catalog_entries():
    model = nn.Sequential(
        nn.Linear(3, 4),
        nn.GELU(approximate="tanh"),
        nn.LeakyReLU(0.2),
        nn.Softplus(beta=2.0),
        nn.ELU(alpha=0.5),
        nn.Hardtanh(-2.0, 2.0),
        nn.Softshrink(0.3),
        nn.Linear(4, 2),
    )
    ops = trace(model, torch.zeros(1, 3))
    got = [(o.name, o.params) for o in ops if o.kind == "pointwise"]
    assert got == [
        ("gelu_tanh", {}),
        ("leaky_relu", {"alpha": 0.2}),
        ("softplus", {"beta": 2.0}),
        ("elu", {"alpha": 0.5}),
        ("hardtanh", {"min_val": -2.0, "max_val": 2.0}),
        ("soft_threshold", {"tau": 0.3}),
    ]


def test_functional_activations_are_traced():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(3, 4)
            self.b = nn.Linear(4, 2)

        def forward(self, x):
            h = nonlin.functional.mish(self.a(x))
            h = torch.nn.functional.leaky_relu(h, 0.1) + torch.sigmoid(h)
            return self.b(h.view(h.shape[0], -1))

    ops = trace(Net().eval(), torch.zeros(2, 3))
    assert [o.name for o in ops if o.kind == "pointwise"] == ["mish", "leaky_relu", "sigmoid"]
    assert [o.params for o in ops if o.kind == "pointwise"][1] == {"alpha": 0.1}


def test_bad_input_and_unsupported_ops_are_refused():
    model = _mlp(nn.ReLU)
    x = torch.zeros(2, 4, dtype=F64)
    with pytest.raises(ValueError, match="method must be one of"):
        verify.bounds(model, x, 0.1, "beta-crown")
    with pytest.raises(ValueError, match="eps"):
        verify.bounds(model, x, -0.1)
    with pytest.raises(ValueError, match="batch"):
        verify.bounds(model, torch.zeros(4, dtype=F64), 0.1)
    with pytest.raises(TypeError, match="y must be"):
        verify.margin_bounds(model, x, torch.zeros(3, dtype=torch.long), 0.1)

    class Pow(nn.Module):
        def forward(self, x):
            return x * x

    with pytest.raises(TypeError, match="number is linear"):
        verify.bounds(Pow(), x, 0.1)
    with pytest.raises(TypeError, match="unsupported module"):
        verify.bounds(nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4)).double(), x, 0.1)
