"""probe.DeadUnits and probe.attention on cases with known answers."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from nonlin import probe


def gate_model() -> nn.Sequential:
    """ReLU of the input itself: unit j is active exactly where x_j > 0."""
    return nn.Sequential(nn.Identity(), nn.ReLU())


def test_dead_units_history_is_exact():
    model = gate_model()
    with probe.DeadUnits(model) as tracker:
        model(torch.tensor([[1.0, -1.0, -1.0, -1.0]]))
        model(torch.tensor([[-1.0, 1.0, -1.0, -1.0]]))
        tracker.step()  # window 1: units 0 and 1 active -> 2 of 4 dead
        model(torch.tensor([[-1.0, -1.0, -1.0, 2.0]]))
        entry = tracker.step()  # window 2: only unit 3 active -> 3 of 4 dead
    assert [h["layers"]["1"] for h in tracker.history] == [0.5, 0.75]
    assert entry["overall"] == 0.75 and entry["calls"] == 1 and tracker.history[0]["calls"] == 2
    assert tracker.never_active == {"1": 0.25}  # unit 2 never fired
    assert sum(len(m._forward_hooks) for m in model.modules()) == 0  # closed by the with block


def test_dead_units_can_ignore_eval_passes():
    model = gate_model()
    tracker = probe.DeadUnits(model, modes="train")
    model(torch.tensor([[1.0, -1.0]]))
    model.eval()
    model(torch.tensor([[1.0, 1.0]]))  # not counted
    assert tracker.step()["layers"]["1"] == 0.5
    tracker.close()
    with pytest.raises(ValueError, match="modes must be"):
        probe.DeadUnits(model, modes="test")


class ForcedAttention(nn.Module):
    """Scores with +1e4 on key 0 (or uniform): a softmax module turns them into weights."""

    def __init__(self, heads: int = 3, uniform: bool = False) -> None:
        super().__init__()
        self.heads, self.uniform = heads, uniform
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x [batch, seq, d]
        b, t, _ = x.shape
        scores = torch.zeros(b, self.heads, t, t)
        if not self.uniform:
            scores[..., 0] = 1e4
        return self.softmax(scores) @ x.unsqueeze(1)


def test_attention_forced_onto_first_position_has_sink_one_and_entropy_zero():
    rep = probe.attention(ForcedAttention(), torch.randn(2, 7, 4))
    assert rep.layers == ["softmax"] and rep.sink.shape == (1, 3)
    assert torch.equal(rep.sink, torch.ones(1, 3, dtype=torch.float64))
    assert torch.all(rep.entropy == 0)


def test_uniform_attention_has_sink_one_over_t_and_entropy_log_t():
    t = 7
    rep = probe.attention(ForcedAttention(uniform=True), torch.randn(2, t, 4))
    assert torch.allclose(rep.sink, torch.full((1, 3), 1 / t, dtype=torch.float64), rtol=1e-6)
    assert torch.allclose(rep.entropy, torch.full((1, 3), math.log(t), dtype=torch.float64), rtol=1e-6)
    assert torch.allclose(rep.entropy_normalized, torch.ones(1, 3, dtype=torch.float64), rtol=1e-6)


def test_attention_of_nonlin_self_attention_layers(tmp_path):
    torch.manual_seed(0)
    model = probe.TinyTransformer(n_layers=2, n_heads=4, d_model=32, d_ff=64, normalizer="sparsemax")
    rep = probe.attention(model, torch.randint(0, 256, (2, 9)))
    assert rep.layers == ["blocks.0.attn.normalizer", "blocks.1.attn.normalizer"]
    assert rep.sink.shape == (2, 4)
    # causal: query 0 sees only key 0, so every head's sink score is at least 1/9
    assert torch.all(rep.sink >= 1 / 9 - 1e-12) and torch.all(rep.sink <= 1)
    assert "top sink head" in rep.table()
    assert rep.plot(tmp_path / "a.png").exists() and rep.to_json(tmp_path / "a.json").exists()


def test_attention_errors():
    with pytest.raises(ValueError, match="no attention weights found"):
        probe.attention(nn.Sequential(nn.Linear(3, 3), nn.ReLU()), torch.randn(2, 3))
    with pytest.raises(ValueError, match="sink_position=9 is out of range"):
        probe.attention(ForcedAttention(), torch.randn(1, 4, 2), sink_position=9)
    with pytest.raises(TypeError, match=r"torch\.nn\.Module"):
        probe.attention("model", torch.randn(1, 4, 2))
