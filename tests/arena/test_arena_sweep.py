"""Sweeps: planning, storing, exactly-once resume after an interruption or a kill, divergence, custom pieces."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest
import torch
from arena_helpers import LoggedTask, starts

from nonlin.arena import RunSpec, as_act, execute, make_task
from nonlin.arena.store import Store
from nonlin.arena.sweep import Sweep

HERE = Path(__file__).parent


def stored(out: Path) -> dict[str, str]:
    with Store(out, create=False) as s:
        return s.status()


def test_interrupted_sweep_resumes_every_run_exactly_once(tmp_path):
    log = str(tmp_path / "starts.log")
    sweep = Sweep(["relu", "tanh"], [LoggedTask(log=log)], seeds=4, out=tmp_path, workers=0, progress=False)
    planned = {s.run_id for s in sweep.plan()[0]}
    assert len(planned) == 8

    seen = []

    def stop_after_three(result):
        seen.append(result.run_id)
        if len(seen) == 3:
            raise KeyboardInterrupt  # what Ctrl-C does between two runs

    with pytest.raises(KeyboardInterrupt):
        sweep.run(on_result=stop_after_three)
    first = stored(tmp_path)
    assert set(first) == set(seen) and len(first) == 3  # committed before the callback: all three kept

    outcome = Sweep.resume(tmp_path, workers=0, progress=False).run()
    assert outcome.already_done == 3 and len(outcome.executed) == 5
    assert set(stored(tmp_path)) == planned
    runs = starts(log)
    assert len(runs) == 8 and len(set(runs)) == 8  # every run started exactly once over both sessions

    again = Sweep.resume(tmp_path, workers=0, progress=False).run()
    assert again.executed == [] and again.already_done == 8
    assert len(starts(log)) == 8


KILL_SCRIPT = """
import sys
sys.path.insert(0, {here!r})
from arena_helpers import LoggedTask, cube
from nonlin.arena.sweep import Sweep

if __name__ == "__main__":
    Sweep(["relu", {{"cube": cube}}], [LoggedTask(log={log!r}, sleep=0.4)], seeds=5, out={out!r},
          workers={workers}, progress=False).run()
