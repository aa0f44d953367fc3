"""The arena report: a self-contained HTML page (inline PNGs, no network, no external scripts) and Markdown.

Per leaderboard (a task configuration): the entries ranked by the rules of `nonlin.arena.summary` (lr chosen
on validation, test metric with its 95% interval and median, "did not learn" below the ranked ones, tie
groups from paired tests), the task's trivial baselines and the learned threshold as rows of the same table,
the whole lr curve (validation and test metric at every lr), and one figure: training loss against steps,
held-out metric against steps and against training seconds (baselines drawn as lines), and the lr curve.
Over all leaderboards: the rank matrix with the same tie groups, the runs that did not learn per
nonlinearity, time and memory, the sparsity task's accuracy against sparsity, and the theory numbers.
"""

from __future__ import annotations

import base64
import html
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from nonlin.arena import integrations
from nonlin.arena.acts import catalog_act
from nonlin.arena.store import Store, db_path
from nonlin.arena.summary import (
    ALPHA,
    OUTLIER_RATIO,
    SPIKE_RATIO,
    Entry,
    fmt,
    fmt_ci,
    fmt_values_ci,
    leaderboards,
    mean,
    mib,
    not_learned_by_act,
)

COLUMNS = (
    "rank",
    "nonlinearity",
    "metric [95% CI]",
    "median",
    "lr",
    "seeds",
    "did not learn",
    "diverged",
    "failed",
    "outlier seeds",
    "train s",
    "throughput",
    "run MiB",
    "sparsity",
    "dead units",
    "other",
)

RULES = (
    "Each nonlinearity's lr is chosen on the validation split (best mean over seeds, among the lrs where "
    "every seed finished), and its test metric is reported there over every seed: mean with a 95% t interval "
    "(one seed: no interval), and the median. A run learned when its test metric beats the task's threshold: "
    "the best trivial baseline moved the task's margin of the way to a perfect score; diverged and failed runs "
    "did not learn. Only entries whose every seed learned are ranked; the others are listed below them "
    "without a rank. Ranks come from paired comparisons by seed (same split, initialisation and batches): a "
    f"two-sided paired t-test for every pair of ranked entries, Holm's correction at {ALPHA:g} over the pairs "
    "of the leaderboard (a pair whose differences are all equal uses the sign test); an entry's rank range runs "
    "from 1 + the number of entries significantly better to K - the number significantly worse, written "
    "'tied 1-3' when it spans several ranks; fewer than 3 common seeds separate nothing. Outlier seeds: "
    f"a training-loss spike above {SPIKE_RATIO:g}x the first loss, or a loss-like number above "
    f"{OUTLIER_RATIO:g}x the median of the other seeds."
)

COSTS = (
    "Costs are measured after a warm-up: before the clock starts, each run does one forward and backward "
    "pass of a copy of its model (no optimizer step, no random numbers drawn), so one-time costs (lazy "
    "initialisation, first-call dispatch, allocator growth; the first run of a worker used to pay them) are "
    "outside the numbers. train s: seconds of training steps (evaluations excluded), throughput: items per "
    "second of those; run MiB: the worker's peak resident memory during training minus its resident memory "
    "after the model was built and warmed up (activations, gradients, optimizer state); every run uses one "
    "torch thread."
)


def _colors(acts: Sequence[str]) -> dict[str, Any]:
    cmap = plt.get_cmap("tab10" if len(acts) <= 10 else "tab20")
    return {a: cmap(i % cmap.N) for i, a in enumerate(acts)}


