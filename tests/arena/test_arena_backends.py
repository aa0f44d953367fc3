"""The same sweep gives the same numbers in this process, in local worker processes and on Ray (2 CPUs)."""

from __future__ import annotations

import pytest
from arena_helpers import LoggedTask, cube

from nonlin.arena.store import Store
from nonlin.arena.sweep import Sweep


def sweep(out, log, **kw):
    return Sweep(
        ["relu", {"cube": cube}],
        [LoggedTask(log=str(log), steps=20), "wine:steps=8"],
        seeds=2,
        out=out,
        progress=False,
        lr_grid=("x1", "x2"),  # wine at two lrs, the logged task (no lr) at one
        **kw,
    )


def numbers(out) -> dict[str, tuple]:
    with Store(out, create=False) as s:
        runs, curves = s.runs(), s.curves()
    # every number but the clocks (the train_s series: training seconds at each evaluation)
    return {
        r["run_id"]: (
            r["status"],
            r["final_metric"],
            r["best_metric"],
            r["val_metric"],
            r["baselines"],
            r["extras"],
            {k: v for k, v in curves[r["run_id"]].items() if k != "train_s"},
        )
        for r in runs
    }


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    return tmp_path_factory.mktemp("log") / "starts.log"  # part of the task's config, so shared by all sweeps


@pytest.fixture(scope="module")
def reference(tmp_path_factory, log):
    d = tmp_path_factory.mktemp("inprocess")
    sweep(d, log, workers=0).run()
    return numbers(d)


def test_local_worker_processes_match_in_process(reference, log, tmp_path):
    outcome = sweep(tmp_path, log, workers=2).run()
    assert len(outcome.executed) == 12 and outcome.counts["ok"] == 12
    assert {r.pid for r in outcome.executed}.isdisjoint({__import__("os").getpid()})  # ran in workers
    assert numbers(tmp_path) == reference


def test_ray_matches_local(reference, log, tmp_path):
    ray = pytest.importorskip("ray", reason="Ray not installed (pip install 'nonlin[ray]')")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="error")
    try:
        outcome = sweep(tmp_path, log, backend="ray").run()
        assert outcome.counts["ok"] == 12
        with Store(tmp_path, create=False) as s:
            assert {r["backend"] for r in s.runs()} == {"ray"}
        assert numbers(tmp_path) == reference
    finally:
        ray.shutdown()
