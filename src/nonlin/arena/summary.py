"""The verdicts drawn from stored runs: per leaderboard (a task configuration, every lr stored) and
nonlinearity, the lr chosen on the validation split, the test metric there over seeds with a 95% interval,
whether the runs learned at all (against the task's trivial baselines), outlier seeds, and ranks that only
separate what a paired test over seeds can tell apart.

Rules (the report states them):

- **lr**: each (leaderboard, nonlinearity) takes the lr with the best mean *validation* metric over its seeds,
  among the lrs where every seed finished ok (if none did, the one with most ok seeds); a task without a
  validation split is chosen on the final training loss. The test metric is then read at that lr only.
- **learned**: a run learned when its test metric beats the task's threshold: the best trivial baseline
  moved ``learn_margin`` (default 10%) of the way to a perfect score (`tasks.base.learned_threshold`),
  from the baselines stored with the run and the bundled task's margin as this nonlin declares it (a
  custom task: the threshold stored with the run).
  Diverged and failed runs did not learn. An entry is ranked only when every seed at its lr learned; the
  others are listed below the ranked ones as *did not learn*, without a rank.
- **uncertainty**: 95% t interval of the mean over seeds (one seed: "1 seed", no interval).
- **ties**: every pair of ranked entries is compared paired by seed (same split, init stream and batches)
  with a two-sided paired t-test on the seeds both finished; Holm's step-down correction at 5% over all
  pairs of the leaderboard. Entry i's rank range is [1 + #entries significantly better, K - #entries
  significantly worse]: "1" when it is one rank, "tied 1-3" when the seeds cannot order it more finely.
  With fewer than 3 common seeds no pair is separated. When the differences of a pair are all equal (zero
  variance, e.g. quantised accuracies) the sign test's p-value (2 * 0.5^n) stands in for the t-test's.
- **outliers** (runs at the chosen lr that finished ok): a training-loss spike above 10x the first loss; or
  a loss-like number (the metric when lower is better, ``test_loss``, ``*mse``) above 10x the median of the
  other seeds (needs 3 seeds).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from nonlin.arena.tasks.base import beats, learned_threshold

ALPHA = 0.05
SPIKE_RATIO = 10.0
OUTLIER_RATIO = 10.0


@dataclass
class LrPoint:
    """One lr of an entry's grid: its runs' validation and test metrics (ok runs) and how many did not finish."""

    lr: float | None
    seeds: list[int] = field(default_factory=list)
    val: list[float] = field(default_factory=list)
    test: list[float] = field(default_factory=list)
    train_loss: list[float] = field(default_factory=list)
    not_ok: int = 0
    not_learned: int = 0

    @property
    def n(self) -> int:
        return len(self.seeds)


@dataclass
class Entry:
    """One leaderboard row: a nonlinearity on a task configuration, at its chosen lr, over its seeds."""

    task: str  # the leaderboard label (task label without the lr)
    act: str
    metric_name: str
    goal: str
    runs: list[dict[str, Any]] = field(default_factory=list)  # the runs at the chosen lr
    lr_curve: list[LrPoint] = field(default_factory=list)  # every lr stored, ascending
    chosen_lr: float | None = None
    chosen_by: str = ""  # "validation", "training loss", "only lr"
    seeds: list[int] = field(default_factory=list)
    by_seed: dict[int, float] = field(default_factory=dict)  # test metric of the ok runs at the chosen lr
    baselines: dict[str, float] = field(default_factory=dict)
    threshold: float | None = None
    not_learned: int = 0  # runs at the chosen lr that did not learn (incl. diverged and failed)
    diverged: int = 0
    failed: int = 0
    outliers: list[str] = field(default_factory=list)
    rank: str = "-"
    rank_range: tuple[int, int] | None = None
    wall_s: list[float] = field(default_factory=list)
    train_s: list[float] = field(default_factory=list)
    throughput: list[float] = field(default_factory=list)
    throughput_unit: str = ""
    run_mem: list[float] = field(default_factory=list)  # peak - base resident bytes
    peak_mem: list[float] = field(default_factory=list)
    sparsity: list[float] = field(default_factory=list)
    dead_rate: list[float] = field(default_factory=list)
    best: list[float] = field(default_factory=list)
    extras: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    metrics: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    @property
    def values(self) -> list[float]:
        return [self.by_seed[s] for s in sorted(self.by_seed)]

    @property
    def n(self) -> int:
        return len(self.seeds)

    @property
    def mean(self) -> float:
        return mean(self.values)

    @property
    def median(self) -> float:
        return statistics.median(self.values) if self.values else math.nan

    @property
    def std(self) -> float:
        """Sample standard deviation over seeds (nan below two seeds)."""
        return statistics.stdev(self.values) if len(self.values) > 1 else math.nan

    @property
    def ci(self) -> tuple[float, float] | None:
        return t_interval(self.values)

    @property
    def learned(self) -> bool:
        """Every seed at the chosen lr learned (and at least one finished)."""
        return bool(self.values) and self.not_learned == 0 and self.diverged == 0 and self.failed == 0

    @property
    def tuned(self) -> bool:
        return len(self.lr_curve) > 1

    @property
    def lr_at_edge(self) -> bool:
        """The chosen lr is the smallest or largest of a tuned grid (the best may lie outside it)."""
        return self.tuned and self.chosen_lr in (self.lr_curve[0].lr, self.lr_curve[-1].lr)

    def sort_key(self) -> tuple[int, float]:
        m = self.mean
        group = 0 if self.learned else 1
        if math.isnan(m):
            return (group + 2, 0.0)
        return (group, -m if self.goal == "max" else m)


def mean(xs: list[float]) -> float:
    xs = [x for x in xs if x is not None and math.isfinite(x)]
    return statistics.fmean(xs) if xs else math.nan


def t_interval(xs: list[float], level: float = 0.95) -> tuple[float, float] | None:
    """The t interval of the mean (None below two values)."""
    xs = [x for x in xs if x is not None and math.isfinite(x)]
    if len(xs) < 2:
        return None
    from scipy import stats

    m, s = statistics.fmean(xs), statistics.stdev(xs)
    half = float(stats.t.ppf(0.5 + level / 2, len(xs) - 1)) * s / math.sqrt(len(xs))
    return m - half, m + half


def paired_p(a: dict[int, float], b: dict[int, float]) -> tuple[float, int]:
    """Two-sided p-value that entries a and b (metric by seed) differ, paired by seed; and the seeds used."""
    common = sorted(set(a) & set(b))
    n = len(common)
    if n < 3:
        return 1.0, n
    d = [a[s] - b[s] for s in common]
    if all(x == d[0] for x in d):
        return (1.0 if d[0] == 0 else min(1.0, 2 * 0.5**n)), n
    from scipy import stats

    return float(stats.ttest_rel([a[s] for s in common], [b[s] for s in common]).pvalue), n


def holm(pvalues: dict[Any, float], alpha: float = ALPHA) -> set[Any]:
    """The keys whose hypotheses Holm's step-down procedure rejects at family-wise level `alpha`."""
    order = sorted(pvalues, key=pvalues.get)
    m, rejected = len(order), set()
    for i, key in enumerate(order):
        if pvalues[key] > alpha / (m - i):
            break
        rejected.add(key)
    return rejected