"""


@pytest.mark.parametrize(
    ("how", "workers"),
    [
        ("SIGKILL", 0),
        # SIGINT is Ctrl-C in a terminal; 2 workers: a pool of worker processes (slow: spawning them)
        pytest.param("SIGINT", 0, marks=pytest.mark.slow),
        pytest.param("SIGKILL", 2, marks=pytest.mark.slow),
        pytest.param("SIGINT", 2, marks=pytest.mark.slow),
    ],
)
def test_stopped_sweep_resumes_exactly_once_with_custom_task_and_callable(tmp_path, how, workers):
    """A sweep stopped after some runs are stored (SIGKILL to the driver and its workers, or SIGINT to the
    driver), then resumed from the command line: every planned run is stored once, none stored before the
    stop runs again, and after SIGINT no worker is left running."""
    log, out = str(tmp_path / "starts.log"), tmp_path / "runs"
    script = tmp_path / "sweep.py"
    script.write_text(textwrap.dedent(KILL_SCRIPT.format(here=str(HERE), log=log, out=str(out), workers=workers)))
    proc = subprocess.Popen([sys.executable, str(script)], start_new_session=True, stderr=subprocess.DEVNULL)
    db = out / "arena.sqlite"
    deadline = time.time() + 120
    try:
        while time.time() < deadline and proc.poll() is None:
            if db.exists():
                with sqlite3.connect(db, timeout=5) as c:
                    try:
                        n = c.execute("SELECT count(*) FROM runs").fetchone()[0]
                    except sqlite3.OperationalError:
                        n = 0
                if n >= 3:
                    break
            time.sleep(0.05)
        if how == "SIGINT":
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=30)  # the driver stops its workers and exits promptly
        else:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    before = stored(out)
    assert 3 <= len(before) < 10, f"the stop came too late to test anything: {len(before)} runs stored"
    if how == "SIGINT":
        time.sleep(0.5)
        worker_pids = {int(line.split()[3]) for line in Path(log).read_text().splitlines()} - {proc.pid}
        assert not any(Path(f"/proc/{pid}").exists() for pid in worker_pids), "workers left running"
    starts_before = Counter(starts(log))

    from nonlin.cli import main

    assert main(["arena", "--resume", str(out), "--workers", "0", "--no-progress", "--no-report"]) == 0
    after = stored(out)
    assert len(after) == 10 and set(before) <= set(after)
    assert all(v == "ok" for v in after.values())
    with Store(out, create=False) as s:
        runs = s.runs()
    assert {(r["act"], r["seed"]) for r in runs} == {(a, seed) for a in ("relu", "cube") for seed in range(5)}
    before_keys = {(r["seed"], r["act"]) for r in runs if r["run_id"] in before}
    starts_after = Counter(starts(log)) - starts_before
    # Nothing stored before the stop ran again; each run not stored yet ran exactly once on resume.
    assert not (set(starts_after) & before_keys)
    assert all(n == 1 for n in starts_after.values())
    assert sum(starts_after.values()) == 10 - len(before)


def test_diverging_configuration_is_recorded_not_raised(tmp_path):
    task = make_task("digits:lr=10,hidden=64x64x64x64,steps=20")
    r = execute(RunSpec(task, as_act("quadratic"), 0))
    assert r.status == "diverged" and r.diverged_step is not None and r.final_metric is None
    assert "not finite" in r.error
    outcome = Sweep(
        ["quadratic", "relu"],
        ["digits:lr=10,hidden=64x64x64x64,steps=20"],
        seeds=1,
        out=tmp_path,
        workers=0,
        progress=False,
        tune=False,
    ).run()
    assert outcome.counts == {"ok": 1, "diverged": 1, "failed": 0}
    with Store(tmp_path, create=False) as s:
        rows = {r["act"]: r for r in s.runs()}
    assert rows["quadratic"]["status"] == "diverged" and rows["quadratic"]["final_metric"] is None
    assert rows["relu"]["status"] == "ok"


def test_failed_run_is_recorded_and_retried_only_on_request(tmp_path):
    marker = tmp_path / "failed-once"

    def flaky(x: torch.Tensor) -> torch.Tensor:
        # Runs get a copy of this function (it travels pickled), so the state lives in a file.
        if not marker.exists():
            marker.write_text("")
            raise RuntimeError("boom")
        return torch.relu(x)

    log = str(tmp_path / "log")
    sweep = Sweep({"flaky": flaky}, [LoggedTask(log=log)], seeds=1, out=tmp_path, workers=0, progress=False)
    assert sweep.run().counts["failed"] == 1
    assert (
        Sweep({"flaky": flaky}, [LoggedTask(log=log)], seeds=1, out=tmp_path, workers=0, progress=False).run().executed
        == []
    )
    retried = Sweep(
        {"flaky": flaky}, [LoggedTask(log=log)], seeds=1, out=tmp_path, workers=0, progress=False, retry_failed=True
    ).run()
    assert retried.counts == {"ok": 1, "diverged": 0, "failed": 0}
    assert list(stored(tmp_path).values()) == ["ok"]


def test_plan_skips_pairs_a_task_cannot_run(tmp_path):
    sweep = Sweep(["relu", "softmax"], ["digits", "py_lm"], seeds=2, out=tmp_path, progress=False, tune=False)
    specs, skipped = sweep.plan()
    assert len(specs) == 6  # relu on both, softmax (a normalizer) only in py_lm's attention
    assert skipped == [("digits", "softmax", skipped[0][2])] and "normalizer" in skipped[0][2]


def test_plan_runs_every_seed_at_every_lr_of_the_grid(tmp_path):
    sweep = Sweep(["relu"], ["digits:lr=0.004", LoggedTask(log="x")], seeds=2, out=tmp_path, progress=False)
    specs, _ = sweep.plan()
    digits = sorted({s.task.lr for s in specs if s.task.name == "digits"})
    assert digits == [0.001, 0.002, 0.004, 0.008]  # x0.25 .. x2 of the task's lr
    assert len(specs) == 4 * 2 + 2  # LoggedTask has no lr: not tuned
    assert {s.task.label(without=("lr",)) for s in specs if s.task.name == "digits"} == {"digits"}
    grid = Sweep(["relu"], ["digits"], lr_grid="1e-3, x2", out=tmp_path, progress=False).plan()[0]
    assert sorted({s.task.lr for s in grid}) == [0.001, 0.006]
    budget = Sweep(["relu"], ["digits"], budget=0.5, tune=False, out=tmp_path, progress=False).plan()[0]
    assert {(s.task.steps, s.task.eval_every) for s in budget} == {(100, 12)}


def test_lr_grid_and_budget_errors(tmp_path):
    with pytest.raises(ValueError, match="neither a factor"):
        Sweep(["relu"], ["digits"], lr_grid=["fast"], out=tmp_path)
    with pytest.raises(ValueError, match="positive and finite"):
        Sweep(["relu"], ["digits"], lr_grid=["x0"], out=tmp_path)
    with pytest.raises(ValueError, match="budget must be a positive number"):
        Sweep(["relu"], ["digits"], budget=0, out=tmp_path)


def test_metric_hook_is_stored_and_reported(tmp_path):
    from nonlin.arena.metrics import RunMetric
    from nonlin.arena.report import build_report

    def margin(model, problem):
        x, y = problem.held_out
        with torch.no_grad():  # a hook decides itself whether it needs gradients
            logits = model(x)
        return float(logits.gather(1, y[:, None]).mean())

    def broken(model, problem):
        raise RuntimeError("nope")

    hooks = [RunMetric("mean_logit", margin), RunMetric("broken", broken)]
    Sweep(["relu"], ["wine:steps=5"], seeds=1, out=tmp_path, workers=0, progress=False, tune=False, metrics=hooks).run()
    with Store(tmp_path, create=False) as s:
        (run,) = s.runs()
    assert run["status"] == "ok" and isinstance(run["metrics"]["mean_logit"], float)
    assert run["metrics"]["broken"] is None and "metric broken failed: RuntimeError: nope" in run["error"]
    assert "mean_logit" in build_report(tmp_path)["markdown"].read_text()
