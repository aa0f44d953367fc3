"""Certified accuracy (CROWN) is a default per-run metric of classification tasks, recorded and reported."""

from __future__ import annotations

import functools
import itertools

import pytest
import torch
from arena_helpers import cube

from nonlin.arena import Sweep, as_act, make_task
from nonlin.arena.certified import EPS, SAMPLES, certified_accuracy, suffix
from nonlin.arena.metrics import DEFAULT_METRICS, MetricSkipped, RunMetric
from nonlin.arena.report import build_report
from nonlin.arena.store import Store

KEY = f"certified_accuracy.{suffix(EPS[0])}"


def _trained_wine(act: str = "relu", steps: int = 60):
    p = make_task(f"wine:steps={steps}").build(as_act(act), 0)
    for step in range(p.steps):
        p.optimizer.zero_grad()
        p.loss(p.model, p.next_batch(step)).backward()
        p.optimizer.step()
    return p.model.eval(), p


def test_certified_accuracy_is_a_default_metric_recorded_and_reported(tmp_path):
    assert any(m.name == "certified_accuracy" for m in DEFAULT_METRICS)
    # no metrics= : the defaults; periodic is a regression (no value), cube a callable verify cannot trace
    Sweep(["relu", {"cube": cube}], ["wine:steps=20", "periodic:steps=3"], seeds=1, out=tmp_path, workers=0,
          progress=False, tune=False).run()  # fmt: skip
    with Store(tmp_path, create=False) as s:
        runs = {(r["task"], r["act"]): r for r in s.runs()}
    assert all(r["status"] == "ok" for r in runs.values())
    relu = runs["wine", "relu"]
    assert 0.0 <= relu["metrics"][KEY] <= 1.0 and not relu["error"]
    assert runs["periodic", "relu"]["metrics"] == {}
    skipped = runs["wine", "cube"]
    assert skipped["metrics"] == {} and "metric certified_accuracy skipped: verify:" in skipped["error"]
    md = build_report(tmp_path)["markdown"].read_text()
    wine = md.split("## wine")[1].split("\n## ")[0]
    assert KEY in wine.splitlines()[4]  # a column of the leaderboard's header
    assert KEY not in md.split("## periodic")[1].split("\n## ")[0]  # no empty column where it does not apply
    assert f"certified accuracy at L-inf eps = {EPS[0]:g} by CROWN" in md and "how verifiable" in md
    assert "certified_accuracy skipped: verify:" in md and "wine:steps=20 × cube" in md


def test_certified_accuracy_bounds_and_nesting():
    model, p = _trained_wine()
    x, y = p.held_out
    with torch.no_grad():
        accuracy = float((model(x).argmax(-1) == y).float().mean())
    # the whole test split (45 < SAMPLES would not subsample anyway): a radius-0 ball certifies exactly the
    # correct predictions; growing radii certify ever fewer
    got = certified_accuracy(model, p, eps=(0.0, 0.01, 0.1, 0.3, 3.0), samples=None)
    values = [got[suffix(e)] for e in (0.0, 0.01, 0.1, 0.3, 3.0)]
    assert values[0] == pytest.approx(accuracy)
    assert all(a >= b for a, b in itertools.pairwise(values)), values
    assert values[-1] < values[0]  # three stds in every feature flip some predictions (or the proof fails)
    assert got == certified_accuracy(model, p, eps=(0.3, 0.0, 3.0, 0.1, 0.01), samples=None)  # order-free
    for e in (0.01, 0.1, 0.3):  # a radius verified alone certifies no more than with the larger radii's proofs
        assert certified_accuracy(model, p, eps=(e,), samples=None)[suffix(e)] <= got[suffix(e)]


def test_certified_accuracy_subset_is_seeded_and_capped():
    model, p = _trained_wine()
    assert len(p.held_out[1]) > 8
    a = certified_accuracy(model, p, samples=8)
    assert a == certified_accuracy(model, p, samples=8)
    assert a[suffix(EPS[0])] * 8 == pytest.approx(round(a[suffix(EPS[0])] * 8))  # a count out of 8
    assert SAMPLES >= 16
    with pytest.raises(MetricSkipped, match="per-run cap"):
        certified_accuracy(model, p, max_macs=10.0)
    # lifting the cap through a custom hook
    hook = RunMetric("certified_accuracy", functools.partial(certified_accuracy, max_macs=None))
    assert hook.measure(model, p) == {KEY: certified_accuracy(model, p)[suffix(EPS[0])]}