def _with_threshold(r: dict[str, Any]) -> dict[str, Any]:
    """The run with the threshold of the bundled task's current declaration (custom tasks: as stored)."""
    from nonlin.arena.tasks import make_task

    try:
        task = make_task(r["task"])
    except ValueError:
        return r
    if r.get("baselines") is None or task.goal != r["goal"]:
        return r
    return {**r, "threshold": learned_threshold(r["baselines"], task.goal, task.best_possible(), task.learn_margin)}


def _choose_lr(points: list[LrPoint], goal: str) -> tuple[LrPoint, str]:
    if len(points) == 1:
        return points[0], "only lr"
    if all(p.not_ok == p.n for p in points):
        return points[0], "no run finished at any lr"
    complete = [p for p in points if p.not_ok == 0 and p.n > 0] or [max(points, key=lambda p: p.n - p.not_ok)]
    sign = -1 if goal == "max" else 1
    if all(len(p.val) == p.n - p.not_ok and p.val for p in complete):
        return min(complete, key=lambda p: sign * mean(p.val)), "validation"
    with_loss = [p for p in complete if p.train_loss]
    if with_loss:
        return min(with_loss, key=lambda p: mean(p.train_loss)), "training loss"
    return complete[0], "first lr (no validation split, no training loss)"


def _outliers(e: Entry) -> list[str]:
    out = []
    ok = [r for r in e.runs if r["status"] == "ok"]
    for r in ok:
        ratio = r.get("max_loss_ratio")
        if ratio is not None and ratio > SPIKE_RATIO:
            out.append(f"seed {r['seed']}: training loss spiked to {ratio:.3g}x its first value")
    if len(ok) < 3:
        return out
    keys = [k for k in sorted({k for r in ok for k in r["extras"]}) if k.endswith(("loss", "mse"))]
    series = {k: {r["seed"]: r["extras"].get(k) for r in ok} for k in keys}
    if e.goal == "min":
        series = {e.metric_name: {r["seed"]: r["final_metric"] for r in ok}, **series}
    for key, by_seed in series.items():
        for seed, v in by_seed.items():
            others = [x for s, x in by_seed.items() if s != seed and x is not None and math.isfinite(x)]
            if v is None or len(others) < 2:
                continue
            med = statistics.median(others)
            if med > 0 and v > OUTLIER_RATIO * med:
                out.append(f"seed {seed}: {key} {fmt(v)} vs median {fmt(med)} of the other seeds")
    return out


