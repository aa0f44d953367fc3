"""Fixed points, phases, edge of chaos, init gains, sparsity and clip levels against known values."""

import math

import pytest
import torch

from nonlin import theory


def test_init_gains():
    assert theory.init_gain("relu") == pytest.approx(math.sqrt(2), rel=1e-14)
    assert theory.init_gain("identity") == pytest.approx(1.0, rel=1e-14)
    assert theory.init_gain("selu") == pytest.approx(1.0, abs=1e-6)  # selu's constants make E[selu(z)^2] = 1
    assert theory.init_gain("leaky_relu", alpha=0.2) == pytest.approx(math.sqrt(2 / 1.04), rel=1e-13)
    assert theory.init_gain("tanh") == pytest.approx(1.5925374197, rel=1e-9)


def test_tanh_critical_point_at_zero_bias():
    assert theory.edge_of_chaos("tanh", 0.0) == pytest.approx(1.0, rel=1e-9)


def test_relu_fixed_point_closed_form():
    sw, sb = 1.2, 0.1
    fp = theory.fixed_point("relu", sw, sb)
    assert fp.q_star == pytest.approx(sb**2 / (1 - sw**2 / 2), rel=1e-13)
    assert fp.chi_1 == pytest.approx(sw**2 / 2, rel=1e-13)
    assert fp.phase == "ordered" and fp.c_star == 1.0
    assert fp.xi_c == pytest.approx(-1 / math.log(sw**2 / 2), rel=1e-12)
    assert theory.edge_of_chaos("relu", 0.1) == pytest.approx(math.sqrt(2), rel=1e-9)


def test_tanh_phases_and_critical_line():
    assert theory.fixed_point("tanh", 0.9, 0.05).phase == "ordered"
    chaotic = theory.fixed_point("tanh", 2.5, 0.05)
    assert chaotic.phase == "chaotic" and -1 < chaotic.c_star < 1
    # c* is a fixed point of the correlation map.
    c_next = theory.correlation_map("tanh", chaotic.c_star, q_star=chaotic.q_star, sigma_w=2.5, sigma_b=0.05)
    assert c_next == pytest.approx(chaotic.c_star, abs=1e-10)
    line = theory.critical_line("tanh", q_star=[0.1, 1.0, 3.0])
    for q, sw, sb in zip(line["q_star"], line["sigma_w"], line["sigma_b"], strict=True):
        assert theory.variance_map("tanh", q, sigma_w=sw, sigma_b=sb) == pytest.approx(q, rel=1e-12)
        assert theory.chi_1("tanh", q, sigma_w=sw) == pytest.approx(1.0, rel=1e-12)
    sw = theory.edge_of_chaos("tanh", 0.3)
    fp = theory.fixed_point("tanh", sw, 0.3)
    assert fp.chi_1 == pytest.approx(1.0, abs=1e-9) and fp.phase == "critical"


def test_variance_map_slope_is_the_derivative():
    q = 0.8
    fp_slope = theory.model("gelu").m2_slope(torch.tensor([q], dtype=torch.float64)).item()
    h = 1e-5
    fd = (theory.variance_map("gelu", q + h) - theory.variance_map("gelu", q - h)) / (2 * h)
    assert fp_slope == pytest.approx(fd, rel=1e-8)


def test_sparsity_at_init():
    q = 1.7
    sd = math.sqrt(q)
    phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))
    assert theory.sparsity_at_init("relu", q=q).zero_fraction == pytest.approx(0.5, rel=1e-15)
    assert theory.sparsity_at_init("shifted_relu", q=q, tau=1.0).zero_fraction == pytest.approx(phi(1 / sd), rel=1e-14)
    st = theory.sparsity_at_init("soft_threshold", q=q, tau=0.5).zero_fraction
    assert st == pytest.approx(phi(0.5 / sd) - phi(-0.5 / sd), rel=1e-14)
    assert theory.sparsity_at_init("gelu").zero_fraction == 0.0
    s = theory.sparsity_at_init("shifted_relu", q=None, sigma_w=1.2, sigma_b=0.5)
    assert s.q == pytest.approx(theory.fixed_point("shifted_relu", 1.2, 0.5).q_star, rel=1e-12)


def test_clip_level_makes_the_eoc_fixed_point_stable():
    cl = theory.clip_level("clipped_shifted_relu", tau=1.0, q_star=1.0, max_slope=0.9)
    assert cl.slope_q == pytest.approx(0.9, abs=1e-9)
    assert cl.unclipped_slope_q == pytest.approx(1.0, abs=1e-6)  # shifted relu on the EoC: marginal
    fp = theory.fixed_point("clipped_shifted_relu", cl.sigma_w, cl.sigma_b, tau=1.0, m=cl.m)
    assert fp.q_star == pytest.approx(1.0, rel=1e-9)
    assert fp.chi_1 == pytest.approx(1.0, rel=1e-9)
    assert fp.slope_q == pytest.approx(0.9, abs=1e-9)
