"""The fast paths of the kernels: spectral series for smooth units, and the properties that pick a path."""

import math

import pytest
import torch

from nonlin import theory
from nonlin.theory import spectral
from nonlin.theory.models import model

THETAS = torch.tensor([0.0, 1e-9, 1e-4, 0.3, 1.2, math.pi / 2, 2.0, math.pi - 1e-5, math.pi], dtype=torch.float64)


@pytest.mark.parametrize("name", ["tanh", "gelu", "sin", "mish"])
@pytest.mark.parametrize(("q1", "q2"), [(0.5, 0.5), (3.0, 3.0), (0.7, 2.2)])
def test_series_matches_the_2d_rule(name, q1, q2):
    m = model(name)
    coeffs = m.cross_series(torch.tensor([q1], dtype=torch.float64), torch.tensor([q2], dtype=torch.float64))
    assert coeffs is not None
    c = torch.cos(THETAS)
    k = torch.arange(coeffs.shape[-1], dtype=torch.float64)
    series = coeffs[:, 0] @ torch.cos(k[:, None] * THETAS[None, :])  # sum_m a_m T_m(cos theta) = a_m cos(m theta)
    rule = m.cross(torch.full_like(c, q1), torch.full_like(c, q2), THETAS)
    scale = rule.abs().amax(dim=1, keepdim=True)
    assert ((series - rule).abs() / scale).max() <= 1e-13


def test_series_refuses_a_hidden_kink():
    # relu passed as if smooth: its angular spectrum decays like m^-2 and never reaches the tolerance.
    relu = lambda u: u.clamp_min(0.0)
    assert spectral.series([(relu, relu)], [1.0], [1.0]) is None


def test_path_properties():
    assert model("relu").homogeneous and model("leaky_relu").homogeneous and model("reglu").homogeneous
    assert not model("tanh").homogeneous and not model("shifted_relu").homogeneous
    assert model("relu").piecewise_polynomial and model("hardtanh").piecewise_polynomial
    assert not model("gelu").piecewise_polynomial and not model("elu").piecewise_polynomial
    assert model("hardtanh").parities == (-1, 1) and model("relu").parities is None
    assert model("relu").distance_tables and model("elu").distance_tables
    assert not model("step").distance_tables and not model("jump_relu").distance_tables
    assert model("gelu").smooth and model("swiglu").smooth and not model("relu").smooth


@pytest.mark.parametrize("name", ["soft_threshold", "shifted_relu"])
def test_piecewise_polynomials_need_no_feature_panels(name):
    from nonlin.theory.quadrature import expect_2d

    m = model(name)
    f, d = m.unit.phi, m.unit.dphi
    q = torch.full_like(THETAS, 2.0)
    bps = m.unit.breakpoints
    with_features = expect_2d([(f, f), (d, d)], q, q, THETAS, bps, bps, features=True)
    without = expect_2d([(f, f), (d, d)], q, q, THETAS, bps, bps, features=False)
    assert ((with_features - without).abs() / with_features.abs().amax(dim=1, keepdim=True)).max() <= 1e-14


@pytest.mark.parametrize("name", ["tanh", "shifted_relu"])
def test_variances_apart_by_rounding_drift_use_few_log_q_nodes(name):
    # Norms equal up to 1e-9 (an unstable fixed point's rounding drift): the log-q path with 2 nodes must
    # match per-pair quadrature.
    g = torch.Generator().manual_seed(1)
    n, d, sw, sb = 80, 8, 1.3, 0.1
    X = torch.randn(n, d, generator=g, dtype=torch.float64)
    X = X / X.norm(dim=1, keepdim=True) * math.sqrt(d) * (1 + 1e-9 * torch.arange(n, dtype=torch.float64))[:, None]
    K = theory.nngp(name, X, depth=1, sigma_w=sw, sigma_b=sb, exact_groups=0)
    K0 = sw**2 * X @ X.T / d + sb**2
    q = torch.diagonal(K0)
    i, j = torch.triu_indices(n, n, 1)
    i, j = i[::97], j[::97]
    want = theory.covariance_map(name, q[i], q[j], K0[i, j] / torch.sqrt(q[i] * q[j]), sigma_w=sw, sigma_b=sb)
    assert ((K[i, j] - want).abs() / torch.sqrt(K[i, i] * K[j, j])).max() <= 1e-12


@pytest.mark.parametrize("name", ["hardtanh", "soft_threshold", "sign"])
def test_odd_units_angle_tables_mirror_correctly(name):
    # Odd units compute theta <= pi/2 and mirror the rest with the parities: every node against the rule.
    import importlib

    tk = importlib.import_module("nonlin.theory.kernels")
    m = model(name)
    assert m.parities is not None
    qa = torch.tensor([2.0, 0.7], dtype=torch.float64)
    qb = torch.tensor([2.0, 1.3], dtype=torch.float64)
    nodes, _, table = tk._theta_table(m, qa, qb, True, 1e-13, 257)
    T = nodes.shape[0]
    direct = m.cross(qa.repeat_interleave(T), qb.repeat_interleave(T), nodes.repeat(2)).reshape(2, 2, T)
    assert ((table - direct).abs() / direct.abs().amax()).max() <= 1e-14