def _band(curves: list[list[tuple[int, float | None]]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean, min and max over seeds at the steps every seed reached (diverged runs stop early)."""
    steps = sorted(set.intersection(*(set(s for s, v in c if v is not None) for c in curves)))
    vals = np.array([[dict(c)[s] for s in steps] for c in curves], dtype=float)  # [seeds, steps]
    return np.array(steps), vals.mean(0), vals.min(0), vals.max(0)


def _series(e: Entry, curves: dict, key: str) -> list[list[tuple[int, float | None]]]:
    got = [curves.get(r["run_id"], {}).get(key) for r in e.runs]
    return [c for c in got if c and any(v is not None for _, v in c)]


def _baseline_lines(ax, e: Entry) -> None:
    styles = [":", "-.", (0, (1, 3)), (0, (5, 5))]
    for i, (name, v) in enumerate(sorted(e.baselines.items())):
        if v is not None and math.isfinite(v):
            ax.axhline(v, color="0.35", ls=styles[i % len(styles)], lw=1, label=f"baseline: {name} {fmt(v)}")
    if e.threshold is not None:
        ax.axhline(e.threshold, color="firebrick", ls="--", lw=1, label=f"learned threshold {fmt(e.threshold)}")


def _focus(ax, entries: list[Entry]) -> None:
    """Limit a linear metric axis to where the verdict is read: the final values at every lr, the best
    baseline and the threshold (a far baseline such as 8 bits of the uniform model, or the untrained step-0
    value, would squeeze them into a line; such lines stay in the legend)."""
    ref = entries[0]
    values = [v for e in entries for p in e.lr_curve for v in p.test]
    base = [v for v in ref.baselines.values() if v is not None and math.isfinite(v)]
    if base:
        values.append(max(base) if ref.goal == "max" else min(base))
    if ref.threshold is not None:
        values.append(ref.threshold)
    values = [v for v in values if math.isfinite(v)]
    if len(values) < 2 or max(values) == min(values):
        return
    lo, hi = min(values), max(values)
    pad = 0.08 * (hi - lo)
    ax.set_ylim(lo - pad, hi + pad)


def _plot_task(task: str, entries: list[Entry], curves: dict, colors: dict, path: Path) -> Path:
    metric = entries[0].metric_name
    names = sorted({s for e in entries for r in e.runs for s in curves.get(r["run_id"], {})})
    extra = sorted({s.split("/")[0] + "/" for s in names if "/" in s})
    rows = 2 + len(extra)
    fig, axes = plt.subplots(rows, 2, figsize=(12, 3.7 * rows), squeeze=False)
    log_metric = metric.endswith("mse")
    ref = entries[0]
    for e in entries:
        c = colors[e.act]
        mark = dict(marker="o", ms=3)
        for ax, key in ((axes[0][0], "loss"), (axes[0][1], metric)):
            got = _series(e, curves, key)
            if got:
                steps, m, lo, hi = _band(got)
                if len(steps):
                    ax.plot(steps, m, color=c, label=e.act, lw=1.4, **(mark if len(steps) <= 12 else {}))
                    ax.fill_between(steps, lo, hi, color=c, alpha=0.15, lw=0)
        # held-out metric against training seconds: each seed's evaluations at its own clock, mean over seeds
        times, values = _series(e, curves, "train_s"), _series(e, curves, metric)
        if times and values and len(times) == len(values):
            t = [dict(x) for x in times]
            v = [dict(x) for x in values]
            steps = sorted(set.intersection(*(set(a) & set(b) for a, b in zip(t, v, strict=True))))
            if steps:
                ts = np.mean([[a[s] for s in steps] for a in t], axis=0)
                vs = np.mean([[b[s] for s in steps] for b in v], axis=0)
                axes[1][0].plot(ts, vs, color=c, label=e.act, lw=1.4, **mark)
        # the lr curve: validation (dashed) and test (solid) mean over seeds at every lr
        pts = [p for p in e.lr_curve if p.lr is not None and p.test]
        if pts:
            lrs = [p.lr for p in pts]
            axes[1][1].plot(lrs, [mean(p.test) for p in pts], color=c, label=e.act, lw=1.4, **mark)
            val = [(p.lr, mean(p.val)) for p in pts if p.val]
            if val:
                axes[1][1].plot(*zip(*val, strict=True), color=c, lw=1, ls="--", alpha=0.8)
            if e.chosen_lr is not None and e.values:
                axes[1][1].plot([e.chosen_lr], [e.mean], color=c, marker="*", ms=12, ls="none")
        for row, prefix in enumerate(extra, start=2):
            for col, key in enumerate(("loss", metric)):
                got = _series(e, curves, prefix + key)
                if got:
                    steps, m, lo, hi = _band(got)
                    if len(steps):
                        axes[row][col].plot(steps, m, color=c, label=e.act, lw=1.4)
                        axes[row][col].fill_between(steps, lo, hi, color=c, alpha=0.15, lw=0)
    for ax in (axes[0][1], axes[1][0], axes[1][1]):
        _baseline_lines(ax, ref)
        if not log_metric:
            _focus(ax, entries)
    titles = {
        (0, 0): ("training loss", "step"),
        (0, 1): (f"held-out {metric} (test split)", "step"),
        (1, 0): (f"held-out {metric} vs training time", "training seconds (evaluations excluded)"),
        (1, 1): (f"{metric} vs lr: test (solid), validation (dashed), chosen lr (star)", "learning rate"),
    }
    for row, prefix in enumerate(extra, start=2):
        titles[(row, 0)] = (f"[{prefix.rstrip('/')}] training loss", "step")
        titles[(row, 1)] = (f"[{prefix.rstrip('/')}] held-out {metric}", "step")
    for (r, col), (title, xlabel) in titles.items():
        ax = axes[r][col]
        ax.set_title(f"{task}: {title}", fontsize=9)
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3)
        if (r, col) == (1, 1):
            ax.set_xscale("log")
        if title.endswith("training loss") or (log_metric and (r, col) != (0, 0)):
            ax.set_yscale("log")
    axes[0][0].set_yscale("log")
    axes[0][0].legend(fontsize=7, ncol=2)
    axes[0][1].legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path


def _plot_costs(boards: dict[str, list[Entry]], acts: list[str], colors: dict, path: Path) -> Path:
    tasks = list(boards)
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.8))
    width = 0.8 / max(1, len(acts))
    for i, act in enumerate(acts):
        by_task = {t: next((e for e in boards[t] if e.act == act), None) for t in tasks}
        x = np.arange(len(tasks)) + i * width
        train = [mean(e.train_s) if e else math.nan for e in by_task.values()]
        mem = [mean(e.run_mem) / 2**20 if e else math.nan for e in by_task.values()]
        axes[0].bar(x, train, width, color=colors[act], label=act)
        axes[1].bar(x, mem, width, color=colors[act], label=act)
    titles = ("training seconds per run (after warm-up)", "memory of a run (MiB, peak RSS - RSS after warm-up)")
    for ax, title in zip(axes, titles, strict=True):
        ax.set_xticks(np.arange(len(tasks)) + 0.4 - width / 2, tasks, rotation=20, fontsize=8)
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3, axis="y")
    axes[0].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path


def _plot_sparsity(boards: dict[str, list[Entry]], curves: dict, colors: dict, path: Path) -> Path | None:
    """The sparsity task's accuracy against activation sparsity (one point per run at the chosen lr) and,
    when its sparsity was tracked, sparsity over training. None when the sparsity task did not run."""
    entries = [e for task, es in boards.items() if task.split(":")[0] == "sparsity" for e in es]
    pts = [(e, r) for e in entries for r in e.runs if r["sparsity"] is not None and r["final_metric"] is not None]
    if not pts:
        return None
    over_training = {e.act: _series(e, curves, "sparsity") for e in entries}
    over_training = {k: v for k, v in over_training.items() if v}
    fig, axes = plt.subplots(1, 2 if over_training else 1, figsize=(12 if over_training else 6.5, 4), squeeze=False)
    ax = axes[0][0]
    for e, r in pts:
        ax.scatter(r["sparsity"], r["final_metric"], color=colors[e.act], s=25)
    for e in entries:
        ax.scatter([], [], color=colors[e.act], label=e.act)
    _baseline_lines(ax, entries[0])
    task = entries[0].task
    ax.set(
        xlabel="activation sparsity (share of exact zeros, test set)",
        ylabel=entries[0].metric_name,
        title=f"{task}: {entries[0].metric_name} vs sparsity (one point per run, chosen lr)",
    )
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    if over_training:
        ax2 = axes[0][1]
        for act, got in over_training.items():
            steps, m, lo, hi = _band(got)
            ax2.plot(steps, m, color=colors[act], label=act)
            ax2.fill_between(steps, lo, hi, color=colors[act], alpha=0.15, lw=0)
        ax2.set(xlabel="step", ylabel="sparsity", title=f"{task}: sparsity over training")
        ax2.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return path


def _other(e: Entry) -> str:
    return ", ".join(f"{k} {fmt(mean(v))}" for k, v in sorted(e.extras.items())) or "-"


def _lr_text(e: Entry) -> str:
    if e.chosen_lr is None:
        return "-"
    edge = " (grid edge)" if e.lr_at_edge else ""
    return f"{e.chosen_lr:.3g}{edge}"


def _row(e: Entry, hooks: Sequence[str] = ()) -> list[str]:
    thr = mean(e.throughput)
    return [
        e.rank,
        e.act,
        fmt_ci(e),
        fmt(e.median),
        _lr_text(e),
        str(e.n),
        str(e.not_learned + e.diverged + e.failed),
        str(e.diverged),
        str(e.failed),
        "; ".join(e.outliers) or "-",
        fmt(mean(e.train_s), 3),
        "-" if math.isnan(thr) else f"{thr:,.0f} {e.throughput_unit}",
        mib(e.run_mem),
        fmt(mean(e.sparsity), 3),
        fmt(mean(e.dead_rate), 3),
        _other(e),
        *(fmt_values_ci(e.metrics.get(h, [])) for h in hooks),
    ]


def _baseline_rows(entries: list[Entry], width: int) -> list[list[str]]:
    """Rows under the entries: each trivial baseline and the learned threshold, in the metric column."""
    ref = entries[0]
    rows = [["baseline", name, fmt(v), *([""] * (width - 3))] for name, v in sorted(ref.baselines.items())]
    if ref.threshold is not None:
        rows.append(
            [
                "threshold",
                f"learned: {'above' if ref.goal == 'max' else 'below'} this",
                fmt(ref.threshold),
                *([""] * (width - 3)),
            ]
        )
    elif not ref.baselines:
        rows.append(["baseline", "none declared by the task", "-", *([""] * (width - 3))])
    return rows


def _lr_table(entries: list[Entry]) -> tuple[list[str], list[list[str]]] | None:
    lrs = sorted({p.lr for e in entries for p in e.lr_curve if p.lr is not None})
    if not lrs:
        return None
    header = ["nonlinearity", "chosen by", *(f"lr {lr:.3g}" for lr in lrs)]
    rows = []
    for e in entries:
        cells = [e.act, e.chosen_by]
        by_lr = {p.lr: p for p in e.lr_curve}
        for lr in lrs:
            p = by_lr.get(lr)
            if p is None:
                cells.append("-")
                continue
            star = " *" if lr == e.chosen_lr else ""
            val = f"val {fmt(mean(p.val))}" if p.val else "val -"
            bad = f", {p.not_learned} of {p.n} did not learn" if p.not_learned else ""
            cells.append(f"{val} / test {fmt(mean(p.test))}{bad}{star}")
        rows.append(cells)
    return header, rows


def _theory_rows(acts: list[str]) -> tuple[list[str], dict[str, dict[str, str]]]:
    if integrations.theory_module() is None:
        return [], {}
    rows: dict[str, dict[str, str]] = {}
    for label in acts:
        try:
            act = catalog_act(*_split(label))
        except ValueError:
            continue  # a custom callable: no theory
        nums = integrations.theory_numbers(act)
        if nums:
            rows[label] = {k: v if isinstance(v, str) else fmt(v, 5) for k, v in nums.items()}
    cols = sorted({k for r in rows.values() for k in r}, key=list(integrations.THEORY_COLUMNS).index)
    return cols, rows


def _split(label: str) -> tuple[str, dict[str, float]]:
    from nonlin.arena.acts import parse_params

    base, _, rest = label.partition(":")
    return base, parse_params(label, rest)


def build_report(location: str | Path, out: str | Path | None = None) -> dict[str, Path]:
    """Write report.html, report.md and the PNGs for the results in `location`; return their paths."""
    path = db_path(location)
    with Store(path, create=False) as store:
        runs, curves, meta, sweeps = store.runs(), store.curves(), store.meta(), store.sweeps()
        planned = store.planned()
    if not runs:
        raise ValueError(f"{path} holds no finished runs yet: nothing to report")
    out = Path(out) if out is not None else path.parent
    out.mkdir(parents=True, exist_ok=True)
    boards = leaderboards(runs)
    acts = list(dict.fromkeys(r["act"] for r in sorted(runs, key=lambda r: r["started_at"])))
    colors = _colors(acts)
    images: dict[str, Path] = {}
    for task, entries in boards.items():
        name = task.replace(":", "_").replace(",", "_").replace("=", "-")
        images[task] = _plot_task(task, entries, curves, colors, out / f"arena_{name}.png")
    images["costs"] = _plot_costs(boards, acts, colors, out / "arena_costs.png")
    sparse = _plot_sparsity(boards, curves, colors, out / "arena_sparsity.png")
    if sparse:
        images["sparsity_scatter"] = sparse
    theory_cols, theory = _theory_rows(acts)
    descriptions = _descriptions(runs)
    missing = len({p["run_id"] for p in planned} - {r["run_id"] for r in runs})
    grids = sorted({str(s["spec"].get("lr_grid")) for s in sweeps})
    facts = {
        "database": str(path),
        "schema": f"version {meta.get('schema_version')}, created by {meta.get('created_by')}",
        "runs": f"{len(runs)} stored ({sum(r['status'] == 'ok' for r in runs)} ok, "
        f"{sum(r['status'] == 'diverged' for r in runs)} diverged, {sum(r['status'] == 'failed' for r in runs)} failed)"
        + (f", {missing} planned runs not finished (nonlin arena --resume)" if missing else ""),
        "lr grid": "; ".join("not tuned (each task's own lr)" if g == "None" else g for g in grids),
        "compute": f"{sum(r['wall_s'] for r in runs):.1f} s of run time over {len(sweeps)} sweep(s); "
        f"hosts {', '.join(sorted({r['host'] for r in runs}))}; backends {', '.join(sorted({r['backend'] for r in runs}))}",
        "versions": ", ".join(sorted({f"{k} {v}" for r in runs for k, v in r["versions"].items()})),
        "generated": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
    }
    for task_name, info in sorted({r["task"]: tuple(sorted(r["info"].items())) for r in runs if r["info"]}.items()):
        facts[f"{task_name} data"] = ", ".join(f"{k} {v}" for k, v in info)
    hooks = sorted({k for r in runs for k in r["metrics"]})
    facts.update(_hook_facts(runs, hooks))
    failures = [r for r in runs if r["status"] != "ok"]
    summary = not_learned_by_act(boards)
    args = (boards, images, facts, theory_cols, theory, descriptions, failures, acts, summary, hooks)
    (out / "report.html").write_text(_html(*args))
    (out / "report.md").write_text(_markdown(*args))
    return {"html": out / "report.html", "markdown": out / "report.md", **{f"png:{k}": v for k, v in images.items()}}


def _hook_facts(runs: list[dict], hooks: Sequence[str]) -> dict[str, str]:
    """What the bundled metric-hook columns mean, and which runs a hook skipped or failed on (and why)."""
    from nonlin.arena.metrics import DEFAULT_METRICS

    out = {}
    for m in DEFAULT_METRICS:
        if m.description and any(h == m.name or h.startswith(m.name + ".") for h in hooks):
            out[f"{m.name} columns"] = m.description
    notes: dict[str, list[str]] = {}
    for r in runs:
        for line in (r["error"] or "").splitlines() if r["status"] == "ok" else ():
            if line.startswith("metric "):
                notes.setdefault(line.removeprefix("metric "), []).append(f"{r['board']} × {r['act']}")
    if notes:
        out["metric hooks not measured"] = "; ".join(
            f"{why} ({len(where)} runs: {', '.join(sorted(set(where)))})" for why, where in sorted(notes.items())
        )
    return out


def _descriptions(runs: list[dict]) -> dict[str, str]:
    from nonlin.arena.tasks import make_task

    out = {}
    for r in runs:
        board = r["board"]
        if board in out:
            continue
        try:
            task = make_task(r["task"])
            out[board] = type(task).description
            margin = f"; learned: beats the best baseline by {type(task).learn_margin:.0%} of its gap to perfect"
        except ValueError:
            out[board], margin = "custom task", ""
        cfg = ", ".join(f"{k}={v}" for k, v in r["task_config"].items() if k != "lr")
        out[board] += (
            f" (metric: {r['metric_name']}, {'higher' if r['goal'] == 'max' else 'lower'} is better{margin}; {cfg})"
        )
    return out


def _img(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<img class="plot" alt="{html.escape(path.stem)}" src="data:image/png;base64,{data}">'


_CSS = (
    "body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1400px}"
    "table{border-collapse:collapse;margin:.6em 0}td,th{border:1px solid #ccc;padding:3px 7px;font-size:13px}"
    "th{background:#f3f3f3}tr.first td{background:#eef8ee}tr.nolearn td{color:#888}"
    "tr.base td{background:#f7f7fb;font-style:italic}img.plot{max-width:100%}#loadcheck{display:none}"
    ".facts td:first-child{font-weight:bold}.err{color:#a00;font-size:12px;white-space:pre-wrap}"
)

# Counts the images the browser decoded into data attributes of a hidden element (the headless-browser
# test reads them back from the DOM); nothing is shown on the page.
_CHECK = (
    "<script>window.addEventListener('load',function(){var i=document.images,ok=0;"
    "for(var k=0;k<i.length;k++){if(i[k].complete&&i[k].naturalWidth>0)ok++;}"
    "var d=document.getElementById('loadcheck');d.setAttribute('data-images',i.length);"
    "d.setAttribute('data-decoded',ok);});</script>"
)


def _table(header: Sequence[str], rows: list[list[str]], classes: Sequence[str] = ()) -> str:
    h = "".join(f"<th>{html.escape(c)}</th>" for c in header)
    body = []
    for i, row in enumerate(rows):
        cls = f" class='{classes[i]}'" if i < len(classes) and classes[i] else ""
        body.append(f"<tr{cls}>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>")
    return f"<table><tr>{h}</tr>{''.join(body)}</table>"


def _rank_matrix(boards: dict[str, list[Entry]], acts: list[str], summary: dict) -> list[list[str]]:
    rows = []
    for act in acts:
        row = [act]
        for entries in boards.values():
            e = next((e for e in entries if e.act == act), None)
            row.append("-" if e is None else e.rank)
        s = summary.get(act, {})
        row.append(f"{s.get('not_learned', 0)} of {s.get('runs', 0)}")
        row.append(f"{s.get('not_learned_all_lrs', 0)} of {s.get('runs_all_lrs', 0)}")
        rows.append(row)
    return rows


MATRIX_TAIL = ("did not learn (chosen lr)", "did not learn (every lr)")


def _board_rows(entries: list[Entry], hooks: Sequence[str]) -> tuple[list[str], list[list[str]], list[str]]:
    hooks = [h for h in hooks if any(e.metrics.get(h) for e in entries)]  # a hook with no value here: no column
    header = [*COLUMNS, *hooks]
    rows = [_row(e, hooks) for e in entries]
    classes = ["first" if e.rank == "1" else "" if e.learned else "nolearn" for e in entries]
    base = _baseline_rows(entries, len(header))
    return header, rows + base, classes + ["base"] * len(base)


def _html(boards, images, facts, theory_cols, theory, descriptions, failures, acts, summary, hooks) -> str:
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>nonlin arena</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>nonlin arena</h1>",
        f"<p>Nonlinearities: {html.escape(', '.join(acts))}. Leaderboards: {html.escape(', '.join(boards))}.</p>",
        "<table class='facts'>"
        + "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(v)}</td></tr>" for k, v in facts.items())
        + "</table>",
        "<p id='loadcheck'></p>",
        f"<p><b>How to read the ranks.</b> {html.escape(RULES)}</p>",
        "<h2>Summary: rank of each nonlinearity per task</h2>",
        "<p>The same rank groups as the leaderboards; 'did not learn' entries have no rank. The last two "
        "columns count the runs that did not learn (incl. diverged and failed), at the chosen lrs and over "
        "the whole lr grid.</p>",
        _table(["nonlinearity", *boards, *MATRIX_TAIL], _rank_matrix(boards, acts, summary)),
    ]
    for task, entries in boards.items():
        parts.append(f"<h2 id='task-{html.escape(task)}'>{html.escape(task)}</h2>")
        parts.append(f"<p>{html.escape(descriptions.get(task, ''))}</p>")
        header, rows, classes = _board_rows(entries, hooks)
        parts.append(_table(header, rows, classes))
        lr = _lr_table(entries)
        if lr and len(lr[0]) > 3:
            parts.append("<p>The lr curve: mean validation / test metric at each lr (* chosen).</p>")
            parts.append(_table(*lr))
        parts.append(_img(images[task]))
    parts.append("<h2>Time and memory</h2>" + f"<p>{html.escape(COSTS)}</p>" + _img(images["costs"]))
    if "sparsity_scatter" in images:
        parts.append("<h2>Accuracy and activation sparsity</h2>" + _img(images["sparsity_scatter"]))
    parts.append("<h2>Theory (nonlin.theory, at the init it prescribes)</h2>")
    if theory:
        parts.append(
            _table(
                ["nonlinearity", *theory_cols], [[a, *(r.get(c, "-") for c in theory_cols)] for a, r in theory.items()]
            )
        )
    else:
        parts.append("<p>nonlin.theory is not installed in this nonlin: no theory numbers.</p>")
    if failures:
        parts.append(
            "<h2>Diverged and failed runs</h2><table><tr><th>task</th><th>nonlinearity</th><th>lr</th>"
            "<th>seed</th><th>status</th><th>why</th></tr>"
        )
        for r in failures:
            why = (r["error"] or "").strip().splitlines()[-1:] or [""]
            parts.append(
                f"<tr><td>{html.escape(r['board'])}</td><td>{html.escape(r['act'])}</td><td>{fmt(r['lr'], 3)}</td>"
                f"<td>{r['seed']}</td><td>{r['status']}</td><td class='err'>{html.escape(why[0])}</td></tr>"
            )
        parts.append("</table>")
    parts.append(
        "<p>best: mean over seeds of the best test evaluation during training (not used for ranking); "
        "sparsity: share of exact zeros at the nonlinearity outputs on held-out data; dead units: share of "
        "units zero on every held-out example (nonlin.probe).</p>"
    )
    parts.append(_CHECK + "</body></html>")
    return "\n".join(parts)


def _md_table(header: Sequence[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(c.replace("|", "/") for c in row) + " |" for row in rows]
    return out


def _markdown(boards, images, facts, theory_cols, theory, descriptions, failures, acts, summary, hooks) -> str:
    lines = ["# nonlin arena", ""]
    lines += [f"- **{k}**: {v}" for k, v in facts.items()]
    lines += ["", f"**How to read the ranks.** {RULES}", "", "## Summary", ""]
    lines += _md_table(["nonlinearity", *boards, *MATRIX_TAIL], _rank_matrix(boards, acts, summary))
    for task, entries in boards.items():
        lines += ["", f"## {task}", "", descriptions.get(task, ""), ""]
        header, rows, _ = _board_rows(entries, hooks)
        lines += _md_table(header, rows)
        lr = _lr_table(entries)
        if lr and len(lr[0]) > 3:
            lines += ["", "lr curve (mean validation / test metric, * chosen):", ""]
            lines += _md_table(*lr)
        lines += ["", f"![{task}]({images[task].name})"]
    lines += ["", "## Time and memory", "", COSTS, "", f"![costs]({images['costs'].name})"]
    if "sparsity_scatter" in images:
        lines += ["", "## Accuracy and activation sparsity", "", f"![sparsity]({images['sparsity_scatter'].name})"]
    if theory:
        lines += ["", "## Theory", ""]
        lines += _md_table(
            ["nonlinearity", *theory_cols], [[a, *(r.get(c, "-") for c in theory_cols)] for a, r in theory.items()]
        )
    if failures:
        lines += ["", "## Diverged and failed runs", ""]
        for r in failures:
            why = ((r["error"] or "").strip().splitlines()[-1:] or [""])[0]
            lines.append(f"- {r['board']} × {r['act']} lr {fmt(r['lr'], 3)} seed {r['seed']}: {r['status']} ({why})")
    return "\n".join(lines) + "\n"
