"""One run: train a task's problem(s) with one nonlinearity and seed, and measure it.

`execute(spec)` never raises for a problem of the run itself: NaN/inf in the loss or the metric is
recorded as ``diverged``, an exception as ``failed`` with its traceback. It always runs with one intra-op
thread (restored afterwards), so a run's numbers do not depend on the backend or the worker it lands on.

Costs are measured after a warm-up: one forward and backward pass of a copy of each model on its probe
input (no optimizer step, no random numbers drawn, so training is unchanged) pays the one-time costs
(lazy initialisation, first-call dispatch, allocator growth) before the clock and the memory baseline
start. ``train_s`` and ``throughput`` are the training steps only; ``warmup_s`` is stored apart.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import os
import platform
import socket
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

import torch

import nonlin
from nonlin.arena import integrations
from nonlin.arena.acts import Act
from nonlin.arena.metrics import MetricSkipped, RunMetric
from nonlin.arena.tasks.base import Problem, Task, learned_threshold

MAX_CURVE_POINTS = 200  # loss curves are thinned to at most this many points (evenly by step) before storing


@dataclass(frozen=True)
class RunSpec:
    """What to run: a task (with its hyperparameters), a nonlinearity, a seed, and the per-run metric hooks
    to measure after training (they do not change the run: not part of its id)."""

    task: Task
    act: Act
    seed: int
    metrics: tuple[RunMetric, ...] = ()

    @property
    def run_id(self) -> str:
        return run_id(self.task, self.act, self.seed)


def run_id(task: Task, act: Act, seed: int) -> str:
    """A stable id from everything that determines the run: task name and config, act label, seed."""
    key = json.dumps(
        {"task": task.name, "config": task.config(), "act": act.label, "seed": seed}, sort_keys=True, default=str
    )
    return hashlib.sha1(key.encode()).hexdigest()[:16]


@dataclass
class RunResult:
    run_id: str
    task: str
    task_label: str
    board: str  # the leaderboard it belongs to: the task label without the lr (lr is tuned within a board)
    task_config: dict[str, Any]
    act: str
    act_config: dict[str, Any]
    seed: int
    status: str  # "ok", "diverged" or "failed"
    metric_name: str
    goal: str
    lr: float | None = None  # the task's lr field (None: the task has none)
    final_metric: float | None = None  # on the test split, after the last step
    best_metric: float | None = None
    val_metric: float | None = None  # on the validation split, after the last step (the lr is chosen on it)
    final_loss: float | None = None
    max_loss_ratio: float | None = None  # largest training loss after step 1 over the first one (a spike)
    baselines: dict[str, float] = field(default_factory=dict)  # trivial predictors on the same test split
    threshold: float | None = None  # the metric a run must beat to count as learned (None: no baselines)
    metrics: dict[str, float | None] = field(default_factory=dict)  # per-run metric hooks
    extras: dict[str, float] = field(default_factory=dict)
    curves: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    wall_s: float = 0.0
    train_s: float = 0.0
    warmup_s: float = 0.0
    throughput: float | None = None
    throughput_unit: str = ""
    peak_rss_bytes: int | None = None  # the worker's peak resident memory during the run
    base_rss_bytes: int | None = None  # its resident memory when the run started (peak - base: the run's own)
    sparsity: float | None = None
    dead_rate: float | None = None
    diverged_step: int | None = None
    error: str | None = None
    info: dict[str, str] = field(default_factory=dict)  # facts about the data (corpus version, sizes)
    started_at: float = 0.0
    finished_at: float = 0.0
    host: str = ""
    pid: int = 0
    versions: dict[str, str] = field(default_factory=dict)


class _Diverged(Exception):
    def __init__(self, step: int, what: str) -> None:
        super().__init__(f"{what} is not finite at step {step}")
        self.step = step


def _finite(x: float | None) -> bool:
    return x is not None and math.isfinite(x)


class _PeakMemory:
    """Peak resident memory of this process during the run, in bytes.

    On Linux, writing 5 to /proc/self/clear_refs resets the high-water mark (VmHWM), so the peak is that of
    this run alone even in a long-lived worker; elsewhere ru_maxrss (the process's lifetime peak) is used.
    """

    def __init__(self) -> None:
        self.resettable = False
        _release_free_heap()
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            self.resettable = True
        except OSError:
            pass

    @staticmethod
    def _status(key: str) -> int | None:
        try:
            with open("/proc/self/status") as f:
                for line in f:
                    if line.startswith(key + ":"):
                        return int(line.split()[1]) * 1024
        except OSError:
            return None
        return None

    def current(self) -> int | None:
        return self._status("VmRSS")

    def peak(self) -> int | None:
        if self.resettable:
            return self._status("VmHWM")
        import resource

        scale = 1 if platform.system() == "Darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def _release_free_heap() -> None:
    """Give memory freed by earlier runs back to the OS (glibc keeps it otherwise), so that the resident size
    at the start of a run is its true baseline and the peak above it is this run's own."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc (macOS, musl): the baseline includes retained heap
        pass


def _thin(points: list[tuple[int, float]]) -> list[tuple[int, float]]:
    if len(points) <= MAX_CURVE_POINTS:
        return points
    step = (len(points) - 1) / (MAX_CURVE_POINTS - 1)
    return [points[round(i * step)] for i in range(MAX_CURVE_POINTS)]


def _versions() -> dict[str, str]:
    return {"nonlin": nonlin.__version__, "torch": torch.__version__, "python": platform.python_version()}


def _warm_up(p: Problem) -> None:
    """One forward and backward pass of a copy of the model on the probe input: the one-time costs of the
    first call are paid here, outside the measured run, and the model, optimizer and RNGs stay untouched."""
    model = copy.deepcopy(p.model)
    model.train()
    out = model(p.probe_input)
    out = out[0] if isinstance(out, (tuple, list)) else out
    out.float().square().mean().backward()


def _train(name: str, p: Problem, res: RunResult, prefix: str) -> tuple[dict[str, float], float, int]:
    """Train one problem; fills its curves in `res`; returns (last evaluation, train seconds, items seen)."""
    losses: list[tuple[int, float]] = []
    metric_curve: list[tuple[int, float]] = []
    time_curve: list[tuple[int, float]] = []  # training seconds (evaluations excluded) at each evaluation
    sparsity_curve: list[tuple[int, float]] = []
    res.curves[prefix + "loss"] = losses
    res.curves[prefix + res.metric_name] = metric_curve
    res.curves[prefix + "train_s"] = time_curve
    last: dict[str, float] = {}
    seconds = 0.0

    def evaluate(step: int) -> None:
        nonlocal last
        p.model.eval()
        with torch.no_grad():
            last = p.evaluate(p.model)
        p.model.train()
        value = last.get(res.metric_name)
        if value is None:
            raise KeyError(f"evaluate() of {name} returned no {res.metric_name!r}; got {sorted(last)}")
        metric_curve.append((step, float(value)))
        time_curve.append((step, seconds))
        if not _finite(value):
            raise _Diverged(step, res.metric_name)
        if p.track_sparsity:
            stats = integrations.activation_stats(p.model, p.probe_input)
            if stats is not None:
                sparsity_curve.append((step, stats["sparsity"]))
                res.curves[prefix + "sparsity"] = sparsity_curve

    p.model.train()
    evaluate(0)
    step = 0
    try:
        for step in range(1, p.steps + 1):
            t0 = time.perf_counter()
            batch = p.next_batch(step)
            loss = p.loss(p.model, batch)
            value = float(loss.detach())
            losses.append((step, value))
            if not math.isfinite(value):
                raise _Diverged(step, "training loss")
            p.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if p.clip_grad_norm is not None:
                torch.nn.utils.clip_grad_norm_(p.model.parameters(), p.clip_grad_norm)
            p.optimizer.step()
            if p.scheduler is not None:
                p.scheduler.step()
            seconds += time.perf_counter() - t0
            if step % p.eval_every == 0 and step != p.steps:
                evaluate(step)
        evaluate(p.steps)
    finally:
        if losses and losses[0][1] > 0 and all(math.isfinite(v) for _, v in losses):
            res.max_loss_ratio = max(v for _, v in losses[1:] or losses) / losses[0][1]
        res.curves[prefix + "loss"] = _thin(losses)
    return last, seconds, p.steps * p.items_per_step


def _validate(p: Problem, metric: str) -> float | None:
    if p.validate is None:
        return None
    p.model.eval()
    with torch.no_grad():
        got = p.validate(p.model)
    p.model.train()
    value = got.get(metric)
    return float(value) if _finite(value) else None


def execute(spec: RunSpec) -> RunResult:
    """Run `spec` and measure it; always returns a RunResult (status ok, diverged or failed)."""
    task, act = spec.task, spec.act
    config = task.config()
    res = RunResult(
        run_id=spec.run_id,
        task=task.name,
        task_label=task.label(),
        board=task.label(without=("lr",)),
        task_config=config,
        act=act.label,
        act_config=act.to_json(),
        seed=spec.seed,
        status="ok",
        metric_name=task.metric,
        goal=task.goal,
        lr=float(config["lr"]) if isinstance(config.get("lr"), (int, float)) else None,
        started_at=time.time(),
        host=socket.gethostname(),
        pid=os.getpid(),
        versions=_versions(),
    )
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    memory: _PeakMemory | None = None
    t0 = time.perf_counter()
    try:
        torch.manual_seed(spec.seed)
        built = task.build(act, spec.seed)
        problems = built if isinstance(built, dict) else {"": built}
        if not problems:
            raise ValueError(f"task {task.name}: build() returned no problem")
        t_warm = time.perf_counter()
        for problem in problems.values():
            _warm_up(problem)
        res.warmup_s = time.perf_counter() - t_warm
        memory = _PeakMemory()  # after the warm-up: its one-time allocations are in the baseline
        res.base_rss_bytes = memory.current()
        primary = next(iter(problems.values()))
        res.baselines = {k: float(v) for k, v in primary.baselines.items()}
        res.threshold = learned_threshold(res.baselines, task.goal, task.best_possible(), task.learn_margin)
        res.info = dict(primary.info)
        items = 0
        for i, (name, problem) in enumerate(problems.items()):
            prefix = "" if i == 0 else f"{name}/"
            try:
                last, seconds, n = _train(name, problem, res, prefix)
            except _Diverged as d:
                if i == 0:
                    res.status, res.diverged_step = "diverged", d.step
                    res.error = str(d)
                else:
                    res.extras[f"diverged@{name}"] = 1.0
                continue
            res.train_s += seconds
            items += n
            curve = res.curves[prefix + res.metric_name]
            if i == 0:
                res.final_metric = last[res.metric_name]
                res.val_metric = _validate(problem, res.metric_name)
                best = max if task.goal == "max" else min
                res.best_metric = best(v for _, v in curve)
                res.final_loss = res.curves["loss"][-1][1] if res.curves["loss"] else None
                res.extras.update({k: float(v) for k, v in last.items() if k != res.metric_name})
                stats = integrations.activation_stats(problem.model, problem.probe_input)
                if stats is not None:
                    res.sparsity, res.dead_rate = stats["sparsity"], stats["dead_rate"]
                _measure_hooks(spec, problem, res)
            else:
                res.extras.update({f"{k}@{name}": float(v) for k, v in last.items()})
            if i == 0:
                res.throughput_unit = f"{problem.item_unit}/s"
        if res.train_s > 0:
            res.throughput = items / res.train_s
    except Exception:
        res.status, res.error = "failed", traceback.format_exc(limit=20)
    finally:
        torch.set_num_threads(threads)
        res.wall_s = time.perf_counter() - t0
        res.peak_rss_bytes = memory.peak() if memory is not None else None
        res.finished_at = time.time()
    return res


def _measure_hooks(spec: RunSpec, problem: Problem, res: RunResult) -> None:
    """The per-run metric hooks; one that raises says why in `error` ("metric X skipped: ..." for
    MetricSkipped, no value; "metric X failed: ...", value NULL, otherwise); the run itself trained fine,
    so it stays ok."""
    for hook in spec.metrics:
        if not hook.applies(spec.task.name, problem):
            continue
        try:
            res.metrics.update(hook.measure(problem.model, problem))
        except MetricSkipped as err:  # the hook cannot measure this model: no value, not a failure
            note = f"metric {hook.name} skipped: {err}"
            res.error = f"{res.error}\n{note}" if res.error else note
        except Exception as err:
            res.metrics[hook.name] = None
            note = f"metric {hook.name} failed: {type(err).__name__}: {err}"
            res.error = f"{res.error}\n{note}" if res.error else note
