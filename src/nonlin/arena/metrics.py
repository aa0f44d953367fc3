"""Per-run metric hooks: numbers measured on a trained model beyond the task's own metric.

A hook is called once per run, after training, on the primary problem's model (in eval mode) and the
Problem itself (``problem.held_out`` is the test split ``(x, y)`` where the task has one); it returns a
number, a ``{suffix: number}`` dict, or None when it does not apply; it raises `MetricSkipped(reason)`
when it applies to the task but cannot measure this model (the run records "skipped: reason"). Its values are stored in the run's
``metrics`` column and shown as columns of the leaderboard (mean and 95% interval over seeds), next to the
task's metric; they do not change the ranking.

    def weight_norm(model, problem):
        return float(sum(p.norm() ** 2 for p in model.parameters()) ** 0.5)

    Sweep(acts, tasks, metrics=[RunMetric("weight_norm", weight_norm, goal="min")])

``DEFAULT_METRICS`` are measured in every sweep that does not pass ``metrics=``: certified accuracy
(`nonlin.arena.certified`, CROWN at small L-inf radii) on classification tasks. ``metrics=()`` measures none.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from torch import nn


class MetricSkipped(Exception):  # a verdict, not an error: the run stays ok
    """Raised by a hook that applies to the task but cannot measure this model; the run records the reason."""


from nonlin.arena import certified  # noqa: E402  (certified raises MetricSkipped)


@dataclass(frozen=True)
class RunMetric:
    """A per-run metric hook. ``tasks``: the task names it applies to (None: every task); ``needs_held_out``:
    skip tasks whose Problem has no ``held_out`` data; ``description``: what the number is, for the report."""

    name: str
    fn: Callable[[nn.Module, Any], float | dict[str, float] | None]
    goal: str = "max"
    tasks: tuple[str, ...] | None = None
    needs_held_out: bool = True
    description: str = ""

    def __post_init__(self) -> None:
        if not self.name or not callable(self.fn):
            raise TypeError(f"RunMetric needs a name and a callable fn(model, problem); got {self.name!r}, {self.fn!r}")
        if self.goal not in ("max", "min"):
            raise ValueError(f"RunMetric {self.name}: goal must be 'max' or 'min'; got {self.goal!r}")

    def applies(self, task_name: str, problem: Any) -> bool:
        if self.tasks is not None and task_name not in self.tasks:
            return False
        return not (self.needs_held_out and getattr(problem, "held_out", None) is None)

    def measure(self, model: nn.Module, problem: Any) -> dict[str, float | None]:
        """{name or name.suffix: value}; non-finite values become None (stored as NULL)."""
        was_training = model.training
        model.eval()
        try:
            got = self.fn(model, problem)
        finally:
            model.train(was_training)
        if got is None:
            return {}
        items = got.items() if isinstance(got, dict) else [("", got)]
        out: dict[str, float | None] = {}
        for suffix, v in items:
            v = float(v)
            out[f"{self.name}.{suffix}" if suffix else self.name] = v if math.isfinite(v) else None
        return out


CERTIFIED_ACCURACY = RunMetric("certified_accuracy", certified.certified_accuracy, description=certified.DESCRIPTION)
DEFAULT_METRICS: tuple[RunMetric, ...] = (CERTIFIED_ACCURACY,)


def as_metrics(metrics: Any) -> tuple[RunMetric, ...]:
    if metrics is None:
        return DEFAULT_METRICS
    if isinstance(metrics, RunMetric):
        return (metrics,)
    out = tuple(metrics)
    bad = [m for m in out if not isinstance(m, RunMetric)]
    if bad:
        raise TypeError(f"metrics must be RunMetric hooks (nonlin.arena.metrics.RunMetric); got {bad[0]!r}")
    names = [m.name for m in out]
    if len(set(names)) != len(names):
        raise ValueError(f"two metric hooks share a name: {names}")
    return out


__all__ = ["CERTIFIED_ACCURACY", "DEFAULT_METRICS", "RunMetric", "as_metrics"]
