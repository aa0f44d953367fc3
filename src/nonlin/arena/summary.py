"""Aggregates of stored runs: per task and nonlinearity, mean and spread over seeds (the leaderboard)."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Entry:
    """One leaderboard row: a nonlinearity on a task, over its seeds."""

    task: str
    act: str
    metric_name: str
    goal: str
    seeds: list[int] = field(default_factory=list)
    values: list[float] = field(default_factory=list)  # final metric of the runs that finished (status ok)
    best: list[float] = field(default_factory=list)
    diverged: int = 0
    failed: int = 0
    wall_s: list[float] = field(default_factory=list)
    throughput: list[float] = field(default_factory=list)
    throughput_unit: str = ""
    run_mem: list[float] = field(default_factory=list)  # peak - base resident bytes
    peak_mem: list[float] = field(default_factory=list)
    sparsity: list[float] = field(default_factory=list)
    dead_rate: list[float] = field(default_factory=list)
    extras: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    @property
    def n(self) -> int:
        return len(self.seeds)

    @property
    def mean(self) -> float:
        return mean(self.values)

    @property
    def std(self) -> float:
        """Sample standard deviation over seeds (0 for a single seed, nan for none)."""
        if not self.values:
            return math.nan
        return statistics.stdev(self.values) if len(self.values) > 1 else 0.0

    def sort_key(self) -> tuple[int, float]:
        m = self.mean
        if math.isnan(m):
            return (1, 0.0)
        return (0, -m if self.goal == "max" else m)


def mean(xs: list[float]) -> float:
    xs = [x for x in xs if x is not None and math.isfinite(x)]
    return statistics.fmean(xs) if xs else math.nan


def leaderboards(runs: list[dict[str, Any]]) -> dict[str, list[Entry]]:
    """task label -> entries sorted best first (by mean final metric over the seeds that finished)."""
    table: dict[str, dict[str, Entry]] = defaultdict(dict)
    for r in runs:
        e = table[r["task_label"]].get(r["act"])
        if e is None:
            e = table[r["task_label"]][r["act"]] = Entry(r["task_label"], r["act"], r["metric_name"], r["goal"])
        e.seeds.append(r["seed"])
        e.diverged += r["status"] == "diverged"
        e.failed += r["status"] == "failed"
        if r["status"] == "ok" and r["final_metric"] is not None:
            e.values.append(r["final_metric"])
            e.best.append(r["best_metric"])
        if r["status"] != "failed":
            e.wall_s.append(r["wall_s"])
            if r["throughput"] is not None:
                e.throughput.append(r["throughput"])
                e.throughput_unit = r["throughput_unit"]
            if r["peak_rss_bytes"] is not None:
                e.peak_mem.append(r["peak_rss_bytes"])
                if r["base_rss_bytes"] is not None:
                    e.run_mem.append(r["peak_rss_bytes"] - r["base_rss_bytes"])
        for key in ("sparsity", "dead_rate"):
            if r[key] is not None:
                getattr(e, key).append(r[key])
        for k, v in r["extras"].items():
            if v is not None:
                e.extras[k].append(v)
    return {task: sorted(entries.values(), key=Entry.sort_key) for task, entries in sorted(table.items())}


def fmt(x: float | None, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{digits}g}"


def fmt_mean_std(e: Entry) -> str:
    if not e.values:
        return "-"
    return f"{fmt(e.mean)} ± {fmt(e.std, 2)}"


def mib(xs: list[float]) -> str:
    m = mean(xs)
    return "-" if math.isnan(m) else f"{m / 2**20:.0f}"
