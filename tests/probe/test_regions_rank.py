"""probe.linear_regions (segment and plane) and probe.hidden_rank on constructed networks."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

import nonlin
from nonlin import probe

BREAKS = [-2.5, -0.3, 0.1, 1.7, 3.2]


def ramp_net(breaks=BREAKS, act: nn.Module | None = None) -> nn.Sequential:
    """f(x) = sum_i relu(x - b_i): kinks exactly at the b_i."""
    lin = nn.Linear(1, len(breaks), dtype=torch.float64)
    out = nn.Linear(len(breaks), 1, dtype=torch.float64)
    with torch.no_grad():
        lin.weight.fill_(1.0)
        lin.bias.copy_(-torch.tensor(breaks, dtype=torch.float64))
        out.weight.fill_(1.0)
        out.bias.zero_()
    return nn.Sequential(lin, act or nn.ReLU(), out)


def test_region_count_and_boundaries_along_a_segment_are_exact():
    model = ramp_net()
    r = probe.linear_regions(
        model, torch.tensor([-4.0], dtype=torch.float64), torch.tensor([4.0], dtype=torch.float64), steps=200
    )
    assert r.regions == len(BREAKS) + 1 and r.units == len(BREAKS)
    # t = (b + 4) / 8, located by bisection to 200 * 2**30-th of the segment
    assert r.boundaries == pytest.approx([(b + 4) / 8 for b in BREAKS], abs=1e-9)
    assert r.folding == 0.0  # the patterns only move away from the first one
    # a sub-segment sees only the kinks inside it
    r2 = probe.linear_regions(
        model, torch.tensor([0.0], dtype=torch.float64), torch.tensor([2.0], dtype=torch.float64), steps=50
    )
    assert r2.regions == 3


def test_catalog_breakpoints_drive_the_pattern():
    # hardtanh has kinks at -1 and 1 per unit: with unit biases -b_i each unit has two kinks
    model = ramp_net([0.0, 5.0], act=nn.Hardtanh())
    r = probe.linear_regions(
        model, torch.tensor([-10.0], dtype=torch.float64), torch.tensor([10.0], dtype=torch.float64), steps=400
    )
    assert r.regions == 5
    assert r.boundaries == pytest.approx([(x + 10) / 20 for x in (-1.0, 1.0, 4.0, 6.0)], abs=1e-8)


def tent_net() -> nn.Sequential:
    """Layer 1: relu(x), relu(x - 0.5); tent g = 2 relu(x) - 4 relu(x - 0.5); layer 2: relu(g - 0.5)."""
    l1, l2 = nn.Linear(1, 2), nn.Linear(2, 1)
    with torch.no_grad():
        l1.weight.copy_(torch.tensor([[1.0], [1.0]]))
        l1.bias.copy_(torch.tensor([0.0, -0.5]))
        l2.weight.copy_(torch.tensor([[2.0, -4.0]]))
        l2.bias.copy_(torch.tensor([-0.5]))
    return nn.Sequential(l1, nn.ReLU(), l2, nn.ReLU()).double()


def test_folding_of_a_tent_is_exact():
    # x from -0.5 to 1: patterns (0,0,0) (1,0,0) (1,0,1) (1,1,1) (1,1,0): max distance 3, walk length 4
    r = probe.linear_regions(
        tent_net(), torch.tensor([-0.5], dtype=torch.float64), torch.tensor([1.0], dtype=torch.float64), steps=301
    )
    assert r.regions == 5
    assert r.folding == pytest.approx(1 - 3 / 4, abs=0)
    assert r.boundaries == pytest.approx([(x + 0.5) / 1.5 for x in (0.0, 0.25, 0.5, 0.75)], abs=1e-8)


def test_regions_on_a_plane_of_three_lines():
    # units relu(x), relu(y), relu(x + y - 0.5): three lines in general position cut the plane in 7
    lin = nn.Linear(2, 3)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
        lin.bias.copy_(torch.tensor([0.0, 0.0, -0.5]))
    model = nn.Sequential(lin, nn.ReLU()).double()
    o = torch.zeros(2, dtype=torch.float64)
    u, v = torch.tensor([1.0, 0.0], dtype=torch.float64), torch.tensor([0.0, 1.0], dtype=torch.float64)
    r = probe.linear_regions_plane(model, o, u, v, resolution=64)
    assert r.regions == 7 and len(r.region_map) == 64


def test_region_results_write_json_and_plots(tmp_path):
    x = torch.zeros(1, dtype=torch.float64)
    seg = probe.linear_regions(tent_net(), x - 0.5, x + 1.0, steps=64)
    assert seg.to_json(tmp_path / "s.json").exists() and seg.plot(tmp_path / "s.png").exists()
    o = torch.zeros(2, dtype=torch.float64)
    plane = probe.linear_regions_plane(
        probe.examples.relu_mlp(width=8, depth=2)[0].double(),
        o,
        o + 1,
        torch.tensor([1.0, -1.0], dtype=torch.float64),
        resolution=16,
    )
    assert plane.regions >= 1 and plane.plot(tmp_path / "p.png").exists()


def test_regions_errors():
    x = torch.zeros(1, dtype=torch.float64)
    with pytest.raises(ValueError, match="piecewise nonlinearities"):
        probe.linear_regions(ramp_net(act=nn.GELU()), x, x + 1)
    with pytest.raises(ValueError, match="same shape"):
        probe.linear_regions(ramp_net(), torch.zeros(1), torch.zeros(2))
    with pytest.raises(TypeError, match="floating tensor"):
        probe.linear_regions(ramp_net(), [0.0], [1.0])
    with pytest.raises(ValueError, match="steps must be an int >= 2"):
        probe.linear_regions(ramp_net(), x, x + 1, steps=1)
    with pytest.raises(RuntimeError):  # the model itself refuses an input of the wrong width
        probe.linear_regions(ramp_net(), torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64))


def test_rank_of_a_constructed_low_rank_layer():
    torch.manual_seed(0)
    d, r = 32, 5
    lin = nn.Linear(d, d, bias=False)
    with torch.no_grad():
        lin.weight.copy_(torch.randn(d, r) @ torch.randn(r, d))
    model = nn.Sequential(lin, nonlin.get("identity"))
    rep = probe.hidden_rank(model, torch.randn(100, d))
    (row,) = rep.layers
    assert row["layer"] == "1" and row["rank"] == r and row["max_rank"] == d
    assert 1 <= row["effective_rank"] <= r and 1 <= row["stable_rank"] <= r


def test_effective_rank_of_equal_singular_values():
    q, _ = torch.linalg.qr(torch.randn(50, 50, dtype=torch.float64))
    a = q[:, :7] * 3.0  # 7 orthogonal columns of equal norm
    model = nn.Sequential(nonlin.get("identity"))
    (row,) = probe.hidden_rank(model, a).layers
    assert row["rank"] == 7
    assert row["effective_rank"] == pytest.approx(7.0, rel=1e-12)
    assert row["stable_rank"] == pytest.approx(7.0, rel=1e-12)


def test_relu_rank_table_and_center():
    torch.manual_seed(0)
    model, x = probe.examples.relu_mlp(width=16, depth=2)
    rep = probe.hidden_rank(model, x, center=True)
    assert [r["layer"] for r in rep.layers] == ["1", "3"]
    assert all(0 < r["rank"] <= 16 for r in rep.layers)
    assert "effective rank" in rep.table()
    assert math.isfinite(rep.layers[0]["effective_rank"])


def test_rank_bad_input():
    model = probe.TinyTransformer(d_model=16, n_heads=2, d_ff=32, n_layers=1)
    with pytest.raises(ValueError, match=r"integer token ids of shape \[batch, seq\]"):
        probe.hidden_rank(model, torch.randn(2, 4))
    with pytest.raises(ValueError, match="measure must be"):
        probe.hidden_rank(model, torch.zeros(2, 4, dtype=torch.long), measure="weights")
    assert sum(len(m._forward_hooks) for m in model.modules()) == 0  # hooks gone after the error