def _entry(board: str, act: str, runs: list[dict[str, Any]]) -> Entry:
    first = runs[0]
    e = Entry(board, act, first["metric_name"], first["goal"])
    by_lr: dict[float | None, LrPoint] = {}
    for r in runs:
        p = by_lr.setdefault(r.get("lr"), LrPoint(r.get("lr")))
        p.seeds.append(r["seed"])
        if r["status"] == "ok" and r["final_metric"] is not None:
            p.test.append(r["final_metric"])
            if r.get("val_metric") is not None:
                p.val.append(r["val_metric"])
            if r["final_loss"] is not None:
                p.train_loss.append(r["final_loss"])
            if beats(r["final_metric"], r.get("threshold"), r["goal"]) is False:
                p.not_learned += 1
        else:
            p.not_ok += 1
            p.not_learned += 1
    e.lr_curve = sorted(by_lr.values(), key=lambda p: (p.lr is None, p.lr or 0.0))
    chosen, e.chosen_by = _choose_lr(e.lr_curve, e.goal)
    e.chosen_lr = chosen.lr
    e.runs = sorted((r for r in runs if r.get("lr") == chosen.lr), key=lambda r: r["seed"])
    thresholds = []
    for r in e.runs:
        e.seeds.append(r["seed"])
        e.diverged += r["status"] == "diverged"
        e.failed += r["status"] == "failed"
        for k, v in r.get("baselines", {}).items():
            e.baselines.setdefault(k, [])
            if v is not None:
                e.baselines[k].append(v)
        if r.get("threshold") is not None:
            thresholds.append(r["threshold"])
        if r["status"] == "ok" and r["final_metric"] is not None:
            e.by_seed[r["seed"]] = r["final_metric"]
            if r["best_metric"] is not None:
                e.best.append(r["best_metric"])
            if beats(r["final_metric"], r.get("threshold"), r["goal"]) is False:
                e.not_learned += 1
        if r["status"] != "failed":
            e.wall_s.append(r["wall_s"])
            e.train_s.append(r["train_s"])
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
        for k, v in r.get("metrics", {}).items():
            if v is not None:
                e.metrics[k].append(v)
    e.baselines = {k: mean(v) for k, v in e.baselines.items()}  # per-seed splits differ slightly: their mean
    e.threshold = mean(thresholds) if thresholds else None
    e.outliers = _outliers(e)
    return e


