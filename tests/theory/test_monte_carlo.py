"""Finite random MLPs against the maps: empirical pre-activation variance and correlation per layer."""

import math

import pytest
import torch

import nonlin
from nonlin import theory


def _empirical(name, sw, sb, width, draws, depth, seed=0, **params):
    """Per layer: mean over draws of (q_a, c_ab) and their standard errors, for two inputs with c0 = 0.3."""
    f = nonlin.functional.function(name)
    g = torch.Generator().manual_seed(seed)
    d = width
    x = torch.randn(2, d, generator=g, dtype=torch.float64)
    x[1] = 0.3 * x[0] + math.sqrt(1 - 0.3**2) * x[1]
    x = x / x.norm(dim=1, keepdim=True) * math.sqrt(d)
    stats = []
    for _ in range(draws):
        h = x @ (torch.randn(d, width, generator=g, dtype=torch.float64) * sw / math.sqrt(d))
        h = h + sb * torch.randn(width, generator=g, dtype=torch.float64)
        per = []
        for _layer in range(depth):
            a = f(h, **params)
            h = a @ (torch.randn(width, width, generator=g, dtype=torch.float64) * sw / math.sqrt(width))
            h = h + sb * torch.randn(width, generator=g, dtype=torch.float64)
            q = (h * h).mean(dim=1)
            c = (h[0] * h[1]).mean() / torch.sqrt(q[0] * q[1])
            per.append(torch.stack([q[0], c]))
        stats.append(torch.stack(per))
    s = torch.stack(stats)  # [draws, depth, 2]
    return s.mean(0), s.std(0) / math.sqrt(draws)


def _theory(name, sw, sb, depth, **params):
    q0 = sw**2 + sb**2  # unit-norm-scaled inputs: x.x/d = 1
    k0 = sw**2 * 0.3 + sb**2
    q, k = q0, k0
    out = []
    for _ in range(depth):
        c = k / q
        k = theory.covariance_map(name, q, q, c, sigma_w=sw, sigma_b=sb, **params)
        q = theory.variance_map(name, q, sigma_w=sw, sigma_b=sb, **params)
        out.append((q, k / q))
    return torch.tensor(out, dtype=torch.float64)


def _z_scores(name, sw, sb, width, draws, depth, theory_sw=None, **params):
    mean, se = _empirical(name, sw, sb, width, draws, depth, **params)
    want = _theory(name, theory_sw or sw, sb, depth, **params)
    return ((mean - want).abs() / se.clamp_min(1e-12)).max().item()


CASES = [("relu", 1.3, 0.2), ("tanh", 1.5, 0.1), ("shifted_relu", 1.8, 0.3), ("gelu", 1.2, 0.1)]


@pytest.mark.parametrize(("name", "sw", "sb"), CASES)
def test_maps_match_random_networks_small(name, sw, sb):
    assert _z_scores(name, sw, sb, width=256, draws=12, depth=3) < 6.0


def test_a_wrong_map_is_caught():
    # The same networks against the maps of a 10% larger sigma_w: far outside the statistical error.
    assert _z_scores("tanh", 1.5, 0.1, width=256, draws=12, depth=3, theory_sw=1.65) > 10.0


@pytest.mark.slow
@pytest.mark.parametrize(("name", "sw", "sb"), CASES)
def test_maps_match_random_networks_full(name, sw, sb):
    assert _z_scores(name, sw, sb, width=2048, draws=50, depth=4) < 6.0
