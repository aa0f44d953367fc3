"""probe.watch: exact metric values on hand-built models, non-interference, hooks, errors."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import scipy.stats
import torch
from torch import nn

import nonlin
from nonlin import probe
from nonlin.probe.metrics import median_from_histogram


def known_mlp() -> nn.Sequential:
    """Linear(2, 4) + ReLU with units u0 = x0, u1 = x1, u2 = x0 + x1 + 0.5, u3 = -x0 - 2 x1."""
    lin = nn.Linear(2, 4)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, -2.0]]))
        lin.bias.copy_(torch.tensor([0.0, 0.0, 0.5, 0.0]))
    return nn.Sequential(lin, nn.ReLU())


# rows: u = (x0, x1, x0 + x1 + 0.5, -x0 - 2 x1)
X_A = torch.tensor([[1.0, -1.0], [2.0, -3.0]])  # u: (1, -1, 0.5, 1) and (2, -3, -0.5, 4)
X_B = torch.tensor([[2.0, -3.0]])  # u: (2, -3, -0.5, 4)


def test_sparsity_and_dead_are_exact():
    model = known_mlp()
    with probe.watch(model, eps=0.75) as w:
        model(X_A)
        model(X_B)
    (row,) = w.results()
    # After ReLU: call A (1, 0, 0.5, 1), (2, 0, 0, 4); call B (2, 0, 0, 4): 5 zeros in 12 entries.
    assert row["entries"] == 12 and row["units"] == 4 and row["calls"] == 2
    assert row["sparsity_zero"] == 5 / 12
    assert row["sparsity_eps"] == 6 / 12  # the zeros and the 0.5 (< 0.75)
    # u1 is zero everywhere; u2 is active once, in call A: over the watch 1 dead unit of 4.
    assert row["dead"] == 1 / 4
    # per call: A has u1 dead (1/4), B has u1 and u2 dead (2/4).
    assert row["dead_per_call"] == pytest.approx((1 / 4 + 2 / 4) / 2, abs=0)
    series = w.series()["1 [train]"]
    assert [s[2] for s in series] == [0.25, 0.5]
    assert [s[0] for s in series] == [pytest.approx(3 / 8), pytest.approx(2 / 4)]


def test_dead_eps_counts_small_values_as_inactive():
    model = known_mlp()
    with probe.watch(model, metrics=("dead",), dead_eps=0.5) as w:
        model(X_A)
    assert w.results()[0]["dead"] == 2 / 4  # u1 (zeros) and u2 (0.5 <= 0.5)


@pytest.mark.parametrize("offset", [0.3, 1e4], ids=["summed about 0", "summed about the first mean"])
def test_moments_match_scipy(offset):
    torch.manual_seed(0)
    model = nn.Sequential(nonlin.get("identity"))
    batches = [offset + torch.randn(64, 16) ** 3 for _ in range(3)]
    with probe.watch(model, metrics=("stats",)) as w:
        for b in batches:
            model(b)
    row = w.results()[0]
    a = torch.cat(batches).double().numpy().ravel()
    assert row["mean"] == pytest.approx(a.mean(), rel=1e-6)  # float32 sums within a call
    assert row["std"] == pytest.approx(a.std(), rel=1e-5)
    assert row["kurtosis"] == pytest.approx(scipy.stats.kurtosis(a, fisher=False), rel=1e-4)


def test_planted_massive_activation_is_found_with_layer_and_position():
    model = nn.Sequential(nn.ReLU(), nn.Tanh())
    torch.manual_seed(1)
    calls = [torch.rand(3, 8, 16) for _ in range(3)]
    calls[1][2, 5, 7] = 1e4
    with probe.watch(model, metrics=("massive",), top_k=3) as w:
        for x in calls:
            model(x)
    relu, tanh = w.results()
    assert relu["layer"] == "0" and relu["catalog"] == "relu"
    top = relu["top"][0]
    assert top == {"value": 1e4, "unit": 7, "call": 1, "index": [2, 5]}
    assert all(t["index"] is not None for t in relu["top"])
    assert relu["max_abs"] == 1e4 and len(relu["top"]) == 3
    # median of |a| over the 383 uniform(0,1) draws, up to the histogram's half bin (2.2%).
    a = torch.cat([c.ravel() for c in calls]).abs()
    med = a.median().item()  # torch's lower median; the histogram gives the ceil(n/2)-th value's bin
    assert relu["median_abs"] == pytest.approx(med, rel=0.03)
    assert relu["massive_ratio"] == pytest.approx(1e4 / relu["median_abs"])
    assert tanh["max_abs"] <= 1.0


def test_histogram_median_is_within_half_a_bin():
    rng = np.random.default_rng(0)
    for scale in (1e-20, 1e-3, 1.0, 1e7):
        vals = torch.tensor(rng.lognormal(0, 3, 1001) * scale, dtype=torch.float32)
        bins = (vals.view(torch.int32) >> 19).tolist()
        hist = [0] * 4096
        for b in bins:
            hist[b] += 1
        exact = vals.median().item()
        assert median_from_histogram(hist) == pytest.approx(exact, rel=2 ** (1 / 32) - 1 + 1e-6)


def test_watch_changes_nothing_bit_for_bit():
    torch.manual_seed(0)
    model = probe.TinyTransformer(activation="relu", n_layers=2)
    model.train()
    x = torch.randint(0, 256, (2, 16))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    ref = model(x)
    ref.sum().backward()
    ref_grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    with probe.watch(model, where=["blocks.*"]) as w:  # also Linear and LayerNorm outputs
        out = model(x)
        out.sum().backward()
    assert torch.equal(out, ref)
    assert all(torch.equal(p.grad, g) for p, g in zip(model.parameters(), ref_grads, strict=True))
    assert all(torch.equal(v, before[k]) for k, v in model.state_dict().items())
    assert model.training and all(m.training for m in model.modules())
    assert len(w.results()) > 4


def test_input_measure_sees_the_input_of_an_inplace_activation():
    model = nn.Sequential(nn.ReLU(inplace=True))
    x = torch.tensor([[-1.0, 2.0]])
    with probe.watch(model, measure="input", metrics=("stats",)) as w:
        model(x.clone())
    assert w.results()[0]["mean"] == pytest.approx(0.5)
    assert w.results()[0]["measured"] == "input"


def _hook_count(model: nn.Module) -> int:
    return sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in model.modules())


def test_hooks_removed_on_exit_and_on_exception():
    model = known_mlp()
    with probe.watch(model) as w:
        assert _hook_count(model) == 1 and w.attached
    assert _hook_count(model) == 0 and not w.attached
    with pytest.raises(RuntimeError, match="boom"), probe.watch(model, measure="input"):
        assert _hook_count(model) == 1
        raise RuntimeError("boom")
    assert _hook_count(model) == 0


def test_train_and_eval_are_kept_apart():
    model = known_mlp()
    with probe.watch(model) as w:
        model(X_A)
        model.eval()
        model(X_B)
    modes = {r["mode"]: r for r in w.results()}
    assert set(modes) == {"train", "eval"}
    assert modes["train"]["entries"] == 8 and modes["eval"]["entries"] == 4


def test_table_and_json(tmp_path):
    model, x = probe.examples.tiny_transformer(batch=2, seq=8)
    with probe.watch(model) as w:
        model(x)
        model(x)
    text = w.table()
    assert "blocks.0.act" in text and "gelu" in text
    data = json.loads(w.to_json(tmp_path / "w.json").read_text())
    assert data["environment"]["torch"] == torch.__version__
    assert [r["layer"] for r in data["layers"]] == ["blocks.0.act", "blocks.1.act"]
    assert len(data["series"]["blocks.0.act [eval]"]) == 2  # (the plot is drawn in tests/probe/test_probe_cli.py)


def test_unit_dim_for_channels():
    model = nn.Sequential(nn.ReLU())
    x = torch.ones(2, 3, 4, 4)
    x[:, 1] = -1.0  # channel 1 dead
    with probe.watch(model, unit_dim=1, metrics=("dead",)) as w:
        model(x)
    assert w.results()[0]["units"] == 3 and w.results()[0]["dead"] == 1 / 3


def test_bad_input_is_refused_clearly():
    with pytest.raises(ValueError, match="no nonlinearity modules"):
        probe.watch(nn.Sequential(nn.Linear(2, 2)))
    with pytest.raises(ValueError, match="unknown metric 'sparse'"):
        probe.watch(known_mlp(), metrics=("sparse",))
    with pytest.raises(ValueError, match="matched no submodule"):
        probe.watch(known_mlp(), where="encoder.*")
    with pytest.raises(ValueError, match="eps must be"):
        probe.watch(known_mlp(), eps=-1.0)
    with pytest.raises(ValueError, match="measure must be"):
        probe.watch(known_mlp(), measure="grad")
    with pytest.raises(TypeError, match=r"torch\.nn\.Module"):
        probe.watch(lambda x: x)
    model = nn.Sequential(nn.ReLU())
    with pytest.raises(ValueError, match="unit_dim=3 is out of range"), probe.watch(model, unit_dim=3):
        model(torch.ones(2, 2))
    with pytest.raises(ValueError, match="units along unit_dim"), probe.watch(model):
        model(torch.ones(2, 2))
        model(torch.ones(2, 3))


def test_nonfinite_and_empty_calls_do_not_poison_results():
    model = nn.Sequential(nonlin.get("identity"))
    with probe.watch(model) as w:
        model(torch.empty(0, 3))
        model(torch.tensor([[1.0, 2.0, 3.0]]))
        model(torch.tensor([[math.nan, 2.0, math.inf]]))
    row = w.results()[0]
    assert row["mean"] == pytest.approx(2.0) and row["nonfinite"] == 2
    assert row["max_abs"] == math.inf  # inf is the largest |a|; nan counts as active, never as the max


def test_large_calls_use_a_sampled_histogram_for_the_median():
    torch.manual_seed(0)
    model = nn.Sequential(nn.ReLU())
    x = torch.rand(300, 1000)  # 300k entries per call: the histogram samples about 2**16 of them
    x[17, 333] = 500.0
    with probe.watch(model, metrics=("massive",)) as w:
        model(x)
    row = w.results()[0]
    assert row["median_abs"] == pytest.approx(0.5, rel=0.03)
    assert row["top"][0] == {"value": 500.0, "unit": 333, "call": 0, "index": [17]}


def test_saturated_ties_still_report_a_located_maximum():
    model = nn.Sequential(nn.Hardtanh())
    with probe.watch(model, metrics=("massive",), top_k=2) as w:
        model(torch.full((4, 10), 5.0))  # every unit saturates at 1.0 on every row
        model(torch.full((4, 10), 7.0))
    top = w.results()[0]["top"]
    assert [t["value"] for t in top] == [1.0, 1.0]
    assert all(t["index"] is not None and t["call"] == 0 for t in top)
    assert "0, (0,)" in w.table()