def rank_entries(entries: list[Entry], alpha: float = ALPHA) -> dict[tuple[str, str], float]:
    """Sort `entries` (learned first, by mean) and set each one's rank: the rank range of a ranked entry
    from the paired tests, "did not learn (k of n)" for the others. Returns the raw p-value of every pair of
    ranked entries (the Holm decisions are made on them)."""
    entries.sort(key=Entry.sort_key)
    ranked = [e for e in entries if e.learned]
    pvalues: dict[tuple[str, str], float] = {}
    for i, a in enumerate(ranked):
        for b in ranked[i + 1 :]:
            pvalues[(a.act, b.act)] = paired_p(a.by_seed, b.by_seed)[0]
    significant = holm(pvalues, alpha)
    k = len(ranked)
    position = {e.act: i for i, e in enumerate(ranked)}
    for e in ranked:
        better = worse = 0
        for a, b in significant:
            if e.act not in (a, b):
                continue
            other = b if a == e.act else a
            if position[other] < position[e.act]:
                better += 1
            else:
                worse += 1
        lo, hi = 1 + better, k - worse
        e.rank_range = (lo, hi)
        e.rank = str(lo) if lo == hi else f"tied {lo}-{hi}"
    for e in entries:
        if not e.learned:
            e.rank_range = None
            if e.values:
                e.rank = f"did not learn ({e.not_learned + e.diverged + e.failed} of {e.n})"
            else:
                e.rank = f"did not learn ({e.diverged} diverged, {e.failed} failed of {e.n})"
    return pvalues


def leaderboards(runs: list[dict[str, Any]]) -> dict[str, list[Entry]]:
    """leaderboard label -> entries, ranked (see the module docstring)."""
    grouped: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for r in runs:
        grouped[r.get("board") or r["task_label"]][r["act"]].append(_with_threshold(r))
    boards = {}
    for board in sorted(grouped):
        entries = [_entry(board, act, rs) for act, rs in grouped[board].items()]
        rank_entries(entries)
        boards[board] = entries
    return boards


def not_learned_by_act(boards: dict[str, list[Entry]]) -> dict[str, dict[str, int]]:
    """Per nonlinearity: runs at the chosen lrs, how many did not learn; and the same over every lr."""
    out: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for entries in boards.values():
        for e in entries:
            row = out[e.act]
            row["runs"] += e.n
            row["not_learned"] += e.not_learned + e.diverged + e.failed
            row["runs_all_lrs"] += sum(p.n for p in e.lr_curve)
            row["not_learned_all_lrs"] += sum(p.not_learned for p in e.lr_curve)
    return {k: dict(v) for k, v in out.items()}


def fmt(x: float | None, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{digits}g}"


def fmt_ci(e: Entry) -> str:
    """'0.9711 [0.9652, 0.977]' over seeds, '0.9711 (1 seed)', or '-'."""
    if not e.values:
        return "-"
    ci = e.ci
    if ci is None:
        return f"{fmt(e.mean)} (1 seed)"
    return f"{fmt(e.mean)} [{fmt(ci[0])}, {fmt(ci[1])}]"


def fmt_values_ci(values: list[float]) -> str:
    m = mean(values)
    if math.isnan(m):
        return "-"
    ci = t_interval(values)
    return f"{fmt(m)} (1 seed)" if ci is None else f"{fmt(m)} [{fmt(ci[0])}, {fmt(ci[1])}]"


def mib(xs: list[float]) -> str:
    m = mean(xs)
    return "-" if math.isnan(m) else f"{m / 2**20:.1f}"
