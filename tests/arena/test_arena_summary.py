"""The verdict rules on made-up runs: lr chosen on validation (never on test), runs that did not learn never
ranked above runs that learned, ties from paired tests with Holm's correction, intervals, outliers."""

from __future__ import annotations

import math

import pytest

from nonlin.arena.summary import fmt_ci, holm, leaderboards, not_learned_by_act, paired_p, t_interval


def run(act, seed, test, *, val=None, lr=1e-3, status="ok", threshold=0.46, goal="max", board="wine", **kw):
    return {
        "run_id": f"{act}-{lr}-{seed}",
        "task": board,
        "task_label": board,
        "board": board,
        "act": act,
        "seed": seed,
        "lr": lr,
        "status": status,
        "metric_name": "accuracy" if goal == "max" else "mse",
        "goal": goal,
        "final_metric": test if status == "ok" else None,
        "best_metric": test if status == "ok" else None,
        "val_metric": (test if val is None else val) if status == "ok" else None,
        "final_loss": kw.get("final_loss", 0.1),
        "max_loss_ratio": kw.get("max_loss_ratio", 1.0),
        "baselines": {"chance": 1 / 3, "majority": 0.4} if goal == "max" else {"predict_zero": 0.5},
        "threshold": threshold,
        "metrics": {},
        "extras": kw.get("extras", {}),
        "wall_s": 1.0,
        "train_s": 0.9,
        "throughput": 100.0,
        "throughput_unit": "examples/s",
        "peak_rss_bytes": 2,
        "base_rss_bytes": 1,
        "sparsity": None,
        "dead_rate": None,
    }


def board(runs):
    (entries,) = leaderboards(runs).values()
    return {e.act: e for e in entries}, entries


def test_a_run_that_did_not_learn_is_never_ranked_above_one_that_did():
    runs = [run("stuck", s, 0.40) for s in range(3)]  # the majority rate: below the 0.46 threshold
    runs += [run("half", s, v) for s, v in enumerate((0.9, 0.4, 0.91))]  # one seed stuck
    runs += [run("diverges", 0, 0.99), run("diverges", 1, None, status="diverged"), run("diverges", 2, 0.99)]
    runs += [run("learns", s, v) for s, v in enumerate((0.6, 0.62, 0.61))]
    by, entries = board(runs)
    assert next(e.act for e in entries) == "learns" and by["learns"].rank == "1"
    assert by["stuck"].rank == "did not learn (3 of 3)"
    assert by["half"].rank == "did not learn (1 of 3)"
    assert by["diverges"].rank == "did not learn (1 of 3)"
    assert all(not e.learned for e in entries[1:])
    counts = not_learned_by_act(leaderboards(runs))
    assert counts["stuck"]["not_learned"] == 3 and counts["learns"]["not_learned"] == 0


def test_noise_gives_a_tie_group_and_a_clear_gap_gives_ranks():
    runs = []
    for s in range(5):
        runs += [run("a", s, 0.90 + 0.01 * s), run("b", s, 0.905 + 0.01 * s - 0.012 * (s % 2))]
        runs += [run("c", s, 0.70 + 0.001 * s)]
    by, _ = board(runs)
    assert by["a"].rank == by["b"].rank == "tied 1-2"
    assert by["c"].rank == "3"


def test_one_seed_says_so_and_separates_nothing():
    by, _ = board([run("a", 0, 0.9), run("b", 0, 0.8)])
    assert fmt_ci(by["a"]) == "0.9 (1 seed)" and "±" not in fmt_ci(by["a"])
    assert by["a"].rank == by["b"].rank == "tied 1-2"


def test_lr_is_chosen_on_validation_and_reported_on_test():
    runs = [run("a", s, test=0.95, val=0.70, lr=1e-3) for s in range(3)]  # best test, worse validation
    runs += [run("a", s, test=0.90, val=0.80, lr=2e-3) for s in range(3)]
    runs += [run("a", s, None, lr=4e-3, status="diverged") for s in range(1)] + [run("a", 1, 0.99, val=0.99, lr=4e-3)]
    by, _ = board(runs)
    e = by["a"]
    assert e.chosen_lr == 2e-3 and e.chosen_by == "validation"  # 4e-3 has a diverged seed: not eligible
    assert e.values == [0.90, 0.90, 0.90] and [p.lr for p in e.lr_curve] == [1e-3, 2e-3, 4e-3]
    assert not e.lr_at_edge


def test_outlier_seed_is_flagged_and_median_shown():
    runs = [run("swiglu", s, v, goal="min", threshold=0.45) for s, v in enumerate((0.1, 0.11, 2.0))]
    runs += [
        run("relu", s, 0.2, goal="min", threshold=0.45, extras={"test_loss": x}) for s, x in enumerate((1, 1, 33.3))
    ]
    runs += [run("gelu", 0, 0.1, goal="min", threshold=0.45, max_loss_ratio=50.0)]
    by, _ = board(runs)
    assert any("seed 2: mse" in o for o in by["swiglu"].outliers) and by["swiglu"].median == 0.11
    assert any("seed 2: test_loss 33.3" in o for o in by["relu"].outliers)
    assert any("spiked" in o for o in by["gelu"].outliers)


def test_stats_helpers():
    lo, hi = t_interval([1.0, 2.0, 3.0])
    assert lo == pytest.approx(2 - 4.302652729911275 / math.sqrt(3)) and hi == pytest.approx(
        2 + 4.302652729911275 / math.sqrt(3)
    )
    assert t_interval([1.0]) is None
    assert paired_p({0: 1, 1: 2}, {0: 0, 1: 1}) == (1.0, 2)  # fewer than 3 common seeds
    assert paired_p({0: 1, 1: 2, 2: 3}, {0: 0, 1: 1, 2: 2})[0] == 0.25  # equal differences: sign test
    assert holm({"x": 0.01, "y": 0.04, "z": 0.03}) == {"x"}  # 0.01 <= 0.05/3, then 0.03 > 0.05/2
    assert holm({"x": 0.01, "y": 0.02}) == {"x", "y"}
